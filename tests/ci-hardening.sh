#!/bin/sh
# Hardening checks for CI (called by .ci/run), about 5-8 minutes on 2 cores:
#   1. an --enable-sanitizers (ASan + UBSan) build runs the whole make check,
#      leaks detected;
#   2. valgrind memcheck on end-to-end analyze runs (ok, --partial and failing
#      inputs): no errors, no definite leaks;
#   3. a fuzz smoke: make fuzz for FUZZ_SECONDS (60 by default).
# Builds out of tree from a copy of the tracked sources, so it neither needs
# nor disturbs an in-tree build. Needs: clang (with libclang-rt-14-dev for
# libFuzzer), valgrind, and the project's usual build dependencies.
# usage: sh tests/ci-hardening.sh [SRCDIR]   (default: the checkout it sits in)
set -eu
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
shared=${SHARED:-$src/tests/fixtures/shared}
jobs=${JOBS:-2}
fuzz_seconds=${FUZZ_SECONDS:-60}
W=$(mktemp -d "${TMPDIR:-/tmp}/t2p-hardening.XXXXXX")
trap 'rm -rf "$W"' EXIT
t0=$(date +%s)
step() { echo "== hardening: $* ($(($(date +%s) - t0)) s)"; }

for tool in clang valgrind autoreconf; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "hardening: $tool is missing (apt-get install clang libclang-rt-14-dev valgrind autoconf automake)" >&2
        exit 1
    }
done

step "copying the tracked sources"
mkdir "$W/src"
(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$W/src")
(cd "$W/src" && autoreconf -fi >/dev/null 2>&1)

# ---- 1. sanitizers ----
step "ASan + UBSan build"
# the README's recipe: a build directory of its own beside the sources (VPATH)
san="$W/src/build-asan"
mkdir "$san"
(cd "$san" && ../configure -q --enable-sanitizers >/dev/null &&
    make -s -j"$jobs" >/dev/null)
# a silent recipe built plain objects once: the programs must carry ASan
for p in torch2pprof torch2pprof-tui; do
    nm "$san/$p" | grep -q __asan_init || {
        echo "hardening: $p of the sanitizer build has no AddressSanitizer" >&2
        exit 1
    }
done
step "make check under ASan + UBSan"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
if ! (cd "$san" && make -s -j"$jobs" check >check.out 2>&1); then
    cat "$san/check.out"
    for f in "$san"/tests/*/*.log "$san"/tests/*.log; do
        [ -f "$f" ] && case "$f" in *test-suite.log) ;; *) echo "--- $f"; tail -40 "$f" ;; esac
    done
    echo "hardening: make check failed under the sanitizers" >&2
    exit 1
fi
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' "$san/check.out" || true
unset ASAN_OPTIONS UBSAN_OPTIONS

# ---- 2. valgrind ----
step "plain build for valgrind and the fuzzer"
mkdir "$W/plain"
(cd "$W/plain" && "$W/src/configure" -q CFLAGS="-O1 -g" >/dev/null && make -s -j"$jobs" >/dev/null)
tool="$W/plain/torch2pprof"
vg() { # vg EXPECTED_EXIT ARGS...
    want=$1; shift
    set +e
    valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite "$tool" "$@" >"$W/vg.out" 2>"$W/vg.err"
    rc=$?
    set -e
    if [ "$rc" -ne "$want" ]; then
        echo "hardening: valgrind torch2pprof $*: exit $rc, expected $want" >&2
        cat "$W/vg.err" >&2
        exit 1
    fi
    echo "   valgrind clean: torch2pprof $* (exit $rc)"
}
step "valgrind memcheck"
gzip -dc "$src/data/cnn_train_cpu.json.gz" | head -c 3000 >"$W/cut.json"
vg 0 analyze "$src/data/cnn_train_cpu.json.gz"
vg 0 analyze --json --top 0 "$src/data/alexnet_train.json.gz"
vg 0 analyze --partial "$W/cut.json"
vg 2 analyze "$W/cut.json"
vg 2 analyze "$src/tests/bad/inputs/control_char.json"
vg 0 analyze --json "$src/tests/bad/inputs/event_problems.json"
vg 0 analyze "$src/tests/bad/inputs/big_ids.json"
for t in cupti_profiler.json.gz amd_mi250_train.json.gz backward_thread_plain.json \
    triton_example.json.gz; do
    if [ -f "$shared/traces/$t" ]; then vg 0 analyze --keep-steps "$shared/traces/$t"; fi
done
if [ -f "$shared/traces/not_a_trace_execution_graph.json.gz" ]; then
    vg 2 analyze "$shared/traces/not_a_trace_execution_graph.json.gz"
fi
if [ -f "$W/plain/torch2pprof" ] && "$tool" convert --help >/dev/null 2>&1; then
    vg 0 convert "$src/data/cnn_train_cpu.json.gz" "$W/out.pb.gz"
    vg 0 convert --focus conv --thread . "$src/data/alexnet_train.json.gz" "$W/out2.pb.gz"
    vg 2 convert "$src/data/cnn_train_cpu.json.gz" "$W/nodir/out.pb.gz"
    vg 2 convert "$W/cut.json" "$W/out3.pb.gz"
fi
# several ranks: the worker threads, the merged ops and the merged profile
vg 0 analyze --json --top 0 --jobs 2 "$src/data/alexnet_train.json.gz" \
    "$src/data/cnn_train_cpu.json.gz" "$src/tests/fixtures/lstm_train.json.gz"
vg 0 analyze --partial "$src/data/alexnet_train.json.gz" "$W/cut.json" \
    "$src/data/cnn_train_cpu.json.gz"
vg 2 analyze "$src/data/alexnet_train.json.gz" "$src/data/alexnet_train.json.gz"
vg 0 convert --focus conv "$src/data/alexnet_train.json.gz" "$src/data/cnn_train_cpu.json.gz" \
    "$W/ranks.pb.gz"
# comparing: two loads on two threads, the diff profile, two steps of one trace
vg 0 analyze --json --top 0 --base "$src/data/alexnet_train.json.gz" "$src/data/cnn_train_cpu.json.gz"
vg 0 convert --base "$src/data/alexnet_train.json.gz" "$src/data/cnn_train_cpu.json.gz" "$W/diff.pb.gz"
vg 2 analyze --base "$W/cut.json" "$src/data/cnn_train_cpu.json.gz"
if [ -f "$shared/traces/ns_resolution_rank0.pt.trace.json.gz" ]; then
    vg 0 analyze --per-step --base-step 101 --step 102-103 "$shared/traces/ns_resolution_rank0.pt.trace.json.gz"
fi

# ---- 3. fuzz smoke ----
step "fuzz smoke, ${fuzz_seconds} s"
(cd "$W/plain" && SHARED="$shared" make -s fuzz FUZZ_SECONDS="$fuzz_seconds" \
    >"$W/fuzz.out" 2>&1) || {
    tail -60 "$W/fuzz.out"
    for f in "$W"/plain/fuzz-corpus/crashes/*; do
        [ -f "$f" ] && { echo "--- $f (base64)"; base64 "$f" | head -40; }
    done
    echo "hardening: the fuzzer found a failure" >&2
    exit 1
}
grep -E '^(fuzz:|stat::number_of_executed_units|Done )' "$W/fuzz.out" || true
step "done"
echo "hardening: 3 passed, 0 failed"
