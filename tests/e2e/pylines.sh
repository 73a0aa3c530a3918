#!/bin/sh
# Python source lines against tests/check_pylines.py's own computation from
# the events: analyze --by-line --json, go tool pprof -lines, and pprof -list
# forward -source_path tests/fixtures/pysrc on the traces with Python frames
# (the torch 1.13 with_stack fixture, the hand-made ones in both forms, the
# shared tb_resnet50_w0 with its Call stacks). Fails, saying so, without python3.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
src="$top_srcdir/tests/fixtures/pysrc"
fail=0
for t in "$top_srcdir"/tests/fixtures/pystack_train.json.gz \
         "$top_srcdir"/tests/fixtures/pystack_calls.json \
         "$top_srcdir"/tests/fixtures/pyfunc_frames.json; do
    "$py" "$top_srcdir/tests/check_pylines.py" "$tool" "$t" "$src" forward || fail=1
done
t="$SHARED/traces/tb_resnet50_w0.json.gz"
if [ -e "$t" ]; then
    "$py" "$top_srcdir/tests/check_pylines.py" "$tool" "$t" || fail=1
else
    echo "note: $t not found; not checked"
fi
# --no-python: no lines, and the operators-only profile
out=$("$tool" analyze --by-line --no-python "$top_srcdir/tests/fixtures/pystack_calls.json") || fail=1
echo "$out" | grep -q "no Python frames with a file" || { echo "--no-python still lists lines"; fail=1; }
exit $fail
