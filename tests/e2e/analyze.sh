#!/bin/sh
# analyze against independent figures: PyTorch's own key_averages() table for
# the recorded fixtures, and tests/oracle.py (a deliberately simple second
# computation) for every shared real trace, the sample data and the hand-made
# fixtures (tests/fixtures/*.json).
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
fail=0
for t in "$top_srcdir"/tests/fixtures/*.json.gz; do
    exp="${t%.json.gz}.expected.json"
    "$py" "$top_srcdir/tests/check_analyze.py" "$tool" "$t" "$exp" || fail=1
done
for t in "$top_srcdir"/tests/fixtures/*.json; do
    "$py" "$top_srcdir/tests/check_analyze.py" "$tool" "$t" || fail=1
done
# the shared traces when present; without them a note, the rest still runs
[ -d "$SHARED/traces" ] || echo "note: $SHARED/traces not found; shared traces not checked"
for t in "$SHARED"/traces/*; do
    [ -e "$t" ] || continue
    case "$t" in *not_a_trace*) continue ;; esac
    "$py" "$top_srcdir/tests/check_analyze.py" "$tool" "$t" || fail=1
done
for t in "$top_srcdir"/data/*.json.gz; do
    "$py" "$top_srcdir/tests/check_analyze.py" "$tool" "$t" || fail=1
done
# The text report prints the figures --json gives: CPU time over all threads,
# all tracks, GPU busy, each category's
# row and each top operation's calls, self, total, min and max.
for t in "$top_srcdir"/data/*.json.gz; do
    "$tool" analyze --top 0 "$t" > text.out && "$tool" analyze --json --top 0 "$t" > text.json &&
    "$py" - text.out text.json "$t" <<'PYEOF' || fail=1
import json, sys
text = open(sys.argv[1]).read().splitlines()
d = json.load(open(sys.argv[2]))
ms = lambda ns: "%d.%03d" % divmod((ns + 500) // 1000, 1000)
count = lambda n: "{:,}".format(n)
def need(cond, what):
    if not cond:
        sys.exit("analyze text: %s: %s" % (sys.argv[3], what))
need(any(l.startswith("CPU time:") and ms(d["cpu_time_ns"]) + " ms over all threads" in l
         for l in text), "CPU time")
need(d["busy_ns"] == d["cpu_time_ns"] or
     any(l.startswith("All tracks:") and ms(d["busy_ns"]) + " ms" in l for l in text), "all tracks")
need(not d["gpu_events"] or
     any(l.startswith("GPU busy:") and ms(d["gpu_busy_ns"]) + " ms" in l for l in text), "GPU busy")
top = text.index(next(l for l in text if l.startswith("Top ")))
rows = text[top + 2:top + 2 + len(d["ops"])]
for o, row in zip(d["ops"], rows):
    if len(o["name"]) > 48:
        continue                                   # cut with an ellipsis on screen
    cells = row[48:].replace("*", " ").split()   # "*": Cum differs, see the note
    want = [count(o["count"]), ms(o["self_ns"]), ms(o["total_ns"]), ms(o["min_ns"]), ms(o["max_ns"])]
    need(row.startswith(o["name"]) and all(w in cells for w in want), "row %r, want %s" % (row, want))
for c in d["categories"]:
    name = c["name"] or "(none)"
    need(any(l.startswith(name + " ") and count(c["count"]) in l.split() and ms(c["self_ns"]) in l.split()
             and ms(c["total_ns"]) in l.split() for l in text), "category %s" % name)
print("ok: text report of %s matches --json (%d ops)" % (sys.argv[3], len(d["ops"])))
PYEOF
done
rm -f text.out text.json
exit $fail
