#!/bin/sh
# Memory figures (issue 14) against TensorBoard's memory view: analyze --json
# on traces with [memory] events vs the figures its plugin computed on the same
# files (tests/fixtures/*.tb_memory.json, from tests/reference/tb_memory.py).
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
F="$top_srcdir/tests/fixtures"
S="$SHARED/traces"
fail=0
"$py" "$top_srcdir/tests/check_memory.py" "$tool" "$F/cnn_memory.json.gz" \
    "$F/cnn_memory.tb_memory.json" || fail=1
# the Tree's memory columns (Enter in the Memory view) against analyze --json
"$py" "$top_srcdir/tests/check_tree_memory.py" "$tool" "$top_builddir/torch2pprof-tui" \
    "$F/cnn_memory.json.gz" || fail=1
if [ -f "$S/tb_resnet50_w0.json.gz" ]; then
    "$py" "$top_srcdir/tests/check_memory.py" "$tool" "$S/tb_resnet50_w0.json.gz" \
        "$F/tb_resnet50_w0.tb_memory.json" || fail=1
    "$py" "$top_srcdir/tests/check_tree_memory.py" "$tool" "$top_builddir/torch2pprof-tui" \
        "$S/tb_resnet50_w0.json.gz" 4 || fail=1
else
    echo "note: $S not found; tb_resnet50_w0 not checked"
fi
exit $fail
