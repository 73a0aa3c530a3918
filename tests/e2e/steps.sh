#!/bin/sh
# Steps against TensorBoard's own plugin: every shared trace with a recorded
# fixture (tests/fixtures/tb_steps/, from tests/record_tb_steps.py) must give
# the plugin's step windows, roles, overlap and averages. And early Kineto's
# capitalised categories must attribute GPU work like modern ones.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing"; exit 77; }
[ -d "$SHARED/traces" ] || { echo "$SHARED/traces not found"; exit 77; }
fail=0
n=0
for fx in "$top_srcdir"/tests/fixtures/tb_steps/*.json; do
    name=$(basename "$fx" .json)
    t=
    for c in "$SHARED/traces/$name.json.gz" "$SHARED/traces/$name.json"; do
        [ -e "$c" ] && t=$c && break
    done
    [ -n "$t" ] || { echo "FAIL: no trace for fixture $fx"; fail=1; continue; }
    "$py" "$top_srcdir/tests/check_steps.py" "$tool" "$fx" "$t" || fail=1
    n=$((n + 1))
done
[ "$n" -ge 9 ] || { echo "FAIL: only $n step fixtures"; fail=1; }

# tb_resnet50_w0 (PyTorch 1.8, "Kernel"/"Runtime"/"Operator"): its 8,772
# kernels sit under the operators that launched them
"$tool" analyze --json -top 0 "$SHARED/traces/tb_resnet50_w0.json.gz" > steps.json &&
"$py" - steps.json <<'PYEOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
k = [o for o in d["ops"] if o["category"] == "kernel"]
calls = sum(o["count"] for o in k)
dev_self = sum(o["device_self_ns"] for o in d["ops"] if o["category"] == "cpu_op")
cats = {c["name"] for c in d["categories"]}
ok = (calls == 8772 and d["gpu_unattributed_events"] == 0 and d["gpu_events"] == 9096
      and dev_self == d["gpu_ns"] and "Kernel" not in cats and "Operator" not in cats)
print("%s: tb_resnet50_w0: %d kernels, %d GPU events unattributed, operators' device self "
      "%d of %d ns, categories %s" % ("ok" if ok else "FAIL", calls,
      d["gpu_unattributed_events"], dev_self, d["gpu_ns"], sorted(cats)))
sys.exit(0 if ok else 1)
PYEOF
rm -f steps.json
exit $fail
