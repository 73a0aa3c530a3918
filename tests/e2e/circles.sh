#!/bin/sh
# No two modules of core/ or of ui/ depend on each other, by #include or by
# a call (issue 23): tests/circles.py over the sources and the objects of
# this build. Its self-test first: trees with circles must fail it.
set -u
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
"$py" "$top_srcdir/tests/circles.py" --self-test || exit 1
"$py" "$top_srcdir/tests/circles.py" --srcdir "$top_srcdir" --builddir "$top_builddir"
