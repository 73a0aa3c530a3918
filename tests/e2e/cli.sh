#!/bin/sh
# The command lines (issue 22): no spelling of convert writes over a trace
# or an input; options anywhere as getopt_long users expect; help and
# --version everywhere; exit codes as the README says; standard output
# carries results only; errors that say what to do next; the man pages'
# OPTIONS equal each program's --help.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
T="$top_builddir/torch2pprof"
TUI="$top_builddir/torch2pprof-tui"
work=$(mktemp -d "${TMPDIR:-/tmp}/t2p-cli.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
fails=0 n=0

ok() { n=$((n + 1)); }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }

# run CMD...: sets rc, out (stdout) and err (stderr) of the command
run() {
    "$@" >"$work/out" 2>"$work/err"
    rc=$?
    out=$(cat "$work/out")
    err=$(cat "$work/err")
}

expect_rc() { # WANT WHAT
    if [ "$rc" -eq "$1" ]; then ok; else bad "$2: exit $rc, wanted $1; stderr: $err"; fi
}
expect_err() { # TEXT WHAT
    case $err in *"$1"*) ok ;; *) bad "$2: stderr lacks '$1': $err" ;; esac
}

# ---- item 1: every spelling on copies of real traces ----
d="$work/job"
mkdir "$d" "$d/sub"
cp "$top_srcdir/data/alexnet_train.json.gz" "$d/a.json.gz"
cp "$top_srcdir/data/cnn_train_cpu.json.gz" "$d/b.json.gz"
zcat "$top_srcdir/data/cnn_train_cpu.json.gz" >"$d/c.json"
cp "$top_srcdir/data/cnn_train_cpu.json.gz" "$d/cpu.pt.trace.json.gz"
cp "$d/a.json.gz" "$d/looks.pb.gz"       # a trace with a profile's name
echo "notes, not a profile" >"$d/notes.txt"
ln -s a.json.gz "$d/link.pb.gz"          # a symlink to an input
ln "$d/a.json.gz" "$d/hard.pb.gz"        # a hard link to an input
mkfifo "$d/fifo.pb.gz"
# two ranks of one job, for -o
python3 - "$d/sub" "$top_srcdir/data/alexnet_train.json.gz" <<'EOF'
import gzip, json, sys
t = json.load(gzip.open(sys.argv[2]))
for r in (0, 1):
    t["distributedInfo"] = {"rank": r, "world_size": 2}
    with gzip.open("%s/rank%d.json.gz" % (sys.argv[1], r), "wt") as f:
        json.dump(t, f)
EOF
sums() { (cd "$d" && find . -type f | sort | xargs md5sum); }
before=$(sums)
listing() { (cd "$d" && find . | sort); }
files_before=$(listing)

cd "$d" || exit 99
refuse() { # WHAT, then the command: exit 1, one line naming -o, nothing new
    what=$1
    shift
    run timeout 60 "$@"
    expect_rc 1 "$what"
    expect_err "-o " "$what (shows the command to use)"
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && ok || bad "$what: more than one line: $err"
    [ "$(listing)" = "$files_before" ] && ok || bad "$what: wrote a file: $(listing)"
}
refuse "convert TRACE TRACE" "$T" convert a.json.gz b.json.gz
refuse "short form TRACE TRACE" "$T" a.json.gz b.json.gz
refuse "convert several traces" "$T" convert a.json.gz b.json.gz cpu.pt.trace.json.gz
refuse "convert dir/*" "$T" convert sub/rank0.json.gz sub/rank1.json.gz
refuse "convert TRACE plain.json" "$T" convert a.json.gz c.json
refuse "convert TRACE new.json" "$T" convert a.json.gz new.json
refuse "a trace named .pb.gz" "$T" convert b.json.gz looks.pb.gz
refuse "the input as ./x" "$T" convert a.json.gz ./a.json.gz
refuse "the input by a symlink" "$T" convert a.json.gz link.pb.gz
refuse "the input by a hard link" "$T" convert a.json.gz hard.pb.gz
refuse "a file that is not a profile" "$T" convert a.json.gz notes.txt
refuse "a directory last" "$T" convert a.json.gz sub
refuse "a FIFO last" "$T" convert a.json.gz fifo.pb.gz
refuse "- last" "$T" convert a.json.gz -
refuse "short form, options after" "$T" a.json.gz b.json.gz --short-names
refuse "one operand" "$T" convert a.json.gz
# -o names the output, and still never an input or a trace
run "$T" convert -o a.json.gz b.json.gz
expect_rc 1 "-o over a trace"
run "$T" convert --output=hard.pb.gz a.json.gz
expect_rc 1 "-o the input by a hard link"
[ "$(sums)" = "$before" ] && ok || bad "an input changed: $(sums)"
[ "$(listing)" = "$files_before" ] && ok || bad "refusals left files: $(listing)"

