#!/bin/sh
# --jobs: one trace tokenised on N threads, and its model, steps, memory
# and GPU figures built on N threads, gives byte for byte what one thread
# gives: analyze --json (every figure: steps, memory, GPU, sources), analyze's
# text and convert's profile (with its step labels, and scoped to steps),
# with 2 and 3 threads (another share of the work each), on every shared
# trace, sample and fixture. The explorer's first screen too, on one trace.
# No timing here: make bench measures.
set -u
tool="$top_builddir/torch2pprof"
tui="$top_builddir/torch2pprof-tui"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t2p-jobs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
[ -d "$SHARED/traces" ] || echo "note: $SHARED/traces not found; shared traces not checked"
for t in "$SHARED"/traces/* "$top_srcdir"/tests/fixtures/*.json.gz "$top_srcdir"/data/*.json.gz \
         "$top_srcdir"/tests/fixtures/gpu_edge.json; do
    [ -e "$t" ] || continue
    case "$t" in *not_a_trace*) continue ;; esac
    for j in 1 2 3; do
        "$tool" analyze --json --jobs $j "$t" > "$tmp/a$j.json" 2> "$tmp/a$j.err" ||
            { echo "FAIL: analyze --jobs $j $t: $(cat "$tmp/a$j.err")"; fail=1; }
        "$tool" analyze --jobs $j "$t" > "$tmp/x$j.txt" 2>&1
        # the same output name (the profile records its command, less --jobs)
        mkdir -p "$tmp/j$j"
        (cd "$tmp/j$j" && "$tool" convert --jobs $j "$t" out.pb.gz) 2> "$tmp/c$j.err" ||
            { echo "FAIL: convert --jobs $j $t: $(cat "$tmp/c$j.err")"; fail=1; }
    done
    for j in 2 3; do
        cmp -s "$tmp/a1.json" "$tmp/a$j.json" ||
            { echo "FAIL: analyze --json differs between --jobs 1 and --jobs $j: $t"; fail=1; }
        cmp -s "$tmp/x1.txt" "$tmp/x$j.txt" ||
            { echo "FAIL: analyze's text differs between --jobs 1 and --jobs $j: $t"; fail=1; }
        cmp -s "$tmp/j1/out.pb.gz" "$tmp/j$j/out.pb.gz" ||
            { echo "FAIL: convert's profile differs between --jobs 1 and --jobs $j: $t"; fail=1; }
    done
done
# scoped to steps (a model built with a keep mask and the step groups)
t="$top_srcdir/data/resnet50_gpu.json.gz"
for j in 1 2 3; do
    mkdir -p "$tmp/s$j"
    (cd "$tmp/s$j" && "$tool" convert --jobs $j --step 6-8 "$t" out.pb.gz) 2> "$tmp/s$j.err" ||
        { echo "FAIL: convert --step 6-8 --jobs $j: $(cat "$tmp/s$j.err")"; fail=1; }
    "$tool" analyze --json --step 7 --jobs $j "$t" > "$tmp/s$j.json" 2>&1
done
for j in 2 3; do
    cmp -s "$tmp/s1/out.pb.gz" "$tmp/s$j/out.pb.gz" ||
        { echo "FAIL: convert --step 6-8 differs between --jobs 1 and --jobs $j"; fail=1; }
    cmp -s "$tmp/s1.json" "$tmp/s$j.json" ||
        { echo "FAIL: analyze --step 7 differs between --jobs 1 and --jobs $j"; fail=1; }
done
# a comparison: --jobs 1 loads the sides one after the other, --jobs 4 each
# side on its own thread tokenised by two
b="$SHARED/traces/alexnet_train.json.gz" n="$SHARED/traces/tb_resnet50_w0.json.gz"
if [ -e "$b" ] && [ -e "$n" ]; then
    for j in 1 4; do
        "$tool" analyze --json --jobs $j --base "$b" "$n" > "$tmp/cmp$j.json" 2>&1
    done
    cmp -s "$tmp/cmp1.json" "$tmp/cmp4.json" ||
        { echo "FAIL: analyze --base differs between --jobs 1 and --jobs 4"; fail=1; }
fi
# a failed load says the same whatever --jobs (the parallel path hands
# every error to the one-thread load)
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5},{"ph":' > "$tmp/cut.json"
for j in 1 4; do
    "$tool" analyze --jobs $j "$tmp/cut.json" > /dev/null 2> "$tmp/e$j.err"
    echo "exit $?" >> "$tmp/e$j.err"
done
cmp -s "$tmp/e1.err" "$tmp/e4.err" ||
    { echo "FAIL: a truncated trace's error differs with --jobs 4:"; cat "$tmp/e1.err" "$tmp/e4.err"; fail=1; }
# --partial (the explorer's default) loads on N threads a file that is
# whole, and a cut one again on one thread: what it keeps is the same
# whatever --jobs, a cut gzip stream (chunks handed to the workers before
# the cut) and a cut JSON text alike
r="$SHARED/traces/tb_resnet50_w0.json.gz"
cuts="$tmp/cut.json"
if [ -e "$r" ]; then
    head -c 400000 "$r" > "$tmp/cut.json.gz"
    cuts="$cuts $tmp/cut.json.gz $r"
fi
for c in $cuts; do
    for j in 1 4; do
        "$tool" analyze --json --partial --jobs $j "$c" > "$tmp/p$j.json" 2>&1
        echo "exit $?" >> "$tmp/p$j.json"
    done
    cmp -s "$tmp/p1.json" "$tmp/p4.json" ||
        { echo "FAIL: analyze --partial differs between --jobs 1 and --jobs 4: $c"; fail=1; }
    if [ -x "$tui" ]; then
        for j in 1 3; do
            "$tui" --jobs $j --replay "1" --print "$c" 2>&1 |
                grep -v "^first-screen\|^key \|^load \|^max-key " > "$tmp/pt$j.txt"
        done
        cmp -s "$tmp/pt1.txt" "$tmp/pt3.txt" ||
            { echo "FAIL: the explorer's screen of $c differs between --jobs 1 and --jobs 3"; fail=1; }
    fi
done
t="$SHARED/traces/ns_resolution_rank0.pt.trace.json.gz"
if [ -e "$t" ] && [ -x "$tui" ]; then
    for j in 1 3; do
        "$tui" --jobs $j --replay "3 E" --print "$t" 2>&1 | grep -v "^first-screen\|^key \|^load \|^max-key " > "$tmp/t$j.txt"
    done
    cmp -s "$tmp/t1.txt" "$tmp/t3.txt" ||
        { echo "FAIL: the explorer's screen differs between --jobs 1 and --jobs 3"; fail=1; }
fi
exit $fail
