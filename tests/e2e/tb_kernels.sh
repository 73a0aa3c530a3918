#!/bin/sh
# Kernels, kernels by operator, the GPU summary and its recommendations
# against TensorBoard's own plugin: every shared trace with a recorded
# fixture (tests/fixtures/tb/NAME.kernels.json, from
# tests/fixtures/tb/record_kernels.py), with issue 26's tolerances.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
# every check here reads the shared traces: without them a note and a skip
[ -d "$SHARED/traces" ] || { echo "note: $SHARED/traces not found (./setup.sh --test installs it); skipped"; exit 77; }
fail=0
n=0
for fx in "$top_srcdir"/tests/fixtures/tb/*.kernels.json; do
    name=$(basename "$fx" .kernels.json)
    t=
    for c in "$SHARED/traces/$name.json.gz" "$SHARED/traces/$name.json"; do
        [ -e "$c" ] && t=$c && break
    done
    [ -n "$t" ] || { echo "FAIL: no trace for fixture $fx"; fail=1; continue; }
    # where the plugin's launch attribution (External id, no cuda_driver) is
    # not ours (nesting, core/analyses/gpu.h), by_op compares the rows both have
    flag=
    case $name in
    # its launches' External ids tie them to one operator alone
    alexnet_train) flag=--attribution-differs ;;
    # the plugin tied no launch to an operator
    backward_thread_plain | sampled_rank0_noflows) flag=--attribution-differs ;;
    # NCCL launches: record_param_comms by External id, nccl:* around them by nesting
    nccl_relative_time) flag=--attribution-differs ;;
    # launched by cuLaunchKernel (cuda_driver), a category the plugin did not read
    triton_example) flag=--attribution-differs ;;
    esac
    "$py" "$top_srcdir/tests/check_kernels.py" $flag "$tool" "$fx" "$t" || fail=1
    n=$((n + 1))
done
[ "$n" -ge 8 ] || { echo "FAIL: only $n kernel fixtures"; fail=1; }

# traces without a kernel event: the plugin had no Kernel view; ours is empty
# and no GPU is summed (cupti_profiler's GPU rows are cuda_profiler_range)
for name in cupti_profiler x_events_only; do
    "$tool" analyze --kernels --json "$SHARED/traces/$name.json.gz" > kernels.json &&
    "$py" - kernels.json "$name" <<'PYEOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["kernels"] == [] and d["kernels_by_op"] == [] and d["gpus"] == [] \
    and d["kernels_info"]["events"] == 0
print("%s: %s: no kernel, no GPU summary" % ("ok" if ok else "FAIL", sys.argv[2]))
sys.exit(0 if ok else 1)
PYEOF
done
rm -f kernels.json
exit $fail
