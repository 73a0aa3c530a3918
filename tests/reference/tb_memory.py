#!/usr/bin/python3
"""Reference memory figures from TensorBoard's PyTorch profiler plugin, as fixtures.

Usage:  /usr/bin/python3 tests/reference/tb_memory.py TB_PLUGIN_DIR [TRACE ...]

TB_PLUGIN_DIR is kineto's tb_plugin/ directory from the tree just before the commit
"Remove kineto tb_plugin directory entirely" (949796072a88, kineto #1368), extracted
OUTSIDE this repository, e.g.
    git -C KINETO_GIT archive 949796072a88^ tb_plugin | tar -x -C /tmp/kineto
    /usr/bin/python3 tests/reference/tb_memory.py /tmp/kineto/tb_plugin
It runs with Debian's python3-pandas. The plugin is run, never copied: this script
only calls it and writes what it computed. Tests read the fixtures, never the plugin.

Default TRACEs: ../shared/traces/tb_resnet50_w0.json.gz and
tests/fixtures/cnn_memory.json.gz (tests/record_memory.py). For each it writes
tests/fixtures/<name>.tb_memory.json:
  "peaks":  {device: bytes}  MemorySnapshot.get_peak_memory(): the largest
            "Total Allocated" per device ({} when the trace has no such field)
  "ops":    one row per (device, operator name) from
            MemorySnapshot.get_memory_statistics(tid2tree), the memory view's table:
            alloc_count, alloc_bytes, increase_bytes (with children),
            self_alloc_count, self_alloc_bytes, self_increase_bytes, calls
  "records", "processed_records", "staled_records": memory events read, attributed
            to an operator, and left unattributed (outside any operator: the plugin
            drops those from the table)
  "tb_dropped": events the plugin left out of its operator tree, from its own log
            ("ranges on the same thread should not intersect"): an operator that ends
            after its parent (1 us rounding in legacy traces). The plugin gives their
            memory to the parent; we keep such an event as the innermost one, so the
            test skips the figures of these names and of their ancestors' names.
  "events": {device: [[op, bytes, alloc_us, free_us, lifetime_us], ...]}
            RunProfile.get_memory_events() in B and us (times relative to
            "profiler_start_us"): allocations matched to frees by address; free_us
            null = still allocated at the end; alloc_us null = freed, allocated before
            the window. Empty when the trace has no "Addr" (PyTorch < 1.10).
Device names are the plugin's: "CPU", "GPU0", "GPU1", ...
"""
import json
import logging
import os
import re
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(TOP, "tests", "fixtures")
DEFAULT_TRACES = [
    os.path.join(TOP, "..", "shared", "traces", "tb_resnet50_w0.json.gz"),
    os.path.join(FIXTURES, "cnn_memory.json.gz"),
]
METRIC_KEYS = ["self_increase_bytes", "self_alloc_bytes", "self_alloc_count",
               "increase_bytes", "alloc_bytes", "alloc_count", "calls"]


def device_name(dev_type, dev_id):
    return "CPU" if int(dev_type) == 0 else "GPU%d" % dev_id


def reference(path):
    from torch_tb_profiler.profiler.data import RunProfileData
    from torch_tb_profiler.profiler.run_generator import RunGenerator

    with tempfile.TemporaryDirectory() as cache:
        data = RunProfileData.parse("worker0", "span", path, cache)
    snap = data.memory_snapshot
    out = {"source": "TensorBoard torch_tb_profiler (kineto tb_plugin before its removal), "
                     "MemorySnapshot and RunProfile.get_memory_events",
           "trace": os.path.basename(path),
           "records": len(snap.memory_records) if snap else 0,
           "processed_records": 0, "staled_records": 0,
           "profiler_start_us": data.profiler_start_ts,
           "peaks": {}, "ops": [], "tb_dropped": [], "events": {}}
    if not snap:
        return out
    peaks = snap.get_peak_memory()
    out["peaks"] = {device_name(t, i): int(v) for (t, i), v in sorted(peaks.items())}
    stats = snap.get_memory_statistics(data.tid2tree)
    for dev in sorted(stats):
        for name in sorted(stats[dev]):
            row = {"device": dev, "name": name}
            row.update({k: int(v) for k, v in zip(METRIC_KEYS, stats[dev][name])})
            out["ops"].append(row)

    run = RunGenerator("worker0", "span", data).generate_run_profile()
    ev = run.get_memory_events(time_metric="us", memory_metric="B")
    out["events"] = {dev: rows for dev, rows in sorted(ev["rows"].items())}
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.path.insert(0, os.path.abspath(sys.argv[1]))
    warnings.simplefilter("ignore")
    import torch_tb_profiler.profiler.memory_parser as mp

    # count what the plugin attributed and what it dropped, from its own lists
    counts = {}
    orig = mp.MemoryParser.find_memory_nodes

    def find_memory_nodes(self, tid2tree):
        snap = orig(self, tid2tree)
        counts["processed"] = len(self.processed_records)
        counts["staled"] = len(self.staled_records)
        return snap
    mp.MemoryParser.find_memory_nodes = find_memory_nodes

    dropped = []
    pat = re.compile(r"Father:\((.*),(-?[0-9.]+),(-?[0-9.]+)\) Child:\((.*),(-?[0-9.]+),(-?[0-9.]+)\)")

    class Dropped(logging.Handler):
        def emit(self, rec):
            m = pat.search(rec.getMessage())
            if m:
                dropped.append({"name": m.group(4), "start_us": float(m.group(5)),
                                "end_us": float(m.group(6)), "parent": m.group(1),
                                "parent_start_us": float(m.group(2)),
                                "parent_end_us": float(m.group(3))})
    from torch_tb_profiler import utils
    utils.get_logger().addHandler(Dropped())

    for path in sys.argv[2:] or DEFAULT_TRACES:
        counts.clear()
        del dropped[:]
        out = reference(path)
        out["processed_records"] = counts.get("processed", 0)
        out["staled_records"] = counts.get("staled", 0)
        out["tb_dropped"] = list(dropped)
        name = os.path.basename(path)
        for ext in (".gz", ".json", ".pt.trace"):
            if name.endswith(ext):
                name = name[:-len(ext)]
        dest = os.path.join(FIXTURES, name + ".tb_memory.json")
        with open(dest, "w") as f:
            json.dump(out, f, indent=1, sort_keys=False)
            f.write("\n")
        print("%-28s %6d records (%d attributed, %d outside any operator), %d op rows, "
              "peaks %s" % (os.path.basename(dest), out["records"], out["processed_records"],
                            out["staled_records"], len(out["ops"]), out["peaks"]))


if __name__ == "__main__":
    main()
