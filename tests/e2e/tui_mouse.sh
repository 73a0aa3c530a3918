#!/bin/sh
# The mouse in a real terminal: torch2pprof-tui in a private tmux server
# (TERM=xterm-256color, whose kmous is SGR 1006), mouse reports typed into
# the pane as the terminal would send them (\e[<B;X;YM press, ...m release).
# The footer shows the selected row's full name, compared with what
# --replay prints after the same moves by keys. --no-mouse leaves the
# terminal's mouse modes off (tmux's #{mouse_any_flag}).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
command -v tmux >/dev/null 2>&1 || { echo "tmux missing: cannot run (./setup.sh --test installs it)"; exit 1; }
tui="$top_builddir/torch2pprof-tui"
trace="$top_srcdir/data/alexnet_train.json.gz"
work=$(mktemp -d /tmp/t2p-mouse.XXXXXX)
sock="t2p-mouse-$$"
fail=0
T() { tmux -L "$sock" "$@"; }
cleanup() { T kill-server 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT INT TERM
screen() { T capture-pane -p -t m; }
wait_for() { # TEXT [SECONDS]
    n=0; lim=$(( ${2:-15} * 10 ))
    while [ $n -lt $lim ]; do
        screen | grep -qF -- "$1" && return 0
        sleep 0.1; n=$((n + 1))
    done
    return 1
}
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; screen | sed 's/^/    | /'; fail=1; }
# the footer (the selected row's full name): the next-to-last line
footer() { screen | sed -n '39p' | sed 's/ *$//'; }
# replay KEYS: the footer --replay prints after KEYS at the same size
replay_footer() {
    "$tui" --replay "$1" --print --size 120x40 "$trace" | grep -v -e '^load ' -e '^first-screen ' \
        -e '^key ' -e '^max-key ' | sed -n '39p' | sed 's/ *$//'
}
# wait_footer WANT WHAT: poll the footer until it equals WANT
wait_footer() {
    n=0
    while [ $n -lt 100 ]; do
        [ "$(footer)" = "$1" ] && { ok "$2"; return 0; }
        sleep 0.1; n=$((n + 1))
    done
    bad "$2: footer '$(footer)', want '$1'"
}
esc=$(printf '\033')
# sgr B X Y: press and release of button code B at 0-based cell X,Y
click() { T send-keys -t m -l "$esc[<0;$(($1 + 1));$(($2 + 1))M$esc[<0;$(($1 + 1));$(($2 + 1))m"; }
wheel() { T send-keys -t m -l "$esc[<$1;10;10M"; } # 64 up, 65 down

T new-session -d -s m -x 120 -y 40 -c "$work" \
    "env -i PATH='$PATH' HOME='$work' TERM=xterm-256color LANG=C.UTF-8 '$tui' '$trace'; sleep 30"
wait_for "[1 Ops]" 30 || { bad "the explorer did not start"; exit 1; }
[ "$(T display -p -t m '#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}')" != 000 ] &&
    ok "the explorer turns the terminal's mouse reports on" || bad "no mouse mode set"

wheel 65
wait_footer "$(replay_footer '<Down> <Down> <Down>')" "the wheel down moves three rows"
wheel 65
wheel 64
wait_footer "$(replay_footer '<Down> <Down> <Down>')" "down then up again: back three"
click 20 10 # line 10 = body row 6
wait_footer "$(replay_footer '<Down> <Down> <Down> <Down> <Down> <Down>')" "a click selects the row under it"
click 10 2 # the tab line: "2 Categories" (typed as keys, the report's digits would end on 3)
wait_for "[2 Categories]" 10 && ok "a click on a tab shows its view" ||
    bad "no Categories after a click on its tab"
click 26 2 # "3 Tree"
wait_for "[3 Tree]" 10 || bad "no Tree after a click on its tab"
# the tree's first row is expanded (▾): a double-click folds it (▸)
before=$(screen | sed -n '5p')
case $before in *"▾"*) ;; *) bad "the tree's first row is not expanded: $before" ;; esac
click 60 4; click 60 4
n=0
while [ $n -lt 100 ] && ! screen | sed -n '5p' | grep -qF "▸"; do sleep 0.1; n=$((n + 1)); done
screen | sed -n '5p' | grep -qF "▸" && ok "a double-click folds a tree node" ||
    bad "no fold after a double-click"
T send-keys -t m q

# --no-mouse: the terminal's mouse modes stay off
T new-session -d -s m2 -x 120 -y 40 -c "$work" \
    "env -i PATH='$PATH' HOME='$work' TERM=xterm-256color LANG=C.UTF-8 '$tui' --no-mouse '$trace'; sleep 30"
n=0
while [ $n -lt 300 ] && ! T capture-pane -p -t m2 | grep -qF "[1 Ops]"; do sleep 0.1; n=$((n + 1)); done
flags=$(T display -p -t m2 '#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}')
[ "$flags" = 000 ] && ok "--no-mouse leaves the terminal's mouse modes off" ||
    { echo "FAIL: --no-mouse: mouse flags $flags"; fail=1; }
T send-keys -t m2 q
exit $fail
