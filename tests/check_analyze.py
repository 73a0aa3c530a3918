#!/usr/bin/env python3
"""Check torch2pprof's figures against the independent oracle (and PyTorch's own table).

usage: check_analyze.py [--step N|N-M | --range START:END] TOOL TRACE [EXPECTED.json]

Runs `TOOL analyze --json --top 0 TRACE` and compares
  (a) with tests/oracle.py on TRACE: every op, keyed by (name, category): count,
      self_ns, total_ns, min_ns, max_ns, cum_ns, device_self_ns, device_total_ns; and busy_ns,
      window_ns, tracks, gpu_events, gpu_ns, gpu_unattributed_events,
      gpu_unattributed_ns; and the streams, keyed by (pid, tid): gpu_events, busy_ns,
      max_gap_ns;
  (b) if EXPECTED (a key_averages file from tests/record_fixtures.py) is given: the
      tool's ops grouped by name (summed over categories); for every name in EXPECTED,
      count and total_ns equal; self_ns equal unless that name legitimately differs:
      the oracle marks it "overlap" (some call has direct children overlapping each
      other: PyTorch subtracts their plain sum, we subtract their union), or EXPECTED
      marks it async_calls / async_parent_calls (PyTorch gives async events self 0 and
      leaves them out of its tree; the trace cannot show which events were async).
With --step, both sides are scoped to those steps: `TOOL analyze --step SPEC` against
the oracle's own scoping (oracle.step_kept), all the figures of (a).
With --range, the same against the oracle's own range rule (oracle.range_kept: an
event by its start, GPU work by its launch's), its own parse of START:END and its
own trace start; and the range the tool reports (range_start_ns, range_end_ns).
If the oracle says TRACE is not a timing trace, the tool must refuse it (exit != 0).

Exit 0 if all match, 1 on any mismatch, 77 (automake SKIP) if TOOL does not exist.
Stdlib only, Python >= 3.9.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

MAX_SHOWN = 20


def tool_windows(tool, trace):
    """The tool's step windows in absolute ns (for GPU events without a launch)."""
    p = subprocess.run([tool, "analyze", "--steps", "--json", trace], stdout=subprocess.PIPE)
    d = json.loads(p.stdout)
    return [(d["base_ns"] + st["start_ns"], d["base_ns"] + st["end_ns"]) for st in d["steps"]]


