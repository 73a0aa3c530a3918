#!/bin/sh
# --range START:END against independent figures: tests/oracle.py scopes each
# trace to the range by its own reading of the rule (an event by its start,
# GPU work by its launch's) and its own parse of the text, and every figure
# of analyze --json must equal its own (tests/check_analyze.py --range).
# Ranges that tile a trace split its self time and GPU time without loss or
# overlap. Bad ranges are one-line usage errors (exit 1) in all three
# programs; a range holding no event gives an empty report that says so;
# convert's profile records --range in its command.
set -u
tool="$top_builddir/torch2pprof"
tui="$top_builddir/torch2pprof-tui"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/t2p-range-sh.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# 1. every figure against the oracle, on CPU-only and GPU traces, multi-thread,
#    NCCL, ranges cutting steps and kernels apart, open-ended and tiny
gpu="$top_srcdir/data/resnet50_gpu.json.gz"
for spec in 100ms:300ms 0.5s: 1.0123456789s:1.1s 212.5ms:212.6ms; do
    "$py" "$top_srcdir/tests/check_analyze.py" --range "$spec" "$tool" "$gpu" || fail=1
done
for t in "$top_srcdir/tests/fixtures/threads_fork.json.gz" \
         "$top_srcdir/tests/fixtures/transformer_train.json.gz" \
         "$top_srcdir/tests/fixtures/gpu_edge.json" \
         "$SHARED/traces/nccl_relative_time.json.gz" \
         "$SHARED/traces/tb_resnet50_w0.json.gz"; do
    [ -e "$t" ] || { bad "missing $t"; continue; }
    for spec in 0s:2ms 1ms:7ms 2ms: 10us:20us; do
        "$py" "$top_srcdir/tests/check_analyze.py" --range "$spec" "$tool" "$t" || fail=1
    done
done

# 2. ranges that tile the trace: their self, device and GPU times add up to the
#    whole trace's, each event in exactly one range
"$tool" analyze --json -top 0 "$gpu" >"$work/whole.json" || bad "analyze whole"
for spec in 0s:0.3s 0.3s:0.31s 0.31s:0.7s 0.7s:; do
    "$tool" analyze --json -top 0 --range "$spec" "$gpu" >"$work/r-$spec.json" || bad "analyze --range $spec"
done
"$py" - "$work" <<'PYEOF' || fail=1
import glob, json, sys
w = json.load(open(sys.argv[1] + "/whole.json"))
parts = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/r-*.json"))]
def tot(d, f):
    return sum(o[f] for o in d["ops"])
bad = []
for f in ("self_ns", "total_ns", "count", "device_self_ns"):
    if sum(tot(p, f) for p in parts) != tot(w, f):
        bad.append("%s: ranges %d, whole %d" % (f, sum(tot(p, f) for p in parts), tot(w, f)))
for f in ("busy_ns", "gpu_ns", "gpu_events"):
    if sum(p[f] for p in parts) != w[f]:
        bad.append("%s: ranges %d, whole %d" % (f, sum(p[f] for p in parts), w[f]))
if sum(p["range_events"] for p in parts) != w["complete_events"]:
    bad.append("range_events %d, complete events %d" % (sum(p["range_events"] for p in parts),
                                                        w["complete_events"]))
print(("FAIL: tiling ranges: " + "; ".join(bad)) if bad else
      "ok: 4 ranges tiling the trace add up to it (%d events, self %d ns, GPU %d ns)"
      % (w["complete_events"], tot(w, "self_ns"), w["gpu_ns"]))
sys.exit(1 if bad else 0)
PYEOF

# 3. bad ranges: one line, exit 1, in analyze, convert and the explorer
for spec in 1s 1x:2s 2s:1s 1s:1s -1s:2s 1.5:2s s:1s 1s:2s:3s; do
    for prog in "$tool analyze" "$tool convert -o $work/x.pb.gz" "$tui --replay q"; do
        # shellcheck disable=SC2086
        $prog --range "$spec" "$gpu" >"$work/out" 2>"$work/err"; rc=$?
        if [ $rc -ne 1 ] || ! grep -q -- "--range: bad range '$spec'" "$work/err" || [ -s "$work/out" ]; then
            bad "${prog%% *} --range $spec: exit $rc, $(cat "$work/err")"
        fi
    done
done
[ -e "$work/x.pb.gz" ] && bad "a bad range wrote a profile"
"$tool" analyze --range 5s: "$gpu" >"$work/out" 2>"$work/err"; rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "past the trace's end" "$work/err"; then
    ok "a range past the trace's end: $(cat "$work/err")"
