#!/bin/sh
# The load screens in a real terminal (a private tmux server): one trace
# shows a bar with bytes and events, many ranks a bar per file and overall.
# T2P_PROGRESS_DELAY makes each load step sleep so the screen stays up
# long enough to be read; the waits poll the screen, nothing is timed.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
command -v tmux >/dev/null 2>&1 || { echo "tmux missing: cannot run (./setup.sh --test installs it)"; exit 1; }
tui="$top_builddir/torch2pprof-tui"
d="$top_srcdir/data"
work=$(mktemp -d /tmp/t2p-progress.XXXXXX)
sock="t2p-progress-$$"
fail=0
T() { tmux -L "$sock" "$@"; }
cleanup() { T kill-server 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT INT TERM
wait_for() { # SESSION TEXT: poll its screen for TEXT up to 20 s
    n=0
    while [ $n -lt 200 ]; do
        T capture-pane -p -t "$1" 2>/dev/null | grep -qF -- "$2" && return 0
        sleep 0.1; n=$((n + 1))
    done
    return 1
}
check() { # SESSION TEXT WHAT
    if wait_for "$1" "$2"; then echo "ok: $3"
    else echo "FAIL: $3 (no '$2')"; T capture-pane -p -t "$1" 2>/dev/null | sed 's/^/    | /'; fail=1; fi
}
run() { # SESSION ARGS...
    s=$1; shift
    T new-session -d -s "$s" -x 100 -y 24 -c "$work" \
        "env -i PATH='$PATH' HOME='$work' TERM=xterm-256color LANG=C.UTF-8 T2P_PROGRESS_DELAY=1200 '$tui' $*; sleep 60"
}

# one trace: the bar with its bytes, then the explorer
run one "'$d/alexnet_train.json.gz'"
check one "Loading $d/alexnet_train.json.gz" "one trace: the load screen names the file"
check one "bytes (" "one trace: bytes read of the file's size"
check one "Ctrl-C cancels" "one trace: says how to cancel"
check one "[1 Ops]" "one trace: the explorer follows"

# three ranks on two workers: a line per file with its state, and overall
run many --jobs 2 "'$d/alexnet_train.json.gz'" "'$d/cnn_train_cpu.json.gz'" \
    "'$top_srcdir/tests/fixtures/lstm_train.json.gz'"
check many "Loading 3 traces:" "ranks: the overall line"
check many "% waiting" "ranks: a file waits for a worker"
check many "alexnet_train.json.gz" "ranks: a line per file"
check many "% building" "ranks: a file's model being built"
check many "% done" "ranks: a finished file"
check many "[6 Ranks]" "ranks: the Ranks view follows"
exit $fail
