#!/usr/bin/env python3
"""The Tree's memory columns against analyze --json.

usage: check_tree_memory.py TOOL TUI TRACE [ROWS]

For each of the first ROWS (default 6) operator rows of the Memory view,
Enter focuses the Tree on the operator; the Tree's root row then holds every
stack through it, so its Allocs and Increase (including children, on the
row's device) must be the operator's alloc_count and increase_bytes in
analyze --json's memory ops (a sum over records, computed apart from the
per-node figures the Tree shows). Exit 0 if equal, 1 otherwise, 77 when a
program is missing.
"""
import json
import os
import re
import subprocess
import sys

UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}


TITLES = ["Total ms", "%", "Self ms", "Calls", "Dev self ms", "Dev total ms", "Alloc size",
          "Increase", "Allocs", "Self size", "Self allocs", "Self incr."]
SIZES = ("Alloc size", "Increase", "Self size", "Self incr.")


def cells(header, line):
    """the figures of a tree row by column title (a size is "3.4 MiB": two words)"""
    shown = sorted((header.index(t), t) for t in TITLES
                   if re.search(r"(^|\s)" + re.escape(t) + r"(\W|$)", header))
    words, out = line.lstrip(">").split(), {}
    for _, t in shown:
        n = 2 if t in SIZES else 1
        out[t], words = " ".join(words[:n]), words[n:]
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, tui, trace = argv[:3]
    rows = int(argv[3]) if len(argv) > 3 else 6
    if not all(os.access(p, os.X_OK) for p in (tool, tui)):
        print("cannot run: %s or %s missing" % (tool, tui))
        return 1
    figs = json.loads(subprocess.check_output([tool, "analyze", "--json", "--top", "0", trace]))
    ops = {(o["name"], o["device"]): o for o in figs["memory"]["ops"]}
    ndev = len(figs["memory"]["devices"])
    bad = 0
    for k in range(rows):
        # the chart: 9 lines per device and a blank, then the operators
        keys = "8" + " j" * (ndev * 9 + 1 + k) + " <Enter>"
        out = subprocess.check_output([tui, "--replay", keys, "--print", "--size", "200x50",
                                       trace], stderr=subprocess.DEVNULL).decode()
        lines = out.splitlines()
        scope = next(l for l in lines if l.startswith("Scope: "))
        name = re.match(r"Scope: all › (.*?) \| ", scope).group(1)
        dev = re.search(r"memory on (\S+)", out).group(1)
        header = next(l for l in lines if "Alloc size" in l)
        root = next(l for l in lines if "(all tracks)" in l or "thread " in l)
        c = cells(header, root)
        got_allocs = int(c["Allocs"].replace(",", ""))
        size, unit = c["Alloc size"].split()
        want = ops[(name, dev)]
        # sizes are shown to 3 significant figures: equal within rounding
        shown = float(size) * UNITS[unit]
        ok = got_allocs == want["alloc_count"] and abs(shown - want["alloc_bytes"]) <= \
            0.05 * UNITS[unit] + 0.0051 * want["alloc_bytes"]
        print("%s: %s on %s: Tree root %d allocs, %s %s; analyze %d allocs, %d B" % (
            "ok" if ok else "MISMATCH", name, dev, got_allocs, size, unit,
            want["alloc_count"], want["alloc_bytes"]))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
