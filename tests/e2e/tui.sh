#!/bin/sh
# torch2pprof-tui end to end: run it in a private tmux server, send keys,
# read the screen with capture-pane, and compare with `torch2pprof analyze
# --json` and with what `go tool pprof` reads back from the exported files.
# Every wait polls the screen with a bounded timeout instead of sleeping.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
command -v tmux >/dev/null 2>&1 || { echo "tmux missing: cannot run (./setup.sh --test installs it)"; exit 1; }
py=$(command -v python3) || { echo "python3 missing: cannot run (./setup.sh --test installs it)"; exit 1; }

tui="$top_builddir/torch2pprof-tui"
cli="$top_builddir/torch2pprof"
trace="$top_srcdir/data/alexnet_train.json.gz"
work=$(mktemp -d /tmp/t2p-tui-e2e.XXXXXX)
sock="t2p-e2e-$$"
fail=0
T() { tmux -L "$sock" "$@"; }
cleanup() { T kill-server 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT INT TERM

cur=e2e0
screen() { T capture-pane -p -t "$cur"; }
# wait_for TEXT [SECONDS]: poll until the screen holds TEXT (fixed string)
wait_for() {
    n=0; lim=$(( ${2:-15} * 10 ))
    while [ $n -lt $lim ]; do
        screen | grep -qF -- "$1" && return 0
        sleep 0.1; n=$((n + 1))
    done
    return 1
}
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; screen | sed 's/^/    | /'; fail=1; }
check() { if wait_for "$2" "${3:-15}"; then ok "$1"; else bad "$1 (no '$2' on screen)"; fi; }
keys() { T send-keys -t "$cur" "$@"; }
# start CMD: a fresh 120x40 shell in $work with a known prompt, CMD typed into it
# The new session is made before the old one is killed: killing the last
# session stops the server, and a new-session racing with that stop fails.
nsess=0
start() {
    old=$cur
    nsess=$((nsess + 1))
    cur=e2e$nsess
    T new-session -d -s "$cur" -x 120 -y 40 -c "$work" \
        "env -i PATH='$PATH' HOME='$work' TERM=xterm-256color LANG=C.UTF-8 PS1='T2P\$ ' sh"
    T kill-session -t "$old" 2>/dev/null
    wait_for 'T2P$' 10 || { bad "the shell did not start"; exit 1; }
    keys "$1" Enter
}
json() { "$cli" analyze --json "$@" "$trace"; }
field() { "$py" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# ---- not a terminal: a clear message and exit code 2
"$tui" "$trace" </dev/null >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "needs a terminal" "$work/err"; then ok "not a tty: exit 2";
else echo "FAIL: not a tty gave $rc: $(cat "$work/err")"; fail=1; fi

# ---- opens on Ops sorted by self; the first row is analyze's top op
top_self=$(json --sort self --top 1 | field 'd["ops"][0]["name"]')
top_self_ns=$(json --sort self --top 1 | field 'd["ops"][0]["self_ns"]')
busy_ns=$(json --top 1 | field 'd["busy_ns"]')
start "'$tui' '$trace'; echo EXIT=\$?"
check "opens on Ops" "[1 Ops]"
check "sorted by self, descending" "Self ms▼"
# the selected (first) row's full name is in the footer, second line from the bottom
if screen | tail -n 2 | head -n 1 | grep -qxF -- "$(printf '%s' "$top_self" | cut -c1-119)"; then
    ok "first row is analyze's top op by self ($top_self)"
else bad "first row is not '$top_self'"; fi
self_ms=$("$py" -c "print('%.3f' % (round($top_self_ns / 1000) / 1000))")
screen | sed -n 5p | grep -qF -- "$self_ms" && ok "its self time is $self_ms ms" \
    || bad "first row does not show $self_ms ms"

# ---- views 2 and 3, expand all
keys 2; check "view 2: categories" "[2 Categories]"; check "categories show % busy" "% busy"
keys 3; check "view 3: the tree" "[3 Tree]"
before=$(screen | grep -c '▾')
keys E; sleep 0.2; wait_for "[3 Tree]"
after=$(screen | grep -c '▾')
[ "$after" -gt "$before" ] && ok "E expands all ($before -> $after open nodes on screen)" \
    || bad "E did not expand ($before -> $after)"

# ---- resize re-lays out: at 80 columns the tree drops Dev self and keeps its
# inclusive Dev total (the tree is about inclusive figures)
check "120 columns: Dev self shown" "Dev self ms"
T resize-window -t "$cur" -x 80 -y 24 2>/dev/null
n=0
while [ $n -lt 50 ] && screen | grep -qF "Dev self ms"; do sleep 0.1; n=$((n + 1)); done
if ! screen | grep -qF "Dev self ms" && screen | grep -qF "Dev total ms" &&
   screen | grep -qF "[3 Tree]" && [ "$(screen | wc -l)" -le 24 ]; then
    ok "resize to 80x24 re-lays out"
else bad "resize to 80x24"; fi
T resize-window -t "$cur" -x 120 -y 40 2>/dev/null
check "back to 120 columns" "Dev self ms"

# ---- e exports the whole trace; focus then e exports only the focus
have_go=0
command -v go >/dev/null 2>&1 && have_go=1
pprof_total() { # FILE -> the profile's total in ns, as go tool pprof reads it
    go tool pprof -top -unit=ns "$1" 2>/dev/null |
        sed -n 's/.* of \([0-9.]*\)ns total.*/\1/p' | head -n 1
}
keys 1; check "back to Ops" "[1 Ops]"
keys e; check "e asks where, offering ./alexnet_train.pb.gz" "export to: ./alexnet_train.pb.gz"; keys Enter
if wait_for "exported" 20; then
    ok "e exports"
    f1="$work/alexnet_train.pb.gz"
    [ -s "$f1" ] && ok "wrote alexnet_train.pb.gz in the current directory" || bad "no $f1"
    if [ $have_go = 1 ]; then
        got=$(pprof_total "$f1")
        [ "$got" = "$busy_ns" ] && ok "pprof total $got ns = busy time" \
            || bad "pprof total '$got' != busy $busy_ns"
    else echo "go missing: pprof totals not checked"; fi
    # Enter on the first op: the tree focused on it; its stacks' time is its self time
    # (it calls nothing); e writes the next free name
    keys Enter; check "Enter focuses the top op" "Scope: all › $top_self" 10
    keys e Enter; check "second export" "exported ./alexnet_train-1.pb.gz"
    f2="$work/alexnet_train-1.pb.gz"
    [ -s "$f2" ] && [ -s "$f1" ] && ok "never overwrites" || bad "no $f2"
    if [ $have_go = 1 ]; then
        got=$(pprof_total "$f2")
        [ "$got" = "$top_self_ns" ] && ok "focused export total $got ns = $top_self's time" \
            || bad "focused export total '$got' != $top_self_ns"
    fi
    keys Escape; check "Esc goes back to Ops" "[1 Ops]"
else
    bad "e did not export"
fi

# ---- q quits and gives the shell back
keys q
check "q exits 0 and the shell is back" "EXIT=0" 10
screen | grep -qF "Scope:" && bad "the explorer is still on screen after q" || ok "screen restored"

# ---- --sort calls: the first row is analyze's top op by calls
top_calls=$(json --sort calls --top 1 | field 'd["ops"][0]["name"]')
start "'$tui' --sort calls '$trace'; echo EXIT=\$?"
check "--sort calls marks Calls" "Calls▼"
if screen | tail -n 2 | head -n 1 | grep -qxF -- "$(printf '%s' "$top_calls" | cut -c1-119)"; then
    ok "--sort calls: first row is $top_calls"
else bad "--sort calls: first row is not '$top_calls'"; fi
keys q; check "q exits" "EXIT=0" 10

# ---- a load error shows the loader's message and exits non-zero
printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": oops}]}' > "$work/bad.json"
start "'$tui' '$work/bad.json'; echo EXIT=\$?"
check "load error: exit 2" "EXIT=2" 10
check "load error names the file and the byte" "bad.json: at byte" 2

# ---- the Threads view's figures are analyze's: a thread's busy time and idle
# gap from "threads", a stream's from "streams" (GPU work only)
"$tui" --replay "4" --print --size 200x20 "$trace" > "$work/threads.txt" 2>&1
json --top 1 > "$work/threads.json"
if "$py" - "$work/threads.txt" "$work/threads.json" <<'PYEOF'
import json, sys
screen = open(sys.argv[1]).read().splitlines()
d = json.load(open(sys.argv[2]))
ms = lambda ns: "%d.%03d" % divmod((ns + 500) // 1000, 1000)
streams = {(s["pid"], s["tid"]): s for s in d["streams"]}
n = 0
for t in d["threads"]:
    s = streams.get((t["pid"], t["tid"]), t)
    row = [l for l in screen if l[1:].split("  ")[0].endswith(t["name"])
           and (" CPU " in l or " GPU " in l)]           # a table row, not the footer
    want = [str(t["events"]), ms(s["busy_ns"]), ms(s["max_gap_ns"])]
    if len(row) != 1 or [w for w in want if w not in row[0].split()]:
        sys.exit("threads view: %s: want %s in %r" % (t["name"], want, row))
    n += 1
print("ok: threads view matches analyze for %d tracks" % n)
PYEOF
then :; else fail=1; fi

# ---- a truncated trace (a killed writer) opens under a warning banner;
# --strict refuses it with the loader's "truncated" line
gzip -dc "$trace" | head -c 30000 > "$work/cut.json"
start "'$tui' '$work/cut.json'; echo EXIT=\$?"
check "truncated trace opens" "[1 Ops]"
check "with a banner" "TRUNCATED TRACE (JSON ends at byte 30000)" 2
keys q; check "q exits" "EXIT=0" 10
start "'$tui' --strict '$work/cut.json'; echo EXIT=\$?"
check "--strict: exit 2" "EXIT=2" 10
check "--strict: names truncated and the byte" "cut.json: at byte 30000: truncated" 2

# ---- a terminal resized while the trace is still loading (fed through a
# pipe that stalls half way), then far too small: it keeps going, lays out
# at the final size, and q restores the shell
mkfifo "$work/slow.json"
start "'$tui' '$work/slow.json'; echo EXIT=\$?"
"$py" - "$work/slow.json" "$trace" <<'PYEOF' &
import gzip, sys, time
data = gzip.open(sys.argv[2]).read()
with open(sys.argv[1], "wb") as f:
    f.write(data[: len(data) // 2]); f.flush()
    time.sleep(3)
    f.write(data[len(data) // 2 :])
PYEOF
feeder=$!
check "progress bar while the pipe stalls" "Ctrl-C cancels" 10
T resize-window -t "$cur" -x 90 -y 30 2>/dev/null
check "loaded after a resize during load" "[1 Ops]" 15
kill "$feeder" 2>/dev/null
T resize-window -t "$cur" -x 24 -y 5 2>/dev/null
sleep 0.3
T resize-window -t "$cur" -x 120 -y 40 2>/dev/null
check "survives a 24x5 terminal and comes back" "[1 Ops]" 5
keys q; check "q exits 0 after the resizes" "EXIT=0" 10

# ---- a training trace opens on Steps; Enter scopes every view to a step,
# ] goes to the next one keeping the view, e exports the step (its pprof
# total is analyze --step's busy time), Esc returns to the whole trace
steps_trace="$SHARED/traces/ns_resolution_rank0.pt.trace.json.gz"
if [ -e "$steps_trace" ]; then
    start "'$tui' '$steps_trace'; echo EXIT=\$?"
    check "opens on Steps (5 ProfilerStep#)" "[5 Steps]"
    check "the average row" "average"
    check "the legend" "legend: K Kernel"
    # the bar's letters in their roles' colours: kernels on green (SGR 42)
    esc=$(printf '\033')
    T capture-pane -e -p -t "$cur" | grep -q "${esc}\[42mKKK" && ok "the bar is coloured by role" \
        || bad "no coloured bar (K on green)"
    keys Enter; check "Enter scopes to step 101" "Step 101 |"
    keys 1; check "Ops of step 101" "[1 Ops]"
    keys ']'; check "] shows step 102, staying on Ops" "Step 102 |"
    screen | grep -qF "[1 Ops]" && ok "] keeps the view" || bad "] left the Ops view"
    keys e Enter
    if wait_for "exported" 20; then
        f3="$work/ns_resolution_rank0.pb.gz"
        want=$("$cli" analyze --json --step 102 "$steps_trace" | field 'd["busy_ns"]')
        if [ $have_go = 1 ]; then
            got=$(pprof_total "$f3")
            [ "$got" = "$want" ] && ok "step export total $got ns = analyze --step 102 busy" \
                || bad "step export total '$got' != $want"
        fi
    else bad "e did not export the step"; fi
    keys Escape; check "Esc returns to the whole trace" "every view shows the whole trace"
    keys q; check "q exits 0 from a step" "EXIT=0" 10
    # NO_COLOR: the same letters, no colour
    start "NO_COLOR=1 '$tui' '$steps_trace'; echo EXIT=\$?"
    check "NO_COLOR: opens on Steps" "[5 Steps]"
    if T capture-pane -e -p -t "$cur" | grep -q "${esc}\[4[0-7]m"; then bad "NO_COLOR: the bar is coloured"
    else ok "NO_COLOR: letters, no colour"; fi
    screen | grep -q "KKKK" && ok "NO_COLOR: the bar's letters stay" || bad "NO_COLOR: no bar letters"
    keys q; check "q exits 0" "EXIT=0" 10
else
    echo "note: $steps_trace missing: Steps view not checked"
fi

# ---- e on a chain 40,000 deep writes for seconds: a progress screen, and
# Ctrl-C cancels the export (nothing written) without ending the explorer
"$py" -c "
n = 40000
print('[' + ','.join('{\"ph\":\"X\",\"name\":\"op%d\",\"ts\":%d,\"dur\":%d,\"pid\":1,\"tid\":1}'
                     % (i % 7, i, 2 * n - 2 * i) for i in range(n)) + ']')" >"$work/chain.json"
start "'$tui' chain.json; echo EXIT=\$?"
check "deep chain opens" "[1 Ops]" 30
keys e Enter
if wait_for "Exporting" 20; then
    ok "e shows its progress"
    keys C-c
    check "Ctrl-C cancels the export" "export cancelled: nothing written" 20
    if ls -A "$work" | grep -q -e '^chain.*\.pb\.gz$' -e '\.tmp$'; then
        bad "the cancelled export left $(ls -A "$work" | tr '\n' ' ')"
    else ok "the cancelled export left no file"; fi
    keys q; check "the explorer still runs after the cancel: q exits 0" "EXIT=0" 10
else
    bad "no progress screen while exporting a deep chain"
fi
rm -f "$work/chain.json"

# ---- Ctrl-C quits from the table and restores the terminal
start "'$tui' '$trace'; echo EXIT=\$?"
check "started again" "[1 Ops]"
keys C-c
check "Ctrl-C exits and restores the shell" "EXIT=" 10

exit $fail
