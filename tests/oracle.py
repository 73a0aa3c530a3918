#!/usr/bin/env python3
"""Independent second computation of torch2pprof's `analyze --json` figures.

Deliberately simple, stdlib only, Python >= 3.9, no torch.

    oracle.py TRACE                 print the figures as JSON (same shape as
                                    `torch2pprof analyze --json --top 0 TRACE`)
    oracle.py --slow TRACE          same, with the naive parent search (for checking)
    oracle.py --memory-range START:END TRACE
                                    the [memory] figures of that range (see
                                    memory_in_range)
    oracle.py --vs-expected TRACE EXPECTED.json
                                    compare with a PyTorch key_averages() file
                                    (tests/fixtures/NAME.expected.json); exit 1 on mismatch

Rules (docs/trace-format.md):
* Input gzip or plain (magic 1f 8b); Kineto object with traceEvents, or a bare array
  (legacy; a missing closing ']' is tolerated).  An execution trace (nodes, no
  traceEvents) is not a timing trace: exit 2 with a message.
* ts/dur parsed as exact decimals: ns = Decimal(text) * 1000 (half-up rounding beyond
  ns); strings like "2560" accepted; absolute ns = baseTimeNanoseconds + ts*1000.
* Only ph X carries time; B/E matched per track (file order, E closes the latest open
  B) become X; unmatched ones are counted in "skipped".  Negative dur: skipped.
* Track = (pid, tid) compared by JSON text.  cat "Trace" = the window, not an op.
  "ProfilerStep#N" aggregates as "ProfilerStep*".
* Parent = innermost event on the same track that FULLY contains the event: among the
  containers that come earlier in the (ts asc, dur desc, file order) sort, the one with
  the latest start, then shortest dur, then latest order.  A zero-length event
  contains nothing (events at one instant are siblings).
* self = dur - length of the union of the direct children's intervals.
* Op key (name, cat or "").
* Early Kineto's category spellings (Operator, Runtime, Kernel, Memcpy, Memset, Python)
  are read as cpu_op, cuda_runtime, kernel, gpu_memcpy, gpu_memset, python_function.
* GPU (docs/trace-format.md "CPU to GPU"): GPU events = cat kernel / gpu_memcpy /
  gpu_memset (and an accelerator's mtia_ccp_events); launches = cat cuda_runtime /
  cuda_driver (and mtia_runtime, any *_runtime); categories compared lower-cased;
  linked by args.correlation
  (an integer, or a string of digits / 0x hex); the first launch in file order with a
  correlation wins.  The launching op = the launch's parent (nesting rule), or the launch
  itself when it has none.  device_self_ns(op) += dur of each GPU event it launched.
  device_total_ns: per GPU event, each distinct op among {the launch, every ancestor of
  the launch, the GPU event itself} gets dur once.  A GPU event without a launch adds
  dur to its own op's device_total_ns only, and to gpu_unattributed_*.
* cum_ns (pprof's cum): per op, the sum of self time of the events whose stack (the
  event and its ancestors) holds the op at least once.
* cpu_time_ns: the busy time (the length of the union of its events' intervals)
  summed over the CPU threads: tracks that carry no GPU work and are no device track
  (process_labels other than "CPU...", or a thread named "stream N"/"Stream N").
  all_tracks_self_ns = busy_ns: self time summed over every track.
* partial_overlap_events / _ns: per track, in (ts asc, dur desc) order, an event a is
  partly overlapped when the first later event b with b.end > a.end starts before
  a.end; _ns adds a.end - b.ts.
  gpu_busy_ns: length of the union of every GPU event's interval, all streams at once.
* Window: first start to last end over the Trace spans and every op (a step can lie
  outside the profiler's span).
* Streams: tracks holding GPU events: gpu_events = their number, busy_ns = length of
  the union of their intervals (sync rows and annotations on the same track do not
  count), max_gap_ns = largest gap between consecutive covered stretches.
Extra fields beyond the tool's shape, per op: "overlap" (some call has direct children
overlapping each other) and "pytorch_self_ns" (self time by PyTorch's rule, dur minus the
plain SUM of the direct children's durations; may be negative).
"""
import decimal
import gzip
import json
import re
import sys
from decimal import Decimal, ROUND_HALF_UP


class NotATrace(Exception):
    pass


