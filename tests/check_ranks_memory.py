#!/usr/bin/env python3
"""Memory per rank of a job of tiny ranks (issue 23): analyze and the
explorer on 200 and on 2,000 copies of a two-event trace, each with its
distributedInfo.rank. The growth of peak RSS (from wait4) per added rank
must stay under a generous bound: a rank holding two events once cost
~280 KB in analyze and ~580 KB in the explorer (fixed-size string tables,
node and op arrays), and now costs a few KB.

usage: check_ranks_memory.py TOOL TUI
Exit 0 if both stay under the bound, 1 otherwise, 77 without GNU time. Stdlib only; no timing.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

SMALL, LARGE = 200, 2000
TIME = "/usr/bin/time"  # GNU time: -f %M is the peak RSS in KB
BOUND_KB = {"analyze": 48, "explorer": 96}  # per added rank


def make_job(d, n):
    os.mkdir(d)
    ev = [{"ph": "X", "name": "aten::mm", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 10, "dur": 50},
          {"ph": "X", "name": "aten::add", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 70, "dur": 20}]
    for r in range(n):
        with open(os.path.join(d, "rank-%d.json" % r), "w") as f:
            json.dump({"distributedInfo": {"rank": r}, "traceEvents": ev}, f)


def run_rss(args, work):
    """Peak RSS of one run in KB, measured by GNU time (a small parent: a
    child forked from this Python would start from its RSS, which the
    child's peak keeps across exec); None when it fails. A run past 300 s
    is killed with its process group."""
    out = os.path.join(work, "rss")
    p = subprocess.Popen([TIME, "-f", "%M", "-o", out] + args, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        rc = p.wait(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        print("FAIL: %s: killed after 300 s" % " ".join(args))
        return None
    if rc != 0:
        print("FAIL: %s: exit %d" % (" ".join(args), rc))
        return None
    with open(out) as f:
        return int(f.read().split()[-1])


def main():
    tool, tui = sys.argv[1], sys.argv[2]
    if not os.access(TIME, os.X_OK):
        print("%s missing: skipped" % TIME)
        return 77
    work = tempfile.mkdtemp(prefix="t2p-ranks-mem-")
    bad = 0
    try:
        small, large = os.path.join(work, "small"), os.path.join(work, "large")
        make_job(small, SMALL)
        make_job(large, LARGE)
        runs = {"analyze": [tool, "analyze"]}
        if os.path.exists(tui):
            runs["explorer"] = [tui, "--replay", "q"]
        else:
            print("note: %s missing: explorer not checked" % tui)
        for what, cmd in runs.items():
            a, b = run_rss(cmd + [small], work), run_rss(cmd + [large], work)
            if a is None or b is None:
                bad = 1
                continue
            per = (b - a) / (LARGE - SMALL)
            ok = per < BOUND_KB[what]
            print("%s: %s: peak RSS %d KB with %d ranks, %d KB with %d: %.1f KB per rank "
                  "(bound %d)" % ("ok" if ok else "FAIL", what, a, SMALL, b, LARGE, per,
                                  BOUND_KB[what]))
            bad |= not ok
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
