#!/bin/sh
# HTA's GPU analyses against HTA's own figures: every fixture of
# tests/fixtures/hta/ (recorded by tests/fixtures/hta/record.py from HTA run
# on the shared traces) must give HTA's figures on the same events in ns
# (durations within 1 us per row, counts exact); on traces in whole
# microseconds also HTA's figures on the file as is. Then the window, the
# options and the text section.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
# every check here reads the shared traces: without them a note and a skip
[ -d "$SHARED/traces" ] || { echo "note: $SHARED/traces not found (./setup.sh --test installs it); skipped"; exit 77; }
fail=0
n=0
for fx in "$top_srcdir"/tests/fixtures/hta/*.json; do
    name=$(basename "$fx" .json)
    t=
    for c in "$SHARED/traces/$name.json.gz" "$SHARED/traces/$name.pt.trace.json.gz" "$SHARED/traces/$name.json"; do
        [ -e "$c" ] && t=$c && break
    done
    [ -n "$t" ] || { echo "FAIL: no trace for fixture $fx"; fail=1; continue; }
    "$py" "$top_srcdir/tests/check_hta.py" "$tool" "$fx" "$t" --us || fail=1
    n=$((n + 1))
done
[ "$n" -ge 5 ] || { echo "FAIL: only $n HTA fixtures"; fail=1; }

t="$SHARED/traces/ns_resolution_rank0.pt.trace.json.gz"
# the text section says which window it used; --step's scope replaces HTA's
"$tool" analyze "$t" > hta.out 2>&1 || fail=1
grep -q "^GPU (HTA's analyses)" hta.out && grep -q "^Window: *HTA's: 5 steps less the last" hta.out ||
    { echo "FAIL: analyze's GPU section or its window"; sed -n '/^GPU/,$p' hta.out; fail=1; }
"$tool" analyze --json --step 102 "$t" > hta.json &&
"$py" - hta.json <<'PYEOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
w = d["gpu_window"]
ok = w["kind"] == "scope" and d["temporal"]["kernel_ns"] > 0 and d["launch"]["count"] > 0
print("%s: --step 102: GPU window %s, %d launches" % ("ok" if ok else "FAIL", w, d["launch"]["count"]))
sys.exit(0 if ok else 1)
PYEOF
# the cutoffs are options: 0 us makes every non-zero delay long
"$tool" analyze --json --launch-delay-cutoff 0 --runtime-cutoff 0 --kernel-wait 0 "$t" > hta.json &&
"$py" - hta.json <<'PYEOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
l = d["launch"]
kw = sum(s["kernel_wait_ns"] for s in d["idle"])
ok = (l["delay_cutoff_ns"] == 0 and l["runtime_cutoff_ns"] == 0 and kw == 0
      and l["runtime_outlier_count"] == l["count"] and l["long_delay_count"] > 0)
print("%s: cutoffs 0: %d of %d long delays, %d runtime outliers, kernel wait %d ns"
      % ("ok" if ok else "FAIL", l["long_delay_count"], l["count"], l["runtime_outlier_count"], kw))
sys.exit(0 if ok else 1)
PYEOF
"$tool" analyze --launch-delay-cutoff x "$t" > /dev/null 2>&1
[ $? -eq 1 ] || { echo "FAIL: --launch-delay-cutoff x accepted"; fail=1; }
# a trace without GPU events has no GPU section, and JSON still has the keys
"$tool" analyze "$SHARED/traces/x_events_only.json.gz" > hta.out 2>&1 || fail=1
! grep -q "^GPU (HTA" hta.out || { echo "FAIL: GPU section without GPU events"; fail=1; }
# the GPU view under a step scope: the scoped model's window holds only the
# events it has nodes for (it crashed on every step but the last)
tui="$top_builddir/torch2pprof-tui"
for st in 5 6 9; do
    "$tui" --replay "" --print --view gpu --step $st "$top_srcdir/data/resnet50_gpu.json.gz" > hta.out 2>&1
    rc=$?
    [ $rc -eq 0 ] && grep -q "stream" hta.out ||
        { echo "FAIL: GPU view on step $st: exit $rc"; fail=1; }
done
"$tui" --replay "]" --print --view gpu "$top_srcdir/data/resnet50_gpu.json.gz" > hta.out 2>&1 ||
    { echo "FAIL: ] in the GPU view: exit $?"; fail=1; }
# sequences under an operator whose calls the model left out (Python frames
# under --no-python): left out, no crash
"$tool" analyze --no-python --sequence-op nn.Module "$top_srcdir/tests/fixtures/tb/modules_train.json.gz" > hta.out 2>&1 ||
    { echo "FAIL: --no-python --sequence-op nn.Module: exit $?"; fail=1; }
rm -f hta.out hta.json
exit $fail