else
    bad "range past the end: exit $rc, $(cat "$work/err")"
fi
"$tool" analyze --range 1s:2s --step 3 "$gpu" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || bad "--range with --step: exit $rc"
ok "bad ranges refused in analyze, convert and the explorer"

# 4. a range holding no event: an empty report that says so
"$tool" analyze --range 1ms:1001us "$gpu" >"$work/empty.txt" 2>&1; rc=$?
"$tool" analyze --json --range 1ms:1001us "$gpu" >"$work/empty.json" 2>&1
if [ $rc -eq 0 ] && grep -q "^Empty range: .*no event starts in it" "$work/empty.txt" &&
    "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["range_events"]==0 and d["busy_ns"]==0 else 1)' "$work/empty.json"; then
    ok "an empty range: an empty report that says so"
else
    bad "empty range: exit $rc, $(head -5 "$work/empty.txt")"
fi

# 5. convert --range: the profile's command reproduces it, and its total is
#    analyze --range's busy time
if command -v go >/dev/null 2>&1; then
    "$tool" convert --range 100ms:300ms "$gpu" -o "$work/r.pb.gz" 2>/dev/null || bad "convert --range"
    go tool pprof -raw "$work/r.pb.gz" >"$work/raw" 2>/dev/null
    if grep -q "^Comment: torch2pprof convert --range 100ms:300ms " "$work/raw"; then
        ok "convert --range: the command in the profile's comments holds --range"
    else
        bad "convert --range: no --range in the comments: $(grep Comment "$work/raw")"
    fi
    busy=$("$tool" analyze --json --range 100ms:300ms "$gpu" | "$py" -c 'import json,sys; print(json.load(sys.stdin)["busy_ns"])')
    total=$("$py" - "$work/raw" <<'PYEOF'
import sys
lines = open(sys.argv[1]).read().split("Samples:", 1)[1].splitlines()[2:]
t = 0
for l in lines:
    f = l.split()
    if not f or not f[0].isdigit() or ":" not in l:
        if l.startswith("Locations"):
            break
        continue
    t += int(f[1])
print(t)
PYEOF
)
    [ "$busy" = "$total" ] && ok "convert --range: pprof total $total ns = analyze --range busy" ||
        bad "convert --range: pprof total $total, analyze busy $busy"
else
    bad "go missing: cannot read the profile back"
fi
# 6. the explorer's export of a range (e) is convert --range's profile: a
#    range given with --range, and one marked on the Timeline with { and }
#    (its status line says the --range that reproduces it)
if command -v go >/dev/null 2>&1; then
    for t in "$top_srcdir/data/alexnet_train.json.gz" "$top_srcdir/data/cnn_train_cpu.json.gz"; do
        rm -f "$work/e.pb.gz" "$work/c.pb.gz"
        "$tui" --range 1ms:20ms --replay "e <CtrlU> $work/e.pb.gz <Enter>" "$t" >/dev/null 2>&1
        "$tool" convert --range 1ms:20ms "$t" -o "$work/c.pb.gz" 2>/dev/null
        if [ -s "$work/e.pb.gz" ] && sh "$top_srcdir/tests/same_profile.sh" "$work/e.pb.gz" "$work/c.pb.gz"; then
            ok "$(basename "$t"): the explorer's export of --range 1ms:20ms = convert --range"
        else
            bad "$(basename "$t"): export of a range differs from convert --range"
        fi
    done
    t="$top_srcdir/data/alexnet_train.json.gz"
    rm -f "$work/e.pb.gz" "$work/c.pb.gz"
    "$tui" --view timeline --size 100x20 --print --replay \
        "<Right> <Right> <Right> { <Right> <Right> <Right> <Right> <Right> } e <CtrlU> $work/e.pb.gz <Enter>" \
        "$t" >"$work/keys.out" 2>&1
    spec=$("$tui" --view timeline --size 100x20 --print --replay \
        "<Right> <Right> <Right> { <Right> <Right> <Right> <Right> <Right> }" "$t" 2>&1 |
        sed -n 's/.*(--range \([^)]*\)).*/\1/p' | head -1)
    "$tool" convert --range "$spec" "$t" -o "$work/c.pb.gz" 2>/dev/null
    if [ -n "$spec" ] && [ -s "$work/e.pb.gz" ] &&
        sh "$top_srcdir/tests/same_profile.sh" "$work/e.pb.gz" "$work/c.pb.gz"; then
        ok "a range marked with { } on the Timeline exports convert --range $spec's profile"
    else
        bad "a marked range ($spec): export and convert differ: $(tail -3 "$work/keys.out")"
    fi
