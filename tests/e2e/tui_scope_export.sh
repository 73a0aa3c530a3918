#!/bin/sh
# #23's acceptance: in every view and scope, e writes a profile whose
# comments hold the command (`torch2pprof convert ...`) that writes it
# again; the command is run and the two profiles must be equal as pprof
# sees them (tests/same_samples.py: the same sample types and, with samples
# of one stack and labels summed, the same values). Each case is a key
# script replayed headless in the explorer.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
if ! command -v go >/dev/null 2>&1; then
    echo "SKIP: go tool pprof is not installed"
    exit 77
fi
tui="$top_builddir/torch2pprof-tui"
work=$(mktemp -d /tmp/t2p-scope-export.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
fail=0
n=0
ok() { echo "ok: $1"; n=$((n + 1)); }
bad() { echo "FAIL: $1"; fail=1; }

# case NAME TRACE KEYS [OPTIONS...]: KEYS then e Enter; the profile's command
# run again must write the same profile
case_() {
    name=$1 trace=$2 keys=$3
    shift 3
    rm -f "$work"/*.pb.gz
    (cd "$work" && "$tui" --replay "$keys e <Enter>" --print --size 200x40 "$@" "$trace") \
        >"$work/screen" 2>&1
    out=$(ls "$work"/*.pb.gz 2>/dev/null | head -1)
    if [ -z "$out" ]; then
        bad "$name: e wrote nothing: $(grep status: "$work/screen")"
        return
    fi
    cmd=$(go tool pprof -comments "$out" 2>/dev/null | grep '^torch2pprof convert ')
    if [ -z "$cmd" ]; then
        bad "$name: no command in the profile's comments"
        return
    fi
    # the message after e shows the same command (cut to the screen's width)
    shown=$(grep 'status: exported' "$work/screen" | sed 's/.* · //' | cut -c1-60)
    case $cmd in
    "$shown"*) ;;
    *) bad "$name: the message shows another command: $shown"; return ;;
    esac
    again=$(printf '%s' "$cmd" | sed 's/ -o [^ ]*$/ -o again.pb.gz/')
    if ! (cd "$work" && PATH="$top_builddir:$PATH" && eval "$again") >"$work/err" 2>&1; then
        bad "$name: the recorded command failed: $again: $(cat "$work/err")"
        return
    fi
    if python3 "$top_srcdir/tests/same_samples.py" "$out" "$work/again.pb.gz" >"$work/diff"; then
        ok "$name: $cmd"
    else
        bad "$name: $again writes another profile: $(head -3 "$work/diff")"
    fi
}

alex="$top_srcdir/data/alexnet_train.json.gz"
py="$top_srcdir/tests/fixtures/pyfunc_frames.json"
pystack="$top_srcdir/tests/fixtures/pystack_train.json.gz"
mem="$top_srcdir/tests/fixtures/cnn_memory.json.gz"
res="$top_srcdir/data/resnet50_gpu.json.gz"

# every view, the whole trace
for v in 1 2 3 4 5 8; do
    case_ "view $v, whole trace" "$alex" "$v"
done
# a focus from each view that sets one
case_ "Ops: Enter on an operator" "$alex" "1 <Down> <Down> <Enter>"
case_ "Categories: Enter on a category" "$alex" "2 <Down> <Enter>"
case_ "Tree: f on a node" "$alex" "3 <Down> <Right> <Down> f"
case_ "Tree per track: f on a node" "$alex" "3 m <Down> <Right> <Down> f"
# two siblings of one name, a user_annotation and a gpu_user_annotation
# ProfilerStep*: f on the second (the GPU's, 1.031 ms) must name it, not
# the first (9.337 ms), in the command
amd="${SHARED:-}/traces/amd_mi250_train.json.gz"
if [ -r "$amd" ]; then
    case_ "Tree: f on the second of two siblings of one name" "$amd" \
        "3 m <Down> <Left> <Down> <Down> f"
    grep -q "ProfilerStep\*{cat=gpu_user_annotation}" "$work/screen" ||
        bad "the second ProfilerStep* is not named by its category: $(grep status: "$work/screen")"
    # and its time is that event's own, read from the trace's JSON
    want=$(python3 -c 'import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
print("%.3f ms" % (sum(e["dur"] for e in t["traceEvents"] if e.get("ph") == "X"
      and e.get("cat") == "gpu_user_annotation" and e["name"].startswith("ProfilerStep#")) / 1000))' "$amd")
    grep "status: exported" "$work/screen" | grep -qF ", $want" ||
        bad "the second ProfilerStep*'s export is not its $want: $(grep status: "$work/screen")"
else
    echo "note: $amd not found: two siblings of one name not checked"
fi
case_ "Threads: Enter on a track" "$alex" "4 <Down> <Enter>"
case_ "two focus entries" "$alex" "2 <Enter> 1 <Down> <Enter>"
case_ "a filter" "$alex" "1 \\ c o n v <Enter>"
case_ "a filter and a focus" "$alex" "1 \\ r e l u <Enter> <Enter>"
# a step, from the Steps view and with [ ]
case_ "a step (Enter in Steps)" "$res" "5 <Down> <Enter>"
case_ "a step with ]" "$res" "1 ]"
case_ "a step and a focus" "$res" "5 <Down> <Enter> 1 <Down> <Enter>"
# a time range: marked in the Timeline, or --range at open
case_ "a range marked in the Timeline" "$res" "9 { <Right> <Right> <Right> <Right> <Right> <Right> }"
case_ "a range and a focus" "$res" "9 { <Right> <Right> <Right> <Right> } 1 <Down> <Enter>"
case_ "--range at open" "$alex" "1" --range 100ms:400ms
# p and s
case_ "p: Python frames hidden" "$py" "p"
case_ "p in the Tree" "$pystack" "3 p"
case_ "s: short names" "$alex" "s"
case_ "s and a focus" "$alex" "s 1 <Down> <Enter>"
case_ "--no-python from the command line" "$py" "1" --no-python
# opened with the scope on the command line
case_ "--step at open" "$res" "1" --step 7
# a step the trace lacks: exit 2, the steps it has named
msg=$("$tui" --replay "q" --print --step 3 "$res" 2>&1 >/dev/null); st=$?
[ "$st" = 2 ] && printf '%s' "$msg" | grep -q "it has 6 steps, 5 to 10" && ok "--step 3: exit 2, the steps named" ||
    bad "--step 3: exit $st: $msg"
case_ "--focus and --filter at open" "$alex" "1" --focus aten::conv2d --filter relu
case_ "--category at open" "$alex" "2" --category cuda_runtime
# memory
case_ "the Memory view" "$mem" "8"
case_ "Memory with a step" "$mem" "5 <Down> <Enter> 8"
case_ "Memory with --range (the range's records)" "$mem" "8" --range 15ms:23ms
case_ "Steps with --range (the steps overlapping it)" "$mem" "5" --range 15ms:23ms

# the views that export what they show (#26, #27): the profile holds the
# figures analyze gives for that view (tests/view_export_check.py)
viewfig() { # MODE TRACE [ARG [ANALYZE-OPTION...]]: the last case's profile against analyze --json
    vf_mode=$1 vf_trace=$2 vf_arg=${3-}
    [ $# -ge 3 ] && shift 3 || shift $#
    "$top_builddir/torch2pprof" analyze --json --top 0 "$@" "$vf_trace" >"$work/an.json" 2>/dev/null
    if python3 "$top_srcdir/tests/view_export_check.py" "$vf_mode" "$out" "$work/an.json" ${vf_arg:+"$vf_arg"} \
        >"$work/check"; then
        ok "$vf_mode figures of the view $*"
    else
        bad "$vf_mode $*: the profile is not what the view shows: $(head -3 "$work/check")"
    fi
}
modtr="$top_srcdir/tests/fixtures/tb/modules_train.json.gz"
case_ "Kernels: every kernel by launching stack" "$res" "" --view kernels
viewfig kernels "$res"
case_ "Kernels: the launchers of one kernel" "$res" "<Down> <Enter>" --view kernels
viewfig kernels "$res" "=$("$top_builddir/torch2pprof" analyze --kernels --json --top 0 "$res" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["kernels"][1]["name"])')"
case_ "Kernels: the filter tests the kernel's name" "$res" "\\ g e m m <Enter>" --view kernels
viewfig kernels "$res" gemm
case_ "Kernels with a step" "$res" "5 <Down> <Enter> 9 <Tab> <Tab>"
case_ "Ops by input shape: every sample labelled with its shape" "$res" "1 I"
viewfig shapes "$res"
case_ "Ops by input shape in a step" "$res" "5 <Down> <Enter> 1 I"
# the step's rows, as the view shows them and analyze --by-shape --step lists them
stepn=$(printf '%s' "$cmd" | sed -n 's/.*--step \([0-9][0-9-]*\).*/\1/p')
if [ -n "$stepn" ]; then viewfig shapes "$res" "" --step "$stepn"; else bad "by shape in a step: no --step in $cmd"; fi
case_ "Modules: the stacks through modules" "$modtr" "" --view modules
viewfig modules "$modtr"
case_ "GPU: a stream's GPU time by launching stack" "$res" "" --view gpu
case_ "GPU: from a stream's launches" "$res" "<Enter>" --view gpu
# two streams: e on each in turn writes each stream's time, the scope untouched
nccl="$top_srcdir/tests/fixtures/nccl_job/rank-0.json.gz"
rm -f "$work"/*.pb.gz
(cd "$work" && "$tui" --replay "e <Enter> <Down> e <Enter>" --print --size 200x40 --view gpu \
    "$nccl") >"$work/screen" 2>&1
# each profile's device time, against each stream's GPU time (in either order)
devs=$(for f in "$work"/*.pb.gz; do
    go tool pprof -raw "$f" | awk '/^ +-?[0-9]+ +-?[0-9]+ +-?[0-9]+ /{t+=$3} END{printf "%d\n", t}'
done | sort -n | tr '\n' ' ')
want=$("$top_builddir/torch2pprof" analyze --json "$nccl" |
    python3 -c 'import json,sys; print(" ".join(sorted((str(s["busy_ns"]) for s in json.load(sys.stdin)["streams"]), key=int)), end=" ")')
[ "$devs" = "$want" ] && grep -q '^Scope: all ' "$work/screen" &&
    ok "GPU: e on two streams in turn: device time $devs, the scope untouched" ||
    bad "GPU: e on two streams: device time $devs, want $want; $(grep '^Scope' "$work/screen")"

# a job: a rank, All ranks, with a focus and a step
ranks="$top_srcdir/data/ranks"
case_ "a rank (Ranks view, Enter)" "$ranks" "6 <Down> <Enter>"
case_ "All ranks" "$ranks" "7"
case_ "All ranks with a filter" "$ranks" "7 \\ c o n v <Enter>"
case_ "--rank at open, a focus" "$ranks" "1 <Down> <Enter>" --rank 1
# a rank the job lacks: exit 2, its ranks named, nothing written
msg=$("$top_builddir/torch2pprof" convert --rank 9 "$ranks" -o "$work/r9.pb.gz" 2>&1); st=$?
[ "$st" = 2 ] && [ ! -e "$work/r9.pb.gz" ] && printf '%s' "$msg" | grep -q "no such rank (ranks 0, 1)" &&
    ok "convert --rank 9: exit 2, the ranks named" || bad "convert --rank 9: exit $st: $msg"
msg=$("$tui" --replay "q" --print --rank 9 "$ranks" 2>&1 >/dev/null); st=$?
[ "$st" = 2 ] && printf '%s' "$msg" | grep -q "no such rank" && ok "explorer --rank 9: exit 2" ||
    bad "explorer --rank 9: exit $st: $msg"
# compare mode (--base): the difference, as go tool pprof -diff_base
case_ "compare" "$res" "1" --base "$alex"
case_ "compare with a filter" "$res" "1 \\ c o n v <Enter>" --base "$alex"
case_ "compare, a focus in the Tree" "$res" "3 <Down> <Right> <Down> f" --base "$alex"
case_ "compare, the Steps view" "$res" "5" --base "$alex"
case_ "compare, the Memory view" "$res" "8" --base "$mem"

echo "$n cases"
[ "$fail" = 0 ] && [ "$n" -gt 20 ]
