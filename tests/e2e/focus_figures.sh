#!/bin/sh
# analyze under a scope of stacks (--focus OP, --focus A>B, --filter, both):
# its Kernels (by name and by operator), Memory (allocations, live ones) and
# source lines count what happened inside the scope's stacks, against
# tests/check_focus_figures.py's own computation from the trace JSON, on the
# sample trace and, when present, the shared traces with kernels. Fails,
# saying so, without python3.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
check="$top_srcdir/tests/check_focus_figures.py"
fail=0
t="$top_srcdir/data/resnet50_gpu.json.gz"
"$py" "$check" "$tool" "$t" --focus aten::conv2d || fail=1
"$py" "$check" "$tool" "$t" --focus aten::batch_norm || fail=1
"$py" "$check" "$tool" "$t" --focus 'ProfilerStep*>aten::conv2d' || fail=1
"$py" "$check" "$tool" "$t" --focus Optimizer.step#SGD.step || fail=1
"$py" "$check" "$tool" "$t" --filter sgemm || fail=1
# no kernel in the scope: its allocations and lines, and the text's
# "none launched" with the whole trace's kernel time
"$py" "$check" "$tool" "$t" --focus 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__' || fail=1
# a trace with addresses: allocations still live at the end inside the scope
t="$top_srcdir/tests/fixtures/cnn_memory.json.gz"
"$py" "$check" "$tool" "$t" --focus 'ProfilerStep*' || fail=1
"$py" "$check" "$tool" "$t" --filter aten || fail=1
"$py" "$check" "$tool" "$t" --filter Backward || fail=1
for a in "ns_resolution_rank0.pt.trace.json.gz --focus ConvolutionBackward0" \
         "ns_resolution_rank0.pt.trace.json.gz --filter conv" \
         "sampled_rank0_noflows.json.gz --focus DistributedDataParallel.forward" \
         "nccl_relative_time.json.gz --focus c10d::allreduce_" \
         "nccl_relative_time.json.gz --filter Conv --focus cudaLaunchKernel"; do
    # shellcheck disable=SC2086
    set -- $a
    t="$SHARED/traces/$1"
    shift
    if [ -e "$t" ]; then
        "$py" "$check" "$tool" "$t" "$@" || fail=1
    else
        echo "note: $t not found; not checked"
    fi
done
# the text report says what each section covers
out=$("$tool" analyze --focus aten::conv2d --by-line --top 3 "$top_srcdir/data/resnet50_gpu.json.gz") || fail=1
for want in "in the scope: those launched inside its stacks" \
            "the whole device, not the scope" \
            "Memory in the scope (the allocations made inside its stacks" \
            "source lines by self (in the scope"; do
    echo "$out" | grep -qF "$want" || { echo "missing from the scoped report: $want"; fail=1; }
done
# a scope with no kernel says so instead of printing the whole trace's
out=$("$tool" analyze --focus 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__' \
      "$top_srcdir/data/resnet50_gpu.json.gz") || fail=1
echo "$out" | grep -qF "Kernels: none launched inside the scope's stacks" ||
    { echo "a scope without kernels does not say so"; fail=1; }
# --kernels under a focus: the same kernels as the full report's
res="$top_srcdir/data/resnet50_gpu.json.gz"
k1=$("$tool" analyze --kernels --json --focus aten::conv2d "$res" |
     "$py" -c 'import json, sys; print(json.load(sys.stdin)["kernels_info"]["total_ns"])')
k2=$("$tool" analyze --json --focus aten::conv2d "$res" |
     "$py" -c 'import json, sys; print(json.load(sys.stdin)["kernels_info"]["total_ns"])')
[ -n "$k1" ] && [ "$k1" = "$k2" ] ||
    { echo "--kernels --focus: $k1 ns of kernels, the full report $k2"; fail=1; }
# the explorer under the same focus: e from the Kernels view writes the
# kernels of the scope (device time = analyze's scoped kernel time), e from
# the Memory view the scope's allocations (analyze's in_scope figures)
if command -v go >/dev/null 2>&1; then
    res="$top_srcdir/data/resnet50_gpu.json.gz"
    work=$(mktemp -d /tmp/t2p-focus-figures.XXXXXX)
    trap 'rm -rf "$work"' EXIT INT TERM
    want=$("$tool" analyze --json --top 0 --focus aten::conv2d "$res" | "$py" -c '
import json, sys
d = json.load(sys.stdin)
print(d["kernels_info"]["total_ns"],
      sum(v["in_scope"]["allocs"] for v in d["memory"]["devices"]),
      sum(v["in_scope"]["alloc_bytes"] for v in d["memory"]["devices"]))') || fail=1
    set -- $want
    for v in kernels memory; do
        rm -f "$work"/*.pb.gz
        (cd "$work" && "$top_builddir/torch2pprof-tui" --replay "e <Enter>" --print --size 200x40 \
            --view $v --focus aten::conv2d "$res") >"$work/screen" 2>&1
        # summed by same_samples.py, the one reader of go tool pprof -raw
        got=$("$py" - "$top_srcdir/tests" "$work"/*.pb.gz <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import same_samples
types, s = same_samples.summed(sys.argv[2])
col = [[t.split("/")[0] for t in types].index(n)
       for n in ("device_time", "alloc_objects", "alloc_space")]
print(" ".join(str(sum(v[c] for v in s.values())) for c in col))
PYEOF
)
        set -- $want $got
        if [ "$v" = kernels ] && [ "$4" != "$1" ]; then
            echo "e in Kernels under --focus: device time $4, analyze's kernels $1"; fail=1
        elif [ "$v" = memory ] && { [ "$5" != "$2" ] || [ "$6" != "$3" ]; }; then
            echo "e in Memory under --focus: $5 allocs of $6 B, analyze's $2 of $3 B"; fail=1
        else
            echo "ok: e in $v under --focus aten::conv2d: $got"
        fi
        set -- $want
    done
else
    echo "note: go tool pprof missing; e from the views not checked"
fi
exit $fail