fi

# 7. a step's host window as a range counts what --step counts (the same rule:
#    CPU events by their start, GPU work with its launch)
"$py" - "$tool" "$gpu" <<'PYEOF' || fail=1
import gzip, json, subprocess, sys
tool, trace = sys.argv[1], sys.argv[2]
def run(*a):
    return json.loads(subprocess.run([tool, "analyze", "--json", "-top", "0"] + list(a) + [trace],
                                     stdout=subprocess.PIPE, check=True).stdout)
whole = run()
evs = json.load(gzip.open(trace))["traceEvents"]
base = whole["base_ns"] + whole["window_start_ns"]
steps = [e for e in evs if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
         and e.get("cat") in ("cpu_op", "user_annotation")]
bad = []
for e in steps[:3]:
    n = e["name"].split("#")[1]
    # the trace's us with three decimals: exact ns
    ts = int(round(float(e["ts"]) * 1000)) + whole["base_ns"] - base
    dur = int(round(float(e["dur"]) * 1000))
    r, s = run("--range", "%dns:%dns" % (ts, ts + dur)), run("--step", n)
    for f in ("busy_ns", "gpu_ns", "gpu_events", "cpu_time_ns"):
        if r[f] != s[f]:
            bad.append("step %s: %s range %d, --step %d" % (n, f, r[f], s[f]))
    ro = {(o["name"], o["category"]): (o["count"], o["self_ns"], o["device_total_ns"]) for o in r["ops"]}
    so = {(o["name"], o["category"]): (o["count"], o["self_ns"], o["device_total_ns"]) for o in s["ops"]}
    if ro != so:
        bad.append("step %s: the operators differ" % n)
print(("FAIL: " + "; ".join(bad)) if bad else
      "ok: 3 steps' host windows as ranges count what --step counts")
sys.exit(1 if bad else 0)
PYEOF

# 8. memory under a range: the [memory] records whose time lies in [START, END)
#    (doc/ranges.md), against tests/oracle.py's own reading of them, in
#    analyze --json, in convert's heap sample types (read back by go tool
#    pprof) and in the explorer's export from the Memory view (= convert --range)
mem="$top_srcdir/tests/fixtures/cnn_memory.json.gz"
"$py" "$top_srcdir/tests/check_range_memory.py" "$tool" "$mem" \
    0s:10ms 10ms: 15ms:23ms 21ms:21.5ms 1ms:3ms || fail=1
if [ -e "$SHARED/traces/tb_resnet50_w0.json.gz" ]; then
    "$py" "$top_srcdir/tests/check_range_memory.py" "$tool" "$SHARED/traces/tb_resnet50_w0.json.gz" \
        1ms:7ms || fail=1
fi
if command -v go >/dev/null 2>&1; then
    for spec in 15ms:23ms 21ms:21.5ms; do
        rm -f "$work/m.pb.gz" "$work/e.pb.gz"
        "$tool" convert --range "$spec" "$mem" -o "$work/m.pb.gz" 2>/dev/null || bad "convert --range $spec"
        "$tool" analyze --json -top 0 --range "$spec" "$mem" >"$work/m.json"
        "$py" - "$work/m.pb.gz" "$work/m.json" "$spec" <<'PYEOF' || fail=1
