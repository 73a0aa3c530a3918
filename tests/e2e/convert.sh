#!/bin/sh
# convert, read back by go tool pprof (not by us): for every fixture (recorded
# and hand-made), every shared real trace and the sample data, pprof's total
# equals analyze's busy time, each function's flat time and samples equal
# analyze's self time and calls, each op's device-time cum equals its device
# total, and -traces, -tagfocus and -http read the profile. Skips (77) without go or python3.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing"; exit 77; }
command -v go >/dev/null 2>&1 || { echo "go missing: no go tool pprof to check with"; exit 77; }
fail=0
for t in "$top_srcdir"/tests/fixtures/*.json.gz "$top_srcdir"/tests/fixtures/*.json \
         "$SHARED"/traces/* "$top_srcdir"/data/*.json.gz; do
    [ -e "$t" ] || continue
    "$py" "$top_srcdir/tests/check_convert.py" --http "$tool" "$t"
    case $? in 0) ;; 77) exit 77 ;; *) fail=1 ;; esac
done
exit $fail