# what is accepted: a new OUT, a pprof OUT, an empty file, -o with several traces
run "$T" convert a.json.gz out.pb.gz
expect_rc 0 "convert TRACE new.pb.gz"
[ -z "$out" ] && ok || bad "convert printed on standard output: $out"
expect_err "wrote out.pb.gz" "the summary on standard error"
run "$T" b.json.gz out.pb.gz
expect_rc 0 "short form over a pprof profile"
: >empty.out
run "$T" convert a.json.gz empty.out
expect_rc 0 "convert into an empty file"
run "$T" convert sub/rank0.json.gz sub/rank1.json.gz -o job.pb.gz --jobs 1
expect_rc 0 "convert -o OUT TRACE TRACE (options after)"
run "$T" convert -ojob2.pb.gz sub
expect_rc 0 "convert -oOUT DIR"
if command -v go >/dev/null 2>&1; then
    tags=$(go tool pprof -tags job.pb.gz 2>/dev/null | grep -c "rank")
    [ "$tags" -ge 1 ] && ok || bad "job profile has no rank label"
fi
[ "$(sums | grep -v -e out.pb.gz -e empty.out -e job)" = "$before" ] && ok ||
    bad "an input changed after the writes"
# -o - to a pipe: the profile (gzip) on standard output, nothing else
"$T" convert -o - a.json.gz 2>"$work/err" | head -c 2 | od -An -tx1 >"$work/magic"
grep -q "1f 8b" "$work/magic" && ok || bad "-o - did not write gzip to the pipe: $(cat "$work/magic")"
# -o - on a terminal is refused (script gives the command a terminal)
if command -v script >/dev/null 2>&1; then
    script -qec "$T convert -o - a.json.gz" /dev/null >"$work/tty" 2>&1
    grep -q "terminal" "$work/tty" && ok || bad "-o - on a terminal: $(cat "$work/tty")"
fi

# ---- item 2: options anywhere, =, --, standard input ----
run "$T" analyze --json a.json.gz
ref=$(printf '%s' "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin); j.pop("file"); print(json.dumps(j, sort_keys=True))')
for spelling in "a.json.gz --json" "--json=x" "-json a.json.gz" "--js a.json.gz"; do
    case $spelling in
    --json=x) run "$T" analyze --json=x a.json.gz; expect_rc 1 "--json=x"; continue ;;
    esac
    # shellcheck disable=SC2086
    run "$T" analyze $spelling
    got=$(printf '%s' "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin); j.pop("file"); print(json.dumps(j, sort_keys=True))' 2>&1)
    [ "$got" = "$ref" ] && ok || bad "analyze $spelling differs from analyze --json a.json.gz"
done
run "$T" analyze --top=3 a.json.gz --sort total
expect_rc 0 "--top=3 ... --sort total"
[ "$(printf '%s\n' "$out" | grep -c "^Top 3 operations by total")" -eq 1 ] && ok ||
    bad "--top=3 --sort total not applied"
cp a.json.gz ./-x.json.gz
run "$T" analyze -- -x.json.gz
expect_rc 0 "-- then a trace named -x.json.gz"
rm -f ./-x.json.gz
for how in zcat cat; do
    run sh -c "$how a.json.gz | '$T' analyze --json -"
    got=$(printf '%s' "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin); j.pop("file"); print(json.dumps(j, sort_keys=True))' 2>&1)
    [ "$got" = "$ref" ] && ok || bad "standard input through $how differs: $err"
done
run sh -c "zcat a.json.gz | '$T' convert -o '$work/stdin.pb.gz' -"
expect_rc 0 "convert - from standard input"

# ---- item 3: help and versions ----
for c in analyze convert; do
    a=$("$T" help $c)
    b=$("$T" $c --help)
    [ "$a" = "$b" ] && [ -n "$a" ] && ok || bad "help $c differs from $c --help"
    run "$T" $c -V
    expect_rc 0 "$c -V"
    case $out in "torch2pprof "*) ok ;; *) bad "$c -V: $out" ;; esac
done
for v in -V --version; do
    run "$T" $v; expect_rc 0 "torch2pprof $v"
    run "$TUI" $v; expect_rc 0 "torch2pprof-tui $v"
    case $out in "torch2pprof-tui "*) ok ;; *) bad "torch2pprof-tui $v: $out" ;; esac
done
run "$T" help nosuch
expect_rc 1 "help of an unknown command"

# ---- item 4: exit codes, one line and Try ----
usage() { # WHAT, then the command: exit 1, two lines: the problem, Try
    what=$1
    shift
    run "$@"
    expect_rc 1 "$what"
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 2 ] && ok || bad "$what: not two lines: $err"
    expect_err "Try '" "$what"
    [ -z "$out" ] && ok || bad "$what: printed on standard output"
}
usage "analyze unknown option" "$T" analyze --jsn a.json.gz
expect_err "did you mean '--json'" "the closest option"
usage "convert unknown option" "$T" convert --foucs x a.json.gz o.pb.gz
expect_err "did you mean '--focus'" "the closest option"
usage "tui unknown option" "$TUI" --veiw tree a.json.gz
expect_err "did you mean '--view'" "the closest option"
usage "missing value" "$T" analyze a.json.gz --top
usage "bad value" "$T" analyze --top x a.json.gz
usage "bad jobs" "$TUI" --jobs 0 a.json.gz
usage "bad view" "$TUI" --view nope a.json.gz
usage "flag with a value" "$T" convert --partial=1 a.json.gz o.pb.gz
usage "ambiguous prefix" "$T" analyze --s a.json.gz
run "$T" analyze missing.json.gz
expect_rc 2 "a missing trace"
run "$TUI" --replay q missing.json.gz
expect_rc 2 "the explorer, a missing trace"
steps="$top_srcdir/tests/fixtures/mlp_nested.json.gz"
run "$T" analyze --step 99 "$steps"
expect_rc 2 "a step the trace lacks"
expect_err "it has 4 steps, 2 to 5" "no step N lists the steps"
run "$T" convert --step 99 -o "$work/s.pb.gz" "$steps"
expect_rc 2 "convert, a step the trace lacks"
run "$T" analyze --step 2-x- "$steps"
[ "$rc" -ne 0 ] && ok || bad "a malformed step accepted"