import json, re, subprocess, sys
# each heap type's total as pprof sums it (-top's Total samples, in plain
# units): a record at a thread's root is a sample with no frame, which
# -raw does not list but every total counts
tot = {}
for t in ("alloc_objects", "alloc_space", "inuse_objects", "inuse_space"):
    out = subprocess.run(["go", "tool", "pprof", "-sample_index=" + t, "-unit=B", "-top",
                          sys.argv[1]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    m = re.search(r"Total samples = (-?\d+)B?", out.decode())
    tot[t] = int(m.group(1)) if m else -1
devs = json.load(open(sys.argv[2]))["memory"]["devices"]
want = {"alloc_objects": sum(d["allocs"] for d in devs),
        "alloc_space": sum(d["alloc_bytes"] for d in devs),
        "inuse_objects": sum(d["live_allocs_at_end"] for d in devs),
        "inuse_space": sum(d["live_bytes_at_end"] for d in devs)}
bad = ["%s: pprof %d, analyze %d" % (k, tot.get(k, 0), v) for k, v in want.items() if tot.get(k, 0) != v]
print(("FAIL: convert --range %s heap types: " % sys.argv[3] + "; ".join(bad)) if bad else
      "ok: convert --range %s: heap sample types = analyze --range's memory (%d B in %d allocs)"
      % (sys.argv[3], want["alloc_space"], want["alloc_objects"]))
sys.exit(1 if bad else 0)
PYEOF
        "$tui" --range "$spec" --view memory --replay "e <CtrlU> $work/e.pb.gz <Enter>" "$mem" >/dev/null 2>&1
        if [ -s "$work/e.pb.gz" ] && sh "$top_srcdir/tests/same_profile.sh" "$work/e.pb.gz" "$work/m.pb.gz"; then
            ok "the Memory view's export under --range $spec = convert --range (heap types too)"
        else
            bad "the Memory view's export under --range $spec differs from convert --range"
        fi
    done
fi
# 9. a job under --range: each rank's window from its own start, so the job's
#    samples of rank N are rank N's convert --range samples (read back by go
#    tool pprof -raw, the rank label aside); --range with --step is refused
job="$top_srcdir/tests/fixtures/nccl_job"
if command -v go >/dev/null 2>&1; then
    "$tool" convert --range 1ms:20ms "$job" -o "$work/job.pb.gz" 2>/dev/null || bad "convert DIR --range"
    for r in 0 1 2 3; do
        "$tool" convert --range 1ms:20ms "$job/rank-$r.json.gz" -o "$work/one.pb.gz" 2>/dev/null
        go tool pprof -raw -tagfocus "rank=$r" "$work/job.pb.gz" >"$work/job.raw" 2>/dev/null
        "$py" - "$top_srcdir/tests" "$work/job.pb.gz" "$work/one.pb.gz" "$r" <<'PYEOF' || fail=1
import sys
sys.path.insert(0, sys.argv[1])
import same_samples  # the one reader of go tool pprof -raw
# each sample: its values, its stack (the locations' text), its labels but rank's
r = sys.argv[4]
ta, a = same_samples.stacks(sys.argv[2], ["-tagfocus", "rank=" + r], ("rank",))
tb, b = same_samples.stacks(sys.argv[3], (), ("rank",))
a, b = sorted(a), sorted(b)
if a and ta == tb and a == b:
    print("ok: convert DIR --range 1ms:20ms: rank %s's %d samples = its own convert --range" % (r, len(a)))
    sys.exit(0)
print("FAIL: convert DIR --range: rank %s: %d samples in the job, %d alone" % (r, len(a), len(b)))
sys.exit(1)
PYEOF
    done
    grep -q "scope: range 1ms:20ms of each rank" "$work/job.raw" ||
        bad "convert DIR --range: no scope comment"
    "$tool" convert --range 1ms:2ms --step 1 "$job" -o "$work/x2.pb.gz" >/dev/null 2>&1; rc=$?
    [ $rc -eq 1 ] && [ ! -e "$work/x2.pb.gz" ] || bad "convert DIR --range --step: exit $rc"
fi
# 10. analyze --rank N --range: the rank's report is scoped to the range, as
#     analyze --range of that rank's file is (the oracle checks that one), from
#     the job's directory and from the rank's file alone
"$py" "$top_srcdir/tests/check_analyze.py" --range 1ms:20ms "$tool" "$job/rank-2.json.gz" || fail=1
"$tool" analyze --json -top 0 --range 1ms:20ms "$job/rank-2.json.gz" >"$work/r2.json" 2>&1 ||
    bad "analyze --range rank-2.json.gz"
for src in "$job" "$job/rank-2.json.gz"; do
    "$tool" analyze --json -top 0 --rank 2 --range 1ms:20ms "$src" >"$work/k2.json" 2>"$work/k2.err" ||
        { bad "analyze --rank 2 --range 1ms:20ms $src: $(cat "$work/k2.err")"; continue; }
    "$py" - "$work/r2.json" "$work/k2.json" "$src" <<'PYEOF' || fail=1
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
keys = ("range_start_ns", "range_end_ns", "range_events", "complete_events", "busy_ns", "gpu_ns",
        "gpu_events", "ops")
bad = [k for k in keys if k not in b or a.get(k) != b[k]]
print(("FAIL: analyze --rank 2 --range 1ms:20ms %s: differs from the rank's file ranged in %s"
       % (sys.argv[3], ", ".join(bad))) if bad else
      "ok: analyze --rank 2 --range 1ms:20ms %s = analyze --range of rank-2 (%d events)"
      % (sys.argv[3], b["range_events"]))
sys.exit(1 if bad else 0)
PYEOF
done
exit $fail
