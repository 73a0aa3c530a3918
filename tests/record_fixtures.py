#!/usr/bin/python3
"""Regenerate the test fixtures in tests/fixtures/ with the REAL PyTorch profiler.

Usage:  /usr/bin/python3 tests/record_fixtures.py [NAME ...]

Needs Debian's python3-torch (torch 1.13, built without Kineto), hence /usr/bin/python3.
For every fixture NAME it writes
    tests/fixtures/NAME.json.gz        prof.export_chrome_trace() output, gzipped (mtime 0)
    tests/fixtures/NAME.expected.json  prof.key_averages() figures, in integer nanoseconds:
        {"source": "torch X.Y key_averages",
         "ops": [{"name", "count", "self_ns", "total_ns"}, ...]}   (one entry per name)

Timings differ from run to run (they are measurements); the *structure* is kept as
stable as possible with torch.manual_seed(0) and torch.set_num_threads(1), and a warm-up
run outside the profiler.  Any re-recording replaces trace and expected file together, so
the pair is always consistent.

What the installed torch 1.13 actually does (read from torch/autograd/profiler.py and
profiler_util.py, and checked by assertions in this script at every recording):

* torch.autograd.profiler.profile() in 1.13 always goes through the new (Kineto-style)
  C++ front end (_enable_profiler/_disable_profiler), even without Kineto.  Events come
  back as KinetoEvent objects; _parse_kineto_results() builds FunctionEvent objects with
      start_us = kineto_event.start_us() - result.trace_start_us()
      end_us   = start_us + kineto_event.duration_us()
  all Python ints, in MICROSECONDS (the C++ side truncates its ns clock to us), relative
  to the start of the trace.  is_legacy stays False (it is set only when there is a CUDA
  fallback time).  The function event list is sorted by [start, -end] (stable).
* Without Kineto, export_chrome_trace() is EventList.export_chrome_trace(): a bare JSON
  array, one {"name": trace_name, "ph": "X", "ts": start_us, "dur": end_us - start_us,
  "tid": thread, "pid": "CPU functions", "args": {}} per event, in list order, no "cat".
  So ts/dur in the file are exactly the same integers as the FunctionEvent time ranges:
  expected ns = us * 1000 is exact.  (Asserted below, event by event.)
  trace_name has no wildcard ("ProfilerStep#3"), name has ("ProfilerStep*").
* "thread" is the profiler's small sequential thread id (1, 2, ...), not the OS tid.
  The profiler state is THREAD-LOCAL: ops run by plain Python threads started inside the
  profile() block are NOT recorded at all (verified: 0 events from 3 worker threads).
  It propagates to at::launch / TorchScript torch.jit.fork tasks on the inter-op pool, so
  the multi-thread fixture uses scripted fork tasks (real concurrent OS threads).
* Tree (EventList._populate_cpu_children): only non-async CPU events; grouped by
  (thread, node_id); per group sorted by [start, -end] (stable, so ties keep list order,
  which is also the export order); one stack; the stack top is popped while
      event.start >= top.end  or  event.end > top.end
  and otherwise becomes the parent.  This equals "innermost fully containing event on
  the track, ties by (ts asc, dur desc, order)" EXCEPT for zero-duration events lying
  exactly at a parent's END (event.start == parent.end): PyTorch does not nest them
  (half-open [s, e) rule), the containment rule does; likewise [s, s] is never nested
  in an identical [s, s].  Such a child has dur 0, so no self/total figure changes; only
  the tree differs.  Measured: cnn_train 143 of 867 events get a different parent (e.g.
  aten::zero_ [187,187]: PyTorch parent Optimizer.zero_grad#SGD.zero_grad [174,193],
  containment parent an identical earlier aten::zero_ [187,187]); every one has dur 0;
  no positive-duration event differs in any single-thread fixture.
* Times look truncated to us separately for start and duration, so a child can end
  1 us after its parent; it is then a SIBLING overlapping the previous child (e.g. in
  cnn_train: evaluate_function: ReshapeAliasBackward0 [1295,1300] has children
  ReshapeAliasBackward0 [1295,1299] and aten::reshape [1297,1300]: PyTorch self
  5-4-3 = -2 us, union rule 0 us).
* _build_tree() also runs _remove_dup_nodes(): a child with the same name as its parent
  and no siblings is DELETED from the event list (parent adopts its children).  This
  happens before export, so the deleted events are not in the trace either; trace and
  key_averages stay consistent.
* self_cpu_time_total = elapsed - SUM(child elapsed) over direct children; can be
  negative when direct children overlap each other.  Async events (start thread != end
  thread) have self 0 and take no part in the tree: neither parent nor child (seen in
  threads_fork: the scripted _fan_out starts on thread 1 and, after torch.jit.wait,
  ends on an inter-op thread).  The trace cannot show this, so the expected file marks
  such names with "async_calls" / "async_parent_calls" (self may differ there).
* key_averages() groups by (name, node_id, device_type, is_legacy); we sum over all
  keys with the same name.  count = number of events; cpu_time_total = sum of elapsed.
"""
import gzip
import json
import os
import sys
import tempfile
import threading

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import profiler
from torch.autograd.profiler import record_function

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")