# ---- item 5: standard output carries results only ----
run "$T" analyze --json a.json.gz
printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' && ok || bad "--json is not clean JSON"
run "$T" convert a.json.gz "$work/o.pb.gz"
[ -z "$out" ] && ok || bad "convert wrote to standard output: $out"

# ---- item 6: errors that say what to do next ----
head -c 20000 a.json.gz >"$work/cut.json.gz"
run "$T" analyze "$work/cut.json.gz"
expect_rc 2 "a truncated trace"
expect_err "--partial" "a truncated trace names --partial"
mkdir "$work/none"
run "$T" analyze "$work/none"
expect_rc 2 "a directory without traces"
expect_err "no trace" "a directory without traces says so"

# ---- issue 23 item 3: every profile carries the command that makes it again ----
# the comment line "torch2pprof convert ... -o OUT", run with another OUT,
# writes a profile equal to the first as go tool pprof reads it
raw_samples() { # the sample types and the samples of a profile, sorted
    go tool pprof -raw "$1" 2>/dev/null | awk '/^Samples:/ { on = 1 } /^Locations/ { on = 0 } on' | sort
}
again() { # WHAT OUT: reruns OUT's recorded command into again.pb.gz and compares
    cmdline=$(go tool pprof -comments "$2" 2>/dev/null | grep '^torch2pprof convert ')
    if [ -z "$cmdline" ]; then bad "$1: no 'torch2pprof convert' comment in $2"; return; fi
    case $cmdline in *" -o $2") ok ;; *) bad "$1: the command does not end in -o $2: $cmdline" ;; esac
    rm -f again.pb.gz
    re=$(printf '%s' "$cmdline" | sed 's/ -o [^ ]*$/ -o again.pb.gz/')
    (PATH="$top_builddir:$PATH"; eval "$re") 2>/dev/null || { bad "$1: the recorded command failed: $re"; return; }
    if [ "$(raw_samples "$2")" = "$(raw_samples again.pb.gz)" ] && [ -n "$(raw_samples "$2")" ]; then
        ok
    else
        bad "$1: the recorded command writes another profile: $re"
    fi
}
if command -v go >/dev/null 2>&1; then
    "$T" convert -o c1.pb.gz a.json.gz 2>/dev/null && again "convert" c1.pb.gz
    "$T" a.json.gz --short-names --focus 'conv|relu' c2.pb.gz 2>/dev/null && again "short form, options after" c2.pb.gz
    "$T" convert --step 3-4 -o c3.pb.gz "$steps" --keep-steps 2>/dev/null && again "--step" c3.pb.gz
    # the three selections and the command, each a comment line of its own
    "$T" convert --focus '^aten::' --ignore 'ackward' --thread '^thread' -o c6.pb.gz a.json.gz 2>/dev/null &&
        again "--focus --ignore --thread" c6.pb.gz
    n3=$(go tool pprof -comments c6.pb.gz 2>/dev/null | grep -c -e '^selection: --focus ^aten::$' \
        -e '^selection: --ignore ackward$' -e '^selection: --thread ^thread$')
    [ "$n3" -eq 3 ] && ok || bad "three selections: $n3 comment lines, wanted 3"
    rm -f c6.pb.gz
    "$T" convert --jobs=2 -o c4.pb.gz sub 2>/dev/null && again "a job" c4.pb.gz
    "$T" convert --base b.json.gz a.json.gz c5.pb.gz 2>/dev/null && again "--base" c5.pb.gz
    rm -f c1.pb.gz c2.pb.gz c3.pb.gz c4.pb.gz c5.pb.gz again.pb.gz
else
    bad "go is missing (./setup.sh installs golang-go): cannot read the profiles back"
fi

# ---- item 7: the man pages' OPTIONS are --help's ----
python3 "$top_srcdir/man/update-options.py" --check "$top_builddir" "$top_srcdir" 2>"$work/man" &&
    ok || bad "man pages and --help disagree: $(cat "$work/man")"
for c in analyze convert; do
    "$T" $c --help | awk -v c=$c 'length($0) > 80 { print "FAIL: " c " --help line over 80 columns: " $0; e = 1 } END { exit e }' &&
        ok || fails=$((fails + 1))
done

cd / || exit 99
echo "$((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
