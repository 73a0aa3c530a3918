#!/bin/sh
# convert, read back by go tool pprof (not by us): for every fixture (recorded
# and hand-made), every shared real trace and the sample data, pprof's total
# equals analyze's busy time, each function's flat time and samples equal
# analyze's self time and calls, each op's device-time cum equals its device
# total, convert's --focus/--ignore/--thread keep what pprof's own options
# keep, and -traces, -tagfocus and -http read the profile.
# Fails, saying so, without go or python3. Traces run four at a time: each takes a
# dozen pprof runs, most of it go's start-up.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
command -v go >/dev/null 2>&1 || { echo "go missing: no go tool pprof to check with (./setup.sh --test installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/t2p-convert-sh.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
n=0
for t in "$top_srcdir"/tests/fixtures/*.json.gz "$top_srcdir"/tests/fixtures/*.json \
         "$SHARED"/traces/* "$top_srcdir"/data/*.json.gz; do
    [ -e "$t" ] || continue
    n=$((n + 1))
    ( "$py" "$top_srcdir/tests/check_convert.py" --http "$tool" "$t" >"$work/$n.out" 2>&1
      echo $? >"$work/$n.rc" ) &
    [ $((n % 4)) -eq 0 ] && wait
done
wait
fail=0
i=1
while [ $i -le $n ]; do
    cat "$work/$i.out"
    case $(cat "$work/$i.rc") in 0) ;; *) fail=1 ;; esac
    i=$((i + 1))
done
exit $fail
