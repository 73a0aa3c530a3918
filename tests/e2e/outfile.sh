#!/bin/sh
# convert's (and the explorer's e) output file (core/base/outfile.c, issue 16
# defects 4, 9, 10, 11): nothing left behind on SIGTERM, SIGINT or SIGHUP;
# an OUT that is a FIFO (or a symlink to one) written in place, never
# replaced; "-" for standard output; OUT names up to NAME_MAX; a directory
# named as such; a closed standard output named; a file size limit
# (SIGXFSZ) is an error, not a death.
# Every file and FIFO lives in a temp dir: never a device node, never
# /dev/null or /dev/stdout as OUT (as root a wrong write replaces them).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
cli="$top_builddir/torch2pprof"
tui="$top_builddir/torch2pprof-tui"
trace="$top_srcdir/data/cnn_train_cpu.json.gz"
W=$(mktemp -d "${TMPDIR:-/tmp}/t2p-outfile.XXXXXX")
fail=0
pids=""
sock="t2p-out-$$"
cleanup() {
    for p in $pids; do kill -KILL "$p" 2>/dev/null; done
    command -v tmux >/dev/null 2>&1 && tmux -L "$sock" kill-server 2>/dev/null
    rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
# the same profile as go tool pprof reads it (each records its own -o)
same_profile() { sh "$top_srcdir/tests/same_profile.sh" "$1" "$2"; }
cd "$W" || exit 1 # an old convert writes "-" as a file: here, not in the caller's dir
# temps DIR: the temp files left in DIR (names starting with . and ending in .tmp)
temps() { find "$1" -maxdepth 1 -name '.*.tmp' | wc -l; }
# wait_temp DIR: poll (10 s at most) until a temp file exists in DIR
wait_temp() {
    n=0
    while [ "$n" -lt 100 ]; do
        [ "$(temps "$1")" -gt 0 ] && return 0
        sleep 0.1; n=$((n + 1))
    done
    return 1
}
# reap PID: wait (10 s at most) for a FIFO reader, then kill it: a convert
# that replaced the FIFO instead of opening it leaves its reader blocked
reap() {
    n=0
    while kill -0 "$1" 2>/dev/null && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
    kill -KILL "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

# the reference output, written to a plain new file
"$cli" convert "$trace" "$W/ref.pb.gz" >/dev/null || { echo "FAIL: plain convert"; exit 1; }

# ---- defect 4: a signal during the write removes the temp file and the
# process dies of that signal. T2P_TEST_OUTFILE_PAUSE holds the write open
# with its temp file created. env --default-signal: a background job of a
# script starts with SIGINT ignored.
for sig in TERM INT HUP; do
    case $sig in TERM) num=15 ;; INT) num=2 ;; HUP) num=1 ;; esac
    d="$W/sig-$sig"; mkdir "$d"
    env --default-signal=INT,TERM,HUP T2P_TEST_OUTFILE_PAUSE=60 \
        "$cli" convert "$trace" "$d/out.pb.gz" >"$d/stdout" 2>"$d/stderr" &
    pid=$!; pids="$pids $pid"
    if ! wait_temp "$d"; then
        bad "SIG$sig: no temp file appeared while convert wrote"
        kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
        continue
    fi
    kill -s "$sig" "$pid"
    wait "$pid"; rc=$?
    want=$((128 + num))
    left=$(temps "$d")
    if [ "$rc" -eq "$want" ] && [ "$left" -eq 0 ] && [ ! -e "$d/out.pb.gz" ]; then
        ok "SIG$sig during the write: temp file removed, exit $rc"
    else
        bad "SIG$sig during the write: exit $rc (want $want), $left temp file(s) left: $(ls -A "$d")"
    fi
done

# an ignored SIGHUP (nohup) stays ignored: the write goes on and completes
d="$W/sig-ign"; mkdir "$d"
(trap '' HUP; exec env T2P_TEST_OUTFILE_PAUSE=1 "$cli" convert "$trace" "$d/out.pb.gz" \
    >/dev/null 2>"$d/stderr") &
pid=$!; pids="$pids $pid"
if wait_temp "$d"; then
    kill -s HUP "$pid"
    wait "$pid"; rc=$?
    if [ "$rc" -eq 0 ] && same_profile "$d/out.pb.gz" "$W/ref.pb.gz" && [ "$(temps "$d")" -eq 0 ]; then
        ok "an ignored SIGHUP stays ignored: the profile is written"
    else
        bad "ignored SIGHUP: exit $rc, $(ls -A "$d")"
    fi
