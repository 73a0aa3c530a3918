#!/usr/bin/env python3
"""The explorer's source pane against analyze --by-line --json: opens the
pane (torch2pprof-tui --replay KEYS --print) on a Python frame of TRACE and
checks that every line of the file shows the self and total time analyze
gives that file:line (summed over functions, as the pane does), "." where
analyze has none, and that no line analyze lists for the file is missing.

usage: check_tui_source.py TOOL TUI TRACE SOURCE_DIR KEYS FILE
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (ms: the text's milliseconds)


def main():
    tool, tui, trace, srcdir, keys, fname = sys.argv[1:7]
    an = json.loads(subprocess.run([tool, "analyze", "--by-line", "--json", trace],
                                   check=True, capture_output=True, text=True).stdout)
    want = {}
    for l in an["lines"]:
        if l["file"] == fname:
            s, t = want.get(l["line"], (0, 0))
            want[l["line"]] = (s + l["self_ns"], t + l["total_ns"])
    if not want:
        sys.exit("FAIL: analyze lists no line of %s in %s" % (fname, trace))
    scr = subprocess.run([tui, "--replay", keys, "--print", "--size", "160x200",
                          "--view", "tree", "--source-path", srcdir, trace],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    # the timing lines of --replay, then the screen
    scr = [l for l in scr if not re.match(r"^(load|first-screen|key|max-key) ", l)]
    if "[Source]" not in scr[2] or fname not in scr[2]:
        sys.exit("FAIL: %s: the pane of %s did not open:\n%s" % (trace, fname, "\n".join(scr[:6])))
    seen = {}
    row = re.compile(r"^[> ]\s+(?:> )?(\d+)\s+(\S+)\s+(\S+)(?: |$)")
    for line in scr[4:]:
        m = row.match(line)
        if m:
            seen[int(m.group(1))] = (m.group(2), m.group(3))
    if not seen:
        sys.exit("FAIL: %s: no source rows" % trace)
    bad = 0
    for n in sorted(set(seen) | set(want)):
        s, t = want.get(n, (0, 0))
        exp = (oracle.ms(s) if s else ".", oracle.ms(t) if t else ".")
        got = seen.get(n)
        if got != exp:
            print("FAIL: %s %s:%d: pane %s, analyze --by-line %s" % (trace, fname, n, got, exp))
            bad = 1
    if not bad:
        print("ok: %s %s: %d lines, %d with time, as analyze --by-line"
              % (trace.split("/")[-1], fname, len(seen), len(want)))
    return bad


sys.exit(main())
