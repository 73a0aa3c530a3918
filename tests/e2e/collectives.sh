#!/bin/sh
# The job report's collectives (each matched call, each rank's wait and the
# "By collective" table) against tests/check_collectives.py's second
# computation from the trace JSON of jobs made from a real NCCL trace.
set -u
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
# every check here reads the shared traces: without them a note and a skip
[ -d "$SHARED/traces" ] || { echo "note: $SHARED/traces not found (./setup.sh --test installs it); skipped"; exit 77; }
exec "$py" "$top_srcdir/tests/check_collectives.py" "$top_builddir/torch2pprof" "$SHARED"
