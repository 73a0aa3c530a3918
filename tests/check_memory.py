#!/usr/bin/env python3
"""Check analyze's memory figures against TensorBoard's (tests/fixtures/*.tb_memory.json).

usage: check_memory.py TOOL TRACE REFERENCE

Runs `TOOL analyze --json --top 0 --keep-steps TRACE` and compares its "memory"
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
Then, when go is installed, `TOOL convert TRACE` and go tool pprof read the
heap sample types back: the totals of alloc_objects, alloc_space, inuse_objects and
inuse_space equal analyze's allocs, allocated bytes, live allocations and live bytes
summed over the devices (inuse: 0 without addresses), with -tagfocus device=D per
device; every function's flat and cum alloc_space equal analyze's self and
with-children allocation bytes of that operator name.
Exit 0 if all match, 1 on a mismatch, 77 if TOOL does not exist.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

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


def pprof_top(path, index, focus=None):
    """(total, {function: (flat, cum)}) of go tool pprof -top in plain units."""
    cmd = ["go", "tool", "pprof", "-sample_index=" + index, "-unit=B", "-top",
           "-nodecount=1000000",
           "-nodefraction=0", "-edgefraction=0"]
    if focus:
        cmd.append("-tagfocus=" + focus)
    out = subprocess.run(cmd + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         check=True).stdout.decode()
    total = int(re.search(r"Total samples = (-?\d+)B?", out).group(1))
    rows = {}
    for line in out.splitlines():
        m = re.match(r"\s*(-?\d+)B?\s+\S+%\s+\S+%\s+(-?\d+)B?\s+\S+%\s+(.*)$", line)
        if m:
            rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return total, rows


def check_pprof(tool, trace, mem, bad):
    if not shutil.which("go"):
        bad.append("go missing: heap profile cannot be read back (./setup.sh --test installs it)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "heap.pb.gz")
        p = subprocess.run([tool, "convert", "--keep-steps", trace, out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode:
            bad.append("convert exited %d: %s" % (p.returncode, p.stderr.decode()))
            return
        devs = mem["devices"]
        want = {"alloc_objects": sum(d["allocs"] for d in devs),
                "alloc_space": sum(d["alloc_bytes"] for d in devs),
                "inuse_objects": sum(d["live_allocs_at_end"] for d in devs
                                     if d["matched_allocs"] or d["live_allocs_at_end"]),
                "inuse_space": sum(d["live_bytes_at_end"] for d in devs
                                   if d["matched_allocs"] or d["live_allocs_at_end"])}
        tags = subprocess.run(["go", "tool", "pprof", "-sample_index=alloc_objects", "-tags",
                               out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              check=True).stdout.decode()
        per_dev = {m.group(2): int(float(m.group(1))) for m in
                   re.finditer(r"^\s+(\d+(?:\.\d+)?) \(\s*[\d.]+%\): (\S+)$", tags, re.M)}
        for d in devs:
            if per_dev.get(d["device"]) != d["allocs"]:
                bad.append("pprof alloc_objects device=%s: %s, analyze %d" % (
                    d["device"], per_dev.get(d["device"]), d["allocs"]))
        for index, v in want.items():
            if v is None:
                continue
            total, _ = pprof_top(out, index)
            if total != v:
                bad.append("pprof %s total %d, analyze %d" % (index, total, v))
        _, rows = pprof_top(out, "alloc_space")
        by_name = {}
        for o in mem["ops"]:
            f = by_name.setdefault(o["name"], [0, 0])
            f[0] += o["self_alloc_bytes"]
            f[1] += o["alloc_bytes"]
        n = 0
        for name, (flat, cum) in by_name.items():
            got = rows.get(name, (0, 0))
            if cum and got != (flat, cum):
                bad.append("pprof %s flat/cum alloc_space %s, analyze %s" % (name, got, (flat, cum)))
            n += 1
        print("pprof: heap sample types read back; %d operator names compared" % n)


def main():
    tool, trace, ref_path = sys.argv[1:4]
    if not os.path.exists(tool):
        sys.exit("check_memory: %s: no such executable" % tool)
    p = subprocess.run([tool, "analyze", "--json", "--top", "0", "--keep-steps", trace],
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

    check_pprof(tool, trace, mem, bad)
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
