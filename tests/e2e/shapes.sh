#!/bin/sh
# Operators by input shape and modules against TensorBoard's own plugin: every
# fixture of tests/fixtures/tb/ (recorded by record_shapes.py from the shared
# traces with "Input Dims" and the hand-made nn.Module traces, one with fwdbwd
# flows whose backward roots the plugin regroups) must give the
# plugin's rows and module tree (tests/check_shapes.py: calls and booleans
# exact, times within 1 us, percentages within 0.01 points, shapes identical).
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
fail=0
n=0
for fx in "$top_srcdir"/tests/fixtures/tb/*.expected.json; do
    name=$(basename "$fx" .expected.json)
    t=
    for c in "$top_srcdir/tests/fixtures/tb/$name.json.gz" "$SHARED/traces/$name.json.gz" \
             "$SHARED/traces/$name.json"; do
        [ -e "$c" ] && t=$c && break
    done
    [ -n "$t" ] || { echo "FAIL: no trace for fixture $fx"; fail=1; continue; }
    "$py" "$top_srcdir/tests/check_shapes.py" "$tool" "$fx" "$t" || fail=1
    n=$((n + 1))
done
[ "$n" -ge 9 ] || { echo "FAIL: only $n fixtures"; fail=1; }

# the text sections: --by-shape lists the rows, --modules the tree, indented
mt="$top_srcdir/tests/fixtures/tb/modules_train.json.gz"
out=$("$tool" analyze --by-shape --modules --top 3 "$mt") || fail=1
printf '%s\n' "$out" | grep -q '^Operators by input shape (TensorBoard.s tree; 3 of 25 rows)' ||
    { echo "FAIL: --by-shape header"; fail=1; }
printf '%s\n' "$out" | grep -q '^  Linear  *5  *5 ' || { echo "FAIL: --modules tree"; fail=1; }
# the backward roots regrouped by the flows: the text says so and how many are left out
out=$("$tool" analyze --by-shape --top 3 "$top_srcdir/tests/fixtures/tb/modules_backward.json.gz") || fail=1
printf '%s\n' "$out" | grep -q '^Note: 16 backward roots regrouped .*the 3 it could not place are left out' ||
    { echo "FAIL: --by-shape note on the regrouped backward roots"; fail=1; }
# --top 0: every row in --json; --step: only the step's calls
rows=$("$tool" analyze --json --top 0 --step 2 "$mt" | "$py" -c \
    'import json,sys; d=json.load(sys.stdin); print(sum(r["calls"] for r in d["ops_by_shape"] if r["name"]=="aten::addmm"))')
[ "$rows" = 2 ] || { echo "FAIL: --step 2 has $rows aten::addmm calls, not 2"; fail=1; }

# convert --by-shape (= the Ops view's I then e): every row of every trace
# with "Input Dims" (the fixtures' traces above, modules ones included), read
# back by go tool pprof -raw: per (operator, input_shape label) the samples,
# time and device_time ending at it = the row's calls, self_ns and
# device_self_ns of analyze --json (checked against the plugin above), and
# no sample outside the rows; then within a step (--step N on both sides)
if command -v go >/dev/null 2>&1; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/t2p-shapes-sh.XXXXXX") || exit 99
    trap 'rm -rf "$work"' EXIT
    m=0
    check() { # TRACE [ARGS...]: the profile against analyze's rows
        t=$1
        shift
        "$tool" analyze --by-shape --json --top 0 "$@" "$t" >"$work/a.json" 2>/dev/null &&
            "$tool" convert --by-shape "$@" "$t" -o "$work/p.pb.gz" 2>/dev/null ||
            { echo "FAIL: $(basename "$t") $*: analyze or convert --by-shape failed"; fail=1; return; }
        if "$py" "$top_srcdir/tests/view_export_check.py" shapes "$work/p.pb.gz" "$work/a.json" \
            >"$work/check"; then
            echo "ok: convert --by-shape $(basename "$t") $*: $(tail -1 "$work/check")"
            m=$((m + 1))
        else
            echo "FAIL: convert --by-shape $(basename "$t") $*: $(head -3 "$work/check" | tr '\n' ' ')"
            fail=1
        fi
    }
    for fx in "$top_srcdir"/tests/fixtures/tb/*.expected.json; do
        name=$(basename "$fx" .expected.json)
        for c in "$top_srcdir/tests/fixtures/tb/$name.json.gz" "$SHARED/traces/$name.json.gz" \
                 "$SHARED/traces/$name.json"; do
            [ -e "$c" ] && check "$c" && break
        done
    done
    check "$top_srcdir/data/alexnet_train.json.gz"
    check "$SHARED/traces/cupti_profiler.json.gz"
    check "$mt" --step 2
    check "$top_srcdir/data/resnet50_gpu.json.gz" --step 7-8
    # a range: analyze's rows count the calls that start in it, as convert's
    check "$top_srcdir/data/resnet50_gpu.json.gz" --range 300ms:700ms
    [ "$m" -ge 14 ] || { echo "FAIL: convert --by-shape checked on $m traces only"; fail=1; }
else
    echo "FAIL: go missing: cannot read the --by-shape profile back"
    fail=1
fi
[ $fail -eq 0 ] && echo "ok: shapes and modules ($n fixtures)"
exit $fail
