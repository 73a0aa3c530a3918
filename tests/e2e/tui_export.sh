#!/bin/sh
# e asks where: --replay scripts type into the export prompt and the files
# and messages are checked. The offered ./NAME.pb.gz, Enter, Esc, Ctrl-U, a
# path that exists (never overwritten), a directory of mode 0555 (refused by
# its mode bits even when root could write there), a directory given as the
# path, and another path typed after a refusal; ~, ~/x and ~user/x, and a
# file name too long for the file system.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
tui="$top_builddir/torch2pprof-tui"
trace="$top_srcdir/data/alexnet_train.json.gz"
work=$(mktemp -d /tmp/t2p-export.XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# replay KEYS: the explorer in $work, the final screen and status in $work/out
replay() {
    (cd "$work" && "$tui" --replay "$1" --print --size 120x24 "$trace") >"$work/out" 2>&1
}
has() { grep -qF -- "$1" "$work/out"; }

replay "e"
has "export to: ./alexnet_train.pb.gz" && ok "e offers ./alexnet_train.pb.gz" ||
    bad "e did not offer ./alexnet_train.pb.gz: $(tail -3 "$work/out")"
[ -e "$work/alexnet_train.pb.gz" ] && bad "e wrote before Enter" || ok "nothing written before Enter"

replay "e <Enter>"
if [ -s "$work/alexnet_train.pb.gz" ] && has "status: exported ./alexnet_train.pb.gz"; then
    ok "Enter writes ./alexnet_train.pb.gz and says so"
else bad "Enter did not write: $(tail -2 "$work/out")"; fi
sum=$(cksum <"$work/alexnet_train.pb.gz")
# the message gives stacks, calls and time: the stacks and time convert
# reports for the same trace (one sample per stack)
conv=$("$top_builddir/torch2pprof" convert "$trace" "$work/conv.pb.gz" 2>&1)
want_stacks=$(echo "$conv" | sed -n 's/.*: \([0-9,]*\) samples,.*/\1/p')
want_ms=$(echo "$conv" | sed -n 's/.*total \([0-9.]*\) ms.*/\1/p')
if [ -n "$want_stacks" ] && has ": $want_stacks stacks, " && has " calls, $want_ms ms"; then
    ok "the message says $want_stacks stacks, calls and $want_ms ms, as convert"
else bad "the message does not give convert's $want_stacks stacks and $want_ms ms: $(grep status: "$work/out")"; fi
rm -f "$work/conv.pb.gz"

replay "e <Enter>"
[ -s "$work/alexnet_train-1.pb.gz" ] && ok "the next e offers and writes the next free name" ||
    bad "no alexnet_train-1.pb.gz: $(tail -2 "$work/out")"

replay "e <Esc>"
if has "status: export cancelled: nothing written" && [ ! -e "$work/alexnet_train-2.pb.gz" ]; then
    ok "Esc cancels"
else bad "Esc: $(tail -2 "$work/out")"; fi

# a file that exists: refused, the prompt stays open with the reason
replay "e <CtrlU> alexnet_train.pb.gz <Enter>"
if has "alexnet_train.pb.gz exists: type another name" && has "export to: alexnet_train.pb.gz" &&
   [ "$(cksum <"$work/alexnet_train.pb.gz")" = "$sum" ]; then
    ok "an existing file is never overwritten; the prompt stays"
else bad "existing file: $(tail -3 "$work/out")"; fi

# a read-only directory (mode 0555): refused even as root, then another path
mkdir "$work/ro" && chmod 0555 "$work/ro"
replay "e <CtrlU> ro/x.pb.gz <Enter>"
if has "cannot write in ro: Permission denied" && [ ! -e "$work/ro/x.pb.gz" ]; then
    ok "a 0555 directory is refused ($(id -un)): cannot write in ro: Permission denied"
else bad "0555 directory: $(tail -3 "$work/out"); $(ls -A "$work/ro")"; fi
replay "e <CtrlU> ro/x.pb.gz <Enter> <CtrlU> mine.pb.gz <Enter>"
if [ -s "$work/mine.pb.gz" ] && has "status: exported mine.pb.gz" && [ -z "$(ls -A "$work/ro")" ]; then
    ok "after a refusal another typed path is written"
else bad "retry after refusal: $(tail -3 "$work/out")"; fi

# a missing directory: its reason
replay "e <CtrlU> nodir/x.pb.gz <Enter>"
has "cannot write in nodir: No such file or directory" && ok "a missing directory is named" ||
    bad "missing directory: $(tail -3 "$work/out")"

# a directory as the path: the offered name inside it; editing with Backspace
mkdir "$work/out.d"
replay "e <CtrlU> out.d/ <Enter>"
[ -s "$work/out.d/alexnet_train.pb.gz" ] && ok "a directory gets the offered name inside it" ||
    bad "directory path: $(tail -3 "$work/out")"
replay "e <BS> <BS> <BS> <BS> <BS> <BS> -x.pb.gz <Enter>"
[ -s "$work/alexnet_train-2-x.pb.gz" ] && ok "Backspace edits the offered name" ||
    bad "editing: $(ls "$work"; tail -3 "$work/out")"

# ~, ~/x and ~user/x as a shell expands them: HOME for ~ (here a directory
# of the test), the password entry for ~user; a user that does not exist
# stays as typed
mkdir "$work/home"
home_replay() { (HOME="$work/home" && export HOME && replay "$1"); }
home_replay "e <CtrlU> ~ <Enter>"
if [ -s "$work/home/alexnet_train.pb.gz" ] && [ ! -e "$work/~" ]; then
    ok "~ alone is HOME: the offered name inside it"
else bad "~ alone: $(ls -A "$work" "$work/home"; tail -2 "$work/out")"; fi
home_replay "e <CtrlU> ~/h.pb.gz <Enter>"
[ -s "$work/home/h.pb.gz" ] && ok "~/h.pb.gz is HOME/h.pb.gz" ||
    bad "~/h.pb.gz: $(ls -A "$work/home"; tail -2 "$work/out")"
user=$(id -un)
pwhome=$(python3 -c 'import os, pwd; print(pwd.getpwuid(os.getuid()).pw_dir)' 2>/dev/null)
if [ -n "$pwhome" ] && [ ! -e "$pwhome/t2p-no-such-dir-$$" ]; then
    # a directory that does not exist under it: expanded, and nothing written there
    home_replay "e <CtrlU> ~$user/t2p-no-such-dir-$$/x.pb.gz <Enter>"
    has "cannot write in $pwhome/t2p-no-such-dir-$$: No such file or directory" &&
        ok "~$user/... is $user's home from the password file, not HOME" ||
        bad "~$user: $(tail -2 "$work/out")"
fi
home_replay "e <CtrlU> ~t2p-no-such-user/x.pb.gz <Enter>"
has "cannot write in ~t2p-no-such-user: No such file or directory" &&
    ok "~ of a user that does not exist stays as typed" || bad "~nouser: $(tail -2 "$work/out")"

# a file name longer than the file system takes (a 300-byte component): the
# prompt stays open with the reason, then another name is written
long=$(printf '%300s' '' | tr ' ' a)
replay "e <CtrlU> $long.pb.gz <Enter>"
# (the prompt shows the tail of what fits)
if has "File name too long: type another name" && has "export to: …aaaa" &&
   ! has "export failed" && [ -z "$(find "$work" -name 'aaaa*')" ]; then
    ok "a 300-byte file name is refused with its reason; the prompt stays"
else bad "300-byte name: $(tail -3 "$work/out" | cut -c1-200)"; fi
replay "e <CtrlU> $long.pb.gz <Enter> <CtrlU> short.pb.gz <Enter>"
[ -s "$work/short.pb.gz" ] && ok "after the long name another is written" ||
    bad "after the long name: $(tail -3 "$work/out" | cut -c1-200)"

# the Kernels view: e on one kernel's launchers (Enter) exports that kernel's
# time by launching stack, the same device time analyze gives that kernel
# (e on the list exports every kernel shown: tui_scope_export.sh)
rm -f "$work"/*.pb.gz
trace="$top_srcdir/data/resnet50_gpu.json.gz"
replay "9 <Tab> <Tab> <Enter> e <Enter>" # Timeline, GPU, Kernels, the first one's launchers
want=$("$top_builddir/torch2pprof" analyze --kernels --json "$trace" | python3 -c \
    'import json,sys; k=json.load(sys.stdin)["kernels"][0]; print("%d calls, %.3f ms, device %.3f" % (k["calls"], k["total_ns"]/1e6, k["total_ns"]/1e6))')
if [ -s "$work/resnet50_gpu.pb.gz" ] && has "$want"; then
    ok "e in the Kernels view exports the first kernel's launching stacks: $want"
else bad "e in the Kernels view: want $want: $(grep status: "$work/out")"; fi

exit $fail