# ------------------------------------------------------------------ input
def load_events(path):
    """Return (events list, base_ns or None, n_events_total)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8", errors="surrogateescape")
    kw = dict(parse_float=Decimal, parse_int=int)
    try:
        doc = json.loads(text, **kw)
    except json.JSONDecodeError as e:
        stripped = text.rstrip()
        doc = None
        if stripped.startswith("["):          # killed writer: array without ']'
            s = stripped.rstrip(",").rstrip()
            for cand in (s + "]", s + "}]"):
                try:
                    doc = json.loads(cand, **kw)
                    break
                except json.JSONDecodeError:
                    pass
        if doc is None:
            off = len(text[:e.pos].encode("utf-8", errors="surrogateescape"))
            raise NotATrace("%s: invalid JSON at byte %d: %s" % (path, off, e.msg))
    base = None
    if isinstance(doc, dict):
        if "traceEvents" not in doc:
            if "nodes" in doc:
                raise NotATrace("%s: not a timing trace: a PyTorch execution trace "
                                "(nodes/schema, no traceEvents)" % path)
            raise NotATrace("%s: not a trace: JSON object without traceEvents" % path)
        events = doc["traceEvents"]
        if doc.get("baseTimeNanoseconds") is not None:
            base = int(to_decimal(doc["baseTimeNanoseconds"]))
    elif isinstance(doc, list):
        events = doc
    else:
        raise NotATrace("%s: not a trace: top level is neither object nor array" % path)
    if not isinstance(events, list):
        raise NotATrace("%s: traceEvents is not an array" % path)
    return events, base


def ms(ns):
    """ns as the text report prints milliseconds: to the microsecond, half
    away from zero (so -0.0005 ms is "-0.001", and a zero is never "-0")."""
    us = (Decimal(abs(ns)) / 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return "%s%d.%03d" % ("-" if ns < 0 and us else "", us // 1000, us % 1000)


def to_decimal(v):
    if isinstance(v, bool) or v is None:
        raise ValueError("not a number")
    if isinstance(v, (int, Decimal)):
        return Decimal(v)
    if isinstance(v, float):
        return Decimal(repr(v))
    if isinstance(v, str):
        s = v.strip()
        try:
            return Decimal(s)
        except decimal.InvalidOperation:
            return Decimal(int(s, 0))
    raise ValueError("not a number")


def us_to_ns(v):
    d = to_decimal(v) * 1000
    return int(d.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def track_text(v):
    if isinstance(v, Decimal):
        return str(v)
    return json.dumps(v)


def shown_text(v):
    """pid/tid as the tool prints it: the text as written, without JSON quotes."""
    return v if isinstance(v, str) else str(v)


# Categories compare lower-cased, as TensorBoard's plugin did: early Kineto
# (PyTorch 1.8-1.9) wrote Kernel, Memcpy, Memset, Runtime, Operator.
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "mtia_ccp_events")
LAUNCH_CATS = ("cuda_runtime", "runtime", "cuda_driver", "mtia_runtime", "xpu_runtime",
               "privateuse1_runtime", "glow_runtime")
# and the tables show early Kineto's spellings by their modern names
MODERN = {"Operator": "cpu_op", "Runtime": "cuda_runtime", "Kernel": "kernel",
          "Memcpy": "gpu_memcpy", "Memset": "gpu_memset", "Python": "python_function"}


def correlation(e):
    """args.correlation as an int, or None (absent, or not a whole number)."""
    a = e.get("args")
    if not isinstance(a, dict):
        return None
    c = a.get("correlation")
    if isinstance(c, bool):
        return None
    if isinstance(c, int):
        return c
    if isinstance(c, str):
        if re.fullmatch(r"0[xX][0-9a-fA-F]{1,16}", c):
            return int(c, 16)
        if re.fullmatch(r"-?[0-9]+", c):
            return int(c, 10)
    return None


# ------------------------------------------------------------------ analysis
def step_kept(ops, first_launch, is_gpu_event, scope):
    """The events a --step scope counts (steps.md's scoping rule, computed here
    on its own): scope = (spec "N" or "N-M", windows), windows being the
    tool's device-side step windows [start, end) in absolute ns, in time
    order, used only for GPU events without a launch.  A CPU event belongs to
    the step whose ProfilerStep#N event [ts, ts+dur) holds its start; a GPU
    event to the step of its launch, else to the window holding its start."""
    spec, windows = scope
    steps = sorted((t for t in ops if t["name"].startswith("ProfilerStep#") and
                    t["cat"].lower() in ("cpu_op", "user_annotation", "gpu_user_annotation")),
                   key=lambda t: (t["ts"], t["order"]))
    labels = [t["name"].split("#", 1)[1] for t in steps]
    a, _, b = spec.partition("-")
    first, last = labels.index(a), labels.index(b or a)

    def holder(ts, spans):
        best = None
        for i, (s0, s1) in enumerate(spans):
            if s0 <= ts < s1:
                best = i                    # the latest-starting window holding ts
        return best

    host = [(t["ts"], t["end"]) for t in steps]
    kept = set()
    for t in ops:
        if is_gpu_event(t):
            launch = first_launch.get(t["corr"]) if t["corr"] is not None else None
            if launch is not None and not is_gpu_event(launch):
                i = holder(launch["ts"], host)
            else:
                i = holder(t["ts"], windows)
        else:
            i = holder(t["ts"], host)
        if i is not None and first <= i <= last:
            kept.add(id(t))
    return kept


UNITS_NS = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}


def range_offsets(spec):
    """--range START:END as offsets in ns (END None: to the end), parsed here on
    its own: each end a decimal with a unit ns/us/ms/s, digits past a ns dropped."""
    def one(text):
        m = re.fullmatch(r"([0-9]*\.?[0-9]*)(ns|us|ms|s)", text)
        if not m or m.group(1) in ("", "."):
            raise ValueError("bad time %r" % text)
        return int(decimal.Decimal(m.group(1)) * UNITS_NS[m.group(2)])
    a, b = spec.split(":")
    return (one(a) if a else 0), (one(b) if b else None)


def range_kept(ops, first_launch, is_gpu_event, start, end):
    """The events a --range scope counts (the issue's rule, computed here on its
    own): [start, end) in absolute ns; an event belongs by its start, GPU work
    by the start of the CPU launch that has its correlation, if any."""
    kept = set()
    for t in ops:
        ts = t["ts"]
        if t["cat"].lower() in GPU_CATS and t["corr"] is not None:
            launch = first_launch.get(t["corr"])
            if launch is not None and not is_gpu_event(launch):
                ts = launch["ts"]
        if start <= ts < end:
            kept.add(id(t))
    return kept


def analyze(path, slow=False, scope=None):
    """The figures of the trace at path; with scope (see step_kept), of the
    events of those steps alone: they nest with every event of the trace, but
    only they count; callers outside the scope appear with no calls."""
    events, base = load_events(path)
    skipped = {}

    def skip(reason):
        skipped[reason] = skipped.get(reason, 0) + 1

    # timed events: dicts with name, cat, track, ts, dur, order
    timed = []
    open_b = {}                     # track -> list of (event, ts_ns)
    labels = {}                     # pid text -> process_labels (the last one given)
    tnames = {}                     # track -> thread_name (the last one given)
    pid_shown = {}                  # track -> (pid, tid) as the tool prints them
    for order, e in enumerate(events):
        if not isinstance(e, dict):
            skip("not_an_object")
            continue
        ph = e.get("ph")
        if ph == "M":
            a = e.get("args") if isinstance(e.get("args"), dict) else {}
            if e.get("name") == "process_labels" and isinstance(a.get("labels"), str):
                labels[track_text(e.get("pid"))] = a["labels"]
            if e.get("name") == "thread_name" and isinstance(a.get("name"), str):
                tnames[(track_text(e.get("pid")), track_text(e.get("tid")))] = a["name"]
            continue
        if ph not in ("X", "B", "E"):
            continue
        track = (track_text(e.get("pid")), track_text(e.get("tid")))
        try:
            ts = us_to_ns(e.get("ts"))
            if base is not None:
                ts += base
        except (ValueError, decimal.InvalidOperation, TypeError):
            skip("bad_ts")
            continue
        if ph == "B":
            open_b.setdefault(track, []).append((e, ts, order))
            continue
        if ph == "E":
            st = open_b.get(track)
            if not st:
                skip("unmatched_E")
                continue
            b, bts, border = st.pop()
            dur = ts - bts
            src, ts, order = b, bts, border
        else:
            try:
                dur = us_to_ns(e.get("dur"))
            except (ValueError, decimal.InvalidOperation, TypeError):
                skip("bad_dur")
                continue
            src = e
        if dur < 0:
            skip("negative_dur")
            continue
        name = src.get("name")
        name = "" if name is None else str(name)
        cat = src.get("cat")
        cat = "" if cat is None else str(cat)
        pid_shown[track] = (shown_text(e.get("pid")), shown_text(e.get("tid")))
        timed.append({"name": name, "cat": cat, "track": track, "ts": ts,
                      "dur": dur, "end": ts + dur, "order": order,
                      "corr": correlation(src)})
    for st in open_b.values():
        for _ in st:
            skip("unmatched_B")

    window = [t for t in timed if t["cat"] == "Trace"]
    ops = [t for t in timed if t["cat"] != "Trace"]
    for t in ops:
        t["cat"] = MODERN.get(t["cat"], t["cat"])

    # ---- nesting, per track
    by_track = {}
    for t in ops:
        by_track.setdefault(t["track"], []).append(t)
    for track, evs in by_track.items():
        evs.sort(key=lambda t: (t["ts"], -t["dur"], t["order"]))
        if slow:
            find_parents_slow(evs)
        else:
            find_parents(evs)
        for t in evs:
            t["children"] = []
        for t in evs:
            if t["parent"] is not None:
                evs[t["parent"]]["children"].append(t)
        for t in evs:
            cover = 0
            cur_s = cur_e = None
            total_child = 0
            for c in t["children"]:          # already in ts order
                total_child += c["dur"]
                if cur_e is None or c["ts"] > cur_e:
                    if cur_e is not None:
                        cover += cur_e - cur_s
                    cur_s, cur_e = c["ts"], c["end"]
                elif c["end"] > cur_e:
                    cur_e = c["end"]
            if cur_e is not None:
                cover += cur_e - cur_s
            t["self"] = t["dur"] - cover
            t["pt_self"] = t["dur"] - total_child      # PyTorch's rule: plain sum
            t["overlap"] = total_child != cover
            assert t["self"] >= 0

    # ---- aggregation
    def op_key(t):
        name = t["name"]
        if name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"
        return (name, t["cat"])

    for track, evs in by_track.items():
        for t in evs:
            t["up"] = None if t["parent"] is None else evs[t["parent"]]
    dev_self, dev_total, gpu = {}, {}, {"events": 0, "ns": 0, "un_events": 0, "un_ns": 0}
    first_launch = {}
    for t in ops:                            # "timed" order: file order of the events
        if t["cat"].lower() in LAUNCH_CATS and t["corr"] is not None:
            first_launch.setdefault(t["corr"], t)
    work_tracks = {t["track"] for t in ops if t["cat"].lower() in GPU_CATS}

    def device_row(track):
        lab = labels.get(track[0], "")
        return (lab != "" and not lab.startswith("CPU")) or track in work_tracks

    def is_gpu_event(t):
        return t["cat"].lower() in GPU_CATS or device_row(t["track"])

    every = ops
    range_abs = None
    if isinstance(scope, dict):             # {"range": "START:END"}
        t0 = min(t["ts"] for t in window + ops)
        t1 = max(t["end"] for t in window + ops)
        a, b = range_offsets(scope["range"])
        range_abs = (t0 + a, min(t1, t0 + b) if b is not None else t1)
        keep = range_kept(ops, first_launch, is_gpu_event, *range_abs)
    elif scope is not None:
        keep = step_kept(ops, first_launch, is_gpu_event, scope)
    if scope is not None:
        ops = [t for t in ops if id(t) in keep]
        by_track = {k: [t for t in evs if id(t) in keep] for k, evs in by_track.items()}
        by_track = {k: evs for k, evs in by_track.items() if evs}
        window = []
    for g in ops:
        if g["cat"].lower() not in GPU_CATS:
            continue
        gpu["events"] += 1
        gpu["ns"] += g["dur"]
        launch = first_launch.get(g["corr"]) if g["corr"] is not None else None
        if launch is not None and scope is not None and id(launch) not in keep:
            launch = None                   # outside the scope: as if not in the window
        if launch is None:
            gpu["un_events"] += 1
            gpu["un_ns"] += g["dur"]
            dev_total[op_key(g)] = dev_total.get(op_key(g), 0) + g["dur"]
            continue
        launcher = launch["up"] if launch["up"] is not None else launch
        dev_self[op_key(launcher)] = dev_self.get(op_key(launcher), 0) + g["dur"]
        keys = {op_key(g)}
        a = launch
        while a is not None:
            keys.add(op_key(a))
            a = a["up"]
        for k in keys:
            dev_total[k] = dev_total.get(k, 0) + g["dur"]

    # CPU time over all threads: self time summed over the tracks that are no
    # device track (a process labelled other than "CPU...", a thread named
    # "stream N") and carry no GPU work; GPU busy: the union of all GPU work
    def device_track(track):
        lab = labels.get(track[0], "")
        name = tnames.get(track, "")
        return (lab != "" and not lab.startswith("CPU")) or name.startswith(("stream ", "Stream "))
    def covered(evs):
        """the length of the union of the events' intervals"""
        total, cur_s, cur_e = 0, None, None
        for t in sorted(evs, key=lambda t: t["ts"]):
            if cur_e is not None and t["ts"] <= cur_e:
                cur_e = max(cur_e, t["end"])
                continue
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = t["ts"], t["end"]
        return total + (cur_e - cur_s if cur_e is not None else 0)
    cpu_time = sum(covered(evs) for track, evs in by_track.items()
                   if not device_track(track) and not any(x["cat"] in GPU_CATS for x in evs))
    # partial overlaps, by their definition (quadratic in the worst case, fine here)
    overlap_events = overlap_ns = 0
    for track, evs in by_track.items():
        order = sorted(evs, key=lambda t: (t["ts"], -t["dur"]))
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                if b["end"] > a["end"]:
                    if b["ts"] < a["end"]:
                        overlap_events += 1
                        overlap_ns += a["end"] - b["ts"]
                    break
    gpu_busy, cur_s, cur_e = 0, None, None
    for g in sorted((t for t in ops if t["cat"] in GPU_CATS), key=lambda t: t["ts"]):
        if cur_e is not None and g["ts"] <= cur_e:
            cur_e = max(cur_e, g["end"])
            continue
        if cur_e is not None:
            gpu_busy += cur_e - cur_s
        cur_s, cur_e = g["ts"], g["end"]
    if cur_e is not None:
        gpu_busy += cur_e - cur_s

    # cum: pprof's cum, the time with the op anywhere on the stack: each event's
    # self time goes once to every distinct op on its stack (itself and its
    # ancestors), however often the op appears there
    cum = {}
    for t in ops:
        keys = set()
        a = t
        while a is not None:
            keys.add(op_key(a))
            a = a["up"]
        for k in keys:
            cum[k] = cum.get(k, 0) + t["self"]

    streams = []
    for track, evs in by_track.items():
        work = [t for t in evs if t["cat"].lower() in GPU_CATS]
        if not work:
            continue
        busy = gap = 0
        cur_s = cur_e = None
        for t in work:                       # sorted by ts
            if cur_e is not None and t["ts"] <= cur_e:
                cur_e = max(cur_e, t["end"])
                continue
            if cur_e is not None:
                busy += cur_e - cur_s
                gap = max(gap, t["ts"] - cur_e)
            cur_s, cur_e = t["ts"], t["end"]
        busy += cur_e - cur_s
        streams.append({"pid": pid_shown[track][0], "tid": pid_shown[track][1],
                        "gpu_events": len(work),
                        "busy_ns": busy, "max_gap_ns": gap})
    streams.sort(key=lambda x: (x["pid"], x["tid"]))

    # threads: every track with timed events; busy = the time it covers, max_gap_ns =
    # largest gap between the stretches its events cover
    threads = []
    for track, evs in by_track.items():
        gap = 0
        cur_e = None
        for t in evs:                        # sorted by ts
            if cur_e is not None and t["ts"] > cur_e:
                gap = max(gap, t["ts"] - cur_e)
            cur_e = t["end"] if cur_e is None else max(cur_e, t["end"])
        threads.append({"pid": pid_shown[track][0], "tid": pid_shown[track][1],
                        "events": len(evs), "busy_ns": covered(evs),
                        "max_gap_ns": gap})
    threads.sort(key=lambda x: (x["pid"], x["tid"]))

    agg = {}
    cats = {}
    for t in ops:
        name = t["name"]
        if name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"
        k = (name, t["cat"])
        a = agg.get(k)
        if a is None:
            a = agg[k] = {"name": name, "category": t["cat"], "count": 0, "self_ns": 0,
                          "total_ns": 0, "min_ns": t["dur"], "max_ns": t["dur"],
                          "overlap": False, "pytorch_self_ns": 0, "cum_ns": cum[k],
                          "device_self_ns": dev_self.get(k, 0),
                          "device_total_ns": dev_total.get(k, 0)}
        a["count"] += 1
        a["self_ns"] += t["self"]
        a["pytorch_self_ns"] += t["pt_self"]
        a["total_ns"] += t["dur"]
        a["min_ns"] = min(a["min_ns"], t["dur"])
        a["max_ns"] = max(a["max_ns"], t["dur"])
        a["overlap"] = a["overlap"] or t["overlap"]
        c = cats.get(t["cat"])
        if c is None:
            c = cats[t["cat"]] = {"name": t["cat"], "count": 0, "self_ns": 0, "total_ns": 0}
        c["count"] += 1
        c["self_ns"] += t["self"]
        c["total_ns"] += t["dur"]

    # callers outside the scope: on the stacks of counted events, with no calls
    if scope is not None:
        for t in ops:
            a = t["up"]
            while a is not None:
                k = op_key(a)
                if k not in agg:
                    agg[k] = {"name": k[0], "category": k[1], "count": 0, "self_ns": 0,
                              "total_ns": 0, "min_ns": 0, "max_ns": 0, "overlap": False,
                              "pytorch_self_ns": 0, "cum_ns": cum.get(k, 0),
                              "device_self_ns": dev_self.get(k, 0),
                              "device_total_ns": dev_total.get(k, 0)}
                a = a["up"]

    # the Trace span, widened to cover every op (a step may lie outside it)
    span = window + ops
    if span:
        window_ns = max(t["end"] for t in span) - min(t["ts"] for t in span)
    else:
        window_ns = 0
    tracks = len({t["track"] for t in ops})   # the Trace span is the window, not a track of work
    return {
        "range_abs": range_abs,
        "events": len(events),
        "complete_events": len(timed),
        "skipped": skipped,
        "tracks": tracks,
        "window_ns": window_ns,
        "busy_ns": sum(a["self_ns"] for a in agg.values()),
        "all_tracks_self_ns": sum(a["self_ns"] for a in agg.values()),
        "cpu_time_ns": cpu_time,
        "partial_overlap_events": overlap_events,
        "partial_overlap_ns": overlap_ns,
        "gpu_busy_ns": gpu_busy,
        "gpu_events": gpu["events"],
        "gpu_ns": gpu["ns"],
        "gpu_unattributed_events": gpu["un_events"],
        "gpu_unattributed_ns": gpu["un_ns"],
        "streams": streams,
        "threads": threads,
        "ops": sorted(agg.values(), key=lambda a: (-a["self_ns"], a["name"], a["category"])),
        "categories": sorted(cats.values(), key=lambda c: (-c["self_ns"], c["name"])),
    }


