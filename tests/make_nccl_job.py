#!/usr/bin/env python3
"""Write a synthetic multi-rank job with NCCL collectives and known arrival skews.

usage: make_nccl_job.py OUTDIR N [--seq] [--memory RANKS] [--world W]
Rank r: three ProfilerStep#k steps of 10 ms; in each, aten::mm (CPU, 2 ms x (1 + r/10)), a
compute kernel, then an allreduce on process group "0": record_param_comms (CPU, with the NCCL
metadata PyTorch writes: Collective name, Process Group Name, In msg nelems, dtype, Group size,
and Seq with --seq) launching ncclDevKernel_AllReduce_Sum_f32_RING_LL whose args carry nothing
(the metadata is linked through External id). The kernel of step k starts at k*10 ms + 5 ms +
SKEW[r] and every rank's ends at k*10 ms + 8 ms: rank N-1 arrives last. A broadcast on group
"1" per step is matched by order. --memory 0,2: those ranks carry [memory] instants.
Also writes OUTDIR.expect.json: per matched call (in arrival order) the waits by rank, the
last rank and the transfer, computed here from the definitions, independently of the tool.
"""
import gzip, json, os, sys

out, n = sys.argv[1], int(sys.argv[2])
seq = "--seq" in sys.argv
mem = set()
world = n
if "--memory" in sys.argv:
    mem = {int(x) for x in sys.argv[sys.argv.index("--memory") + 1].split(",") if x}
if "--world" in sys.argv:
    world = int(sys.argv[sys.argv.index("--world") + 1])
os.makedirs(out, exist_ok=True)
BASE = 1700000000000000000
SKEW = [r * 150 for r in range(n)]   # us: rank r arrives 150 us x r after rank 0
calls = []


def ev(name, cat, pid, tid, ts, dur, **args):
    e = {"ph": "X", "name": name, "cat": cat, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


for r in range(n):
    E = [{"ph": "M", "name": "process_labels", "pid": 0, "args": {"labels": "GPU 0"}},
         {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}},
         {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]
    ext = 100
    corr = 1000
    for k in range(3):
        t = 1000 + k * 10000
        E.append(ev("ProfilerStep#%d" % k, "user_annotation", 1, 1, t, 9900))
        mm = int(2000 * (1 + r / 10))
        E.append(ev("aten::mm", "cpu_op", 1, 1, t + 100, mm, **{"External id": ext}))
        E.append(ev("cudaLaunchKernel", "cuda_runtime", 1, 1, t + 150, 20, correlation=corr,
                    **{"External id": ext}))
        E.append(ev("ampere_sgemm_128x64_tn", "kernel", 0, 7, t + 200, 1500, correlation=corr,
                    **{"External id": ext}))
        ext += 1
        corr += 1
        arrive = t + 5000 + SKEW[r]
        end = t + 8000
        meta = {"Collective name": "allreduce", "Process Group Name": "0",
                "In msg nelems": 1048576, "Out msg nelems": 1048576, "dtype": "Float",
                "Group size": n, "External id": ext}
        if seq:
            meta["Seq"] = k + 1
        E.append(ev("record_param_comms", "cpu_op", 1, 1, arrive - 100, 60, **meta))
        E.append(ev("cudaLaunchKernel", "cuda_runtime", 1, 1, arrive - 90, 20, correlation=corr,
                    **{"External id": ext}))
        E.append(ev("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                    "kernel", 0, 20, arrive, end - arrive, correlation=corr,
                    **{"External id": ext}))
        ext += 1
        corr += 1
        # a broadcast on group "1": metadata on the kernel itself (PyTorch >= 2.3), no Seq
        b = t + 9000 + (n - 1 - r) * 10   # rank 0 arrives last here
        E.append(ev("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
                    "kernel", 0, 20, b, 9200 + t - b, **{"Collective name": "broadcast",
                    "Process Group Name": "1", "In msg nelems": 10, "dtype": "Long"}))
        if r in mem:
            E.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": t + 120,
                      "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096 + k, "Bytes": 4096,
                               "Total Allocated": 4096, "Total Reserved": 8192}})
            E.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": t + 900,
                      "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096 + k, "Bytes": -4096,
                               "Total Allocated": 0, "Total Reserved": 8192}})
    E.sort(key=lambda e: e.get("ts", -1))
    d = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": r, "world_size": world},
         "baseTimeNanoseconds": BASE, "traceEvents": E}
    with gzip.open(os.path.join(out, "rank-%d.json.gz" % r), "wt") as f:
        json.dump(d, f)

# the expected matches, from the definitions (wait = last arrival - own arrival)
exp = []
for k in range(3):
    t = 1000 + k * 10000
    arr = {r: (BASE + (t + 5000 + SKEW[r]) * 1000) for r in range(n)}
    last = max(arr.values())
    lr = min(r for r in range(n) if arr[r] == last)
    exp.append({"name": "allreduce", "process_group": "0", "seq": k + 1 if seq else None,
                "bytes": 4 * 1048576, "last_rank": lr, "transfer_ns": BASE + (t + 8000) * 1000 - last,
                "wait": {r: last - arr[r] for r in range(n)}})
    arr = {r: BASE + (t + 9000 + (n - 1 - r) * 10) * 1000 for r in range(n)}
    last = max(arr.values())
    lr = min(r for r in range(n) if arr[r] == last)
    exp.append({"name": "broadcast", "process_group": "1", "seq": None, "bytes": 80,
                "last_rank": lr, "transfer_ns": BASE + (t + 9200) * 1000 - last,
                "wait": {r: last - arr[r] for r in range(n)}})
json.dump(exp, open(out.rstrip("/") + ".expect.json", "w"))
