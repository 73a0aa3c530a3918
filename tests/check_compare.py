#!/usr/bin/env python3
"""Check `analyze --base` against the two single-trace reports.

usage: check_compare.py TOOL BASE NEW [--per-step] [--steps N M] [-- EXTRA ARGS for both sides]

Runs `TOOL analyze --json --top 0 BASE`, the same on NEW, and
`TOOL analyze --json --top 0 --base BASE NEW`, and checks that the "compare"
object holds, for every operator of either trace (keyed by name and category)
and every category:
  - status both / added / removed as the key is in both, only NEW, only BASE;
  - base and new figures equal to that trace's own report (count, self_ns,
    total_ns, device_self_ns, device_total_ns; categories: count, self_ns,
    total_ns), zero on the side where it is absent;
  - delta = new - base for every figure;
  - no row twice and no row of neither trace;
  - ops sorted by |delta self_ns| descending;
  - base/new headers: file, events and busy_ns as in the single reports, and
    steps = the single report's steps_average.steps (null without steps);
  - steps_average: base and new equal to each single report's steps_average
    (null without steps), delta = new - base field by field (null unless both).
With --steps N M, step N of BASE is compared with step M of NEW
(`--base-step N --step M`, without --base when BASE is NEW): the single
reports are `analyze --step N BASE` and `analyze --step M NEW` (rows with
nothing counted in a step are absent from it), the headers carry steps 1 and
the step, and each side's steps_average is that step's own row of the
unscoped report (its steps list).
With --per-step, `--per-step` is passed to the comparison and every figure of
a side must be the single report's divided by that trace's kept steps
(steps_average.steps, 1 without steps): times rounded half away from zero to
the nanosecond, counts to the 1e-6 they are printed with.
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


def div(x, n, f):
    if n == 1:
        return x
    if f == "count":
        return x / n
    q = (abs(x) + n // 2) // n
    return q if x >= 0 else -q


def same(a, b, f):
    return abs(a - b) <= 2e-6 * max(1, abs(b)) if f == "count" else a == b  # printed to 1e-6


def check_rows(what, rows, base, new, key, figs, bad, divs=(1, 1)):
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
        for (side, single), n in zip((("base", base), ("new", new)), divs):
            for f in figs:
                exp = div(single[k][f], n, f) if k in single else 0
                if not same(r[side][f], exp, f):
                    bad.append("%s %r: %s.%s %r, single report %r" % (what, k, side, f, r[side][f], exp))
        for f in figs:
            if not same(r["delta"][f], r["new"][f] - r["base"][f], f):
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
    per_step = "--per-step" in argv
    argv = [a for a in argv if a != "--per-step"]
    steps = None
    if "--steps" in argv:
        i = argv.index("--steps")
        steps = argv[i + 1:i + 3]
        argv = argv[:i] + argv[i + 3:]
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, base_path, new_path = argv
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print("check_compare: %s: no such executable, cannot run" % tool)
        return 1
    a = [tool, "analyze", "--json", "--top", "0"] + extra
    if steps:
        sb = run(a + ["--step", steps[0], base_path])
        sn = run(a + ["--step", steps[1], new_path])
        whole = [run(a + [p]) for p in (base_path, new_path)]
        c = run(a + (["--per-step"] if per_step else []) + ["--base-step", steps[0], "--step", steps[1]]
                + (["--base", base_path] if base_path != new_path else []) + [new_path])
        for r in (sb, sn):
            nothing = lambda o: not any(o.get(f) for f in OP_FIGS)
            r["ops"] = [o for o in r["ops"] if not nothing(o)]
            r["categories"] = [o for o in r["categories"] if not nothing(o)]
        # a scoped side's step figures: that step's row of the whole report
        # (a range N-M: the rows' average, integer division as for kept steps)
        for r, w, n in ((sb, whole[0], steps[0]), (sn, whole[1], steps[1])):
            lo, _, hi = n.partition("-")
            labels = [x["step"] for x in w["steps"]]
            rows = w["steps"][labels.index(lo):labels.index(hi or lo) + 1]
            keys = [k for k in rows[0] if k.endswith("_ns") and k not in ("start_ns", "end_ns", "cpu_ns")]
            r["steps_average"] = dict({"steps": len(rows)},
                                      **{k: sum(x[k] for x in rows) // len(rows) for k in keys})
    else:
        sb = run(a + [base_path])
        sn = run(a + [new_path])
        c = run(a + (["--per-step"] if per_step else []) + ["--base", base_path, new_path])
    c = c["compare"]
    bad = []
    nsteps = lambda r: r["steps_average"]["steps"] if r.get("steps_average") else None
    divs = tuple((nsteps(r) or 1) if per_step else 1 for r in (sb, sn))
    okey = lambda o: (o["name"], o["category"])
    ckey = lambda o: o["name"]
    nops = check_rows("op", c["ops"], {okey(o): o for o in sb["ops"]},
                      {okey(o): o for o in sn["ops"]}, okey, OP_FIGS, bad, divs)
    ncats = check_rows("category", c["categories"], {ckey(o): o for o in sb["categories"]},
                       {ckey(o): o for o in sn["categories"]}, ckey, CAT_FIGS, bad, divs)
    d = [abs(o["delta"]["self_ns"]) for o in c["ops"]]
    if d != sorted(d, reverse=True):
        bad.append("ops not sorted by |delta self_ns|")
    for (side, single, path), n in zip((("base", sb, base_path), ("new", sn, new_path)), divs):
        h = c[side]
        if h["file"] != path or h["events"] != single["events"] or \
                h["busy_ns"] != div(single["busy_ns"], n, "busy_ns") or h["steps"] != nsteps(single) or \
                h["step"] != (steps[0 if side == "base" else 1] if steps else None):
            bad.append("%s header %r disagrees with the single report" % (side, h))
    sa = c["steps_average"]
    if sb.get("steps_average") is None and sn.get("steps_average") is None:
        if sa is not None:
            bad.append("steps_average %r, but neither trace has steps" % sa)
    else:
        if sa["base"] != sb.get("steps_average") or sa["new"] != sn.get("steps_average"):
            bad.append("steps_average base/new %r / %r differ from the single reports %r / %r"
                       % (sa["base"], sa["new"], sb.get("steps_average"), sn.get("steps_average")))
        if sa["base"] and sa["new"]:
            want = {f: sa["new"][f] - sa["base"][f] for f in sa["new"]}
            if sa["delta"] != want:
                bad.append("steps_average delta %r, want %r" % (sa["delta"], want))
        elif sa["delta"] is not None:
            bad.append("steps_average delta %r with one side without steps" % sa["delta"])
    if bad:
        print("check_compare: %s -> %s: %d mismatches" % (base_path, new_path, len(bad)))
        for b in bad[:20]:
            print("  " + b)
        return 1
    print("ok: %s -> %s%s: %d ops, %d categories, every delta = new - base%s"
          % (os.path.basename(base_path), os.path.basename(new_path),
             (" per step (/%d, /%d)" % divs if per_step else "") +
             (", step %s vs step %s" % tuple(steps) if steps else ""), nops, ncats,
             ", steps averages" if sa else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
