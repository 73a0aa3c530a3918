#!/bin/sh
# What a job directory holds besides traces (issues 22, 23), through
# analyze, convert and the explorer: a FIFO named *.json is skipped with a
# note (every run under timeout: a load that blocks on it fails here rather
# than hanging); files that hold no trace (another JSON document, text, a
# pprof) are skipped with a note and take no rank; a directory without
# traces names its subdirectories holding some, or says what it looked for,
# and exits 2.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
tool="$top_builddir/torch2pprof"
tui="$top_builddir/torch2pprof-tui"
work=$(mktemp -d /tmp/t2p-ranksdir.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
# run NAME EXPECTED_EXIT CMD...: stdout in $work/out, stderr in $work/err
run() {
    r_what=$1 r_exit=$2
    shift 2
    timeout 60 "$@" >"$work/out" 2>"$work/err" </dev/null
    rc=$?
    if [ $rc -eq 124 ]; then bad "$r_what: still running after 60 s (blocked?)"; return 1; fi
    if [ $rc -ne "$r_exit" ]; then
        bad "$r_what: exit $rc, not $r_exit"; sed 's/^/    | /' "$work/err"; return 1
    fi
    return 0
}
has() { # FILE TEXT WHAT
    if grep -qF -- "$2" "$1"; then ok "$3"; else bad "$3 (no '$2')"; sed 's/^/    | /' "$1"; fi
}
trace() { # RANK: a two-event trace of that rank (no rank in the file name)
    printf '{"distributedInfo":{"rank":%d},"traceEvents":[' "$1"
    printf '{"ph":"X","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":10,"dur":50},'
    printf '{"ph":"X","name":"aten::add","cat":"cpu_op","pid":1,"tid":1,"ts":70,"dur":20}]}\n'
}

job="$work/job"
mkdir "$job"
trace 0 >"$job/host-a.json"
trace 1 >"$job/host-b.json"
mkfifo "$job/pipe.json"
echo '{"a":1}' >"$job/notes.json"
echo 'Traces of run 7, see the wiki.' >"$job/README.json"
printf '\012\005hello\022\001x' | gzip >"$job/profile.json.gz"

if run "analyze DIR with a FIFO and non-traces" 0 "$tool" analyze --json "$job"; then
    ok "analyze finishes with a FIFO in the directory"
    has "$work/err" "note: $job/pipe.json: skipped: a FIFO, not a regular file" "analyze: FIFO noted"
    for f in notes.json README.json profile.json.gz; do
        has "$work/err" "note: $job/$f: skipped, not a trace" "analyze: $f noted"
    done
    n=$(grep -c 'note:' "$work/err")
    [ "$n" -eq 4 ] && ok "analyze: one line per skipped file" || bad "analyze: $n notes, not 4"
    has "$work/out" '"failed":[]' "analyze: nothing failed"
    has "$work/out" '"skipped":[{"file":' "analyze --json lists the skipped files"
    has "$work/out" '{"rank":1,"file":' "analyze: rank 1 from its trace"
fi
if run "convert DIR with a FIFO and non-traces" 0 "$tool" convert "$job" "$work/job.pb.gz"; then
    has "$work/err" "note: $job/pipe.json: skipped: a FIFO" "convert: FIFO noted"
    has "$work/err" "note: $job/notes.json: skipped, not a trace" "convert: notes.json noted"
    [ -s "$work/job.pb.gz" ] && ok "convert writes the profile" || bad "convert wrote nothing"
fi
if [ -x "$tui" ]; then
    if run "explorer DIR with a FIFO and non-traces" 0 "$tui" --replay '' --print --size 160x20 "$job"; then
        has "$work/out" "- pipe.json: skipped: a FIFO" "explorer: FIFO listed in the Ranks view"
        has "$work/out" "- notes.json: skipped, not a trace" "explorer: notes.json listed"
        has "$work/out" "4 skipped" "explorer: the tab line counts them"
    fi
fi

# non-traces alone beside the traces (no FIFO): notes, and the ranks as before
plain="$work/plain"
mkdir "$plain"
trace 0 >"$plain/a.json"
trace 1 >"$plain/b.json"
echo '{"a":1}' >"$plain/notes.json"
echo 'Read me.' >"$plain/README.json"
if run "analyze DIR with non-traces" 0 "$tool" analyze "$plain"; then
    has "$work/err" "note: $plain/README.json: skipped, not a trace: not JSON" "analyze: README.json noted"
    has "$work/out" "Ranks:             2 loaded" "analyze: two ranks, nothing failed"
fi

# a directory of runs: no trace of its own, its subdirectories named
top="$work/top"
mkdir -p "$top/run1" "$top/run2" "$top/logs"
trace 0 >"$top/run1/a.json"
trace 1 >"$top/run1/b.json"
trace 0 >"$top/run2/a.json"
echo x >"$top/logs/out.txt"
want="$top: no trace files in the directory; traces in subdirectories: $top/run1 (2 traces), $top/run2 (1 trace)"
run "analyze TOP" 2 "$tool" analyze "$top" && has "$work/err" "$want" "analyze: subdirectories named"
run "convert TOP" 2 "$tool" convert "$top" "$work/top.pb.gz" && has "$work/err" "$want" "convert: subdirectories named"
if [ -x "$tui" ]; then
    run "explorer TOP" 2 "$tui" --replay q "$top" && has "$work/err" "$want" "explorer: subdirectories named"
fi

# nothing anywhere, nothing but non-traces, nothing but a FIFO
empty="$work/empty"
mkdir "$empty"
run "analyze EMPTY" 2 "$tool" analyze "$empty" &&
    has "$work/err" "$empty: no trace files in the directory (.json, .json.gz, .pt.trace.json[.gz])" \
        "analyze: the names looked for"
only="$work/only"
mkdir "$only"
echo '{"a":1}' >"$only/notes.json"
mkfifo "$only/pipe.json"
run "analyze ONLY" 2 "$tool" analyze "$only" &&
    has "$work/err" "$only: no trace files in the directory: none of its .json files holds a trace" \
        "analyze: only non-traces"
# (src/tui.c prints each file's error then, not ranks_load's)
[ -x "$tui" ] && run "explorer ONLY" 2 "$tui" --replay q "$only" &&
    has "$work/err" "notes.json" "explorer: only non-traces"
fifo="$work/fifo"
mkdir "$fifo"
mkfifo "$fifo/pipe.json"
run "analyze FIFO" 2 "$tool" analyze "$fifo" &&
    has "$work/err" \
        "$fifo: no trace files in the directory: 1 with a trace name, none a regular file (pipe.json: a FIFO)" \
        "analyze: only a FIFO"
[ -x "$tui" ] && run "explorer FIFO" 2 "$tui" --replay q "$fifo" &&
    has "$work/err" "$fifo: no trace files in the directory: 1 with a trace name" "explorer: only a FIFO"
exit $fail
