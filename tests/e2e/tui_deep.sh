#!/bin/sh
# A trace nested 100,000 calls deep on one thread (written here): the
# explorer opens it with the heaviest path unfolded to its leaf, every row
# there, the leaf at the end; search and the merged tree reach rows that deep. The first unfold was once quadratic in the
# depth (22 s); a CPU limit of 8 s per run (the linear open takes 0.3 s,
# about 1 s under the sanitizers) makes that a failure and not a slow pass.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
command -v python3 >/dev/null 2>&1 || { echo "python3 missing: cannot run (./setup.sh --test installs it)"; exit 1; }
tui="$top_builddir/torch2pprof-tui"
work=$(mktemp -d /tmp/t2p-deep.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
n=100000
last=$((n - 1))

# f0 holds f1 holds ... f99999: each starts 1 us after its parent and ends
# 1 us before it
python3 - "$n" "$work/deep.json" <<'PY'
import sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"traceEvents":[')
    f.write(",".join('{"ph":"X","name":"f%d","cat":"cpu_op","pid":1,"tid":1,"ts":%d,"dur":%d}'
                     % (i, i, 2 * (n - i)) for i in range(n)))
    f.write("]}")
PY

# replay KEYS: the screen and the stats in $work/out, exit status in $rc (wide enough
# for the tab line to keep the tree's "tree: per track" after every tab)
replay() {
    (ulimit -t 8; exec "$tui" --replay "$1" --print --size 160x24 "$work/deep.json") \
        >"$work/out" 2>&1
    rc=$?
}
has() { grep -qF -- "$1" "$work/out"; }

replay "3"
if [ $rc -eq 0 ] && has "rows $((n + 1))" && has "▾ f0 " && has "▾ f1 " && has "▾ f2 "; then
    ok "the tree opens with all $((n + 1)) rows of the deepest path unfolded"
else bad "tree: exit $rc: $(head -3 "$work/out")"; fi

replay "3 <End>"
if [ $rc -eq 0 ] && has "▾ f$((last - 1)) " && grep -q "^>.* f$last  *$" "$work/out"; then
    ok "End reaches the leaf f$last under an unfolded f$((last - 1))"
else bad "End: exit $rc: $(tail -4 "$work/out")"; fi

# a row deeper than 512 levels has an index: the search finds the leaf, and
# merging the tracks (and back) keeps the cursor on it (both once went to a
# row near the top)
replay "3 /f$last <Enter>"
if [ $rc -eq 0 ] && grep -q "^>.* f$last  *$" "$work/out" && has "match 1 of 1"; then
    ok "/f$last finds the leaf $n levels down"
else bad "search: exit $rc: $(tail -4 "$work/out")"; fi
replay "3 <End> m m"
# (the status says the mode: the tab line's end is cut at 120 columns since
# the ninth tab)
if [ $rc -eq 0 ] && grep -q "^>.* f$last  *$" "$work/out" && has "status: one tree per track"; then
    ok "merging the tracks and back keeps the cursor on the leaf"
else bad "merge: exit $rc: $(tail -4 "$work/out")"; fi

exit $fail
