#!/bin/sh
# Runs the libFuzzer target for a given time: make fuzz FUZZ_SECONDS=N.
# usage: run.sh FUZZER SECONDS SRCDIR [JOBS]
# The seed corpus is rebuilt each time from data/, tests/fixtures/shared/traces, the
# recorded fixtures and tests/bad/inputs (decompressed, cut to FUZZ_MAX_LEN);
# what the fuzzer learns is kept in fuzz-corpus/work between runs. A crash is
# left in fuzz-corpus/crashes/ and makes this script fail.
set -eu
fuzzer=$1
seconds=$2
srcdir=$3
jobs=${4:-1}
max_len=${FUZZ_MAX_LEN:-16384}
shared=${SHARED:-$srcdir/tests/fixtures/shared}
dir=fuzz-corpus
mkdir -p "$dir/seeds" "$dir/work" "$dir/crashes"
rm -f "$dir/seeds/"*
n=0
seed() { # seed NAME FILE: plain and cut copies of a (possibly gzip) trace
    n=$((n + 1))
    case "$2" in
    *.gz)
        if [ "$(wc -c <"$2")" -le "$max_len" ]; then cp "$2" "$dir/seeds/$n-$1.gz"; fi
        gzip -dc "$2" 2>/dev/null | head -c "$max_len" >"$dir/seeds/$n-$1" || true ;;
    *) head -c "$max_len" "$2" >"$dir/seeds/$n-$1" ;;
    esac
    # a small cut of each: short inputs run fastest and reach the end paths
    head -c 4096 "$dir/seeds/$n-$1" >"$dir/seeds/$n-$1.cut"
}
for f in "$srcdir"/data/*.json.gz "$srcdir"/tests/fixtures/*.json.gz "$shared"/traces/*; do
    [ -f "$f" ] && seed "$(basename "$f")" "$f"
done
if [ -d "$srcdir/tests/bad/inputs" ]; then
    for f in "$srcdir"/tests/bad/inputs/*; do
        [ -f "$f" ] && seed "$(basename "$f")" "$f"
    done
fi
echo "fuzz: $(ls "$dir/seeds" | wc -l) seeds, $(ls "$dir/work" | wc -l) in the working corpus, ${seconds}s, $jobs job(s)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=32}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
set +e
if [ "$jobs" -gt 1 ]; then
    "$fuzzer" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -dict="$srcdir/tests/fuzz/trace.dict" -artifact_prefix="$dir/crashes/" \
        -jobs="$jobs" -workers="$jobs" -print_final_stats=1 "$dir/work" "$dir/seeds"
    rc=$?
else
    "$fuzzer" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -dict="$srcdir/tests/fuzz/trace.dict" -artifact_prefix="$dir/crashes/" \
        -print_final_stats=1 "$dir/work" "$dir/seeds"
    rc=$?
fi
set -e
if [ "$rc" -ne 0 ]; then
    echo "fuzz: FAILED (exit $rc); the input that failed is in $dir/crashes/:" >&2
    ls -lt "$dir/crashes" >&2
    exit 1
fi
echo "fuzz: clean"
