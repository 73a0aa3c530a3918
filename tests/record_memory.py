#!/usr/bin/python3
"""Record the memory fixtures in tests/fixtures/ with the REAL PyTorch profiler.

Usage:  /usr/bin/python3 tests/record_memory.py [NAME ...]

Needs Debian's python3-torch (torch 1.13, built without Kineto), hence /usr/bin/python3.
For every fixture NAME it writes tests/fixtures/NAME.json.gz (gzipped, mtime 0): a trace
in the Kineto layout, {"schemaVersion": 1, "traceEvents": [...]}, holding
  * one "ph": "X" event per operator, exactly as export_chrome_trace() gives it
    (integer microsecond ts/dur relative to the trace start, the profiler's small
    thread id as tid), with the category Kineto writes: "user_annotation" for
    record_function ranges (ProfilerStep#N too), "cpu_op" for the rest;
  * one "ph": "i" "[memory]" instant per allocation and free the profiler recorded with
    profile_memory=True, with Kineto's args: "Total Reserved", "Total Allocated",
    "Bytes" (negative for a free), "Addr", "Device Id" (-1 on CPU), "Device Type"
    (0 = CPU), category "cpu_instant_event", scope "t".

Why not export_chrome_trace() alone: without Kineto it drops the memory events. They are
still in the profiler's result: prof.kineto_results.experimental_event_tree() holds
one Allocation record each (ptr, alloc_size, total_allocated, total_reserved, device,
start_time_ns, start_tid), the very fields Kineto serialises. We write them as Kineto
would, timed the way the operators are: ts = start_time_ns // 1000 - trace_start_us
(asserted equal to the "[memory]" KinetoEvent's start_us, which _parse_kineto_results
uses for the memory columns of key_averages). Nothing is invented: every number comes
from the profiler.

Timings and addresses change on every run; the structure is kept stable with
torch.manual_seed(0), torch.set_num_threads(1) and a warm-up outside the profiler.
It also writes tests/fixtures/NAME.expected.json, PyTorch's own key_averages() time
figures in the layout tests/record_fixtures.py documents, so the time figures of this
trace are checked like those of the other recorded fixtures.
After re-recording, regenerate the reference figures (tests/reference/tb_memory.py).
"""
import gzip
import json
import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch._C._profiler import RecordScope, _ExtraFields_Allocation
from torch.autograd import profiler
from torch.autograd.profiler import record_function

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
PID = 4242  # a Kineto trace names the OS process; any fixed number keeps diffs small


def seed():
    torch.manual_seed(0)
    torch.set_num_threads(1)


# ---------------------------------------------------------------- workloads
def cnn_memory():
    """Small CNN training, 3 steps under ProfilerStep#N.  Memory that crosses the
    window's edges: the previous step's loss is freed inside the window (a free with
    no allocation in the trace), and one activation per step is kept in a list, so it
    is still allocated when the window ends."""
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(8, 3, 16, 16)
    y = torch.randint(0, 10, (8,))
    kept = []
    state = {"it": 0, "last": None}

    def step():
        with record_function("ProfilerStep#%d" % state["it"]):
            state["it"] += 1
            opt.zero_grad()
            out = model(x)
            kept.append(out.detach().clone())
            loss = F.cross_entropy(out, y)
            loss.backward()
            opt.step()
            state["last"] = loss   # frees the previous step's loss
    return step, 3


FIXTURES = {
    "cnn_memory": cnn_memory,
}


# ---------------------------------------------------------------- recording
def allocations(result):
    out = []

    def walk(n):
        if isinstance(n.extra_fields, _ExtraFields_Allocation):
            out.append(n)
        for c in n.children:
            walk(c)
    for root in result.experimental_event_tree():
        walk(root)
    out.sort(key=lambda n: n.start_time_ns)
    return out


def record(name, make):
    seed()
    step, n = make()
    for _ in range(2):          # warm-up outside the profiler
        step()
    with profiler.profile(profile_memory=True) as prof:
        for _ in range(n):
            step()
    events = prof.function_events

    fd, tmp = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(tmp)
        with open(tmp, "rb") as f:
            exported = json.loads(f.read())
    finally:
        os.unlink(tmp)

    # ---- operators: the export's own events, with Kineto's categories
    fes = [e for e in events if e.trace_name is not None]
    assert len(exported) == len(fes), (len(exported), len(fes))
    trace_events = []
    tids = set()
    for te, fe in zip(exported, fes):
        assert te["ts"] == fe.time_range.start and te["name"] == fe.trace_name
        cat = "user_annotation" if fe.scope == int(RecordScope.USER_SCOPE) else "cpu_op"
        trace_events.append({"ph": "X", "cat": cat, "name": te["name"], "pid": PID,
                             "tid": te["tid"], "ts": te["ts"], "dur": te["dur"],
                             "args": {}})
        tids.add(te["tid"])

    # ---- memory: the profiler's allocation records, as Kineto writes them
    result = prof.kineto_results
    start_us = result.trace_start_us()
    mem_kineto = sorted(e.start_us() for e in result.events() if e.name() == "[memory]")
    allocs = allocations(result)
    assert [a.start_time_ns // 1000 for a in allocs] == mem_kineto
    for a in allocs:
        f = a.extra_fields
        assert a.start_tid in tids, (a.start_tid, tids)
        assert f.device.type == "cpu"
        trace_events.append({
            "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
            "pid": PID, "tid": a.start_tid, "ts": a.start_time_ns // 1000 - start_us,
            "args": {"Total Reserved": f.total_reserved,
                     "Total Allocated": f.total_allocated,
                     "Bytes": f.alloc_size, "Addr": f.ptr,
                     "Device Id": -1, "Device Type": 0}})
    doc = {"schemaVersion": 1, "deviceProperties": [], "traceEvents": trace_events}
    raw = json.dumps(doc, separators=(",", ":")).encode()
    with open(os.path.join(OUT, name + ".json.gz"), "wb") as f:
        f.write(gzip.compress(raw, compresslevel=9, mtime=0))
    by_name = {}
    for avg in prof.key_averages():
        if avg.key == "[memory]":   # the memory records themselves: not operators
            continue
        d = by_name.setdefault(avg.key, {"name": avg.key, "count": 0, "self_ns": 0, "total_ns": 0})
        d["count"] += avg.count
        d["self_ns"] += avg.self_cpu_time_total * 1000
        d["total_ns"] += avg.cpu_time_total * 1000
    assert not any(e.is_async for e in events)
    ver = ".".join(torch.__version__.split(".")[:2])
    with open(os.path.join(OUT, name + ".expected.json"), "w") as f:
        json.dump({"source": "torch %s key_averages" % ver,
                   "ops": [by_name[k] for k in sorted(by_name)]}, f, indent=1)
        f.write("\n")
    nalloc = sum(1 for a in allocs if a.extra_fields.alloc_size > 0)
    print("%-12s %6d ops  %5d memory events (%d allocs, %d frees)  gz %d bytes" % (
        name, len(fes), len(allocs), nalloc, len(allocs) - nalloc,
        os.path.getsize(os.path.join(OUT, name + ".json.gz"))))


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in sys.argv[1:] or list(FIXTURES):
        record(name, FIXTURES[name])


if __name__ == "__main__":
    main()