def contains(p, t):
    # a zero-length event contains nothing: never a parent
    return p["ts"] < p["end"] and p["ts"] <= t["ts"] and t["end"] <= p["end"]


def find_parents_slow(evs):
    """Naive: scan all earlier events in sort order backwards; the first container
    found is the latest start / shortest dur / latest order one.  Stop early only when
    no earlier event ends late enough (prefix maximum of end)."""
    pmax = []
    m = None
    for t in evs:
        m = t["end"] if m is None else max(m, t["end"])
        pmax.append(m)
    for k, t in enumerate(evs):
        t["parent"] = None
        j = k - 1
        while j >= 0 and pmax[j] >= t["end"]:
            if contains(evs[j], t):
                t["parent"] = j
                break
            j -= 1


def find_parents(evs):
    """Same answer, O(n * depth): scan backwards from the previous event in sort order;
    when a candidate j does not contain the event, no event sorted between parent(j)
    and j can contain it either (such an event would contain j and be a more inner
    container of j than parent(j)), so jump to parent(j)."""
    for k, t in enumerate(evs):
        t["parent"] = None
        j = k - 1
        while j >= 0:
            if contains(evs[j], t):
                t["parent"] = j
                break
            j = evs[j]["parent"]
            if j is None:
                break


# ------------------------------------------------------------------ vs key_averages
def compare_expected(fig, expected):
    """Compare oracle figures (grouped by name) with a key_averages file.
    Returns (list of mismatch strings, list of notes for overlap-excused self diffs)."""
    by_name = {}
    for o in fig["ops"]:
        d = by_name.setdefault(o["name"], {"count": 0, "self_ns": 0, "total_ns": 0,
                                           "overlap": False, "pytorch_self_ns": 0})
        d["pytorch_self_ns"] += o["pytorch_self_ns"]
        d["count"] += o["count"]
        d["self_ns"] += o["self_ns"]
        d["total_ns"] += o["total_ns"]
        d["overlap"] = d["overlap"] or o["overlap"]
    bad, notes = [], []
    for e in expected["ops"]:
        d = by_name.get(e["name"])
        if d is None:
            bad.append("%s: in expected, not in trace" % e["name"])
            continue
        for f in ("count", "total_ns"):
            if d[f] != e[f]:
                bad.append("%s: %s oracle %d expected %d" % (e["name"], f, d[f], e[f]))
        if d["self_ns"] != e["self_ns"]:
            msg = "%s: self_ns oracle %d expected %d" % (e["name"], d["self_ns"], e["self_ns"])
            if d["overlap"] and d["pytorch_self_ns"] == e["self_ns"]:
                notes.append(msg + " (overlapping children; PyTorch's sum rule gives "
                             "exactly the expected value)")
            elif e.get("async_calls") or e.get("async_parent_calls"):
                notes.append(msg + " (async event in PyTorch's table: allowed)")
            else:
                bad.append(msg + " (PyTorch's sum rule on our tree: %d)" % d["pytorch_self_ns"])
        elif d["pytorch_self_ns"] != e["self_ns"] and not (
                e.get("async_calls") or e.get("async_parent_calls")):
            bad.append("%s: self_ns matches, but PyTorch's sum rule on our tree gives %d"
                       % (e["name"], d["pytorch_self_ns"]))
    names = {e["name"] for e in expected["ops"]}
    for n in by_name:
        if n not in names:
            bad.append("%s: in trace, not in expected" % n)
    return bad, notes


