#!/usr/bin/env python3
"""check_analyze_scope.py TOOL TRACE|DIR [SCOPE-OPTION...]: analyze in a
scope counts what convert writes in that scope (#23).

Runs `TOOL analyze --json --top 0 SCOPE TRACE` and `TOOL convert SCOPE TRACE
-o OUT`, then reads OUT with go tool pprof (never with our own decoder), the
independent figure:
  - each function's flat time (pprof's sum of the self samples whose leaf
    is that function, functions grouped by name) equals the self_ns of
    analyze's ops of that name, summed by name (with --short-names both
    sides use the short names);
  - pprof's total equals the scope's selected_ns (the whole model's busy
    time when nothing selects stacks);
  - device_time: pprof's total equals the GPU time analyze's streams show
    for the scope;
  - analyze's "scope" object spells the options given;
and `TOOL analyze SCOPE TRACE` (text) says the scope in its header.
With --expect-fail CODE: analyze must exit CODE and say why on one line,
convert exit CODE too or write its (empty) profile with that reason as a
warning. Exit 0 when all hold, 1 otherwise. Stdlib only."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pprof_top import go_env, top  # noqa: E402


def main(argv):
    expect = None
    if len(argv) > 2 and argv[1] == "--expect-fail":
        expect = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 3:
        print(__doc__)
        return 1
    tool, trace, scope = argv[1], argv[2], argv[3:]
    label = "%s %s" % (os.path.basename(trace.rstrip("/")), " ".join(scope) or "(no scope)")
    bad = []
    work = tempfile.mkdtemp(prefix="t2p-ascope.")
    try:
        out = os.path.join(work, "x.pb.gz")
        a = subprocess.run([tool, "analyze", "--json", "--top", "0"] + scope + [trace],
                           capture_output=True, text=True, errors="replace")
        c = subprocess.run([tool, "convert"] + scope + [trace, "-o", out],
                           capture_output=True, text=True, errors="replace")
        if expect is not None:
            # convert exits so too, or (a selection that is empty, as pprof
            # -focus makes it) writes the empty profile with analyze's reason
            # as a warning
            reason = a.stderr.strip().replace("torch2pprof analyze: ", "", 1)
            warned = c.returncode == 0 and \
                "torch2pprof convert: warning: " + reason in c.stderr
            if a.returncode != expect or (c.returncode != expect and not warned):
                bad.append("analyze exited %d, convert %d; want %d (%s / %s)"
                           % (a.returncode, c.returncode, expect, a.stderr.strip(),
                              c.stderr.strip()))
            lines = a.stderr.strip().split("\n")
            if len(lines) != 1 or not lines[0].startswith("torch2pprof analyze: "):
                bad.append("analyze's reason is not one line: %r" % a.stderr)
            return report(label, bad)
        if a.returncode != 0 or c.returncode != 0:
            bad.append("analyze exited %d (%s), convert %d (%s)"
                       % (a.returncode, a.stderr.strip(), c.returncode, c.stderr.strip()))
            return report(label, bad)
        d = json.loads(a.stdout)
        sc = d.get("scope", {})
        for opt in scope:
            if opt.startswith("--") and opt not in sc.get("options", ""):
                bad.append("scope.options %r does not say %s" % (sc.get("options"), opt))
        ours = {}
        for o in d["ops"]:
            ours[o["name"]] = ours.get(o["name"], 0) + o["self_ns"]
        go, env = shutil.which("go") or "go", go_env(work)
        rows, total = top(go, env, out, "time")
        flat = {n: r[0] for n, r in rows.items()}
        selected = sc.get("selected_ns", d["busy_ns"])
        if total != selected:
            bad.append("pprof total %d != analyze's selected %d" % (total, selected))
        if sum(ours.values()) != selected:
            bad.append("analyze's ops sum to %d, its scope to %d" % (sum(ours.values()), selected))
        names = set(ours) | set(flat)
        diff = [n for n in names if ours.get(n, 0) != flat.get(n, 0)]
        for n in sorted(diff)[:5]:
            bad.append("%s: analyze self %d, pprof flat %d" % (n, ours.get(n, 0), flat.get(n, 0)))
        if not [n for n in ours if ours[n]]:
            bad.append("no operator with self time: a scope that tests nothing")
        if d.get("gpu_events") and "selected_ns" in sc:
            dev = sum(s["gpu_ns"] for s in d["streams"])
            _, dtotal = top(go, env, out, "device_time")
            if dtotal != dev:
                bad.append("pprof device_time total %d != analyze's streams %d" % (dtotal, dev))
        t = subprocess.run([tool, "analyze", "--top", "3"] + scope + [trace],
                           capture_output=True, text=True, errors="replace")
        if t.returncode != 0:
            bad.append("analyze (text) exited %d: %s" % (t.returncode, t.stderr.strip()))
        elif scope and not re.search(r"^Scope: ", t.stdout, re.M):
            bad.append("the text report does not say the scope")
        print("%s: %d operators, %d ns selected" % (label, len(ours), selected))
        return report(label, bad)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(label, bad):
    for b in bad:
        print("FAIL %s: %s" % (label, b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
