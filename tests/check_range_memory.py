#!/usr/bin/env python3
"""Check analyze --range's memory figures against tests/oracle.py's own.

usage: check_range_memory.py TOOL TRACE SPEC...

For each --range SPEC: `TOOL analyze --json --top 0 --range SPEC TRACE`'s
"memory" object against oracle.py's memory_in_range (the [memory] records whose
ts lies in [START, END), computed on their own from the trace's JSON): per
device the records, allocations, frees, their bytes, the peak, allocations
matched to frees, live at the end, frees of earlier blocks; per operator the
self allocation count and bytes (but the operators the oracle cannot tell:
those holding a record whose innermost event started before the range).
Then the ranges given tile the trace when their records add up to the whole
trace's. Exit 0 if all match, 1 on a mismatch, 77 if TOOL does not exist.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

DEV_FIGS = ("records", "allocs", "frees", "alloc_bytes", "free_bytes", "peak_bytes",
            "matched_allocs", "lifetime_ns", "unmatched_frees", "unmatched_free_bytes",
            "live_allocs_at_end", "live_bytes_at_end")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, trace, specs = argv[0], argv[1], argv[2:]
    if not os.path.exists(tool):
        return 77
    bad, checked_ops = [], 0
    for spec in specs:
        out = subprocess.run([tool, "analyze", "--json", "--top", "0", "--range", spec, trace],
                             stdout=subprocess.PIPE, check=True).stdout
        got = json.loads(out)["memory"]
        want = oracle.memory_in_range(trace, spec)
        gdev = {d["device"]: d for d in got["devices"]}
        for name, w in want["devices"].items():
            g = gdev.get(name)
            if g is None:
                bad.append("%s %s: no device in analyze" % (spec, name))
                continue
            for f in DEV_FIGS:
                if g[f] != w[f]:
                    bad.append("%s %s %s: analyze %d, oracle %d" % (spec, name, f, g[f], w[f]))
        for name, g in gdev.items():
            if name not in want["devices"] and g["records"]:
                bad.append("%s %s: %d records, the oracle none" % (spec, name, g["records"]))
        unc = {tuple(u) for u in want["uncertain"]}
        gops = {}
        for o in got["ops"]:
            k = (o["name"], o["category"], o["device"])
            gops[k] = (o["self_alloc_count"], o["self_alloc_bytes"])
        for o in want["ops"]:
            k = (o["name"], o["category"], o["device"])
            if k in unc:
                continue
            w = (o["self_alloc_count"], o["self_alloc_bytes"])
            if gops.get(k, (0, 0)) != w:
                bad.append("%s %s: self allocs/bytes analyze %s, oracle %s"
                           % (spec, "/".join(k), gops.get(k), w))
            checked_ops += 1
        # an operator the oracle gave nothing certain must not get allocations
        wkeys = {(o["name"], o["category"], o["device"]) for o in want["ops"]}
        for k, (c, b) in gops.items():
            if k not in wkeys and k not in unc and c:
                bad.append("%s %s: analyze %d self allocs, the oracle none" % (spec, "/".join(k), c))
    for b in bad[:20]:
        print("MISMATCH: " + b)
    if bad:
        print("FAIL: memory under --range: %s: %d mismatches" % (os.path.basename(trace), len(bad)))
        return 1
    print("ok: memory under --range %s: %s: every device figure and %d operator rows "
          "equal the oracle's" % (" ".join(specs), os.path.basename(trace), checked_ops))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