def main(argv):
    step = rng = None
    if len(argv) > 2 and argv[0] == "--step":
        step, argv = argv[1], argv[2:]
    elif len(argv) > 2 and argv[0] == "--range":
        rng, argv = argv[1], argv[2:]
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    tool, trace = argv[0], argv[1]
    expected_path = argv[2] if len(argv) == 3 else None
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print("check_analyze: %s: no such executable, cannot run" % tool)
        return 1

    try:
        scope = (step, tool_windows(tool, trace)) if step else {"range": rng} if rng else None
        fig = oracle.analyze(trace, scope=scope)
    except oracle.NotATrace as e:
        fig = None
        why = str(e)

    cmd = [tool, "analyze", "--json", "--top", "0"] + (["--step", step] if step else []) + \
        (["--range", rng] if rng else []) + [trace]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if fig is None:
        if p.returncode != 0:
            print("check_analyze: %s: not a trace, tool refused it (exit %d): %s"
                  % (trace, p.returncode, p.stderr.decode(errors="replace").strip()))
            return 0
        print("check_analyze: %s: oracle says %s, but the tool exited 0" % (trace, why))
        return 1
    if p.returncode != 0:
        print("check_analyze: %s: `%s` exited %d\n%s" % (
            trace, " ".join(cmd), p.returncode, p.stderr.decode(errors="replace")))
        return 1
    try:
        got = json.loads(p.stdout)
    except ValueError as e:
        print("check_analyze: %s: tool output is not JSON: %s\n%s" % (
            trace, e, p.stdout[:500].decode(errors="replace")))
        return 1

    bad = []
    if rng:
        r = (got.get("base_ns", 0) + got.get("range_start_ns", 0),
             got.get("base_ns", 0) + got.get("range_end_ns", 0))
        if "range_start_ns" not in got or r != fig["range_abs"]:
            bad.append("range: tool %r, oracle %r (absolute ns)" % (r, fig["range_abs"]))
    # ---- (a) tool vs oracle
    for f in ("busy_ns", "all_tracks_self_ns", "cpu_time_ns", "partial_overlap_events",
              "partial_overlap_ns", "gpu_busy_ns", "window_ns", "tracks", "gpu_events", "gpu_ns",
              "gpu_unattributed_events", "gpu_unattributed_ns"):
        if got.get(f) != fig[f]:
            bad.append("%s: tool %r, oracle %r" % (f, got.get(f), fig[f]))
    tool_ops = {}
    for o in got.get("ops", []):
        k = (o.get("name"), o.get("category") or "")
        if k in tool_ops:
            bad.append("op %r listed twice by the tool" % (k,))
        tool_ops[k] = o
    ora_ops = {(o["name"], o["category"]): o for o in fig["ops"]}
    fields = ("count", "self_ns", "total_ns", "min_ns", "max_ns", "cum_ns", "device_self_ns",
              "device_total_ns")
    for k in sorted(ora_ops, key=lambda k: (-ora_ops[k]["total_ns"], k)):
        o = ora_ops[k]
        t = tool_ops.get(k)
        if t is None:
            bad.append("op %r [%s]: missing in tool output (oracle count %d)"
                       % (k[0], k[1], o["count"]))
            continue
        diffs = ["%s tool %r oracle %r" % (f, t.get(f), o[f])
                 for f in fields if t.get(f) != o[f]]
        if diffs:
            bad.append("op %r [%s]: %s" % (k[0], k[1], "; ".join(diffs)))
    for k in sorted(set(tool_ops) - set(ora_ops), key=str):
        bad.append("op %r [%s]: in tool output, not in oracle" % k)

    tool_st = {}
    for st in got.get("streams", []):
        k = (st.get("pid"), st.get("tid"))
        if k in tool_st:
            bad.append("stream pid %r tid %r listed twice by the tool" % k)
        tool_st[k] = st
    ora_st = {(st["pid"], st["tid"]): st for st in fig["streams"]}
    for k in sorted(ora_st):
        o, t = ora_st[k], tool_st.get(k)
        if t is None:
            bad.append("stream pid %r tid %r: missing in tool output" % k)
            continue
        diffs = ["%s tool %r oracle %r" % (f, t.get(f), o[f])
                 for f in ("gpu_events", "busy_ns", "max_gap_ns") if t.get(f) != o[f]]
        if diffs:
            bad.append("stream pid %r tid %r: %s" % (k + ("; ".join(diffs),)))
    for k in sorted(set(tool_st) - set(ora_st)):
        bad.append("stream pid %r tid %r: in tool output, not in oracle" % k)

    tool_th = {(t.get("pid"), t.get("tid")): t for t in got.get("threads", [])}
    ora_th = {(t["pid"], t["tid"]): t for t in fig["threads"]}
    for k in sorted(set(tool_th) | set(ora_th)):
        o, t = ora_th.get(k), tool_th.get(k)
        if o is None or t is None:
            bad.append("thread pid %r tid %r: only in the %s" % (k + ("tool" if o is None else "oracle",)))
            continue
        diffs = ["%s tool %r oracle %r" % (f, t.get(f), o[f])
                 for f in ("events", "busy_ns", "max_gap_ns") if t.get(f) != o[f]]
        if diffs:
            bad.append("thread pid %r tid %r: %s" % (k + ("; ".join(diffs),)))

    tool_cats = {c.get("name"): c for c in got.get("categories", [])}
    ora_cats = {c["name"]: c for c in fig["categories"]}
    for k in sorted(set(tool_cats) | set(ora_cats)):
        o, t = ora_cats.get(k), tool_cats.get(k)
        if o is None and t is not None and (step or rng) and \
                not (t.get("count") or t.get("self_ns") or t.get("total_ns")):
            continue  # a scope's callers outside it: their category, with nothing in it
        if o is None or t is None:
            bad.append("category %r: only in the %s" % (k, "tool" if o is None else "oracle"))
            continue
        diffs = ["%s tool %r oracle %r" % (f, t.get(f), o[f])
                 for f in ("count", "self_ns", "total_ns") if t.get(f) != o[f]]
        if diffs:
            bad.append("category %r: %s" % (k, "; ".join(diffs)))

    # ---- (b) tool vs PyTorch key_averages
    n_expected = 0
    if expected_path:
        with open(expected_path) as f:
            expected = json.load(f)
        by_name = {}
        for o in got.get("ops", []):
            d = by_name.setdefault(o.get("name"), {"count": 0, "self_ns": 0, "total_ns": 0})
            for f_ in ("count", "self_ns", "total_ns"):
                d[f_] += o.get(f_) or 0
        overlap = {o["name"] for o in fig["ops"] if o["overlap"]}
        src = expected.get("source", "key_averages")
        for e in expected["ops"]:
            n_expected += 1
            d = by_name.get(e["name"])
            if d is None:
                bad.append("%s: %r missing in tool output" % (src, e["name"]))
                continue
            for f_ in ("count", "total_ns"):
                if d[f_] != e[f_]:
                    bad.append("%s: %r %s tool %d expected %d" % (src, e["name"], f_, d[f_], e[f_]))
            excused = (e["name"] in overlap or e.get("async_calls")
                       or e.get("async_parent_calls"))
            if d["self_ns"] != e["self_ns"] and not excused:
                bad.append("%s: %r self_ns tool %d expected %d"
                           % (src, e["name"], d["self_ns"], e["self_ns"]))

    if bad:
        print("check_analyze: %s: %d mismatches%s" % (
            trace, len(bad), " (first %d)" % MAX_SHOWN if len(bad) > MAX_SHOWN else ""))
        for b in bad[:MAX_SHOWN]:
            print("  " + b)
        return 1
    print("check_analyze: %s: %d ops match; %d GPU events (%d unattributed), %d streams"
          % (trace, len(ora_ops), fig["gpu_events"], fig["gpu_unattributed_events"],
             len(ora_st)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
