#!/bin/sh
# Text from a hostile trace (issue 16, defects 1 and 5): terminal controls
# and bytes that are not UTF-8 in names, categories, labels, step numbers,
# Python frames and file names. Every text output (analyze and its sections,
# messages, torch2pprof-tui --replay --print) shows them visibly with its
# columns in line; --json and pprof strings are valid UTF-8. The checks are
# in tests/check_text.py; the input is tests/bad/inputs/hostile_text.json
# (also a fuzz seed).
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}"
py=$(command -v python3) || { echo "python3 missing: cannot run (./setup.sh --test installs it)"; exit 1; }
exec "$py" "$top_srcdir/tests/check_text.py" "$top_builddir/torch2pprof" \
    "$top_builddir/torch2pprof-tui" "$top_srcdir/tests/bad/inputs/hostile_text.json"
