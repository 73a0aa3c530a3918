#!/bin/sh
# analyze --base against the two single-trace reports: for pairs of fixtures,
# sample data and shared real traces, every operator's and category's base,
# new and delta figures (tests/check_compare.py). The single reports are
# checked against tests/oracle.py by analyze.sh.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
chk() { "$py" "$top_srcdir/tests/check_compare.py" "$tool" "$@" || fail=1; }
fail=0
F="$top_srcdir/tests/fixtures"
S="$SHARED/traces"
chk "$F/mlp_nested.json.gz" "$F/mlp_train_big.json.gz"
chk "$F/cnn_train.json.gz" "$F/cnn_train.json.gz"
chk "$F/lstm_train.json.gz" "$F/transformer_train.json.gz" -- --keep-steps
chk "$top_srcdir/data/alexnet_train.json.gz" "$top_srcdir/data/cnn_train_cpu.json.gz"
if [ -d "$S" ]; then
    chk "$S/ns_resolution_rank0.pt.trace.json.gz" "$S/sampled_rank0_noflows.json.gz"
    chk "$S/tb_resnet50_w0.json.gz" "$S/amd_mi250_train.json.gz"
    chk "$S/cupti_profiler.json.gz" "$S/triton_example.json.gz"
    chk "$S/nccl_relative_time.json.gz" "$S/mtia_inference_rank0.json.gz"
    # --per-step: each side divided by its kept steps (5 and 1, 6 and 3, none and 3)
    chk "$S/ns_resolution_rank0.pt.trace.json.gz" "$S/amd_mi250_train.json.gz" --per-step
    chk "$S/tb_resnet50_w0.json.gz" "$S/nccl_relative_time.json.gz" --per-step
    chk "$F/mlp_nested.json.gz" "$S/nccl_relative_time.json.gz" --per-step
    # steps: two of one trace (TRACE alone), and one of each of two traces
    ns="$S/ns_resolution_rank0.pt.trace.json.gz"
    chk "$ns" "$ns" --steps 102 104
    chk "$ns" "$ns" --steps 101 105
    chk "$S/sampled_rank0_noflows.json.gz" "$S/sampled_rank0_noflows.json.gz" --steps 551 552
    chk "$S/tb_resnet50_w0.json.gz" "$S/nccl_relative_time.json.gz" --steps 6 5
    chk "$ns" "$ns" --steps 101-102 103-105 --per-step
else
    echo "cannot run: $S not found"; fail=1
fi

