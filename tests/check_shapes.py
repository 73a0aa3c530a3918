#!/usr/bin/env python3
"""analyze --json's "ops_by_shape" and "modules" against TensorBoard's plugin.

Usage: check_shapes.py TOOL EXPECTED.json TRACE

EXPECTED is a fixture of tests/fixtures/tb/ (recorded by record_shapes.py: the
plugin run on TRACE with exact integer-ns times). Per row (name, input_shape):
calls and tc_eligible exact, times within 1 us, percentages within 0.01 points,
the same set of rows and the input_shape strings identical. Modules: the same
hierarchy, children in the plugin's order (the order its walk up from the Python
leaves first reaches them), the roots by name as the plugin sorts them (roots of
one name in any order: the plugin's come out of a set), each module's figures as
above, avg within 0.5 %. Prints one line, exits 1 on a difference.
"""
import json
import subprocess
import sys

TIMES = ("total_ns", "self_ns", "device_total_ns", "device_self_ns")
MTIMES = ("host_total_ns", "host_self_ns", "device_total_ns", "device_self_ns")


def canon(mods, top=True):
    rows = [(m["name"], m["id"], m["occurrences"], m["operators"])
            + tuple(m[k] for k in MTIMES) + (m["avg_ns"], canon(m["children"], False))
            for m in mods or []]
    # children in order; the roots sorted by name, ties in any order
    return sorted(rows, key=lambda t: (t[0], t[1], repr(t))) if top else rows


def roots_by_name(mods):
    names = [m["name"] for m in mods or []]
    return names == sorted(names)


def same_mod(a, b):
    if a[:4] != b[:4] or any(abs(x - y) > 1000 for x, y in zip(a[4:8], b[4:8])):
        return False
    if abs(a[8] - b[8]) > 0.005 * max(abs(b[8]), 1):
        return False
    return len(a[9]) == len(b[9]) and all(same_mod(x, y) for x, y in zip(a[9], b[9]))


def main():
    tool, exp_path, trace = sys.argv[1:4]
    exp = json.load(open(exp_path))
    out = subprocess.run([tool, "analyze", "--json", "--top", "0", trace],
                         stdout=subprocess.PIPE, check=True).stdout
    got = json.loads(out)
    name = exp["trace"]
    bad = []
    want = {(r["name"], r["input_shape"]): r for r in exp["ops_by_shape"]}
    have = {(r["name"], r["input_shape"]): r for r in got["ops_by_shape"]}
    if len(have) != len(got["ops_by_shape"]):
        bad.append("duplicate rows")
    for k in sorted(set(want) ^ set(have)):
        bad.append("row %r only in %s" % (k, "plugin" if k in want else "ours"))
    maxd = 0
    for k in set(want) & set(have):
        w, h = want[k], have[k]
        if w["calls"] != h["calls"] or w["tc_eligible"] != h["tc_eligible"]:
            bad.append("%r: calls/tc_eligible %s/%s, plugin %s/%s" % (
                k, h["calls"], h["tc_eligible"], w["calls"], w["tc_eligible"]))
        for t in TIMES:
            d = abs(w[t] - h[t])
            maxd = max(maxd, d)
            if d > 1000:
                bad.append("%r: %s %d, plugin %d" % (k, t, h[t], w[t]))
        for t in ("tc_self_pct", "tc_total_pct"):
            if abs(w[t] - h[t]) > 0.01:
                bad.append("%r: %s %.4f, plugin %.4f" % (k, t, h[t], w[t]))
    cw, ch = canon(exp["modules"]), canon(got["modules"])
    if (len(cw) != len(ch) or not all(same_mod(x, y) for x, y in zip(ch, cw))
            or not roots_by_name(got["modules"])):
        bad.append("modules differ: ours %s, plugin %s" % (json.dumps(got["modules"])[:400],
                                                           json.dumps(exp["modules"])[:400]))
    for b in bad[:10]:
        print("  " + b)
    print("%s: %s: %d rows by input shape, %d root modules, max |diff| %d ns" % (
        "FAIL" if bad else "ok", name, len(want), len(cw), maxd))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
