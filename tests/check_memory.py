#!/usr/bin/env python3
"""Check analyze's memory figures against TensorBoard's (tests/fixtures/*.tb_memory.json).

usage: check_memory.py TOOL TRACE REFERENCE

Runs `TOOL analyze --json -top 0 --keep-steps TRACE` and compares its "memory"
object with the figures TensorBoard's PyTorch profiler plugin computed on the same
trace (tests/reference/tb_memory.py wrote them):
  - every (device, operator) row of TensorBoard's memory view: alloc_count,
    alloc_bytes, increase_bytes and their self_ twins equal ours (summed over the
    categories an operator name has). Skipped only for the names TensorBoard's
    tree got wrong on its own terms: an operator it dropped from its tree because
    it ends after its parent ("tb_dropped"; 1 us rounding in legacy traces) and
    the events that hold its start, where its memory went instead. Each skip is
    printed.
  - rows we have and TensorBoard lacks are the events its memory view does not
    count as operators: ProfilerStep#N, Optimizer.*, enumerate(DataLoader)*,
    DataParallel.forward, user annotations (the plugin drops their records), or
    rows whose figures are all zero;
  - peaks: TensorBoard's largest Total Allocated per device = our peak_bytes;
  - allocations matched to frees by address: TensorBoard's memory events table
    gives the number matched, their summed lifetime, the allocations still live
    at the end and their bytes, the frees of earlier blocks; ours equal them.
Exit 0 if all match, 1 on a mismatch, 77 if TOOL does not exist.
"""
import gzip
import json
import os
import subprocess
import sys

FIGS = ("alloc_count", "alloc_bytes", "increase_bytes",
        "self_alloc_count", "self_alloc_bytes", "self_increase_bytes")
NOT_OPS = ("ProfilerStep#", "Optimizer.", "enumerate(DataLoader)", "enumerate(DataPipe)",
           "DataParallel.forward", "DistributedDataParallel.forward")


def dropped_names(trace, dropped):
    """The operator names whose figures TensorBoard's dropped events change: the
    dropped one and every event on its thread that holds its start (where its
    memory went in TensorBoard's tree, up to where the dropped event ends)."""
    if not dropped:
        return set()
    with gzip.open(trace) as f:
        doc = json.load(f)
    evs = [e for e in (doc["traceEvents"] if isinstance(doc, dict) else doc)
           if e.get("ph") == "X"]
    names = set()
    for d in dropped:
        for e in evs:
            if e["name"] == d["name"] and e["ts"] == d["start_us"] and \
                    e["ts"] + e["dur"] == d["end_us"]:
                names.add(e["name"])
                names.update(x["name"] for x in evs if x["tid"] == e["tid"] and
                             x["ts"] <= e["ts"] < x["ts"] + x["dur"])
    return names


def main():
    tool, trace, ref_path = sys.argv[1:4]
    if not os.path.exists(tool):
        sys.exit(77)
    p = subprocess.run([tool, "analyze", "--json", "-top", "0", "--keep-steps", trace],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        sys.exit("check_memory: analyze exited %d: %s" % (p.returncode, p.stderr.decode()))
    mem = json.loads(p.stdout)["memory"]
    ref = json.load(open(ref_path))
    name = os.path.basename(trace)
    bad = []

    ours = {}
    cats = {}
    for o in mem["ops"]:
        k = (o["device"], o["name"])
        row = ours.setdefault(k, dict.fromkeys(FIGS, 0))
        for f in FIGS:
            row[f] += o[f]
        cats.setdefault(k, set()).add(o["category"])

    skip = dropped_names(trace, ref["tb_dropped"])
    checked = skipped = 0
    for r in ref["ops"]:
        k = (r["device"], r["name"])
        if r["name"] in skip:
            skipped += 1
            continue
        mine = ours.get(k, dict.fromkeys(FIGS, 0))
        for f in FIGS:
            if mine[f] != r[f]:
                bad.append("%s %s %s: ours %d, TensorBoard %d" % (k[0], k[1], f, mine[f], r[f]))
        checked += 1
    tb_keys = {(r["device"], r["name"]) for r in ref["ops"]}
    extra = 0
    for k, row in ours.items():
        if k in tb_keys or k[1] in skip:
            continue
        if not any(row.values()):
            continue
        if k[1].startswith(NOT_OPS) or cats[k] == {"user_annotation"}:
            extra += 1
            continue
        bad.append("%s %s: a row TensorBoard does not have: %s" % (k[0], k[1], row))

    devs = {d["device"]: d for d in mem["devices"]}
    for dev, peak in ref["peaks"].items():
        if dev not in devs or devs[dev]["peak_bytes"] != peak:
            bad.append("%s peak: ours %s, TensorBoard %d" % (
                dev, devs.get(dev, {}).get("peak_bytes"), peak))
    for dev, rows in ref["events"].items():
        matched = [r for r in rows if r[2] is not None and r[3] is not None]
        live = [r for r in rows if r[3] is None]
        early = [r for r in rows if r[2] is None]
        want = {"matched_allocs": len(matched),
                "lifetime_ns": int(round(sum(r[4] for r in matched) * 1000)),
                "live_allocs_at_end": len(live),
                "live_bytes_at_end": int(sum(r[1] for r in live)),
                "unmatched_frees": len(early),
                "unmatched_free_bytes": int(sum(r[1] for r in early))}
        for f, v in want.items():
            if devs.get(dev, {}).get(f) != v:
                bad.append("%s %s: ours %s, TensorBoard %d" % (dev, f, devs.get(dev, {}).get(f), v))

    for b in bad[:40]:
        print("FAIL %s: %s" % (name, b))
    if bad:
        sys.exit(1)
    print("ok: %s: %d TensorBoard memory rows equal (%d skipped: %s), %d rows of events it "
          "does not count as operators, peaks %s, alloc/free pairs of %d devices" % (
              name, checked, skipped, ", ".join(sorted(skip)) or "none", extra,
              ref["peaks"] or "none (no Total Allocated)", len(ref["events"])))


if __name__ == "__main__":
    main()