# The text report: + and - marks on the rows only in one trace, signed deltas.
"$tool" analyze --top 0 --base "$F/mlp_nested.json.gz" "$F/mlp_train_big.json.gz" > cmp.out &&
"$tool" analyze --top 0 --json --base "$F/mlp_nested.json.gz" "$F/mlp_train_big.json.gz" > cmp.json &&
"$py" - cmp.out cmp.json <<'PYEOF' || fail=1
import json, sys
text = open(sys.argv[1]).read().splitlines()
c = json.load(open(sys.argv[2]))["compare"]
ms = lambda ns: ("+" if ns > 0 else "-" if ns < 0 else "") + "%d.%03d" % divmod((abs(ns) + 500) // 1000, 1000)
top = text.index(next(l for l in text if l.startswith("Top ")))
rows = text[top + 2:]
if len(rows) != len(c["ops"]):
    sys.exit("compare text: %d op rows, json has %d" % (len(rows), len(c["ops"])))
for o, row in zip(c["ops"], rows):
    want = {"both": " ", "added": "+", "removed": "-"}[o["status"]]
    if row[0] != want or row[2:].split()[0] != o["name"].split()[0]:
        sys.exit("compare text: row %r, want mark %r and name %r" % (row, want, o["name"]))
    d = o["delta"]["self_ns"]
    if ms(d) not in row.split() and not (ms(d) in ("+0.000", "-0.000") and "0.000" in row.split()):
        sys.exit("compare text: row %r lacks delta self %s" % (row, ms(d)))
print("ok: compare text report: %d rows with their marks and signed deltas" % len(rows))
PYEOF
rm -f cmp.out cmp.json

# Mistakes: exit 1 for usage, 2 for inputs (a step the trace lacks too), and a
# message that names the culprit.
expect() { # expect CODE TEXT ARGS...
    want=$1 text=$2; shift 2
    "$tool" "$@" >/dev/null 2>cmp.err
    rc=$?
    if [ $rc -ne "$want" ] || ! grep -qF -- "$text" cmp.err; then
        echo "FAIL: torch2pprof $*: exit $rc (want $want), stderr: $(cat cmp.err)"; fail=1
    else
        echo "ok: torch2pprof $* -> exit $rc, names '$text'"
    fi
}
expect 2 no-such-base.json analyze --base "$F/no-such-base.json" "$F/cnn_train.json.gz"
expect 2 no-such-new.json analyze --base "$F/cnn_train.json.gz" "$F/no-such-new.json"
expect 1 "unknown sort key" analyze --sort bogus --base "$F/cnn_train.json.gz" "$F/cnn_train.json.gz"
expect 1 "needs --base" analyze --sort delta_self "$F/cnn_train.json.gz"
expect 1 "compare what" analyze --base-step 1 "$F/cnn_train.json.gz"
expect 2 "no ProfilerStep" analyze --base-step 1 --step 2 "$F/cnn_train.json.gz"
expect 1 "is also one of the inputs" convert --base "$F/cnn_train.json.gz" "$F/mlp_nested.json.gz" "$F/mlp_nested.json.gz"
if [ -d "$S" ]; then
    expect 2 "it has 5 steps, 101 to 105" analyze --base-step 101 --step 999 "$S/ns_resolution_rank0.pt.trace.json.gz"
fi
rm -f cmp.err

# convert --base: the profile go tool pprof -proto -diff_base writes from our
# two single-trace profiles, as go tool pprof reads it back.
if command -v go >/dev/null 2>&1; then
    work=$(mktemp -d) || exit 1
    dchk() { "$py" "$top_srcdir/tests/check_convert_diff.py" "$tool" "$work" "$@" || fail=1; }
    dchk "$F/mlp_nested.json.gz" "$F/mlp_train_big.json.gz"
    dchk "$F/cnn_train.json.gz" "$F/cnn_train.json.gz"
    dchk "$top_srcdir/data/alexnet_train.json.gz" "$top_srcdir/data/cnn_train_cpu.json.gz"
    # both with [memory] events: the heap sample types are diffed too
    dchk "$F/cnn_memory.json.gz" "$F/cnn_memory.json.gz"
    if [ -d "$S" ]; then
        dchk "$S/ns_resolution_rank0.pt.trace.json.gz" "$S/sampled_rank0_noflows.json.gz"
        # --no-memory: the time types alone on both sides
        dchk "$S/tb_resnet50_w0.json.gz" "$S/amd_mi250_train.json.gz" -- --focus aten:: --keep-steps --no-memory
        dchk "$F/cnn_memory.json.gz" "$S/tb_resnet50_w0.json.gz"
        dchk "$S/tb_resnet50_w0.json.gz" "$F/cnn_memory.json.gz" -- --focus aten:: --keep-steps
        # memory events on one side only: every profile has the heap types
        # (zero without [memory] records), so the two converts diff in pprof
        # without --no-memory, and convert --base is that diff
        dchk "$S/tb_resnet50_w0.json.gz" "$F/cnn_train.json.gz"
        if ! "$tool" convert --base "$S/tb_resnet50_w0.json.gz" "$F/cnn_train.json.gz" \
                "$work/one.pb.gz" >"$work/one.out" 2>"$work/one.err" ||
            ! go tool pprof -raw "$work/one.pb.gz" 2>/dev/null | grep -q alloc_space; then
            echo "FAIL: convert --base with memory events on one side"; cat "$work/one.err"; fail=1
        fi
    fi
    rm -rf "$work"
else
    echo "note: go missing: convert --base not checked against go tool pprof -diff_base"
fi
exit $fail
