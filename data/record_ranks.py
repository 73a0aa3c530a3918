#!/usr/bin/python3
"""Record data/ranks/: two ranks of one real data-parallel job on CPU.

Usage (from the top of the tree, so that frames name data/record_ranks.py):
    /usr/bin/python3 data/record_ranks.py
Needs Debian's python3-torch (torch 1.13, no Kineto, no GPU).

Two processes train the same small CNN with DistributedDataParallel over gloo,
5 steps each under ProfilerStep#N, profiled by the real PyTorch profiler with
profile_memory=True and with_stack=True. Rank 1 is a real straggler: its
input pipeline does more work per batch (slow_augment), so rank 0 waits for it
in the gradient all-reduce.

Each rank's file is export_chrome_trace()'s own events in the Kineto layout,
plus what that torch's export drops but its profiler recorded (the ways
tests/record_memory.py and tests/record_pystack.py document): args["Call
stack"] from each event's .stack, one "[memory]" instant per allocation
record, and distributedInfo {backend, rank, world_size}. Nothing is invented.
Timings and addresses change on every run.
"""
import gzip
import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch._C._profiler import RecordScope, _ExtraFields_Allocation
from torch.autograd import profiler
from torch.autograd.profiler import record_function

OUT = os.path.join("data", "ranks")
WORLD = 2
STEPS = 5


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.features(x))


def slow_augment(x, rounds):
    # the straggler's extra input work: real operators, in the trace
    for _ in range(rounds):
        x = torch.flip(x, dims=[3]) * 0.99 + 0.01 * torch.randn_like(x)
    return x


def load_batch(rank, g):
    with record_function("load_batch"):
        x = torch.randn(16, 3, 32, 32, generator=g)
        y = torch.randint(0, 10, (16,), generator=g)
        return slow_augment(x, 40 if rank == 1 else 2), y


def train_step(model, opt, rank, g, it):
    with record_function("ProfilerStep#%d" % it):
        x, y = load_batch(rank, g)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()           # DDP all-reduces the gradients here
        opt.step()


def allocations(result):
    out = []

    def walk(n):
        if isinstance(n.extra_fields, _ExtraFields_Allocation):
            out.append(n)
        for c in n.children:
            walk(c)
    for root in result.experimental_event_tree():
        walk(root)
    return sorted(out, key=lambda n: n.start_time_ns)


def run(rank):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = nn.parallel.DistributedDataParallel(Net())
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(rank)
    for it in range(2):           # warm-up outside the profiler
        train_step(model, opt, rank, g, it)
    with profiler.profile(profile_memory=True, with_stack=True) as prof:
        for it in range(2, 2 + STEPS):
            train_step(model, opt, rank, g, it)
    dist.barrier()
    dist.destroy_process_group()

    fd, tmp = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(tmp)
        with open(tmp) as f:
            exported = json.load(f)
    finally:
        os.unlink(tmp)
    fes = [e for e in prof.function_events if e.trace_name is not None]
    assert len(exported) == len(fes), (len(exported), len(fes))
    pid = os.getpid()
    events, tids = [], set()
    for te, fe in zip(exported, fes):
        assert te["ts"] == fe.time_range.start and te["name"] == fe.trace_name
        cat = "user_annotation" if fe.scope == int(RecordScope.USER_SCOPE) else "cpu_op"
        args = {"Call stack": ";".join(fe.stack)} if fe.stack else {}
        events.append({"ph": "X", "cat": cat, "name": te["name"], "pid": pid, "tid": te["tid"],
                       "ts": te["ts"], "dur": te["dur"], "args": args})
        tids.add(te["tid"])
    result = prof.kineto_results
    start_us = result.trace_start_us()
    nmem = 0
    for a in allocations(result):
        f = a.extra_fields
        if a.start_tid not in tids:
            continue
        events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                       "pid": pid, "tid": a.start_tid, "ts": a.start_time_ns // 1000 - start_us,
                       "args": {"Total Reserved": f.total_reserved,
                                "Total Allocated": f.total_allocated, "Bytes": f.alloc_size,
                                "Addr": f.ptr, "Device Id": -1, "Device Type": 0}})
        nmem += 1
    events.append({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": "rank %d" % rank}})
    doc = {"schemaVersion": 1, "deviceProperties": [],
           "distributedInfo": {"backend": "gloo", "rank": rank, "world_size": WORLD},
           "traceEvents": events}
    path = os.path.join(OUT, "rank-%d.json.gz" % rank)
    with open(path, "wb") as f:
        f.write(gzip.compress(json.dumps(doc, separators=(",", ":")).encode(), 9, mtime=0))
    print("%s: %d events, %d memory records, %d bytes" % (path, len(events), nmem,
                                                          os.path.getsize(path)))


def main():
    if not os.path.exists(os.path.join("data", "record_ranks.py")):
        sys.exit("run from the top of the tree")
    os.makedirs(OUT, exist_ok=True)
    mp.spawn(run, nprocs=WORLD)


if __name__ == "__main__":
    main()
