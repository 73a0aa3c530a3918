#!/bin/sh
# analyze in a scope counts what convert writes in it (#23): for scopes of
# every kind (an operator, a call path, a regular expression, a category, a
# track, a filter, entries stacked, with --step, --range, --rank,
# --short-names and --no-python) on the shipped traces, each operator's self
# time from `analyze --json -top 0 SCOPE` equals the flat time go tool pprof
# reads from `convert SCOPE` (tests/check_analyze_scope.py); a --focus,
# --category or --track that names nothing, and a --rank the job lacks,
# exit 2 in both with the reason; under --step 7 with a focus, the kernels
# the scope's are compared with are step 7's (analyze --json --step 7's
# kernels_info.total_ns), and the text and --json name the step. Fails,
# saying so, without go or python3.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
command -v go >/dev/null 2>&1 || { echo "go missing: no go tool pprof to check with (./setup.sh --test installs it)"; exit 1; }
check="$top_srcdir/tests/check_analyze_scope.py"
d="$top_srcdir/data"
f="$top_srcdir/tests/fixtures"
fail=0
run() { "$py" "$check" "$@" || fail=1; }
run "$tool" "$d/cnn_train_cpu.json.gz" --focus aten::conv2d
run "$tool" "$d/cnn_train_cpu.json.gz" --filter relu
run "$tool" "$d/cnn_train_cpu.json.gz" --focus 'conv.*'
run "$tool" "$d/cnn_train_cpu.json.gz" --range 0ms:3ms --focus aten::conv2d
run "$tool" "$d/resnet50_gpu.json.gz" --category kernel
run "$tool" "$d/resnet50_gpu.json.gz" --track 'python / stream stream 7'
run "$tool" "$d/resnet50_gpu.json.gz" --focus aten::conv2d --short-names
run "$tool" "$d/resnet50_gpu.json.gz" --step 6 --focus aten::conv2d
run "$tool" "$d/resnet50_gpu.json.gz" --focus 'ProfilerStep*>aten::conv2d'
run "$tool" "$d/resnet50_gpu.json.gz" --focus 'ProfilerStep*' --filter relu \
    --track 'python / thread 25738 (python)'
run "$tool" "$f/recursion.json" --focus aten::sum
run "$tool" "$f/mlp_nested.json.gz" --focus backward --filter mm
run "$tool" "$f/pystack_train.json.gz" --no-python --focus aten::linear
run "$tool" "$d/ranks" --rank 1 --focus aten::mm
run "$tool" "$d/ranks" --rank 0
run --expect-fail 2 "$tool" "$d/ranks" --rank 7
run --expect-fail 2 "$tool" "$d/cnn_train_cpu.json.gz" --focus nosuchop
run --expect-fail 2 "$tool" "$d/cnn_train_cpu.json.gz" --category nosuchcat
run --expect-fail 2 "$tool" "$d/cnn_train_cpu.json.gz" --track nosuchtrack
# the rank's message names the ranks the job has, as convert's does
msg=$("$tool" analyze --rank 7 "$d/ranks" 2>&1 >/dev/null)
case $msg in
    *"--rank 7: the job has no such rank (ranks 0, 1)") ;;
    *) echo "FAIL: analyze --rank 7: $msg"; fail=1 ;;
esac
# a job's own report is not scoped by stacks: refused, not ignored
if "$tool" analyze --focus aten::mm "$d/ranks" >/dev/null 2>&1; then
    echo "FAIL: analyze --focus of a job without --rank was not refused"; fail=1
fi
# under --step with a scope of stacks, the kernels the scope's are compared
# with are the step's (check_kernels.py checks --step's kernels_info), and
# the text and --json say so, not "the whole trace"
res="$d/resnet50_gpu.json.gz"
dl='enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__'
for fo in aten::conv2d "$dl"; do
    got=$("$tool" analyze --json --step 7 --focus "$fo" "$res" |
          "$py" -c 'import json, sys; k = json.load(sys.stdin)["kernels_info"]; print(k.get("all_total_ns"), k.get("all_of"))')
    want=$("$tool" analyze --json --step 7 "$res" |
           "$py" -c 'import json, sys; print(json.load(sys.stdin)["kernels_info"]["total_ns"])')
    [ -n "$want" ] && [ "$got" = "$want Step 7" ] ||
        { echo "FAIL: --step 7 --focus $fo: all_total_ns, all_of: $got; --step 7's kernels: $want ns"; fail=1; }
done
txt=$("$tool" analyze --step 7 --focus "$dl" "$res")
case $txt in
    *"Kernels: none launched inside the scope's stacks ("*" ms of kernel time in Step 7)"*) ;;
    *) echo "FAIL: --step 7 --focus without kernels: the text does not name the step"; fail=1 ;;
esac
txt=$("$tool" analyze --step 7 --focus aten::conv2d "$res")
case $txt in
    *"in the scope: those launched inside its stacks, "*" ms kernel time in Step 7)"*) ;;
    *) echo "FAIL: --step 7 --focus aten::conv2d: the Kernels header does not name the step"; fail=1 ;;
esac
exit $fail
