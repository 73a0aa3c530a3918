#!/bin/sh
# What a job directory holds besides traces (issues 22, 23), through
# analyze, convert and the explorer (every run under timeout: a load that
# blocks fails here rather than hanging): a directory without traces names
# its subdirectories holding some, or says what it looked for, and exits 2.
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

# a directory of runs: no trace of its own, its subdirectories named
top="$work/top"
mkdir -p "$top/run1" "$top/run2" "$top/logs"
trace 0 >"$top/run1/a.json"
trace 1 >"$top/run1/b.json"
trace 0 >"$top/run2/a.json"
echo x >"$top/logs/out.txt"
want="$top: no trace files here; traces in subdirectories: $top/run1 (2 traces), $top/run2 (1 trace)"
run "analyze TOP" 2 "$tool" analyze "$top" && has "$work/err" "$want" "analyze: subdirectories named"
run "convert TOP" 2 "$tool" convert "$top" "$work/top.pb.gz" && has "$work/err" "$want" "convert: subdirectories named"
if [ -x "$tui" ]; then
    run "explorer TOP" 2 "$tui" --replay q "$top" && has "$work/err" "$want" "explorer: subdirectories named"
fi

# nothing anywhere
empty="$work/empty"
mkdir "$empty"
run "analyze EMPTY" 2 "$tool" analyze "$empty" &&
    has "$work/err" "$empty: no trace files here (looked for .json, .json.gz, .pt.trace.json[.gz])" \
        "analyze: the names looked for"
exit $fail
