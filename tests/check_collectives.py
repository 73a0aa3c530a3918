#!/usr/bin/env python3
"""check_collectives.py TOOL SHARED: the job report's collectives against a
second computation from the trace JSON itself.

Jobs are made from a real NCCL trace ($SHARED/traces/nccl_relative_time, its
kernels carrying PyTorch's metadata) with $SHARED/tools/make-ranks.py (one
rank stretched in time: a straggler that every collective waits for). From
each rank's JSON, with the definitions of core/analyses/collectives.h and
none of the tool's figures:
  - a rank's calls: its NCCL kernels (ncclKernel_*, ncclDevKernel_*, "void "
    before or not), with the metadata of their own args, else of the CPU
    operator with the same External id; arrival = baseTimeNanoseconds + ts,
    end = arrival + dur (exact decimals, tests/oracle.py);
  - matched across ranks by (process group, Seq), else by (process group,
    position among that group's calls on the rank);
  - per call: last arrival, each rank's wait, transfer, max wait;
  - per rank: its waits summed, its calls;
  - per (collective, group), the "By collective" table: calls, bytes,
    mean time and mean wait per rank and call, the rank most often last.
Compared exactly with `TOOL analyze --json --top 0 DIR` (collectives,
collective_wait) and with the text report's "By collective" rows, printed
with the text's rounding (ms to the microsecond, half away from zero).
Exit 0 when all hold, 1 otherwise. Stdlib only, Python >= 3.9."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

NCCL = re.compile(r"^(?:void )?nccl(?:Dev)?Kernel_?([^_(<]*)")
# the dtype sizes PyTorch names in "dtype" (c10's ScalarType names)
DTYPE = {"Float": 4, "Int": 4, "Double": 8, "Long": 8, "Half": 2, "BFloat16": 2,
         "Short": 2, "Byte": 1, "Char": 1, "Bool": 1}
META = ("Collective name", "Process Group Name", "Process Group ID", "In msg nelems",
        "Out msg nelems", "Seq", "seq")

failures = []


def need(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def nonneg(v):
    """An integer argument as the trace writes it (number or string), None when not one."""
    try:
        x = oracle.to_decimal(v)
    except (ValueError, ArithmeticError):
        return None
    return int(x) if x >= 0 and x == int(x) else None


def meta_of(args):
    """(name, group, seq, bytes) from an event's args; None where they say nothing."""
    name = args.get("Collective name")
    pg = args.get("Process Group Name", args.get("Process Group ID"))
    seq = nonneg(args.get("Seq", args.get("seq")))
    n = nonneg(args.get("In msg nelems"))
    size = DTYPE.get(args.get("dtype"))
    return (name if isinstance(name, str) else None,
            str(pg) if pg is not None else None,
            seq, n * size if n is not None and size else None)


def calls_of(path):
    """A rank's calls in arrival order: dicts of name, pg, seq, bytes, arrival, end."""
    events, base = oracle.load_events(path)
    base = base or 0
    by_ext = {}
    kernels = []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        args = e.get("args") or {}
        gpu = str(e.get("cat", "")).lower() in oracle.GPU_CATS
        if not gpu and any(k in args for k in META) and args.get("External id") is not None:
            by_ext[args["External id"]] = args
        m = NCCL.match(str(e.get("name", "")))
        if m:
            kernels.append((e, m.group(1)))
    out = []
    for e, coll in kernels:
        args = e.get("args") or {}
        own = any(k in args for k in META)
        meta = meta_of(args if own else by_ext.get(args.get("External id"), {}))
        start = base + oracle.us_to_ns(e["ts"])
        out.append({"name": meta[0] or coll or "nccl", "pg": meta[1] or "",
                    "seq": meta[2], "bytes": meta[3], "arrival": start,
                    "end": start + oracle.us_to_ns(e["dur"])})
    out.sort(key=lambda c: (c["arrival"], c["end"]))
    return out


def match(ranks):
    """ranks: [(rank, calls)] in rank order. The matched calls by first arrival
    (then group, position), and per rank (wait, calls)."""
    matches, key_of = [], {}
    for r, calls in ranks:
        pos = {}
        for c in calls:
            index = pos.get(c["pg"], 0)
            pos[c["pg"]] = index + 1
            key = (c["pg"], "seq", c["seq"]) if c["seq"] is not None else (c["pg"], "pos", index)
            if key not in key_of:
                key_of[key] = len(matches)
                matches.append({"name": c["name"], "pg": c["pg"], "seq": c["seq"],
                                "index": index, "bytes": c["bytes"], "entries": []})
            m = matches[key_of[key]]
            if any(x["rank"] == r for x in m["entries"]):
                continue  # one rank gives one (group, Seq) once: the second is dropped
            m["entries"].append({"rank": r, "name": c["name"], "bytes": c["bytes"],
                                 "arrival": c["arrival"], "end": c["end"]})
    per_rank = {r: [0, 0] for r, _ in ranks}
    for m in matches:
        es = m["entries"]
        last = max(x["arrival"] for x in es)
        m["last_rank"] = min(x["rank"] for x in es if x["arrival"] == last)
        m["last_arrival"] = last
        m["first_arrival"] = min(x["arrival"] for x in es)
        m["transfer"] = max(0, max(x["end"] for x in es) - last)
        m["mixed"] = any(x["name"] != m["name"] or x["bytes"] != m["bytes"] for x in es)
        for x in es:
            x["wait"] = last - x["arrival"]
            per_rank[x["rank"]][0] += x["wait"]
            per_rank[x["rank"]][1] += 1
        m["max_wait"] = max(x["wait"] for x in es)
    matches.sort(key=lambda m: (m["first_arrival"], m["pg"], m["index"]))
    return matches, per_rank


