#!/bin/sh
# Bad input, faults and hardening: one check per row of the table in the
# hardening issue, for the torch2pprof CLI. Each asserts the exit code, the
# exact shape of the one-line message and the files left behind.
#
# Inputs: tests/bad/inputs/ (tiny, committed; they also seed the fuzzer) and
# files made here from data/ (truncations, long names, deep nesting, big
# inputs for the memory limit). Run by `make check`, or by hand:
#   top_srcdir=. top_builddir=. sh tests/bad/run.sh
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}"
tool=$(cd "$top_builddir" && pwd)/torch2pprof
in=$(cd "$top_srcdir/tests/bad/inputs" && pwd)
data=$(cd "$top_srcdir/data" && pwd)
shared=${SHARED:-$top_srcdir/tests/fixtures/shared}
W=$(mktemp -d "${TMPDIR:-/tmp}/t2p-bad.XXXXXX") || exit 99
trap 'chmod -R u+rwX "$W" 2>/dev/null; rm -rf "$W"' EXIT
chmod 755 "$W"
cd "$W" || exit 99
pass=0 fail=0 skip=0
n=0

ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
no() {
    n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1: $2"
    echo "#   exit $rc; stderr:"; sed 's/^/#   | /' err | head -5
    echo "#   stdout:"; head -c 400 out | sed 's/^/#   | /'; echo
}
skipped() { n=$((n + 1)); skip=$((skip + 1)); echo "ok $n - $1 # SKIP $2"; }

# Under ASan/UBSan a sanitizer report is a failure whatever the exit code.
sanitizer_clean() { ! grep -q -e 'Sanitizer' -e 'runtime error:' err; }

# run ARGS...: runs the tool in $W, leaves out, err, rc and the listing before/after
run() {
    ls -A | grep -v -x -e out -e err -e before -e after >before
    "$tool" "$@" >out 2>err
    rc=$?
    ls -A | grep -v -x -e out -e err -e before -e after >after
}

# fails NAME RC REGEX: exit RC, nothing on stdout, exactly one line on stderr
# matching the extended REGEX whole (a usage error, RC 1: that line, then
# "Try 'torch2pprof COMMAND --help'."), no file created or removed
fails() {
    if ! sanitizer_clean; then no "$1" "sanitizer report"; return; fi
    if [ "$rc" -ne "$2" ]; then no "$1" "exit $rc, expected $2"; return; fi
    if [ -s out ]; then no "$1" "wrote to stdout"; return; fi
    lines=1
    [ "$2" -eq 1 ] && lines=2
    if [ "$(wc -l <err)" -ne "$lines" ]; then no "$1" "stderr is not $lines line(s)"; return; fi
    if [ "$lines" -eq 2 ] && ! tail -1 err | grep -q -x -E "Try 'torch2pprof[ a-z-]* --help'\."; then
        no "$1" "no Try line"; return
    fi
    if ! head -1 err | grep -q -x -E -e "$3"; then no "$1" "message does not match /$3/"; return; fi
    if ! cmp -s before after; then no "$1" "files changed: $(diff before after | tr '\n' ' ')"; return; fi
    ok "$1"
}

# loads NAME JSON-REGEX...: exit 0, no stderr, the --json report matches each REGEX
loads() {
    name=$1; shift
    if ! sanitizer_clean; then no "$name" "sanitizer report"; return; fi
    if [ "$rc" -ne 0 ]; then no "$name" "exit $rc, expected 0"; return; fi
    if [ -s err ]; then no "$name" "unexpected stderr"; return; fi
    for re in "$@"; do
        if ! grep -q -E -e "$re" out; then no "$name" "report does not match /$re/"; return; fi
    done
    if ! cmp -s before after; then no "$name" "files changed"; return; fi
    ok "$name"
}

