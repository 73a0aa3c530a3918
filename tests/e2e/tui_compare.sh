#!/bin/sh
# torch2pprof-tui --base: the Ops Δ screen against analyze --base --json (the
# same rows in the same order with the same deltas), e against convert --base
# (the same profile), and in tmux the colours: slower rows red, faster green,
# none with NO_COLOR (the + / - marks and signs stay).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
py=$(command -v python3) || { echo "python3 missing: cannot run (./setup.sh --test installs it)"; exit 1; }
tui="$top_builddir/torch2pprof-tui"
cli="$top_builddir/torch2pprof"
F="$top_srcdir/tests/fixtures"
base="$F/mlp_nested.json.gz"
new="$F/mlp_train_big.json.gz"
work=$(mktemp -d /tmp/t2p-tui-cmp.XXXXXX)
sock="t2p-cmp-$$"
fail=0
runs=0
T() { tmux -L "$sock-$runs" "$@"; }
# each run has its own server: a new session on a server that is still
# exiting after the last one quit dies with "server exited unexpectedly"
cleanup() {
    while [ "$runs" -ge 0 ]; do T kill-server 2>/dev/null; runs=$((runs - 1)); done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# ---- the screen's rows are analyze --base's, in its order
"$tui" --replay "" --print --size 200x80 --base "$base" "$new" > "$work/screen" &&
"$cli" analyze --json --top 0 --base "$base" "$new" > "$work/cmp.json" &&
"$py" - "$work/screen" "$work/cmp.json" <<'PYEOF' || fail=1
import json, sys
lines = open(sys.argv[1]).read().splitlines()
ops = json.load(open(sys.argv[2]))["compare"]["ops"]
head = next(i for i, l in enumerate(lines) if l.startswith("Name"))
titles = lines[head]
col = titles.index("Δ self ms")
rows = [l for l in lines[head + 1:] if l[:3].strip() in ("", "+", "-", ">", ">+", ">-") and len(l) > col and l[3:].strip()]
rows = rows[:60]
ms = lambda ns: ("+" if ns > 0 else "") + ("-" if ns < 0 else "") + "%d.%03d" % divmod((abs(ns) + 500) // 1000, 1000)
n = 0
for o, row in zip(ops, rows):
    mark = {"both": " ", "added": "+", "removed": "-"}[o["status"]]
    want = ms(o["delta"]["self_ns"])
    if want in ("+0.000", "-0.000"):
        want = "0.000"
    cells = row.split()
    if row[1] != mark or not row[3:].startswith(o["name"][:20]) or want not in cells:
        sys.exit("tui --base: row %r, want mark %r, name %r, delta self %s" % (row, mark, o["name"], want))
    n += 1
if n < 40:
    sys.exit("tui --base: only %d rows compared" % n)
print("ok: tui --base Ops rows = analyze --base (%d rows: marks, order, delta self)" % n)
PYEOF

# ---- e writes the profile convert --base writes
(cd "$work" && "$tui" --replay "e <Enter>" --print --size 120x30 --base "$base" "$new") > "$work/e.out" 2>&1
out=$(sed -n 's/^status: exported \([^:]*\):.*/\1/p' "$work/e.out")
if [ -n "$out" ] && [ -f "$work/$out" ] && "$cli" convert --base "$base" "$new" "$work/ref.pb.gz" 2>/dev/null &&
   sh "$top_srcdir/tests/same_profile.sh" "$work/$out" "$work/ref.pb.gz"; then
    echo "ok: e in compare mode wrote $out, the profile convert --base writes"
else
    echo "FAIL: e in compare mode: $(cat "$work/e.out" | tail -3)"; fail=1
fi

# ---- colours, in a terminal
if command -v tmux >/dev/null 2>&1; then
    run() { # run ENV BASE NEW: the explorer in a fresh tmux session; the screen with escapes into $work/cap
        T kill-server 2>/dev/null
        runs=$((runs + 1))
        T new-session -d -s c -x 160 -y 30 -c "$work" \
            "env -i PATH='$PATH' HOME='$work' TERM=xterm-256color LANG=C.UTF-8 $1 '$tui' --base '$2' '$3'"
        n=0
        while [ $n -lt 100 ]; do
            T capture-pane -p -t c 2>/dev/null | grep -q "Ops Δ" && break
            sleep 0.1; n=$((n + 1))
        done
        T capture-pane -e -p -t c > "$work/cap"
        T send-keys -t c q
        T kill-server 2>/dev/null
    }
    esc=$(printf '\033')
    # slower rows (a positive delta) in red (SGR 31): new is the bigger trace
    run "" "$base" "$new"
    grep "$esc\[31m" "$work/cap" | grep -q -- " +[0-9]" && red=1 || red=0
    # faster rows in green (SGR 32): the same pair the other way round
    run "" "$new" "$base"
    grep "$esc\[32m" "$work/cap" | grep -q -- " -[0-9]" && green=1 || green=0
    if [ $red = 1 ] && [ $green = 1 ]; then
        echo "ok: comparing in a terminal: slower rows red, faster green"
    else
        echo "FAIL: no red and green rows on the compare screen:"; sed 's/^/    | /' "$work/cap" | head -12; fail=1
    fi
    run "NO_COLOR=1" "$base" "$new"
    if grep -q '\+ iteration' "$work/cap" && ! grep -q "$(printf '\033')\[3[12]m" "$work/cap"; then
        echo "ok: NO_COLOR: no colour, the + mark and signs stay"
    else
        echo "FAIL: NO_COLOR still colours the compare screen"; fail=1
    fi
else
    echo "note: tmux missing: colours not checked"
fi
exit $fail