def seed():
    torch.manual_seed(0)
    torch.set_num_threads(1)


# ---------------------------------------------------------------- workloads
def cnn_train():
    """Small CNN: conv/bn/relu/pool/linear, loss, backward, SGD step; 3 steps."""
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(8, 3, 16, 16)
    y = torch.randint(0, 10, (8,))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return step, 3


def mlp_nested():
    """MLP with nested record_function labels (up to 5 levels), incl. ProfilerStep#N."""
    layers = nn.ModuleList([nn.Linear(32, 32) for _ in range(3)])
    head = nn.Linear(32, 4)
    params = list(layers.parameters()) + list(head.parameters())
    opt = torch.optim.SGD(params, lr=0.01)
    x = torch.randn(16, 32)
    y = torch.randn(16, 4)
    it = [0]

    def step():
        with record_function("ProfilerStep#%d" % it[0]):
            it[0] += 1
            with record_function("train_step"):
                with record_function("forward"):
                    h = x
                    for i, l in enumerate(layers):
                        with record_function("layer_%d" % i):
                            with record_function("linear"):
                                h = l(h)
                            with record_function("activation"):
                                h = torch.relu(h)
                    with record_function("head"):
                        out = head(h)
                with record_function("loss"):
                    loss = F.mse_loss(out, y)
                with record_function("backward"):
                    opt.zero_grad()
                    loss.backward()
                with record_function("optimizer"):
                    opt.step()
    return step, 4


def lstm_train():
    """2-layer LSTM forward + backward."""
    lstm = nn.LSTM(16, 32, num_layers=2)
    lin = nn.Linear(32, 1)
    x = torch.randn(12, 4, 16)

    def step():
        out, _ = lstm(x)
        loss = lin(out[-1]).pow(2).mean()
        lstm.zero_grad()
        loss.backward()
    return step, 1


def transformer_train():
    """Small transformer encoder (2 layers) forward + backward."""
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0)
    enc = nn.TransformerEncoder(layer, num_layers=2)
    x = torch.randn(10, 2, 32)

    def step():
        loss = enc(x).pow(2).mean()
        enc.zero_grad()
        loss.backward()
    return step, 1


@torch.jit.script
def _chain(x: torch.Tensor, n: int) -> torch.Tensor:
    for _ in range(n):
        x = torch.tanh(torch.mm(x, x)) * 0.5
    return x


@torch.jit.script
def _fan_out(x: torch.Tensor) -> torch.Tensor:
    futs = [torch.jit.fork(_chain, x + float(i), 25) for i in range(3)]
    y = _chain(x, 25)
    for f in futs:
        y = y + torch.jit.wait(f)
    return y


def threads_fork():
    """Concurrent ops on several threads.  torch 1.13's profiler is thread-local and
    ignores plain Python threads (a Python thread also runs here, unrecorded, to show
    it); TorchScript fork tasks on the inter-op pool inherit the profiler state."""
    x = torch.randn(48, 48) * 0.1

    def step():
        t = threading.Thread(target=lambda: _chain(x, 10))   # not recorded by 1.13
        t.start()
        _fan_out(x)
        _fan_out(x)
        t.join()
    return step, 1


def mlp_train_big():
    """Many small training steps of a tiny MLP: tens of thousands of events."""
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(4, 8)
    y = torch.randn(4, 1)

    def step():
        for _ in range(350):
            with record_function("iteration"):
                opt.zero_grad()
                loss = F.mse_loss(model(x), y)
                loss.backward()
                opt.step()
    return step, 1


