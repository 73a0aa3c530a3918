#!/usr/bin/env python3
"""Check Python source lines in `torch2pprof convert` (read back by go tool pprof)
and `torch2pprof analyze --by-line --json` against a second computation.

usage: check_pylines.py TOOL TRACE [SOURCE_DIR FUNCTION]

The oracle here works on the trace's events, not on any tree: per track, events
sorted by (ts, -dur), an event's parent is the innermost open one that fully
contains it, self = dur - the union of its direct children. An event's Python
frames: a python_function event is one frame (its name "file.py(LINE): fn");
an event's args["Call stack"] (innermost first, ';'-joined) adds the frames
its nearest enclosing event with a Call stack does not end with. A source line
(file, line, function) then has
  self  = self time of the python_function events that are that line,
  total = self time of every event with that line on its stack, once each,
which is what pprof means by flat and cum with -lines. Checked: pprof -lines
-top (flat, cum per line), with SOURCE_DIR pprof -list FUNCTION -source_path
SOURCE_DIR (per line of the file), and analyze --by-line --json ("lines").
Exits 77 without python frames in TRACE or without go.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pprof_top import go_env, number, pprof, top  # noqa: E402

FRAME = re.compile(r"^(.+?)\((\d+)\): ?(.*)$", re.S)
MAX_SHOWN = 20


def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value())


def parse_frame(text):
    """(file, line, function), or None for a frame without a file."""
    m = FRAME.match(text)
    if not m:
        return None
    return (m.group(1), int(m.group(2)), m.group(3))


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw, parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def oracle(events, passes=None):
    """{(file, line, function): [self, total]}, None without Python frames.
    passes: when given, only the events whose stack of names (outermost
    first, ProfilerStep#N named ProfilerStep*) it accepts count: the lines
    of a scope of stacks (check_focus_figures.py)."""
    tracks = {}
    for i, e in enumerate(events):
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e or "dur" not in e:
            continue
        cat = e.get("cat", "")
        if cat == "Trace":
            continue
        d = ns(e["dur"])
        if d < 0:
            continue
        tracks.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(
            (ns(e["ts"]), d, i, e))
    lines = {}  # (file, line, fn) -> [self, total]
    any_frames = False
    for evs in tracks.values():
        evs.sort(key=lambda r: (r[0], -r[1], r[2]))
        # per open event: end, cover, cover_end, its frame keys set, call stack in effect
        stack = []
        done = []  # (self, keys, own key) for every event
        def close(fr):
            if passes is not None and not passes(fr["names"]):
                return
            self_ns = fr["dur"] - fr["cover"]
            done.append((self_ns, fr["keys"], fr["own"]))
        for ts, dur, _, e in evs:
            end = ts + dur
            while stack and stack[-1]["end"] < end:
                close(stack.pop())
            parent = stack[-1] if stack else None
            if parent is not None:
                frm = max(ts, parent["cover_end"])
                if end > frm:
                    parent["cover"] += end - frm
                parent["cover_end"] = max(parent["cover_end"], end)
            keys = set(parent["keys"]) if parent else set()
            outer = parent["cs"] if parent else None
            cs = e.get("args", {}).get("Call stack") if isinstance(e.get("args"), dict) else None
            if isinstance(cs, str) and cs:
                frames = cs.split(";")
                added = list(frames)
                if outer is not None:
                    o = outer.split(";")
                    while added and o and added[-1] == o[-1]:
                        added.pop()
                        o.pop()
                for fr in added:
                    k = parse_frame(fr)
                    if k:
                        keys.add(k)
                        any_frames = True
                eff = cs
            else:
                eff = outer
            own = None
            if str(e.get("cat", "")).lower() in ("python_function", "python"):
                own = parse_frame(e.get("name", ""))
                if own:
                    keys.add(own)
                    any_frames = True
            name = str(e.get("name", ""))
            if name.startswith("ProfilerStep#"):
                name = "ProfilerStep*"
            names = (parent["names"] if parent else []) + [name]
            stack.append({"end": end, "dur": dur, "cover": 0, "cover_end": ts, "keys": keys,
                          "cs": eff, "own": own, "names": names})
            if dur == 0:  # a zero-length event is never a parent
                close(stack.pop())
        while stack:
            close(stack.pop())
        for self_ns, keys, own in done:
            for k in keys:
                v = lines.setdefault(k, [0, 0])
                v[1] += self_ns
            if own:
                lines.setdefault(own, [0, 0])[0] += self_ns
    return lines if any_frames else None


def report(trace, bad, what):
    if not bad:
        print("check_pylines: %s: ok: %s" % (trace, what))
        return 0
    print("check_pylines: %s: %d mismatches" % (trace, len(bad)))
    for b in bad[:MAX_SHOWN]:
        print("  " + b)
    return 1


LINE_ROW = re.compile(r"^(.*) (\S+):(\d+)$")
LIST_ROW = re.compile(r"^\s*(\S+)\s+(\S+)\s+(\d+):")


def value(s):
    return 0 if s == "." else number(s)


def main(argv):
    if len(argv) not in (2, 4):
        print(__doc__, file=sys.stderr)
        return 2
    tool, trace = argv[0], argv[1]
    want = oracle(load(trace))
    if want is None:
        print("check_pylines: %s: no Python frames, cannot run" % trace)
        return 1
    bad = []
    checked = []

    a = subprocess.run([tool, "analyze", "--by-line", "--json", "--top", "0", trace],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if a.returncode != 0:
        bad.append("analyze --by-line exited %d: %s" % (a.returncode, a.stderr.decode()[:300]))
    else:
        got = {}
        for r in json.loads(a.stdout).get("lines", []):
            got[(r["file"], r["line"], r["function"])] = (r["self_ns"], r["total_ns"])
        for k, (s, t) in want.items():
            if got.get(k) != (s, t):
                bad.append("analyze --by-line %s:%d %s: got %s, oracle (%d, %d)"
                           % (k[0], k[1], k[2], got.get(k), s, t))
        for k in got:
            if k not in want:
                bad.append("analyze --by-line lists %r, the oracle does not" % (k,))
        checked.append("analyze --by-line %d lines" % len(got))

    go = shutil.which("go")
    if not go:
        bad.append("go missing: pprof cannot be checked (./setup.sh --test installs it)")
        return report(trace, bad, ", ".join(checked))
    tmp = tempfile.mkdtemp(prefix="t2p-pylines-")
    env = go_env(tmp)
    try:
        out = os.path.join(tmp, "out.pb.gz")
        c = subprocess.run([tool, "convert", trace, out], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if c.returncode != 0:
            bad.append("convert exited %d" % c.returncode)
            return report(trace, bad, "")
        rows, _ = top(go, env, out, "time", ["-lines"])
        # pprof names a line "FUNCTION FILE:LINE"; file names may hold spaces
        names = {"%s %s:%d" % (k[2], k[0], k[1]): k for k in want}
        seen = {}
        for name, (flat, cum) in rows.items():
            if name in names:
                seen[names[name]] = (flat, cum)
            elif LINE_ROW.match(name) and not name.endswith(":0"):
                bad.append("pprof -lines lists %r, the oracle does not" % name)
        for k, (s, t) in want.items():
            if seen.get(k) != (s, t):
                bad.append("pprof -lines %s:%d %s: got %s, oracle (%d, %d)"
                           % (k[0], k[1], k[2], seen.get(k), s, t))
        checked.append("pprof -lines %d lines" % len(seen))

        if len(argv) == 4:
            src, fn = argv[2], argv[3]
            cmd, p = pprof(go, env, ["-list", "^%s$" % re.escape(fn), "-unit=ns",
                                     "-source_path", src], out)
            text = p.stdout.decode(errors="replace")
            if p.returncode != 0:
                bad.append("`%s` exited %d" % (" ".join(cmd), p.returncode))
            files = {k[0] for k in want if k[2] == fn and os.path.exists(os.path.join(src, k[0]))}
            if not files:
                bad.append("no line of %s in a file under %s" % (fn, src))
            for f in files:
                head = "ROUTINE ======================== %s in %s" % (fn, f)
                if head not in text:
                    bad.append("pprof -list shows no %r" % head)
                    continue
                part = text.split(head, 1)[1].split("ROUTINE", 1)[0]
                listed = {}
                for ln in part.split("\n"):
                    m = LIST_ROW.match(ln)
                    if m:
                        listed[int(m.group(3))] = (value(m.group(1)), value(m.group(2)))
                for k, (s, t) in want.items():
                    if k[0] == f and k[2] == fn and listed.get(k[1]) != (s, t):
                        bad.append("pprof -list %s:%d: got %s, oracle (%d, %d)"
                                   % (f, k[1], listed.get(k[1]), s, t))
                hot = sum(1 for v in listed.values() if v != (0, 0))
                checked.append("pprof -list %s in %s: %d lines with time" % (fn, f, hot))
                if hot == 0:
                    bad.append("pprof -list %s in %s: no line with time" % (fn, f))
        return report(trace, bad, ", ".join(checked))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
