#!/usr/bin/python3
"""Regenerate tests/fixtures/pystack_train.json.gz and .expected.json with the REAL
PyTorch profiler and with_stack=True.

Usage (from the top of the tree, so frames name tests/fixtures/pysrc/tiny_model.py
relative to it):  /usr/bin/python3 tests/record_pystack.py

What Debian's torch 1.13 (built without Kineto) does with with_stack=True: every
FunctionEvent of an operator called while Python runs gets .stack, the Python
frames innermost first, each "path/file.py(LINE): function" with LINE the line
running, plus "nn.Module: Name_0" and "<built-in ...>" entries; an operator
called inside another from the same line carries the same stack. But its
export_chrome_trace() writes "args": {} and drops the stacks. Early Kineto
(PyTorch 1.8-1.9) wrote the same frames into args["Call stack"] joined by ';'.
So this script writes export_chrome_trace()'s own output (asserted equal to
the FunctionEvents, as in record_fixtures.py) with each event's stack added as
args["Call stack"], the form ../shared/traces/tb_resnet50_w0.json.gz has.
Frames inside torch are shortened by PyTorch itself ("torch/nn/modules/...").

NAME.expected.json: key_averages() per name (count, self_ns, total_ns) as in
record_fixtures.py, and key_averages(group_by_stack_n=1) per (name, innermost
frame): {"name", "frame", "count", "total_ns"}.
"""
import gzip
import json
import os
import sys
import tempfile

import torch
import torch.autograd.profiler as profiler

sys.path.insert(0, os.path.join("tests", "fixtures", "pysrc"))
import tiny_model  # noqa: E402

NAME = "pystack_train"
OUT = os.path.join("tests", "fixtures")


def main():
    if not os.path.exists(os.path.join(OUT, "pysrc", "tiny_model.py")):
        sys.exit("run from the top of the tree")
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = tiny_model.Tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))
    for _ in range(2):
        tiny_model.train_step(model, opt, x, y)
    with profiler.profile(with_stack=True) as prof:
        for _ in range(3):
            tiny_model.train_step(model, opt, x, y)
    events = prof.function_events
    fd, tmp = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(tmp)
        with open(tmp) as f:
            trace = json.load(f)
    finally:
        os.unlink(tmp)
    exported = [e for e in events if e.trace_name is not None]
    assert len(trace) == len(exported), (len(trace), len(exported))
    nstack = 0
    for te, fe in zip(trace, exported):
        assert te["ts"] == fe.time_range.start and te["dur"] == fe.time_range.elapsed_us()
        assert te["name"] == fe.trace_name and te.get("args", {}) == {}, te
        if fe.stack:
            te["args"] = {"Call stack": ";".join(fe.stack)}
            nstack += 1
    assert nstack > 0, "no stacks recorded"

    by_name = {}
    for avg in prof.key_averages():
        d = by_name.setdefault(avg.key, {"name": avg.key, "count": 0, "self_ns": 0, "total_ns": 0})
        d["count"] += avg.count
        d["self_ns"] += avg.self_cpu_time_total * 1000
        d["total_ns"] += avg.cpu_time_total * 1000
    by_frame = []
    for avg in prof.key_averages(group_by_stack_n=1):
        by_frame.append({"name": avg.key, "frame": avg.stack[0] if avg.stack else "",
                         "count": avg.count, "total_ns": avg.cpu_time_total * 1000})
    by_frame.sort(key=lambda d: (d["name"], d["frame"]))
    ver = ".".join(torch.__version__.split(".")[:2])
    expected = {"source": "torch %s key_averages" % ver,
                "ops": [by_name[k] for k in sorted(by_name)],
                "by_innermost_frame": by_frame}
    raw = json.dumps(trace).encode()
    with open(os.path.join(OUT, NAME + ".json.gz"), "wb") as f:
        f.write(gzip.compress(raw, compresslevel=9, mtime=0))
    with open(os.path.join(OUT, NAME + ".expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print("%s: %d events, %d with a Call stack, %d names" % (NAME, len(trace), nstack,
                                                             len(by_name)))


if __name__ == "__main__":
    main()
