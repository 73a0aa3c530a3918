#!/bin/sh
# Peak RSS per rank of a job of thousands of tiny ranks, analyze and the
# explorer (tests/check_ranks_memory.py); no timing is asserted.
set -u
py=$(command -v python3) || { echo "python3 missing"; exit 77; }
exec "$py" "$top_srcdir/tests/check_ranks_memory.py" "$top_builddir/torch2pprof" \
    "$top_builddir/torch2pprof-tui"
