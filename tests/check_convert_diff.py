#!/usr/bin/env python3
"""Check `convert --base` against go tool pprof's own -diff_base.

usage: check_convert_diff.py TOOL WORKDIR BASE NEW [-- EXTRA convert ARGS]

Writes base.pb.gz and new.pb.gz with `TOOL convert`, then
  ref.pb.gz  = go tool pprof -proto -diff_base base.pb.gz new.pb.gz
  mine.pb.gz = TOOL convert --base BASE NEW
and compares what go tool pprof reads from the two (-raw): the header lines
(comments, period, time, duration, sample types), every sample as its
values, its stack (each location as mapping file and function name and file)
and its labels, as a multiset; the locations and the mappings as sets. Also
`-top` of both, for each sample type, line by line.

Exit 0 if equal, 1 otherwise, 77 if TOOL or go is missing.
"""
import os
import re
import shutil
import subprocess
import sys


def sh(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise SystemExit("check_convert_diff: `%s` exited %d\n%s" % (
            " ".join(cmd), p.returncode, p.stderr.decode(errors="replace")))
    return p.stdout.decode(errors="replace")


def parse_raw(text):
    """header lines, samples (canonical), locations, mappings from pprof -raw"""
    # each profile records the command that wrote it (its own -o): aside
    lines = [l for l in text.splitlines() if not l.startswith("Comment: torch2pprof convert ")]
    i = lines.index("Samples:")
    header = lines[:i + 2]
    j = lines.index("Locations")
    k = lines.index("Mappings")
    maps = {}
    for l in lines[k + 1:]:
        m = re.match(r"\s*(\d+): (.*)$", l)
        if m:
            maps[m.group(1)] = m.group(2)
    locs = {}
    for l in lines[j + 1:k]:
        m = re.match(r"\s*(\d+): \S+ M=(\d+) (.*)$", l)
        if not m:
            raise SystemExit("check_convert_diff: odd location line %r" % l)
        locs[m.group(1)] = "%s | %s" % (maps.get(m.group(2)), m.group(3))
    samples = []
    body = lines[i + 2:j]
    n = 0
    while n < len(body):
        m = re.match(r"\s*([-\d ]+): ([\d ]*)$", body[n])
        if not m:
            raise SystemExit("check_convert_diff: odd sample line %r" % body[n])
        labels = ""
        # string labels on one line, numeric ones (rank:[0 rank]) on the next
        while n + 1 < len(body) and not re.match(r"\s*[-\d ]+: ", body[n + 1]):
            labels += (" " if labels else "") + body[n + 1].strip()
            n += 1
        stack = tuple(locs[x] for x in m.group(2).split())
        samples.append((tuple(m.group(1).split()), stack, labels))
        n += 1
    return header, sorted(samples), sorted(locs.values()), sorted(maps.values())


def main(argv):
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    tool, work, base, new = argv
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)) or not shutil.which("go"):
        print("check_convert_diff: no %s or no go, skipping" % tool)
        return 77
    f = lambda n: os.path.join(work, n)
    sh([tool, "convert"] + extra + [base, f("base.pb.gz")])
    sh([tool, "convert"] + extra + [new, f("new.pb.gz")])
    sh([tool, "convert"] + extra + ["--base", base, new, f("mine.pb.gz")])
    with open(f("ref.pb.gz"), "wb") as out:
        p = subprocess.run(["go", "tool", "pprof", "-proto", "-diff_base", f("base.pb.gz"),
                            f("new.pb.gz")], stdout=out, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise SystemExit("check_convert_diff: go tool pprof -diff_base failed: %s" % p.stderr)
    bad = []
    ref = parse_raw(sh(["go", "tool", "pprof", "-raw", f("ref.pb.gz")]))
    mine = parse_raw(sh(["go", "tool", "pprof", "-raw", f("mine.pb.gz")]))
    for what, r, m in zip(("header", "samples", "locations", "mappings"), ref, mine):
        if r != m:
            extra_r = [x for x in r if x not in m][:3]
            extra_m = [x for x in m if x not in r][:3]
            bad.append("%s differ: only pprof's %r, only ours %r" % (what, extra_r, extra_m))
    # the heap types when the two traces have memory events (convert --base
    # carries them then, as each single convert does)
    heap = ("alloc_objects", "alloc_space", "inuse_objects", "inuse_space")
    has_heap = "alloc_space" in "\n".join(ref[0])
    if has_heap != ("alloc_space" in "\n".join(mine[0])):
        bad.append("memory sample types in one profile only")
    for idx in ("samples", "time", "device_time") + (heap if has_heap else ()):
        a = sh(["go", "tool", "pprof", "-top", "-nodecount=1000", "-sample_index=" + idx, f("ref.pb.gz")])
        b = sh(["go", "tool", "pprof", "-top", "-nodecount=1000", "-sample_index=" + idx, f("mine.pb.gz")])
        drop = lambda t: [l for l in t.splitlines() if "torch2pprof convert " not in l]
        if drop(a) != drop(b):
            bad.append("-top -sample_index=%s differs" % idx)
    for n in ("base.pb.gz", "new.pb.gz", "mine.pb.gz", "ref.pb.gz"):
        os.unlink(f(n))
    if bad:
        print("check_convert_diff: %s -> %s:" % (base, new))
        for b in bad:
            print("  " + b)
        return 1
    print("ok: convert --base %s %s = go tool pprof -diff_base: %d samples, %d locations%s"
          % (os.path.basename(base), os.path.basename(new), len(mine[1]), len(mine[2]),
             ", memory types too" if has_heap else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