cp "$in"/* .
cp "$data/cnn_train_cpu.json.gz" cnn.json.gz
gzip -dc cnn.json.gz >cnn.json
cnn_size=$(wc -c <cnn.json)

# ---- exit codes 1: usage ----
run
if [ "$rc" -eq 1 ] && head -1 err | grep -q '^usage: torch2pprof COMMAND' && [ ! -s out ]; then ok "no arguments: usage, exit 1"; else no "no arguments: usage, exit 1" "got $rc"; fi
run analyze --frobnicate cnn.json
if [ "$rc" -eq 1 ] && grep -q "unknown option '--frobnicate'" err && [ ! -s out ]; then ok "unknown option: exit 1"; else no "unknown option: exit 1" "got $rc"; fi
run analyze cnn.json cnn.json.gz
# two traces are the ranks of one job (tests/e2e/ranks.sh checks the figures)
if [ "$rc" -eq 0 ] && grep -q "^Ranks: *2 loaded" out; then ok "two traces: the ranks of one job"; else no "two traces: the ranks of one job" "got $rc"; fi
run analyze -top x cnn.json; fails "bad -top: exit 1" 1 "torch2pprof analyze: --top wants a number >= 0, not 'x'"
run --help
if [ "$rc" -eq 0 ] && grep -q 'Exit codes: 0 ok, 1 usage error, 2 input or output error' out; then ok "--help documents the exit codes"; else no "--help documents the exit codes" "missing"; fi
run analyze --help
if [ "$rc" -eq 0 ] && grep -q 'Exit codes: 0 ok, 1 usage error, 2 input or output error' out; then ok "analyze --help documents the exit codes"; else no "analyze --help documents the exit codes" "missing"; fi

# ---- missing file, directory, unreadable ----
run analyze missing.json
fails "missing file" 2 'torch2pprof: missing\.json: No such file or directory'
mkdir adir
run analyze adir
fails "a directory without traces" 2 'torch2pprof: adir: no trace files in the directory \(\.json, \.json\.gz, \.pt\.trace\.json\[\.gz\]\)'
cp object_no_events.json unreadable.json
chmod 000 unreadable.json
if [ "$(id -u)" -eq 0 ]; then
    # root reads anything: drop to nobody for this row when setpriv can
    if command -v setpriv >/dev/null 2>&1 &&
        setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null &&
        setpriv --reuid=65534 --regid=65534 --clear-groups "$tool" --version >/dev/null 2>&1; then
        ls -A | grep -v -x -e out -e err -e before -e after >before
        setpriv --reuid=65534 --regid=65534 --clear-groups "$tool" analyze unreadable.json >out 2>err
        rc=$?
        ls -A | grep -v -x -e out -e err -e before -e after >after
        fails "unreadable file" 2 'torch2pprof: unreadable\.json: Permission denied'
    else
        skipped "unreadable file" "running as root without setpriv to drop privileges"
    fi
else
    run analyze unreadable.json
    fails "unreadable file" 2 'torch2pprof: unreadable\.json: Permission denied'
fi
chmod 644 unreadable.json

# ---- not a trace: says what the file is and what was expected ----
: >empty.json
run analyze empty.json
fails "empty file" 2 'torch2pprof: empty\.json: empty file \(0 bytes\); expected a PyTorch profiler trace \(Chrome trace JSON\)'
run analyze whitespace.json
fails "only white space" 2 'torch2pprof: whitespace\.json: holds only white space; expected a PyTorch profiler trace \(Chrome trace JSON\)'
# a gzip magic that comes in two reads of a pipe, at the start and where a
# second member begins: read as the file is (same report but its name)
"$tool" analyze --json cnn.json.gz | sed 's/^{"analysis_format":[0-9]*,"file":"[^"]*"//' >whole.json
half=$(( $(wc -c <cnn.json) / 2 ))
head -c "$half" cnn.json | gzip -c >m1.gz
tail -c +"$((half + 1))" cnn.json | gzip -c >m2.gz
for how in start member; do
    ls -A | grep -v -x -e out -e err -e before -e after >before
    if [ "$how" = start ]; then
        { head -c 1 cnn.json.gz; sleep 0.3; tail -c +2 cnn.json.gz; } | "$tool" analyze --json /dev/stdin >out 2>err
    else
        { cat m1.gz; head -c 1 m2.gz; sleep 0.3; tail -c +2 m2.gz; } | "$tool" analyze --json /dev/stdin >out 2>err
    fi
    rc=$?
    ls -A | grep -v -x -e out -e err -e before -e after >after
    if [ "$rc" -eq 0 ] && [ ! -s err ] && sed 's/^{"analysis_format":[0-9]*,"file":"[^"]*"//' out | cmp -s - whole.json; then
        ok "gzip magic split across two reads of a pipe ($how)"
    else
        no "gzip magic split across two reads of a pipe ($how)" "report differs from the file's"
    fi
done
rm -f whole.json m1.gz m2.gz

# an empty gzip stream or pipe is empty, not white space; "" is named
printf '' | gzip -c >empty.json.gz
run analyze empty.json.gz
fails "empty gzip" 2 'torch2pprof: empty\.json\.gz: empty \(the gzip data holds 0 bytes\); expected a PyTorch profiler trace \(Chrome trace JSON\)'
ls -A | grep -v -x -e out -e err -e before -e after >before
printf '' | "$tool" analyze /dev/stdin >out 2>err
rc=$?
ls -A | grep -v -x -e out -e err -e before -e after >after
fails "empty pipe" 2 'torch2pprof: /dev/stdin: empty \(0 bytes read\); expected a PyTorch profiler trace \(Chrome trace JSON\)'
run analyze ""
fails "the empty path" 2 'torch2pprof: "": No such file or directory'
# a UTF-8 byte order mark is skipped; other formats are named
run analyze --json bom.json
loads "UTF-8 byte order mark" '"events":1,"complete_events":1,'
for f in utf16le.json:'UTF-16 text \(little-endian\)' utf16_bom.json:'UTF-16 text \(little-endian\)' \
         utf32be.json:'UTF-32 text \(big-endian\)' double.json.gz:'gzip inside gzip \(compressed twice\)' \
         trace.json.xz:xz-compressed trace.json.zst:zstd-compressed trace.json.bz2:bzip2-compressed \
         trace.zip:'a zip archive'; do
    run analyze "${f%%:*}"
    fails "not JSON: ${f%%:*}" 2 "torch2pprof: $(echo "${f%%:*}" | sed 's/\./\\./g'): not JSON: ${f#*:}[:)(a-zA-Z0-9 -]*; expected a PyTorch profiler trace \\(Chrome trace JSON\\)"
done
# a pprof profile given as a trace (what convert and go tool pprof write,
# gzip-compressed or not; also as analyze --base): named by its protobuf
# fields, not "not JSON at byte 2"; convert writes nothing
"$tool" convert "$data/alexnet_train.json.gz" prof.pb.gz >/dev/null 2>&1
gzip -dc prof.pb.gz >prof.pb
run analyze prof.pb.gz
fails "a pprof profile (gzip)" 2 'torch2pprof: prof\.pb\.gz: a pprof profile \(gzip-compressed protobuf\), not a trace: open it with go tool pprof'
run analyze prof.pb
fails "a pprof profile (uncompressed)" 2 'torch2pprof: prof\.pb: a pprof profile \(protobuf\), not a trace: open it with go tool pprof'
run analyze --base prof.pb.gz "$data/alexnet_train.json.gz"
fails "analyze --base a pprof profile" 2 'torch2pprof: prof\.pb\.gz: a pprof profile \(gzip-compressed protobuf\), not a trace: open it with go tool pprof'
run convert prof.pb.gz again.pb.gz
fails "convert a pprof profile" 2 'torch2pprof: prof\.pb\.gz: a pprof profile \(gzip-compressed protobuf\), not a trace: open it with go tool pprof'
rm -f prof.pb.gz prof.pb
# \u0000 inside a name: names are bytes with a length, so two ops
run analyze --json nul_in_name.json
loads "a NUL in a name keeps it apart" '"name":"ab","category":"","count":1,"self_ns":3000' \
    '"name":"ab\\u0000cd","category":"","count":1,"self_ns":2000'
run analyze not_json.txt
fails "not JSON" 2 'torch2pprof: not_json\.txt: at byte 1: not JSON \(lexical error: invalid char in json text\); expected a PyTorch profiler trace \(Chrome trace JSON\)'
head -c 300 /dev/urandom | gzip -c >binary.gz
head -c 300 /dev/urandom >binary.bin
printf '\000\001\002' | cat - binary.bin >binary2.bin
run analyze binary2.bin
fails "binary garbage" 2 'torch2pprof: binary2\.bin: at byte [0-9]+: not JSON \(lexical error: .*\); expected a PyTorch profiler trace \(Chrome trace JSON\)'
run analyze scalar.json
fails "a lone JSON value" 2 'torch2pprof: scalar\.json: a single JSON value, not a trace; expected an object with "traceEvents" or an array of events'
run analyze object_no_events.json
fails "object without traceEvents" 2 'torch2pprof: object_no_events\.json: a JSON object without "traceEvents"; expected a PyTorch profiler trace'
if [ -f "$shared/traces/not_a_trace_execution_graph.json.gz" ]; then
    cp "$shared/traces/not_a_trace_execution_graph.json.gz" exec_graph.json.gz
    run analyze exec_graph.json.gz
    fails "execution trace" 2 'torch2pprof: exec_graph\.json\.gz: a PyTorch execution trace \(nodes/schema\), not a timing trace; expected a profiler trace with "traceEvents" \(torch\.profiler export_chrome_trace\)'
else
    n=$((n + 1)); fail=$((fail + 1))
    echo "not ok $n - execution trace: cannot run, $shared/traces/not_a_trace_execution_graph.json.gz missing"
fi
run analyze events_object.json
fails "traceEvents an object" 2 'torch2pprof: events_object\.json: at byte 17: "traceEvents" is an object, not an array of events'
run analyze events_string.json
fails "traceEvents a string" 2 'torch2pprof: events_string\.json: at byte 22: "traceEvents" is a string, not an array of events'
run analyze array_of_numbers.json
fails "array without events" 2 'torch2pprof: array_of_numbers\.json: a JSON array with no event objects; expected an array of trace events'

# ---- truncated: exit 2 naming "truncated" and the byte offset; --partial loads ----
head -c 3000 cnn.json >cut.json
run analyze cut.json
fails "truncated JSON" 2 'torch2pprof: cut\.json: at byte 3000: truncated: the JSON ends at byte 3000 inside an event \(was the writer killed\?\); --partial loads what was read'
head -c 2000 cnn.json.gz >cut.json.gz
run analyze cut.json.gz
fails "truncated gzip" 2 'torch2pprof: cut\.json\.gz: at byte [0-9]+: truncated: the gzip data ends after [0-9]+ bytes of JSON \(was the writer killed\?\); --partial loads what was read'
head -c 20 cnn.json.gz >cut_header.json.gz
run analyze cut_header.json.gz
fails "gzip cut in its header" 2 'torch2pprof: cut_header\.json\.gz: at byte 0: truncated: the gzip data ends after 0 bytes of JSON \(was the writer killed\?\); --partial loads what was read'
python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
for i in range(200, 260): b[i] ^= 0x55
open(sys.argv[2], "wb").write(b)' cnn.json.gz corrupt.json.gz 2>/dev/null ||
    { cp cnn.json.gz corrupt.json.gz; printf 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' | dd of=corrupt.json.gz bs=1 seek=200 conv=notrunc 2>/dev/null; }
run analyze corrupt.json.gz
fails "corrupt gzip" 2 'torch2pprof: corrupt\.json\.gz: at byte [0-9]+: corrupt gzip data after [0-9]+ bytes of JSON \(.*\); --partial loads what precedes it'
# only the trailer is wrong (its CRC-32, then its length): every byte
# inflated is good. Was "at byte 0 ... after 0 bytes", and --partial kept
# nothing of the chunk the trailer ended (all of a small file).
gz_size=$(wc -c <cnn.json.gz)
"$tool" analyze --json cnn.json.gz | sed 's/^{"analysis_format":[0-9]*,"file":"[^"]*","format":"[a-z]*","truncated":false//' >whole.json
for at in 8 1; do
    python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-int(sys.argv[3])] ^= 0xff
open(sys.argv[2], "wb").write(b)' cnn.json.gz trailer.json.gz "$at"
    run analyze trailer.json.gz
    fails "bad gzip trailer (byte -$at): its offset, the JSON kept" 2 "torch2pprof: trailer\.json\.gz: at byte $cnn_size: corrupt gzip data: the trailer at compressed byte $((gz_size - 8)) does not match the data \(its CRC-32 or length is wrong\); --partial loads the $cnn_size bytes of JSON read"
    run analyze --partial --json trailer.json.gz
    if [ "$rc" -eq 0 ] && [ "$(wc -l <err)" -eq 1 ] &&
        grep -q -x -E "torch2pprof: warning: trailer\.json\.gz: truncated \(gzip trailer at compressed byte $((gz_size - 8)) is wrong, after $cnn_size bytes\); loaded what was read" err &&
        sed -e 's/^{"analysis_format":[0-9]*,"file":"[^"]*","format":"[a-z]*","truncated":true//' -e 's/,"truncated_reason":"[^"]*"//' out | cmp -s - whole.json && sanitizer_clean; then
        ok "--partial keeps all a bad gzip trailer (byte -$at) follows"
    else
        no "--partial keeps all a bad gzip trailer (byte -$at) follows" "bad output"
    fi
done
# a byte changed in stored (level 0) gzip data inflates as it is and only
# the CRC finds it: the JSON it breaks is reported as the corruption
python3 -c '
import sys, gzip
b = bytearray(gzip.compress(open(sys.argv[1], "rb").read(), 0))
b[b.rindex(b"}", 0, len(b) - 8)] = ord("#")
open(sys.argv[2], "wb").write(b)' cnn.json garbled.json.gz
run analyze garbled.json.gz
fails "JSON broken by a byte the gzip CRC condemns" 2 "torch2pprof: garbled\.json\.gz: at byte [0-9]+: corrupt gzip data: the trailer at compressed byte [0-9]+ does not match the data \(its CRC-32 or length is wrong\); --partial loads the [0-9]+ bytes of JSON read"
rm -f trailer.json.gz garbled.json.gz whole.json

run analyze --partial --json cut.json
if [ "$rc" -eq 0 ] && [ "$(wc -l <err)" -eq 1 ] &&
    grep -q -x -E 'torch2pprof: warning: cut\.json: truncated \(JSON ends at byte 3000\); loaded what was read' err &&
    grep -q '"truncated":true' out && grep -q -E '"events":[1-9][0-9]*' out && sanitizer_clean; then
    ok "--partial loads a truncated JSON with a warning"
else
    no "--partial loads a truncated JSON with a warning" "bad output"
fi
run analyze --partial cut.json.gz
if [ "$rc" -eq 0 ] && grep -q -x -E 'torch2pprof: warning: cut\.json\.gz: truncated \(gzip data ends after [0-9]+ bytes\); loaded what was read' err &&
    grep -q '^WARNING: *truncated trace (gzip data ends after [0-9]* bytes); figures cover what was read' out && sanitizer_clean; then
    ok "--partial loads a truncated gzip with a warning in the report"
else
    no "--partial loads a truncated gzip with a warning in the report" "bad output"
fi

# ---- array form missing its closing ] loads ----
run analyze --json no_closing_bracket.json
loads "array form without its closing ]" '"format":"array"' '"events":2,"complete_events":2' '"truncated":false'
# but a Kineto object cut after its events is truncated, not silently complete
printf '{"traceEvents":[{"ph":"X","ts":1,"dur":2,"name":"a","pid":1,"tid":1}' >object_open.json
run analyze object_open.json
fails "object form without its closing ]}" 2 'torch2pprof: object_open\.json: at byte 68: truncated: the JSON ends at byte 68 inside the document \(was the writer killed\?\); --partial loads what was read'

# ---- invalid JSON inside: byte offset and reason ----
run analyze control_char.json
fails "control character in a string" 2 'torch2pprof: control_char\.json: at byte 35: invalid JSON: lexical error: invalid character inside string'
run analyze bad_utf8.json
fails "bad UTF-8" 2 'torch2pprof: bad_utf8\.json: at byte 36: invalid JSON: lexical error: invalid bytes in UTF8 string'
run analyze unescaped_quote.json
fails "unescaped quote" 2 'torch2pprof: unescaped_quote\.json: at byte 40: invalid JSON: lexical error: invalid char in json text'
run analyze nan.json
fails "NaN" 2 'torch2pprof: nan\.json: at byte 17: invalid JSON: lexical error: invalid char in json text'
run analyze bare_na.json
fails "bare N/A" 2 'torch2pprof: bare_na\.json: at byte 25: invalid JSON: lexical error: invalid char in json text'
run analyze --json huge_number.json
loads "1e400 is skipped and counted as bad_number" '"events":2,"complete_events":1,"skipped":\{"bad_number":1\}'

# ---- event-level problems: skipped and counted per reason ----
run analyze --json event_problems.json
loads "event problems counted in --json skipped" \
    '"events":12,"complete_events":1,' \
    '"skipped":\{"unknown_phase":2,"missing_ts":1,"bad_number":2,"missing_dur":1,"negative_dur":1,"unmatched_begin":1,"unmatched_end":1,"not_an_object":2\}'
run analyze event_problems.json
loads "event problems counted in the report" \
    '^Skipped events: +11 \(unknown_phase 2, missing_ts 1, bad_number 2, missing_dur 1, negative_dur 1, unmatched_begin 1, unmatched_end 1, not_an_object 2\)$'

# ---- absurd inputs: no crash, bounded memory ----
# 6,000-character names: round-trip in --json, whole in the table of a pipe
# (only a terminal's width cuts names: tests/e2e/width.sh)
long=$(head -c 6000 /dev/zero | tr '\0' k)
printf '[{"ph":"X","ts":1,"dur":2,"name":"%s","pid":1,"tid":1}]\n' "$long" >long_name.json
run analyze --json long_name.json
loads "6,000-character name round-trips in --json" "\"name\":\"$long\""
run analyze long_name.json
loads "6,000-character name is whole in a piped table" "^$long "
run analyze --json big_ids.json
loads "ids above 2^63, string and negative pids and tids" '"complete_events":3' '"gpu_events":2' \
    '"gpu_unattributed_events":1' '"name":"cudaLaunchKernel","category":"cuda_runtime","count":1,"self_ns":5000,"total_ns":5000,"min_ns":5000,"max_ns":5000,"device_self_ns":2000,"device_total_ns":2000'
# nesting: 1,000 levels (the limit) inside args and at the top of the array
# load; one more is refused at its byte, and 10 million at once (2.2 billion
# overflowed the depth counter after 24 s)
{ printf '[{"ph":"X","ts":1,"dur":2,"name":"a","pid":1,"tid":1,"args":{"x":'
  head -c 997 /dev/zero | tr '\0' '['
  head -c 997 /dev/zero | tr '\0' ']'
  printf '}},'
  head -c 999 /dev/zero | tr '\0' '['
  head -c 999 /dev/zero | tr '\0' ']'
  printf ']\n'; } >deep.json
run analyze --json deep.json
loads "nesting 1,000 deep (the limit)" '"events":2,"complete_events":1,"skipped":\{"not_an_object":1\}'
run analyze deep_nesting.json
fails "nesting 1,001 deep" 2 'torch2pprof: deep_nesting\.json: at byte 1063: JSON nested deeper than 1000 levels \(the limit; a trace nests a few\)'
head -c 10000000 /dev/zero | tr '\0' '[' >deep10m.json
run analyze deep10m.json
fails "nesting 10 million deep" 2 'torch2pprof: deep10m\.json: at byte 1001: JSON nested deeper than 1000 levels \(the limit; a trace nests a few\)'
rm -f deep10m.json
# 100,000 open B on one track, 100,000 on another, then the first track's E:
# each E used to scan every open B (quadratic; minutes at a few MB)
awk 'BEGIN { n = 100000; printf "[";
  for (i = 0; i < n; i++) printf "{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":%d},\n", i;
  for (i = 0; i < n; i++) printf "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":%d},\n", i;
  for (i = 0; i < n; i++) printf "%s{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":%d}", i ? ",\n" : "", n + i;
  print "]" }' >begin_end_many.json
start=$(date +%s)
run analyze --json begin_end_many.json
loads "100,000 open B/E pairs across tracks" '"events":300000,"complete_events":100000,"skipped":\{"unmatched_begin":100000\}'
if [ $(($(date +%s) - start)) -gt 15 ]; then no "100,000 open B/E pairs in linear time" "took over 15 s"; else ok "100,000 open B/E pairs in linear time"; fi
rm -f begin_end_many.json
for f in overflow_begin_end overflow_busy overflow_window_gap overflow_gpu; do
    run analyze --json "$f.json"
    loads "times at the int64 limits: $f" '"skipped":\{"bad_number":[1-9]\}' '"busy_ns":[0-9]+,'
done
# events that overlap partly on one thread (A [0,10), B [1,11), C [2,12)):
# each keeps its self time (PyTorch's table: 10 us each, 30 in all, the
# pprof total), the thread is busy 12 us (CPU time never above its span),
# and the 2 overlaps (9 us each) are reported
run analyze --json partial_overlap.json
loads "partial overlaps: self as PyTorch, CPU time within the span, counted" \
    '"busy_ns":30000,' '"cpu_time_ns":12000,' '"partial_overlap_events":2,"partial_overlap_ns":18000,' \
    '"threads":\[\{"pid":"1","tid":"1","name":"[^"]*","events":3,"busy_ns":12000,' \
    '"name":"A","category":"cpu_op","count":1,"self_ns":10000,'
run analyze partial_overlap.json
if [ "$rc" -eq 0 ] && grep -q '^CPU time: *0.012 ms' out &&
    grep -q '^Partial overlaps: *2 events overlap a later event of their thread by 0.018 ms' out; then
    ok "partial overlaps: the text report says so"
else
    no "partial overlaps: the text report says so" "$(head -12 out | tr '\n' '|')"
fi
# [memory] Bytes near the int64 limits: refused past a sum of 2^62 (no sum
# of Bytes overflows), counted; lifetimes 146 years long stop at INT64_MAX
run analyze --json overflow_memory.json
loads "[memory] Bytes at the int64 limits: refused, counted" '"skipped":\{"bad_bytes":3\}' \
    '"device":"CPU","peak_bytes":4611686018427386900,[^}]*"allocs":1,"frees":1,"live_bytes_at_end":4611686018427386900,"alloc_bytes":4611686018427386900,"free_bytes":1000,' \
    '"device":"GPU0",[^}]*"matched_allocs":2,"lifetime_ns":9223372036854775807,'
run analyze overflow_memory.json
loads "[memory] Bytes refused: in the text report" '^Skipped events: +3 \(bad_bytes 3\)$'

# One token of 200 MB (a number here; names go the same way): yajl reads
# again the part of a token it holds on every chunk it is given, which made
# this quadratic (a 100 MB number took 24 s). Linear now: about 2 s of CPU;
# the cap on CPU time (not wall time) is many times that.
{ printf '[{"ph":"X","name":"a","pid":1,"tid":1,"dur":1,"ts":1'
  head -c 200000000 /dev/zero | tr '\0' 0; printf '}]\n'; } | gzip -1 >long_number.json.gz
ls -A | grep -v -x -e out -e err -e before -e after >before
(ulimit -t 30 && exec "$tool" analyze --json long_number.json.gz) >out 2>err
rc=$?
ls -A | grep -v -x -e out -e err -e before -e after >after
loads "a 200 MB number in linear time" '"events":1,"complete_events":0,"skipped":\{"bad_number":1\}'
rm -f long_number.json.gz
# A 100 MB name (a 440 KB gzip): past the 64 MiB cap on a string, refused
# where it crosses it, with the event and key; in bounded memory (under
# ulimit -v where sanitizers allow it). A 1 GB name took 2.6 GB, 4 GB ran
# out of memory after 6.3 GB.
{ printf '{"traceEvents":[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"'
  head -c 100000000 /dev/zero | tr '\0' a; printf '"}]}\n'; } | gzip -1 >long_string.json.gz
ls -A | grep -v -x -e out -e err -e before -e after >before
if nm -D "$tool" 2>/dev/null | grep -q -e __asan_init -e __ubsan; then
    "$tool" analyze long_string.json.gz >out 2>err
else
    (ulimit -v 200000 && exec "$tool" analyze long_string.json.gz) >out 2>err
fi
rc=$?
ls -A | grep -v -x -e out -e err -e before -e after >after
fails "a string longer than 64 MiB" 2 'torch2pprof: long_string\.json\.gz: at byte [0-9]+: a string longer than 64 MiB, in event 1 after the key "name" \(the limit; a trace'"'"'s strings are far shorter\)'
rm -f long_string.json.gz
# the same in small (it seeds the fuzzer, whose 4 KB chunks it spans)
run analyze --json long_tokens.json
loads "long name, number and escaped string across chunks" '"complete_events":1,' \
    '"window_start_ns":1000,' "\"name\":\"$(head -c 8000 /dev/zero | tr '\0' n)\""

# ---- memory: a failing allocation ends in one line, exit 2 ----
# A 60 MB name (under the cap on a string) inside a gzip, and 3 million
# events, under ulimit -v.
# Sanitizers reserve terabytes of address space and cannot run under it.
if "$tool" --version 2>&1 | grep -q . && ! nm -D "$tool" 2>/dev/null | grep -q -e __asan_init -e __ubsan; then
    { printf '[{"ph":"X","name":"'; head -c 60000000 /dev/zero | tr '\0' a
      printf '","ts":1,"dur":1,"pid":1,"tid":1}]\n'; } | gzip -1 >huge_name.json.gz
    ls -A | grep -v -x -e out -e err -e before -e after >before
    (ulimit -v 120000 && exec "$tool" analyze huge_name.json.gz) >out 2>err
    rc=$?
    ls -A | grep -v -x -e out -e err -e before -e after >after
    fails "out of memory on a 60 MB name (ulimit -v)" 2 'torch2pprof: huge_name\.json\.gz: at byte [0-9]+: out of memory'
    rm -f huge_name.json.gz
    { echo '['; yes '{"ph":"X","ts":1,"dur":1,"name":"a","pid":1,"tid":1},' | head -n 3000000; } |
        gzip -1 >many.json.gz
    ls -A | grep -v -x -e out -e err -e before -e after >before
    (ulimit -v 120000 && exec "$tool" analyze many.json.gz) >out 2>err
    rc=$?
    ls -A | grep -v -x -e out -e err -e before -e after >after
    fails "out of memory on 3 million events (ulimit -v)" 2 'torch2pprof: many\.json\.gz: (at byte [0-9]+: )?out of memory.*'
    rm -f many.json.gz
    # convert keeps one stack buffer, not one location slot per level per
    # node: a chain 10,000 deep took 396 MB when it was quadratic
    awk 'BEGIN { printf "["; for (i = 0; i < 10000; i++)
        printf "%s{\"ph\":\"X\",\"name\":\"op%d\",\"ts\":%d,\"dur\":%d,\"pid\":1,\"tid\":1}",
               i ? "," : "", i % 7, i, 20000 - 2 * i; print "]" }' >chain.json
    (ulimit -v 120000 && exec "$tool" convert chain.json chain.pb.gz) >out 2>err
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q '^wrote chain.pb.gz: 10000 samples, 7 locations' err &&
       [ "$(gzip -dc chain.pb.gz | wc -c)" -gt 50000000 ]; then
        ok "convert of a chain 10,000 deep in linear memory (ulimit -v)"
    else
        no "convert of a chain 10,000 deep in linear memory (ulimit -v)" "exit $rc"
    fi
    rm -f chain.json chain.pb.gz
else
    skipped "out of memory on a 60 MB name (ulimit -v)" "sanitizer build"
    skipped "out of memory on 3 million events (ulimit -v)" "sanitizer build"
    skipped "convert of a chain 10,000 deep in linear memory (ulimit -v)" "sanitizer build"
fi

# ---- output: the report cannot be written ----
if [ -w /dev/full ]; then
    ls -A | grep -v -x -e out -e err -e before -e after >before
    "$tool" analyze cnn.json >/dev/full 2>err
    rc=$?
    : >out
    ls -A | grep -v -x -e out -e err -e before -e after >after
    fails "stdout on a full disk (/dev/full)" 2 'torch2pprof: <stdout>: cannot write the report: No space left on device'
else
    skipped "stdout on a full disk (/dev/full)" "no /dev/full"
fi

# ---- convert's output: no partial OUT, no temporary file, the trace untouched ----
# cvt NAME RC REGEX ARGS...: like fails, but lists hidden files too (the
# temporary file is .OUT.XXXXXX.tmp) in the output's directory as well
cvt() {
    name=$1 want=$2 re=$3; shift 3
    run "$@"
    if ! sanitizer_clean; then no "$name" "sanitizer report"; return; fi
    if [ "$rc" -ne "$want" ]; then no "$name" "exit $rc, expected $want"; return; fi
    if [ "$(wc -l <err)" -ne 1 ]; then no "$name" "stderr is not one line"; return; fi
    if ! grep -q -x -E -e "$re" err; then no "$name" "message does not match /$re/"; return; fi
    if ! cmp -s before after; then no "$name" "files changed: $(diff before after | tr '\n' ' ')"; return; fi
    if ls -A . adir ro 2>/dev/null | grep -q '\.tmp$'; then no "$name" "temporary file left"; return; fi
    ok "$name"
}
if "$tool" convert --help >/dev/null 2>&1; then
    cvt "convert into a missing directory" 2 \
        'torch2pprof: nodir/out\.pb\.gz: cannot create a temporary file beside it: No such file or directory' \
        convert cnn.json.gz nodir/out.pb.gz
    cvt "convert onto the trace itself" 1 \
        'torch2pprof convert: cnn\.json\.gz is also one of the inputs; nothing written\. To write a profile: torch2pprof convert -o cnn\.pb\.gz cnn\.json\.gz' \
        convert cnn.json.gz cnn.json.gz
    ln -s cnn.json.gz trace_link.json.gz
    ln cnn.json.gz trace_hardlink.json.gz
    cvt "convert onto a symbolic link to the trace" 1 \
        'torch2pprof convert: trace_link\.json\.gz is also one of the inputs; nothing written\. .*' \
        convert cnn.json.gz trace_link.json.gz
    cvt "convert onto a hard link to the trace" 1 \
        'torch2pprof convert: trace_hardlink\.json\.gz is also one of the inputs; nothing written\. .*' \
        convert cnn.json.gz trace_hardlink.json.gz
    cvt "convert onto ./ and a path to the trace" 1 \
        'torch2pprof convert: \./adir/\.\./cnn\.json\.gz is also one of the inputs; nothing written\. .*' \
        convert cnn.json.gz ./adir/../cnn.json.gz
    rm -f trace_link.json.gz trace_hardlink.json.gz
    cvt "convert onto a directory" 1 \
        'torch2pprof convert: adir is a directory \(of traces\?\), not an output; nothing written\. .*' \
        convert cnn.json.gz adir
    cvt "convert -o a directory" 2 \
        'torch2pprof: adir: cannot write a profile there: Is a directory' \
        convert -o adir cnn.json.gz
    cvt "convert a truncated trace writes nothing" 2 \
        'torch2pprof: cut\.json: at byte 3000: truncated: the JSON ends at byte 3000 inside an event \(was the writer killed\?\); --partial loads what was read' \
        convert cut.json out.pb.gz
    # a directory the user cannot write: as nobody when root
    mkdir ro && chmod 555 ro
    if [ "$(id -u)" -ne 0 ]; then
        cvt "convert into a read-only directory" 2 \
            'torch2pprof: ro/out\.pb\.gz: cannot create a temporary file beside it: Permission denied' \
            convert cnn.json.gz ro/out.pb.gz
    elif command -v setpriv >/dev/null 2>&1 &&
        setpriv --reuid=65534 --regid=65534 --clear-groups "$tool" --version >/dev/null 2>&1; then
        ls -A | grep -v -x -e out -e err -e before -e after >before
        setpriv --reuid=65534 --regid=65534 --clear-groups "$tool" convert cnn.json.gz ro/out.pb.gz >out 2>err
        rc=$?
        ls -A | grep -v -x -e out -e err -e before -e after >after
        if [ -z "$(ls -A ro)" ]; then
            fails "convert into a read-only directory" 2 \
                'torch2pprof: ro/out\.pb\.gz: cannot create a temporary file beside it: Permission denied'
        else
            no "convert into a read-only directory" "files left in ro/"
        fi
    else
        skipped "convert into a read-only directory" "running as root without setpriv"
    fi
    # a full disk: a 64 KiB tmpfs filled to the last byte, in a private mount
    # namespace (root: unshare -m; otherwise a user namespace, unshare -rm)
    ns="unshare -m"
    [ "$(id -u)" -eq 0 ] || ns="unshare -rm"
    mkdir full
    "$tool" convert -o old_src.pb.gz cnn.json.gz 2>/dev/null
    if $ns sh -c 'mount -t tmpfs -o size=64k t2pfull full' 2>/dev/null; then
        # shellcheck disable=SC2016
        $ns sh -c '
            mount -t tmpfs -o size=64k t2pfull full || exit 99
            cp old_src.pb.gz full/old.pb.gz
            dd if=/dev/zero of=full/filler bs=4096 2>/dev/null
            dd if=/dev/zero of=full/filler2 bs=1 2>/dev/null
            "$1" convert cnn.json.gz full/old.pb.gz >out_old 2>err_old; echo $? >rc_old
            "$1" convert cnn.json.gz full/new.pb.gz >out 2>err; echo $? >rc
            ls -A full >full_after
            cat full/old.pb.gz >old_after
        ' sh "$tool"
        rc=$(cat rc)
        ls -A | grep -v -x -e out -e err -e before -e after -e rc -e rc_old -e out_old -e err_old \
            -e full_after -e old_after -e old_src.pb.gz >before
        cp before after
        fails "convert onto a full disk (new OUT)" 2 \
            'torch2pprof: full/new\.pb\.gz: cannot write: No space left on device'
        printf 'filler\nfiller2\nold.pb.gz\n' >want_after
        if [ "$(cat rc_old)" -eq 2 ] && [ ! -s out_old ] &&
            grep -q -x -E 'torch2pprof: full/old\.pb\.gz: cannot write: No space left on device' err_old &&
            cmp -s old_after old_src.pb.gz && cmp -s full_after want_after; then
            ok "convert onto a full disk: the old OUT intact, no temporary file"
        else
            rc=$(cat rc_old); cp err_old err; cp out_old out
            no "convert onto a full disk: the old OUT intact, no temporary file" \
                "left: $(tr '\n' ' ' <full_after); old OUT now: $(head -c 40 old_after)"
        fi
        rm -f rc rc_old out_old err_old full_after old_after want_after old_src.pb.gz
    else
        skipped "convert onto a full disk (new OUT)" "cannot mount a tmpfs here (no root, no user namespaces)"
        skipped "convert onto a full disk: the old OUT intact, no temporary file" "cannot mount a tmpfs here"
    fi
    # 60 zero-length events at one instant under one outer event: siblings
    # (one sample per op under outer), not a chain 60 deep (61 samples)
    run convert zero_length_one_instant.json zero.pb.gz
    if [ "$rc" -eq 0 ] && grep -q '^wrote zero.pb.gz: 4 samples, 4 locations' err && sanitizer_clean; then
        ok "zero-length events at one instant are never parents"
    else
        no "zero-length events at one instant are never parents" "exit $rc"
    fi
    rm -f zero.pb.gz
    run convert cnn.json.gz out.pb.gz
    if [ "$rc" -eq 0 ] && [ -s out.pb.gz ] && gzip -t out.pb.gz && ! ls -A | grep -q '\.tmp$' && sanitizer_clean; then
        ok "convert writes OUT and leaves no temporary file"
    else
        no "convert writes OUT and leaves no temporary file" "bad result"
    fi
    rm -f out.pb.gz
else
    skipped "convert output rows" "convert is not built"
fi

# the inputs are never modified
if gzip -dc cnn.json.gz | cmp -s - cnn.json && [ "$(wc -c <cnn.json)" -eq "$cnn_size" ]; then
    ok "inputs untouched"
else
    no "inputs untouched" "cnn.json changed"
fi

echo "1..$n"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
