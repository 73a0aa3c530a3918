#!/usr/bin/python3
"""Record TensorBoard's step figures for the shared traces, as test fixtures.

Usage:
    /usr/bin/python3 tests/record_tb_steps.py TB_PLUGIN_DIR [TRACE ...]

TB_PLUGIN_DIR is the `tb_plugin` directory of pytorch/kineto as it was just before
the commit "Remove kineto tb_plugin directory entirely" (94979607), i.e. at commit
041e7ce99f1562dd81232ee58b7c454ef16bfae2. Get it outside this repository, e.g.:

    git clone https://github.com/pytorch/kineto /tmp/kineto
    mkdir -p /tmp/tb && git -C /tmp/kineto archive \
        041e7ce99f1562dd81232ee58b7c454ef16bfae2 tb_plugin/torch_tb_profiler | tar -x -C /tmp/tb
    /usr/bin/python3 tests/record_tb_steps.py /tmp/tb/tb_plugin

Needs Debian's python3-pandas (hence /usr/bin/python3). Without TRACE arguments it
records every trace of ../shared/traces that holds a ProfilerStep# event.

We only RUN the plugin's parser (RunProfileData.parse, as its own loader calls it);
none of its code is copied here. For each trace NAME it writes
tests/fixtures/tb_steps/NAME.json:

    {"source": "...", "trace": "NAME.json.gz",
     "us": {...}, "ns": {...}}

"us" is what TensorBoard showed: the plugin run on the file as is. It reads `ts`/`dur`
with Python's json (doubles, microseconds), so on traces with three-decimal timestamps
near 1.7e15 us each time is rounded to a multiple of 0.25 us.
"ns" is the plugin run on the same events with every `ts`/`dur` converted exactly (from
the decimal text) to integer nanoseconds: the same rules, no rounding, so our integer
figures must equal these exactly. Both hold:

    steps:           [{"name", "start", "end"}]  the windows the plugin split (kept steps)
    steps_costs:     per step, the nine figures in ProfileRole order: kernel, memcpy,
                     memset, communication, runtime, dataloader, cpu_op, other, total
    avg_costs:       the same nine, averaged over the kept steps
    comm_overlap:    per step {computation, communication, overlap, other}
    recommendations: the plugin's texts (HTML as it produced them)
    used_devices, use_dp, use_ddp, peak_memory ({"dev_type/dev_id": bytes}),
    total_global_mem (from deviceProperties)
"""
import decimal
import gzip
import json
import logging
import os
import sys
import tempfile

ROLES = ["kernel", "memcpy", "memset", "communication", "runtime", "dataloader",
         "cpu_op", "other", "total"]

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "traces")
OUT = os.path.join(HERE, "fixtures", "tb_steps")


def read_json(path, parse_float=None):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data, parse_float=parse_float)


def to_ns(v):
    """A ts/dur as the file wrote it (int, Decimal or numeric string) -> int ns."""
    if isinstance(v, str):
        v = decimal.Decimal(v)
    return int(decimal.Decimal(v) * 1000)


def floats(v):
    """Decimals back to floats (args, metadata): only ts/dur stay exact."""
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, dict):
        return {k: floats(x) for k, x in v.items()}
    if isinstance(v, list):
        return [floats(x) for x in v]
    return v


def has_steps(path):
    d = read_json(path)
    ev = d.get("traceEvents", []) if isinstance(d, dict) else []
    return any(str(e.get("name", "")).startswith("ProfilerStep#") for e in ev
               if isinstance(e, dict))


def run(tb, trace_json):
    """Run the plugin on a loaded trace; return its figures."""
    from torch_tb_profiler.profiler import data as tbdata
    from torch_tb_profiler.profiler import overall_parser

    seen = {}
    orig = overall_parser.OverallParser.aggregate

    def spy(self, steps, role_ranges):
        seen["steps"] = list(steps)
        return orig(self, steps, role_ranges)

    overall_parser.OverallParser.aggregate = spy
    try:
        p = tbdata.RunProfileData.from_json("worker0", "span0", trace_json)
    finally:
        overall_parser.OverallParser.aggregate = orig

    peaks = {}
    if p.memory_snapshot:
        for (dt, di), v in p.memory_snapshot.get_peak_memory().items():
            peaks["%s/%s" % (int(dt) if dt is not None else None, di)] = v
    props = p.device_props or []
    return {
        "steps": [{"name": n, "start": s, "end": e}
                  for n, (s, e) in zip(p.steps_names, seen["steps"])],
        "steps_costs": [dict(zip(ROLES, c.costs)) for c in p.steps_costs],
        "avg_costs": dict(zip(ROLES, p.avg_costs.costs)),
        "comm_overlap": [dict(vars(c)) for c in p.comm_overlap_costs],
        "recommendations": p.recommendations,
        "used_devices": p.used_devices,
        "use_dp": p.use_dp,
        "use_ddp": p.use_ddp,
        "peak_memory": peaks,
        "total_global_mem": [d.get("totalGlobalMem") for d in props if isinstance(d, dict)],
    }


def record(tb, path):
    name = os.path.basename(path)
    # as TensorBoard read it: doubles in microseconds
    as_us = run(tb, read_json(path))
    # exact: every ts/dur an integer number of ns
    d = read_json(path, parse_float=decimal.Decimal)
    events = d["traceEvents"]
    d = floats({k: v for k, v in d.items() if k != "traceEvents"})
    d["traceEvents"] = []
    for e in events:
        if not isinstance(e, dict):
            continue
        t = floats({k: v for k, v in e.items() if k not in ("ts", "dur")})
        for k in ("ts", "dur"):
            if k in e and e[k] is not None:
                t[k] = to_ns(e[k])
        d["traceEvents"].append(t)
    as_ns = run(tb, d)
    return {
        "source": "pytorch/kineto tb_plugin @041e7ce99f1562dd81232ee58b7c454ef16bfae2, "
                  "RunProfileData; recorded by tests/record_tb_steps.py",
        "trace": name,
        "us": as_us,
        "ns": as_ns,
    }


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tb = os.path.abspath(sys.argv[1])
    sys.path.insert(0, tb)
    logging.disable(logging.CRITICAL)
    import torch_tb_profiler.profiler.data  # noqa: F401  fail early when the path is wrong

    traces = sys.argv[2:]
    if not traces:
        traces = [os.path.join(SHARED, f) for f in sorted(os.listdir(SHARED))
                  if has_steps(os.path.join(SHARED, f))]
    os.makedirs(OUT, exist_ok=True)
    for path in traces:
        name = os.path.basename(path)
        for ext in (".json.gz", ".json"):
            if name.endswith(ext):
                name = name[: -len(ext)]
                break
        res = record(tb, path)
        fd, tmp = tempfile.mkstemp(dir=OUT)
        with os.fdopen(fd, "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
            f.write("\n")
        os.chmod(tmp, 0o644)
        os.rename(tmp, os.path.join(OUT, name + ".json"))
        print("%-40s %d steps" % (name, len(res["us"]["steps"])))


if __name__ == "__main__":
    main()