FIXTURES = {
    "cnn_train": cnn_train,
    "mlp_nested": mlp_nested,
    "lstm_train": lstm_train,
    "transformer_train": transformer_train,
    "threads_fork": threads_fork,
    "mlp_train_big": mlp_train_big,
}


# ---------------------------------------------------------------- recording
def record(name, make):
    seed()
    step, n = make()
    for _ in range(2):          # warm-up outside the profiler
        step()
    with profiler.profile() as prof:
        for _ in range(n):
            step()
    events = prof.function_events

    fd, tmp = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(tmp)
        with open(tmp, "rb") as f:
            raw = f.read()
    finally:
        os.unlink(tmp)
    trace = json.loads(raw)

    # ---- consistency checks: file ts/dur == FunctionEvent integers
    exported = [e for e in events if e.trace_name is not None]
    assert len(trace) == len(exported), (len(trace), len(exported))
    for te, fe in zip(trace, exported):
        assert isinstance(te["ts"], int) and isinstance(te["dur"], int), te
        assert isinstance(fe.time_range.start, int) and isinstance(fe.time_range.end, int)
        assert te["ts"] == fe.time_range.start and te["dur"] == fe.time_range.elapsed_us()
        assert te["tid"] == fe.thread and te["name"] == fe.trace_name
    n_async = sum(1 for e in events if e.is_async)
    n_hidden = len(events) - len(exported)
    if n_async or n_hidden:
        print("  WARNING %s: %d async events, %d events not exported" % (name, n_async, n_hidden))

    # ---- expected figures
    by_name = {}
    for avg in prof.key_averages():
        d = by_name.setdefault(avg.key, {"name": avg.key, "count": 0, "self_ns": 0, "total_ns": 0})
        assert isinstance(avg.self_cpu_time_total, int) and isinstance(avg.cpu_time_total, int)
        d["count"] += avg.count
        d["self_ns"] += avg.self_cpu_time_total * 1000
        d["total_ns"] += avg.cpu_time_total * 1000
    # Async events (start thread != end thread; e.g. a scripted function that resumes
    # on an inter-op thread after torch.jit.wait) get self 0 in key_averages and are
    # left out of PyTorch's tree; the trace does not say which events are async.  Mark
    # them so the checks know self time legitimately differs for these names:
    #   async_calls         calls of this name that were async
    #   async_parent_calls  calls of this name that fully contain an async event on
    #                       its thread as innermost container (PyTorch does not
    #                       subtract the async child from their self time)
    for k, fe in enumerate(exported):
        if not fe.is_async:
            continue
        by_name[fe.name]["async_calls"] = by_name[fe.name].get("async_calls", 0) + 1
        par = None
        for j, pe in enumerate(exported):
            if j == k or pe.thread != fe.thread:
                continue
            if pe.time_range.start <= fe.time_range.start and fe.time_range.end <= pe.time_range.end:
                if par is None or (pe.time_range.start, -pe.time_range.end) > \
                        (par.time_range.start, -par.time_range.end):
                    par = pe
        if par is not None:
            d = by_name[par.name]
            d["async_parent_calls"] = d.get("async_parent_calls", 0) + 1
    ver = ".".join(torch.__version__.split(".")[:2])
    expected = {"source": "torch %s key_averages" % ver,
                "ops": [by_name[k] for k in sorted(by_name)]}

    with open(os.path.join(OUT, name + ".json.gz"), "wb") as f:
        f.write(gzip.compress(raw, compresslevel=9, mtime=0))
    with open(os.path.join(OUT, name + ".expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    tids = sorted({e["tid"] for e in trace}, key=str)
    neg = [d["name"] for d in expected["ops"] if d["self_ns"] < 0]
    print("%-18s %6d events  %3d names  tids %s  gz %d bytes%s" % (
        name, len(trace), len(by_name), tids,
        os.path.getsize(os.path.join(OUT, name + ".json.gz")),
        ("  negative self: %s" % neg) if neg else ""))


def main():
    torch.set_num_interop_threads(4)
    os.makedirs(OUT, exist_ok=True)
    names = sys.argv[1:] or list(FIXTURES)
    for name in names:
        record(name, FIXTURES[name])


if __name__ == "__main__":
    main()
