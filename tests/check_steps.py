#!/usr/bin/env python3
"""Check the Steps figures against TensorBoard's own plugin (recorded fixtures).

usage: check_steps.py TOOL FIXTURE TRACE

FIXTURE is tests/fixtures/tb_steps/NAME.json, written by tests/record_tb_steps.py from
the plugin's RunProfileData on TRACE (pandas is needed to record, never to check).
Runs `TOOL analyze --json TRACE` and compares its "steps" and "steps_average":

  * the kept steps, in order, are the plugin's steps (same names, same windows);
  * "ns" (the plugin run on exact integer-ns times): every step's window and eight
    roles, the overlap's four figures, equal to the nanosecond; the average within
    1 ns per figure (the plugin divides in floating point, we in integers);
  * "us" (the plugin as TensorBoard ran it, doubles in microseconds): every figure
    within 1 us, or within the plugin's own rounding error where it is larger: the
    difference between its "us" and "ns" runs of the same figure, plus 1 us. Reports
    the largest difference it saw.
  * the recommendations the plugin made for the data loader and communication are
    ours too (same ids), and we make none of those it did not make.

Exit 0 if all match, 1 on a mismatch, 77 (skip) when TOOL does not exist.
"""
import json
import os
import subprocess
import sys

ROLES = ["kernel", "memcpy", "memset", "communication", "runtime", "dataloader",
         "cpu_op", "other"]


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, fixture, trace = argv
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print("check_steps: %s: no such executable, cannot run" % tool)
        return 1
    ref = json.load(open(fixture))
    p = subprocess.run([tool, "analyze", "--json", "--top", "0", trace],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        print("check_steps: %s: exit %d: %s" % (trace, p.returncode, p.stderr.decode()))
        return 1
    out = json.loads(p.stdout)
    name = os.path.basename(trace)
    bad = []

    def need(cond, what):
        if not cond:
            bad.append(what)

    ns, us = ref["ns"], ref["us"]
    base = out["base_ns"]
    kept = [s for s in out["steps"] if s["kept"]]
    if not out["steps"]:
        # no ProfilerStep#: the plugin made one step "0" of the CPU events
        need(ns["steps"] and ns["steps"][0]["name"] == "0", "no steps, but the plugin found some")
    else:
        need([s["step"] for s in kept] == [s["name"] for s in ns["steps"]],
             "kept steps %s, plugin %s" % ([s["step"] for s in kept],
                                           [s["name"] for s in ns["steps"]]))
    worst = 0.0
    for i, (ours, w) in enumerate(zip(kept, ns["steps"])):
        # the plugin's times are the file's (no baseTimeNanoseconds); ours add it
        # back only in window_start_ns-relative form: compare durations and offsets
        need(ours["end_ns"] - ours["start_ns"] == w["end"] - w["start"],
             "step %s duration %d, plugin %d" % (w["name"], ours["end_ns"] - ours["start_ns"],
                                                 w["end"] - w["start"]))
        if i:
            prev = ns["steps"][i - 1]
            need(ours["start_ns"] - kept[i - 1]["start_ns"] == w["start"] - prev["start"],
                 "step %s start offset" % w["name"])
        c = ns["steps_costs"][i]
        cu = us["steps_costs"][i]
        for r in ROLES:
            need(ours[r + "_ns"] == c[r], "step %s %s: %d, plugin %d"
                 % (w["name"], r, ours[r + "_ns"], c[r]))
            d = abs(ours[r + "_ns"] / 1000.0 - cu[r])
            worst = max(worst, d)
            need(d <= 1.0 + abs(cu[r] - c[r] / 1000.0),
                 "step %s %s: %.3f us, TensorBoard %.3f us" % (w["name"], r,
                                                              ours[r + "_ns"] / 1000.0, cu[r]))
        need(ours["duration_ns"] == c["total"], "step %s total" % w["name"])
        o, wo = ours["overlap"], ns["comm_overlap"][i]
        for k in ("computation", "communication", "overlap", "other"):
            need(o[k + "_ns"] == wo[k], "step %s overlap %s: %d, plugin %d"
                 % (w["name"], k, o[k + "_ns"], wo[k]))
    avg = out["steps_average"]
    if kept and avg is not None:
        for r in ROLES:
            need(abs(avg[r + "_ns"] - ns["avg_costs"][r]) < 1.0, "average %s: %d, plugin %.3f"
                 % (r, avg[r + "_ns"], ns["avg_costs"][r]))
        need(abs(avg["duration_ns"] - ns["avg_costs"]["total"]) < 1.0, "average duration")
    ids = {r["id"] for r in out["recommendations"]}
    texts = " ".join(us["recommendations"])
    for rid, marker in (("dataloader", "input data loading"), ("communication", "communication")):
        need((rid in ids) == (marker in texts),
             "recommendation %s: ours %s, plugin %s" % (rid, rid in ids, marker in texts))
    need(("memory" in ids) == ("Device memory usage" in texts), "recommendation memory")
    need(("dataparallel" in ids) == ("DistributedDataParallel instead" in texts),
         "recommendation dataparallel")
    if bad:
        for b in bad[:20]:
            print("check_steps: %s: %s" % (name, b))
        return 1
    print("ok: steps of %s: %d kept steps equal TensorBoard's (exact on ns times; "
          "largest difference from its microseconds %.3f us)" % (name, len(kept), worst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