def as_json(m):
    """A matched call as analyze --json writes it."""
    return {"name": m["name"], "process_group": m["pg"], "seq": m["seq"], "index": m["index"],
            "bytes": m["bytes"], "mixed": m["mixed"], "last_rank": m["last_rank"],
            "last_arrival_ns": m["last_arrival"], "transfer_ns": m["transfer"],
            "max_wait_ns": m["max_wait"],
            "ranks": [{"rank": x["rank"], "arrival_ns": x["arrival"], "wait_ns": x["wait"],
                       "duration_ns": x["end"] - x["arrival"]} for x in m["entries"]]}


def kinds(matches, ranks):
    """The "By collective" rows, as text cells, in first-call order."""
    rows, at = [], {}
    for m in matches:
        k = (m["pg"], m["name"])
        if k not in at:
            at[k] = len(rows)
            rows.append({"name": m["name"], "pg": m["pg"], "calls": 0, "bytes": None,
                         "time": 0, "wait": 0, "entries": 0, "last": {}})
        x = rows[at[k]]
        x["calls"] += 1
        if m["bytes"] is not None:
            x["bytes"] = (x["bytes"] or 0) + m["bytes"]
        for e in m["entries"]:
            x["time"] += e["end"] - e["arrival"]
            x["wait"] += e["wait"]
            x["entries"] += 1
        x["last"][m["last_rank"]] = x["last"].get(m["last_rank"], 0) + 1
    out = []
    for x in rows:
        most = max(x["last"].values())
        lr = min(r for r, _ in ranks if x["last"].get(r) == most)
        n = x["entries"]
        out.append([x["name"], x["pg"], "{:,}".format(x["calls"]),
                    "-" if x["bytes"] is None else "{:,}".format(x["bytes"]),
                    oracle.ms(x["time"] // n if n else 0), oracle.ms(x["wait"] // n if n else 0),
                    "%d (%d of %d)" % (lr, most, x["calls"])])
    return out


def text_kinds(text):
    """The rows of the text's "By collective" table, split into cells."""
    lines = text.splitlines()
    try:
        i = next(k for k, l in enumerate(lines) if l.startswith("By collective"))
    except StopIteration:
        return None
    rows = []
    for l in lines[i + 2:]:
        if not l.strip():
            break
        c = l.split()
        rows.append(c[:6] + [" ".join(c[6:])])
    return rows


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=300)
    need(p.returncode == 0, "%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def check_job(tool, shared, src, work, n, slow, factor):
    label = "%s x%d, rank %d x%s" % (os.path.basename(src).split(".")[0], n, slow, factor)
    job = os.path.join(work, "job-%d-%d" % (n, slow))
    subprocess.run([sys.executable, os.path.join(shared, "tools", "make-ranks.py"), src, job,
                    str(n), str(slow), factor], check=True, timeout=300)
    os.unlink(os.path.join(job, "expect.json"))  # not a trace
    ranks = [(r, calls_of(os.path.join(job, "rank-%d.json.gz" % r))) for r in range(n)]
    matches, per_rank = match(ranks)
    need(len(matches) > 0, "%s: no collective in the trace JSON: a check of nothing" % label)
    need(any(m["max_wait"] > 0 for m in matches), "%s: no wait: a straggler that is none" % label)
    out = run([tool, "analyze", "--json", "--top", "0", job])
    if not out:
        return
    d = json.loads(out)
    got, want = d.get("collectives", []), [as_json(m) for m in matches]
    need(len(got) == len(want), "%s: %d calls, the JSON's kernels give %d" % (label, len(got),
                                                                             len(want)))
    diff = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    for i in diff[:3]:
        keys = sorted(k for k in set(got[i]) | set(want[i]) if got[i].get(k) != want[i].get(k))
        need(False, "%s: call %d differs in %s: tool %s, JSON %s"
             % (label, i, keys, [got[i].get(k) for k in keys], [want[i].get(k) for k in keys]))
    cw = {x["rank"]: (x["wait_ns"], x["collectives"]) for x in d.get("collective_wait", [])}
    need(cw == {r: tuple(v) for r, v in per_rank.items()},
         "%s: collective_wait %s, from the JSON %s" % (label, cw, per_rank))
    text = run([tool, "analyze", "--top", "0", job])
    rows, wrows = text_kinds(text), kinds(matches, ranks)
    need(rows == wrows, "%s: By collective:\n  tool %s\n  JSON %s" % (label, rows, wrows))
    if not failures:
        print("ok: %s: %d calls, %d kinds, %d waits equal to the trace JSON's"
              % (label, len(want), len(wrows), sum(len(m["entries"]) for m in matches)))


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 1
    tool, shared = argv[1], argv[2]
    src = os.path.join(shared, "traces", "nccl_relative_time.json.gz")
    if not os.path.exists(src):
        print("cannot run: %s missing" % src)
        return 1
    work = tempfile.mkdtemp(prefix="t2p-collcheck-")
    try:
        check_job(tool, shared, src, work, 3, 1, "1.1")
        check_job(tool, shared, src, work, 4, 2, "1.3")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
