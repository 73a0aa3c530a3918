#!/bin/sh
# analyze and convert over one job's ranks (a directory or several traces),
# checked by tests/check_ranks.py against single-file analyze, tests/oracle.py
# and go tool pprof. The ranks are made in a temp dir from a shared trace.
set -u
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
# every check here reads the shared traces: without them a note and a skip
[ -d "$SHARED/traces" ] || { echo "note: $SHARED/traces not found (./setup.sh --test installs it); skipped"; exit 77; }
exec "$py" "$top_srcdir/tests/check_ranks.py" "$top_builddir/torch2pprof" "$SHARED"
