#!/usr/bin/env python3
"""Check `analyze --base` against the two single-trace reports.

usage: check_compare.py TOOL BASE NEW [-- EXTRA ARGS for both sides]

Runs `TOOL analyze --json -top 0 BASE`, the same on NEW, and
`TOOL analyze --json -top 0 --base BASE NEW`, and checks that the "compare"
object holds, for every operator of either trace (keyed by name and category)
and every category:
  - status both / added / removed as the key is in both, only NEW, only BASE;
  - base and new figures equal to that trace's own report (count, self_ns,
    total_ns, device_self_ns, device_total_ns; categories: count, self_ns,
    total_ns), zero on the side where it is absent;
  - delta = new - base for every figure;
  - no row twice and no row of neither trace;
  - ops sorted by |delta self_ns| descending;
  - base/new headers: file, events and busy_ns as in the single reports.
The single-trace figures themselves are checked against tests/oracle.py by
check_analyze.py.

Exit 0 if all match, 1 on any mismatch, 77 if TOOL does not exist.
"""
import json
import os
import subprocess
import sys

OP_FIGS = ("count", "self_ns", "total_ns", "device_self_ns", "device_total_ns")
CAT_FIGS = ("count", "self_ns", "total_ns")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise SystemExit("check_compare: `%s` exited %d\n%s" % (
            " ".join(cmd), p.returncode, p.stderr.decode(errors="replace")))
    return json.loads(p.stdout)


def check_rows(what, rows, base, new, key, figs, bad):
    seen = set()
    for r in rows:
        k = key(r)
        if k in seen:
            bad.append("%s %r listed twice" % (what, k))
        seen.add(k)
        want = "both" if k in base and k in new else "added" if k in new else \
            "removed" if k in base else None
        if want is None:
            bad.append("%s %r is in neither trace" % (what, k))
            continue
        if r["status"] != want:
            bad.append("%s %r: status %s, want %s" % (what, k, r["status"], want))
        for side, single in (("base", base), ("new", new)):
            for f in figs:
                exp = single[k][f] if k in single else 0
                if r[side][f] != exp:
                    bad.append("%s %r: %s.%s %r, single report %r" % (what, k, side, f, r[side][f], exp))
        for f in figs:
            if r["delta"][f] != r["new"][f] - r["base"][f]:
                bad.append("%s %r: delta.%s %r != %r - %r" % (what, k, f, r["delta"][f],
                                                             r["new"][f], r["base"][f]))
    missing = (set(base) | set(new)) - seen
    for k in sorted(missing)[:10]:
        bad.append("%s %r missing from the comparison" % (what, k))
    return len(seen)


def main(argv):
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, base_path, new_path = argv
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print("check_compare: %s: no such executable, skipping" % tool)
        return 77
    sb = run([tool, "analyze", "--json", "-top", "0"] + extra + [base_path])
    sn = run([tool, "analyze", "--json", "-top", "0"] + extra + [new_path])
    c = run([tool, "analyze", "--json", "-top", "0"] + extra + ["--base", base_path, new_path])
    c = c["compare"]
    bad = []
    okey = lambda o: (o["name"], o["category"])
    ckey = lambda o: o["name"]
    nops = check_rows("op", c["ops"], {okey(o): o for o in sb["ops"]},
                      {okey(o): o for o in sn["ops"]}, okey, OP_FIGS, bad)
    ncats = check_rows("category", c["categories"], {ckey(o): o for o in sb["categories"]},
                       {ckey(o): o for o in sn["categories"]}, ckey, CAT_FIGS, bad)
    d = [abs(o["delta"]["self_ns"]) for o in c["ops"]]
    if d != sorted(d, reverse=True):
        bad.append("ops not sorted by |delta self_ns|")
    for side, single, path in (("base", sb, base_path), ("new", sn, new_path)):
        h = c[side]
        if h["file"] != path or h["events"] != single["events"] or h["busy_ns"] != single["busy_ns"]:
            bad.append("%s header %r disagrees with the single report" % (side, h))
    if bad:
        print("check_compare: %s -> %s: %d mismatches" % (base_path, new_path, len(bad)))
        for b in bad[:20]:
            print("  " + b)
        return 1
    print("ok: %s -> %s: %d ops, %d categories, every delta = new - base"
          % (os.path.basename(base_path), os.path.basename(new_path), nops, ncats))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