def plain(v):
    return str(v) if isinstance(v, (int, Decimal)) else v if isinstance(v, str) else json.dumps(v)


def memory_in_range(path, spec):
    """The [memory] figures of --range SPEC, computed here on their own: the
    records whose ts lies in [START, END) (the range's absolute ns, as analyze
    resolves it), per device: records, allocs and frees with their bytes, the
    peak (the largest Total Allocated of a record in the range when the device
    has totals, else the largest running sum of Bytes since the trace's start),
    allocations matched to frees by (device, Addr) within the range, those left
    live at its end, frees of blocks allocated before it. Per operator (name,
    category; ProfilerStep#N as ProfilerStep*): the self allocation count and
    bytes of the records whose innermost holding complete event on their
    thread started in the range; an operator that may also get records whose
    innermost event started before it is listed in "uncertain"."""
    fig = analyze(path, scope={"range": spec})
    start, end = fig["range_abs"]
    events, base = load_events(path)
    off = base or 0
    recs, evs = [], {}
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        args = e.get("args") or {}
        # a record's thread by the text of its pid and tid: legacy traces write
        # the tid of operators as a string and that of [memory] as a number
        track = (plain(e.get("pid")), plain(e.get("tid")))
        if e.get("name") == "[memory]" and e.get("ph") in ("i", "I"):
            dtype = int(to_decimal(args.get("Device Type", 0)))
            dev = "CPU" if dtype == 0 else "GPU%d" % int(to_decimal(args.get("Device Id", 0)))
            tot = args.get("Total Allocated")
            recs.append({"ts": us_to_ns(e["ts"]) + off, "order": i, "dev": dev,
                         "bytes": int(to_decimal(args.get("Bytes", 0))),
                         "total": int(to_decimal(tot)) if tot is not None else None,
                         "addr": track_text(args["Addr"]) if "Addr" in args else None,
                         "track": track})
        elif e.get("ph") == "X" and e.get("dur") is not None and "ts" in e:
            dur = us_to_ns(e["dur"])
            if dur < 0 or e.get("cat") == "Trace":
                continue
            ts = us_to_ns(e["ts"]) + off
            name = str(e.get("name", ""))
            if name.startswith("ProfilerStep#"):
                name = "ProfilerStep*"
            cat = str(e.get("cat", ""))
            evs.setdefault(track, []).append((ts, dur, i, name, MODERN.get(cat, cat)))
    recs.sort(key=lambda r: (r["ts"], r["order"]))
    has_totals = {r["dev"] for r in recs if r["total"] is not None}
    devs, run, live = {}, {}, {}
    ops, uncertain = {}, set()
    for r in recs:
        d = r["dev"]
        run[d] = run.get(d, 0) + r["bytes"]
        if not (start <= r["ts"] < end):
            continue
        v = devs.setdefault(d, {"records": 0, "allocs": 0, "frees": 0, "alloc_bytes": 0,
                                "free_bytes": 0, "peak_bytes": None, "matched_allocs": 0,
                                "lifetime_ns": 0, "unmatched_frees": 0,
                                "unmatched_free_bytes": 0, "sum": 0, "addr": False})
        v["records"] += 1
        v["sum"] += r["bytes"]
        if r["bytes"] > 0:
            v["allocs"] += 1
            v["alloc_bytes"] += r["bytes"]
        elif r["bytes"] < 0:
            v["frees"] += 1
            v["free_bytes"] -= r["bytes"]
        level = (r["total"] if r["total"] is not None else -1) if d in has_totals else run[d]
        if level >= 0 and (v["peak_bytes"] is None or level > v["peak_bytes"]):
            v["peak_bytes"] = level
        if r["addr"] is not None:
            v["addr"] = True
            key = (d, r["addr"])
            if r["bytes"] > 0:
                live[key] = r
            elif r["bytes"] < 0:
                a = live.pop(key, None)
                if a is not None:
                    v["matched_allocs"] += 1
                    v["lifetime_ns"] += r["ts"] - a["ts"]
                else:
                    v["unmatched_frees"] += 1
                    v["unmatched_free_bytes"] -= r["bytes"]
        # the innermost holding event: latest start, then shortest, then latest
        hold = [x for x in evs.get(r["track"], []) if x[0] <= r["ts"] < x[0] + x[1]]
        if not hold:
            continue
        inner = max(hold, key=lambda x: (x[0], -x[1], x[2]))
        if inner[0] >= start:
            o = ops.setdefault((inner[3], inner[4], d), [0, 0])
            if r["bytes"] > 0:
                o[0] += 1
                o[1] += r["bytes"]
        else:
            uncertain.update((x[3], x[4], d) for x in hold)
    for d, v in devs.items():
        v["live_allocs_at_end"] = sum(1 for k in live if k[0] == d)
        v["live_bytes_at_end"] = (sum(a["bytes"] for k, a in live.items() if k[0] == d)
                                  if v["addr"] else v["sum"])
        if v["peak_bytes"] is None:
            v["peak_bytes"] = 0
        del v["sum"], v["addr"]
    return {"range_abs": [start, end], "devices": devs,
            "ops": [{"name": k[0], "category": k[1], "device": k[2], "self_alloc_count": c,
                     "self_alloc_bytes": b} for k, (c, b) in sorted(ops.items())],
            "uncertain": sorted([list(k) for k in uncertain])}


def main(argv):
    slow = False
    if argv and argv[0] == "--slow":
        slow = True
        argv = argv[1:]
    try:
        if len(argv) == 3 and argv[0] == "--vs-expected":
            fig = analyze(argv[1], slow)
            with open(argv[2]) as f:
                expected = json.load(f)
            bad, notes = compare_expected(fig, expected)
            for n in notes:
                print("note: " + n)
            for b in bad[:20]:
                print("MISMATCH: " + b)
            if bad:
                print("oracle vs key_averages: %s: %d mismatches" % (argv[1], len(bad)))
                return 1
            print("oracle vs key_averages: %s: %d names match (%d self diffs "
                  "explained)" % (argv[1], len(expected["ops"]), len(notes)))
            return 0
        if len(argv) == 3 and argv[0] == "--memory-range":
            json.dump(memory_in_range(argv[2], argv[1]), sys.stdout, indent=1)
            sys.stdout.write("\n")
            return 0
        if len(argv) != 1:
            print(__doc__, file=sys.stderr)
            return 2
        fig = analyze(argv[0], slow)
    except NotATrace as e:
        print("oracle: %s" % e, file=sys.stderr)
        return 2
    json.dump(fig, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
