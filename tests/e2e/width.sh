#!/bin/sh
# analyze's text on a terminal of 120 (and 80) columns: no line wider, names
# cut in the middle, --by-line keeping file name and line; piped, no name is
# ever cut (issue 29). The terminal is script(1)'s pseudo-terminal.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}"
py=$(command -v python3) || { echo "python3 missing: cannot run (./setup.sh --test installs it)"; exit 1; }
command -v script >/dev/null 2>&1 || { echo "script (bsdutils) missing: cannot run"; exit 1; }
tool=$(cd "$top_builddir" && pwd)/torch2pprof
S=$(cd "${SHARED:-$top_srcdir/tests/fixtures/shared}/traces" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/t2p-width.XXXXXX") || exit 99
trap 'rm -rf "$W"' EXIT
trap 'exit 1' HUP INT TERM
cd "$W" || exit 99
fail=0

# Python frames in files deep in directories, as a training machine writes them
deep=/home/someone/work/projects/a-rather-long-directory-name/with/more/levels/below/it/and/src/pkg
sed "s|\"model.py(|\"$deep/model.py(|g" "$top_srcdir/tests/fixtures/pyfunc_frames.json" > deep.json || exit 99
# two ranks of one job, for the ranks tables
"$py" "$S/../tools/make-ranks.py" "$S/nccl_relative_time.json.gz" ranks 2 1 1.2 &&
    rm ranks/expect.json || exit 99

on_tty() { # COLS OUT ARGS...: analyze on a terminal COLS wide
    cols=$1 out=$2
    shift 2
    # script runs its command with sh -c: quote each argument for it
    cmd="stty cols $cols rows 50; exec '$tool' analyze"
    for a in "$@"; do cmd="$cmd '$a'"; done
    script -qec "$cmd" /dev/null </dev/null >"$out" 2>&1
}

n=0
for args in "$S/tb_resnet50_w0.json.gz" "--by-line deep.json" \
            "--base $S/tb_resnet50_w0.json.gz $S/nccl_relative_time.json.gz" "ranks"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    for cols in 120 80; do
        on_tty $cols "tty$n.$cols" $args || { echo "FAIL: analyze $args on a terminal: exit $?"; fail=1; }
    done
    # shellcheck disable=SC2086
    "$tool" analyze $args > "pipe$n" || { echo "FAIL: analyze $args | exit $?"; fail=1; }
    # shellcheck disable=SC2086
    "$tool" analyze --json $args > "json$n" || fail=1
done

"$py" - "$S" <<'PYEOF' || fail=1
import json, sys, unicodedata
bad = []
def width(line):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in line)
for n in range(1, 5):
    for cols in (120,):  # the issue's terminal; 80 only for --by-line below
        text = open("tty%d.%d" % (n, cols), encoding="utf-8").read().replace("\r", "")
        wide = [l for l in text.split("\n") if width(l) > cols]
        if wide:
            bad.append("tty%d at %d columns: %d lines wider, e.g. %r" % (n, cols, len(wide), wide[0][:200]))
        if "…" not in text and n != 4:
            bad.append("tty%d at %d columns: no name shortened (the test lost its point)" % (n, cols))
    piped = open("pipe%d" % n, encoding="utf-8").read()
    if "…" in piped:
        bad.append("pipe%d: a name cut in a pipe: %r" % (n, [l for l in piped.split("\n") if "…" in l][0]))
    j = json.load(open("json%d" % n))
    names = [o["name"] for o in j.get("ops", [])][:20]
    missing = [x for x in names if x not in piped]
    if missing:
        bad.append("pipe%d: %d names not whole, e.g. %r" % (n, len(missing), missing[0]))
# middle cut: both ends of a long kernel name show
t = open("tty1.120", encoding="utf-8").read()
if not any(l.startswith("void cud") and "…" in l and "int) " in l for l in t.split("\n")):
    bad.append("tty1: no long kernel name cut in its middle")
# --by-line on 80 columns: each row keeps its file name and line
j = json.load(open("json2"))
rows = [l for l in open("tty2.80", encoding="utf-8").read().replace("\r", "").split("\n")]
start = next(i for i, l in enumerate(rows) if l.startswith("File:line"))
cut = 0
for l, want in zip(rows[start + 1:], j["lines"][:10]):
    full = "%s:%d" % (want["file"], want["line"])
    tail = "%s:%d" % (want["file"].rsplit("/", 1)[-1], want["line"])
    if l.startswith(full):
        continue
    cut += 1
    if tail not in l:
        bad.append("--by-line: row %r lost %r" % (l[:80], tail))
    elif not l.startswith("…"):
        bad.append("--by-line: row %r cut elsewhere than at its directories" % l[:80])
if not cut:
    bad.append("--by-line: no path shortened at 80 columns (the test lost its point)")
for b in bad:
    print("FAIL:", b)
print("width: %d problems" % len(bad))
sys.exit(1 if bad else 0)
PYEOF
exit $fail