else
    bad "ignored SIGHUP: no temp file appeared"; kill -KILL "$pid" 2>/dev/null; wait "$pid"
fi

# the explorer's e: its own handler cancels the export, the temp file is gone
if command -v tmux >/dev/null 2>&1; then
    d="$W/tui"; mkdir "$d"
    tmux -L "$sock" new-session -d -s o -x 120 -y 40 -c "$d" \
        "env -i PATH='$PATH' HOME='$d' TERM=xterm-256color LANG=C.UTF-8 T2P_TEST_OUTFILE_PAUSE=60 \
         sh -c 'echo \$\$ >\"$d/pid\"; exec \"$tui\" \"$trace\"'; echo EXIT=\$? >\"$d/exit\"; sleep 60"
    n=0
    until [ -s "$d/pid" ] && tmux -L "$sock" capture-pane -p -t o | grep -q '1 Ops'; do
        n=$((n + 1)); [ "$n" -gt 150 ] && break; sleep 0.1
    done
    tmux -L "$sock" send-keys -t o e
    # e asks where to write: Enter takes the name it offers
    n=0
    until tmux -L "$sock" capture-pane -p -t o | grep -q 'export to:'; do
        n=$((n + 1)); [ "$n" -gt 100 ] && break; sleep 0.1
    done
    tmux -L "$sock" send-keys -t o Enter
    wait_temp "$d"
    if [ "$(temps "$d")" -gt 0 ]; then
        kill -s TERM "$(cat "$d/pid")"
        n=0
        while [ ! -s "$d/exit" ] && [ "$n" -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
        if [ -s "$d/exit" ] && [ "$(temps "$d")" -eq 0 ] && ! ls "$d"/*.pb.gz >/dev/null 2>&1; then
            ok "explorer: SIGTERM during e removes the temp file ($(cat "$d/exit"))"
        else
            bad "explorer: SIGTERM during e left $(ls -A "$d")"
        fi
    else
        bad "explorer: no temp file appeared after e"
    fi
    tmux -L "$sock" kill-server 2>/dev/null
else
    bad "tmux missing: the explorer's part cannot run (./setup.sh --test installs it)"
fi

# ---- a file size limit (ulimit -f, issue 22): SIGXFSZ would kill the
# writer and leave its temp file (and the explorer's terminal in the
# alternate screen); ignored while an output is open, the write fails with
# EFBIG: a message, an exit status, nothing left. The limit (one block) is
# far below the profile's size; the messages are shorter than it.
d="$W/fsize"; mkdir "$d"
(ulimit -f 1; exec "$cli" convert "$trace" "$d/out.pb.gz" >"$d/stdout" 2>"$d/stderr"); rc=$?
# an error's exit status, not a death by a signal (128 + 25)
if [ "$rc" -ge 1 ] && [ "$rc" -le 125 ] &&
   grep -q "out.pb.gz: cannot write: File too large" "$d/stderr" &&
   [ "$(temps "$d")" -eq 0 ] && [ ! -e "$d/out.pb.gz" ]; then
    ok "convert over ulimit -f: File too large, exit $rc, no temp file"
else
    bad "convert over ulimit -f: exit $rc, $(cat "$d/stderr"), left: $(ls -A "$d")"
fi
rm -f "$d/stdout" "$d/stderr"
# the screen goes through a pipe: the limit is for files
{ (cd "$d" && ulimit -f 1 && exec "$tui" --replay "e <Enter>" --print --size 120x24 \
    "$trace" 2>&1); echo "$?" >"$W/fsize.rc"; } | cat >"$W/fsize.out"
rc=$(cat "$W/fsize.rc")
if [ "$rc" -eq 0 ] && grep -q "status: export failed: .*cannot write: File too large" "$W/fsize.out" &&
   [ -z "$(ls -A "$d")" ]; then
    ok "explorer e over ulimit -f: File too large on the status line, no temp file"
else
    bad "explorer e over ulimit -f: exit $rc, $(tail -2 "$W/fsize.out"), left: $(ls -A "$d")"
fi

# ---- defect 9: an OUT that is a FIFO is written in place, and stays a FIFO
mkfifo "$W/fifo"
cat "$W/fifo" >"$W/from-fifo" &
reader=$!; pids="$pids $reader"
"$cli" convert -o "$W/fifo" "$trace" >"$W/fifo.stdout" 2>&1; rc=$?
reap "$reader"
if [ "$rc" -eq 0 ] && [ -p "$W/fifo" ] && same_profile "$W/from-fifo" "$W/ref.pb.gz"; then
    ok "FIFO OUT: written in place, still a FIFO"
else
    bad "FIFO OUT: exit $rc, $(ls -l "$W/fifo"), $(cat "$W/fifo.stdout")"
fi
# a symlink to a FIFO: the link and the FIFO stay
ln -s fifo "$W/link-to-fifo"
cat "$W/fifo" >"$W/from-link" &
reader=$!; pids="$pids $reader"
"$cli" convert -o "$W/link-to-fifo" "$trace" >"$W/link.stdout" 2>&1; rc=$?
reap "$reader"
if [ "$rc" -eq 0 ] && [ -L "$W/link-to-fifo" ] && [ -p "$W/fifo" ] &&
    same_profile "$W/from-link" "$W/ref.pb.gz"; then
    ok "symlink to a FIFO: written through, the link kept"
else
    bad "symlink to a FIFO: exit $rc, $(ls -l "$W/link-to-fifo" "$W/fifo"), $(cat "$W/link.stdout")"
fi
# a symlink to a regular file stays a link; its target gets the profile
echo old >"$W/target.pb.gz"
ln -s target.pb.gz "$W/link-to-file"
if "$cli" convert -o "$W/link-to-file" "$trace" >/dev/null 2>&1 && [ -L "$W/link-to-file" ] &&
    same_profile "$W/target.pb.gz" "$W/ref.pb.gz"; then
    ok "symlink to a regular file: the target replaced, the link kept"
else
    bad "symlink to a regular file: $(ls -l "$W/link-to-file" "$W/target.pb.gz")"
fi
# a dangling symlink is written through like a live one (as sort -o and a
# shell's > do): the file it names is created and the link kept; relative
# to the link's directory, through a chain of links. A loop is refused.
ln -s dangling-target.pb.gz "$W/link-dangling"
if "$cli" convert "$trace" "$W/link-dangling" >/dev/null 2>&1 && [ -L "$W/link-dangling" ] &&
    same_profile "$W/dangling-target.pb.gz" "$W/ref.pb.gz"; then
    ok "dangling symlink: its target created, the link kept"
else
    bad "dangling symlink: $(ls -l "$W/link-dangling" "$W/dangling-target.pb.gz" 2>&1)"
fi
mkdir "$W/ln-a" "$W/ln-b"
ln -s ../ln-b/hop "$W/ln-a/out.pb.gz"
ln -s chain-target.pb.gz "$W/ln-b/hop"
if "$cli" convert "$trace" "$W/ln-a/out.pb.gz" >/dev/null 2>&1 && [ -L "$W/ln-a/out.pb.gz" ] &&
    [ -L "$W/ln-b/hop" ] && same_profile "$W/ln-b/chain-target.pb.gz" "$W/ref.pb.gz" &&
    [ "$(temps "$W/ln-a")" -eq 0 ] && [ "$(temps "$W/ln-b")" -eq 0 ]; then
    ok "chain of relative links to a missing file: the last one's target created, links kept"
else
    bad "chain of links: $(ls -lA "$W/ln-a" "$W/ln-b")"
fi
ln -s loop-b "$W/loop-a" && ln -s loop-a "$W/loop-b"
"$cli" convert "$trace" "$W/loop-a" >/dev/null 2>"$W/loop.err"; rc=$?
if [ "$rc" -ne 0 ] && [ -L "$W/loop-a" ] && [ -L "$W/loop-b" ] &&
    grep -q "Too many levels of symbolic links" "$W/loop.err"; then
    ok "a loop of links is refused, the links kept: $(cat "$W/loop.err")"
else
    bad "loop of links: exit $rc, $(ls -l "$W/loop-a" "$W/loop-b"), $(cat "$W/loop.err")"
fi
# -o -: the profile on standard output, the summary on standard error
"$cli" convert -o - "$trace" 2>"$W/dash.err" | cat >"$W/dash.pb.gz"
if same_profile "$W/dash.pb.gz" "$W/ref.pb.gz" && grep -q '^wrote -' "$W/dash.err"; then
    ok "- writes the profile to standard output, the summary to standard error"
else
    bad "- : $(cat "$W/dash.err")"
fi
# "-" with several traces and with --base too
"$cli" convert --base "$trace" "$trace" -o - 2>"$W/dash2.err" | cat >"$W/dash2.pb.gz"
if gzip -t "$W/dash2.pb.gz" 2>/dev/null && grep -q '^wrote -' "$W/dash2.err"; then
    ok "- with --base"
else
    bad "- with --base: $(cat "$W/dash2.err")"
fi

# ---- defect 10: a 249-byte OUT name (NAME_MAX is 255) is written
long=$(printf '%0249d' 0 | tr 0 p)
mkdir "$W/long"
if "$cli" convert "$trace" "$W/long/$long" >/dev/null 2>"$W/long.err" &&
    same_profile "$W/long/$long" "$W/ref.pb.gz" && [ "$(temps "$W/long")" -eq 0 ]; then
    ok "a 249-byte OUT name is written"
else
    bad "249-byte OUT name: $(cat "$W/long.err")"
fi

# ---- defect 11: a directory as OUT is called one; a closed stdout is named
mkdir "$W/dir"
(cd "$W/dir" && "$cli" convert -o . "$trace" >/dev/null 2>"$W/dot.err"); rc=$?
"$cli" convert --output "$W/dir" "$trace" >/dev/null 2>"$W/dir.err"; rc2=$?
if [ "$rc" -eq 2 ] && [ "$rc2" -eq 2 ] && grep -q "Is a directory" "$W/dot.err" &&
    grep -q "Is a directory" "$W/dir.err" && [ -z "$(ls -A "$W/dir")" ]; then
    ok "a directory as OUT: 'Is a directory', exit 2, nothing created"
else
    bad "directory as OUT: exit $rc/$rc2: $(cat "$W/dot.err" "$W/dir.err")"
fi
# convert prints nothing on standard output (the summary is on standard
# error): a closed standard output is no error; a closed standard error is
"$cli" convert "$trace" "$W/closed.pb.gz" >&- 2>"$W/closed.err"; rc=$?
"$cli" convert "$trace" "$W/closed-err.pb.gz" 2>&-; rc2=$?
if [ "$rc" -eq 0 ] && same_profile "$W/closed.pb.gz" "$W/ref.pb.gz" && [ "$rc2" -eq 2 ] &&
    same_profile "$W/closed-err.pb.gz" "$W/ref.pb.gz"; then
    ok "stdout closed: OUT written, exit 0; stderr closed: OUT written, exit 2"
else
    bad "stdout closed: exit $rc: $(cat "$W/closed.err"); stderr closed: exit $rc2"
fi
"$cli" convert -o - "$trace" >&- 2>"$W/closed2.err"; rc=$?
if [ "$rc" -eq 2 ] && grep -q "standard output: cannot write" "$W/closed2.err"; then
    ok "- with stdout closed: exit 2, standard output named"
else
    bad "- with stdout closed: exit $rc: $(cat "$W/closed2.err")"
fi

# a replaced OUT keeps its permission bits, whatever the umask; a new one
# gets the umask's
"$cli" convert "$trace" "$W/mode.pb.gz" >/dev/null && chmod 0640 "$W/mode.pb.gz"
(umask 0002; "$cli" convert "$trace" "$W/mode.pb.gz" >/dev/null)
m=$(stat -c %a "$W/mode.pb.gz")
[ "$m" = 640 ] && ok "replaced OUT keeps mode 640" || bad "replaced OUT has mode $m, not 640"
(umask 0027; "$cli" convert "$trace" "$W/new-mode.pb.gz" >/dev/null)
m=$(stat -c %a "$W/new-mode.pb.gz")
[ "$m" = 640 ] && ok "new OUT: 0666 less umask 027" || bad "new OUT has mode $m, not 640"
same_profile "$W/mode.pb.gz" "$W/ref.pb.gz" && ok "replaced OUT holds the new profile" ||
    bad "replaced OUT differs from the reference"

# nothing left anywhere in the work dir
left=$(find "$W" -name '.*.tmp' | wc -l)
[ "$left" -eq 0 ] && ok "no temp file left" || bad "$left temp file(s) left"
exit $fail
