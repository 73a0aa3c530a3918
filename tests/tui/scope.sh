#!/bin/sh
# The explorer's figures within a scope, checked against go tool pprof
# reading what `torch2pprof convert --focus '^OP$'` writes (not our code
# reading our code): for each of the top operators of a trace, Enter in Ops
# focuses on it, 1 goes back to the Ops table, now within the scope, and
# each row's Self and Cum must be pprof's flat and cum for that function,
# the Tree's root total pprof's total.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
command -v go >/dev/null 2>&1 || { echo "go missing: no go tool pprof to check with (./setup.sh --test installs it)"; exit 1; }
py=$(command -v python3) || { echo "python3 missing: cannot run (./setup.sh --test installs it)"; exit 1; }
tmp=$(mktemp -d /tmp/t2p-scope.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export GOFLAGS=-mod=mod GOPATH="$tmp/go" GOCACHE="$tmp/gocache" HOME="$tmp"
cd "$top_srcdir" || exit 1
fail=0
for trace in data/alexnet_train.json.gz tests/fixtures/mlp_nested.json.gz tests/fixtures/recursion.json; do
    "$top_builddir/torch2pprof" analyze --json -top 0 "$trace" > "$tmp/a.json" || exit 1
    "$py" - "$tmp" "$trace" "$top_builddir" <<'PYEOF' || fail=1
import json, re, subprocess, sys
tmp, trace, build = sys.argv[1:4]
ops = json.load(open(tmp + "/a.json"))["ops"]   # in Ops' default order: self, descending
names = [o["name"] for o in ops]
ms = lambda ns: "%d.%03d" % divmod((ns + 500) // 1000, 1000)
checked = 0
for idx, op in enumerate(ops[:8]):
    name = op["name"]
    if names.count(name) > 1:
        continue   # pprof merges functions of one name; the focus is one op
    keys = " ".join(["j"] * idx + ["<Enter>", "1"])
    out = subprocess.run([build + "/torch2pprof-tui", "--view", "ops", "--replay", keys, "--print",
                          "--size", "260x%d" % (len(ops) + 12), trace],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    screen = [l for l in out if not re.match(r"(load|first-screen|key|max-key) ", l)]
    head = next(l for l in screen if l.startswith("Name"))
    def end(title):
        i = head.index(title) + len(title)
        return i + 1 if head[i:i + 1] in ("\u25b2", "\u25bc") else i   # the sort arrow
    namew = head.index("Category")
    cols = {"self": end("Self ms"), "cum": end("Cum ms")}
    rows = {}
    for l in screen[4:]:
        body = l[1:]
        if len(body) < cols["cum"] or not body[cols["self"] - 1].isdigit():
            continue
        n = body[:namew].rstrip()
        f = lambda c: body[:cols[c]].split()[-1].rstrip("*")
        rows[n] = (f("self"), f("cum"))
    pb = "%s/f%d.pb.gz" % (tmp, idx)
    subprocess.run([build + "/torch2pprof", "convert", "--focus", "^" + re.escape(name) + "$",
                    trace, pb], capture_output=True, check=True)
    top = subprocess.run(["go", "tool", "pprof", "-top", "-unit=ns", "-nodefraction=0",
                          "-nodecount=1000000", "-sample_index=time", pb],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    want = {}
    for l in top:
        m = re.match(r"\s*(\d+)(?:ns)?\s+\S+%\s+\S+%\s+(\d+)(?:ns)?\s+\S+%\s+(.*)$", l)
        if m:
            want[m.group(3)] = (ms(int(m.group(1))), ms(int(m.group(2))))
    if not want:
        sys.exit("%s: pprof listed nothing for %s" % (trace, name))
    for fn, (flat, cum) in want.items():
        got = [v for n, v in rows.items() if n == fn or (n.endswith("\u2026") and fn.startswith(n[:-1]))]
        if len(got) != 1 or got[0] != (flat, cum):
            sys.exit("%s: focus %s: %s: want self/cum %s/%s, the Ops table shows %s"
                     % (trace, name, fn, flat, cum, got))
    # rows with no time in the scope (frames whose calls took none of it)
    # are listed by the table; pprof drops zero samples
    timed = {n for n, v in rows.items() if v != ("0.000", "0.000")}
    if len(timed) != len(want):
        sys.exit("%s: focus %s: %d rows with time, pprof %d functions: only ours %s, only pprof's %s"
                 % (trace, name, len(timed), len(want), sorted(timed - set(want)),
                    sorted(set(want) - timed)))
    checked += 1
print("ok: %s: %d focuses, every op's self and cum as go tool pprof reads them" % (trace, checked))

# Threads: Enter on a track focuses on its stacks; the scope's self time in
# the header is pprof's total of convert --thread '^LABEL$'
ntracks = len(json.load(open(tmp + "/a.json"))["threads"])
for i in range(ntracks):
    keys = " ".join(["4"] + ["j"] * i + ["<Enter>"])
    out = subprocess.run([build + "/torch2pprof-tui", "--view", "threads", "--replay", keys,
                          "--print", "--size", "300x12", trace], capture_output=True, text=True, check=True).stdout
    m = re.search(r"\u203a track (.*) \| its total time ([0-9.]+) ms", out)
    if not m:
        sys.exit("%s: track %d: no track scope in the header:\n%s" % (trace, i, out))
    pb = "%s/t%d.pb.gz" % (tmp, i)
    subprocess.run([build + "/torch2pprof", "convert", "--thread", "^" + re.escape(m.group(1)) + "$",
                    trace, pb], capture_output=True, check=True)
    top = subprocess.run(["go", "tool", "pprof", "-top", "-unit=ns", "-sample_index=time", pb],
                         capture_output=True, text=True, check=True).stdout
    t = re.search(r"of (\d+)ns total", top) or re.search(r"Total samples = (\d+)ns", top)
    total = ms(int(t.group(1))) if t else "0.000"
    if total != m.group(2):
        sys.exit("%s: track %s: the header says %s ms, pprof %s ms" % (trace, m.group(1), m.group(2), total))
print("ok: %s: %d track focuses, their time as go tool pprof reads it" % (trace, ntracks))
PYEOF
done
exit $fail
