#!/bin/sh
# Steps against TensorBoard's own plugin: every shared trace with a recorded
# fixture (tests/fixtures/tb_steps/, from tests/record_tb_steps.py) must give
# the plugin's step windows, roles, overlap and averages. And early Kineto's
# capitalised categories must attribute GPU work like modern ones.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
# every check here reads the shared traces: without them a note and a skip
[ -d "$SHARED/traces" ] || { echo "note: $SHARED/traces not found (./setup.sh --test installs it); skipped"; exit 77; }
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
"$tool" analyze --json --top 0 "$SHARED/traces/tb_resnet50_w0.json.gz" > steps.json &&
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

# --step N[-M]: every figure of analyze for those steps alone, against the
# oracle's own scoping (CPU events by start, GPU work by its launch)
for ts in ns_resolution_rank0.pt.trace.json.gz:102 ns_resolution_rank0.pt.trace.json.gz:101-103 \
          nccl_relative_time.json.gz:5-6 sampled_rank0_noflows.json.gz:552 \
          tb_resnet50_w0.json.gz:7 amd_mi250_train.json.gz:2 triton_example.json.gz:1; do
    "$py" "$top_srcdir/tests/check_analyze.py" --step "${ts##*:}" "$tool" "$SHARED/traces/${ts%%:*}" ||
        fail=1
done

# convert --step N: through go tool pprof, every figure of analyze --step N,
# and what pprof's own -tagfocus step=N keeps of the whole trace's profile
for ts in ns_resolution_rank0.pt.trace.json.gz:102 nccl_relative_time.json.gz:5 \
          tb_resnet50_w0.json.gz:7; do
    "$py" "$top_srcdir/tests/check_convert.py" "$tool" "$SHARED/traces/${ts%%:*}" --step "${ts##*:}"
    rc=$?
    [ $rc -eq 0 ] || fail=1
done

# --steps prints the Steps section alone; a step the trace lacks is a usage error
t="$SHARED/traces/ns_resolution_rank0.pt.trace.json.gz"
"$tool" analyze --steps "$t" > steps.out || fail=1
grep -q '^Steps' steps.out && grep -q '^average ' steps.out && ! grep -q '^Top ' steps.out &&
    ! grep -q '^By Category' steps.out || { echo "FAIL: analyze --steps"; cat steps.out; fail=1; }
"$tool" analyze --step 99 "$t" > /dev/null 2> steps.err
rc=$?
# a step the trace lacks is an input error (2), and the message lists the steps
[ $rc -eq 2 ] && grep -q 'no step 99 in this trace (it has [0-9]* steps, [0-9]* to [0-9]*)' steps.err ||
    { echo "FAIL: --step 99 exit $rc"; cat steps.err; fail=1; }
"$tool" analyze --step 104-102 "$t" > /dev/null 2>&1
[ $? -eq 1 ] || { echo "FAIL: --step 104-102 accepted"; fail=1; }
"$tool" analyze --step 1 "$SHARED/traces/alexnet_train.json.gz" > /dev/null 2> steps.err
[ $? -eq 2 ] && grep -q 'no ProfilerStep' steps.err || { echo "FAIL: --step on a trace without steps"; fail=1; }
# the text report's Steps rows carry the --json figures
"$tool" analyze --steps --json "$t" > steps.json && "$py" - steps.out steps.json <<'PYEOF' || fail=1
import json, sys
text = open(sys.argv[1]).read().splitlines()
d = json.load(open(sys.argv[2]))
ms = lambda ns: "%d.%03d" % divmod((ns + 500) // 1000, 1000)
keys = ["kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_op", "other"]
for st in d["steps"]:
    row = next(l for l in text if l.split() and l.split()[0] == st["step"])
    want = [ms(st["duration_ns"])] + [ms(st[k + "_ns"]) for k in keys]
    if row.split()[2:11] != want:
        sys.exit("analyze --steps: row %r, want %s" % (row, want))
avg = next(l for l in text if l.startswith("average "))
a = d["steps_average"]
if avg.split()[1:10] != [ms(a["duration_ns"])] + [ms(a[k + "_ns"]) for k in keys]:
    sys.exit("analyze --steps: average row %r" % avg)
print("ok: analyze --steps text rows match --json (%d steps)" % len(d["steps"]))
PYEOF

# the memory recommendation: peak allocated memory on GPU 0 (Total Allocated of
# its [memory] events) over 90 % of deviceProperties' totalGlobalMem, not at 80 %
for ta in 950 800; do
    cat > steps-mem.json <<EOF
{"deviceProperties":[{"id":0,"name":"X","totalGlobalMem":1000,"computeMajor":8}],
"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":10,"dur":10},
{"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":12,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":$ta,"Total Allocated":$ta,"Total Reserved":1000}}
]}
EOF
    got=$("$tool" analyze --steps --json steps-mem.json | "$py" -c 'import json,sys; print(" ".join(r["id"] for r in json.load(sys.stdin)["recommendations"]))')
    want=$([ $ta = 950 ] && echo memory || echo "")
    [ "$got" = "$want" ] && echo "ok: memory recommendation at $ta of 1000 bytes: '$got'" ||
        { echo "FAIL: memory recommendation at $ta of 1000: '$got', want '$want'"; fail=1; }
    # the explorer's Steps view gives the same recommendations under its table
    "$top_builddir/torch2pprof-tui" --replay 5 --print --size 160x30 steps-mem.json > steps.out 2>&1
    if grep -q "Peak memory on GPU 0" steps.out; then tgot=memory; else tgot=""; fi
    [ "$tgot" = "$want" ] && echo "ok: the Steps view at $ta of 1000 bytes: '$tgot'" ||
        { echo "FAIL: the Steps view at $ta of 1000: '$tgot', want '$want'"; sed 's/^/    | /' steps.out; fail=1; }
done
rm -f steps.json steps.out steps.err steps-mem.json
exit $fail
