#!/bin/sh
# Peak RSS per rank of a job of thousands of tiny ranks, analyze and the
# explorer (tests/check_ranks_memory.py); no timing is asserted.
set -u
py=$(command -v python3) || { echo "python3 missing"; exit 77; }
# under ASan every freed block waits in a quarantine of up to 256 MB: RSS
# then says nothing of what a rank holds (the plain build checks it)
if nm "$top_builddir/torch2pprof" 2>/dev/null | grep -q -e __asan_init; then
    echo "sanitizer build: peak RSS is the sanitizer's, not ours: skipped"
    exit 77
fi
exec "$py" "$top_srcdir/tests/check_ranks_memory.py" "$top_builddir/torch2pprof" \
    "$top_builddir/torch2pprof-tui"
