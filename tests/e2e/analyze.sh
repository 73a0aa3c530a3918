#!/bin/sh
# analyze against independent figures: PyTorch's own key_averages() table for
# the recorded fixtures, and tests/oracle.py (a deliberately simple second
# computation) for every shared real trace, the sample data and the hand-made
# fixtures (tests/fixtures/*.json).
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing"; exit 77; }
fail=0
for t in "$top_srcdir"/tests/fixtures/*.json.gz; do
    exp="${t%.json.gz}.expected.json"
    "$py" "$top_srcdir/tests/check_analyze.py" "$tool" "$t" "$exp" || fail=1
done
for t in "$top_srcdir"/tests/fixtures/*.json; do
    "$py" "$top_srcdir/tests/check_analyze.py" "$tool" "$t" || fail=1
done
[ -d "$SHARED/traces" ] || echo "note: $SHARED/traces not found; shared traces not checked"
for t in "$SHARED"/traces/*; do
    [ -e "$t" ] || continue
    case "$t" in *not_a_trace*) continue ;; esac
    "$py" "$top_srcdir/tests/check_analyze.py" "$tool" "$t" || fail=1
done
for t in "$top_srcdir"/data/*.json.gz; do
    "$py" "$top_srcdir/tests/check_analyze.py" "$tool" "$t" || fail=1
done
exit $fail
