#!/usr/bin/env python3
"""Check `torch2pprof convert` through go tool pprof against `torch2pprof analyze`.

usage: check_convert.py TOOL TRACE [--http] [--step N]

Converts TRACE, then reads the profile with `go tool pprof` (never with our
own decoder) and compares with `TOOL analyze --json --top 0 TRACE`:
  - time: pprof's total equals busy_ns; each function's flat equals the
    self_ns of the ops of that name (pprof's default granularity groups
    functions by name, and our functions are per (name, category), so
    analyze's ops are summed by name);
  - time with -filefunctions (functions keyed by name and file, our (name,
    category)): each function's cum equals the op's cum_ns;
  - samples: each function's flat equals the calls of that name;
  - device_time: the total equals gpu_ns; with -filefunctions (which keys
    functions by name and file, our (name, category)), each function's cum
    equals the op's device_total_ns, each name counted once per GPU event;
  - convert --focus/--ignore/--thread keeps what pprof's own -focus,
    -ignore and -tagfocus=thread= keep of the whole profile;
  - -traces and -tagfocus=thread=stream run without complaint;
  - with --http: `-http=127.0.0.1:PORT -no_browser` serves its top, flame
    graph and peek pages.
With --step N both commands run with --step N (every check above then holds for
the step's scope), and the whole trace's profile filtered by pprof's own
-tagfocus step=N keeps exactly what convert --step N writes (time, samples and
device_time per function).
If analyze refuses TRACE, convert must refuse it too.

Exit 0 if all match, 1 on any mismatch, 77 (automake SKIP) if go or TOOL is
missing. Stdlib only, Python >= 3.9.
"""
import json
import os
import random
import signal
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pprof_top import go_env, pprof, top  # noqa: E402

MAX_SHOWN = 20


def check_http(go, env, profile, bad, tries=5):
    # a random port may be taken (other tests run at once): try another
    for _ in range(tries - 1):
        mine = []
        check_http_once(go, env, profile, mine)
        if not any("address already in use" in b for b in mine):
            bad.extend(mine)
            return
    check_http_once(go, env, profile, bad)


def check_http_once(go, env, profile, bad):
    port = random.randint(20000, 60000)
    cmd = [go, "tool", "pprof", "-no_browser", "-http=127.0.0.1:%d" % port, profile]
    # its own process group: `go tool pprof` runs the pprof binary as a child,
    # which kept serving after make check when only `go` was killed
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                         start_new_session=True)
    try:
        base = "http://127.0.0.1:%d/ui/" % port
        deadline = time.time() + 60
        pages = ["top", "flamegraph", "peek"]
        while pages and time.time() < deadline:
            if p.poll() is not None:
                bad.append("-http exited %d: %s" % (p.returncode,
                                                   p.stdout.read().decode(errors="replace")))
                return
            try:
                with urllib.request.urlopen(base + pages[0], timeout=10) as r:
                    body = r.read()
                    if r.status != 200 or len(body) < 100:
                        bad.append("-http %s: status %d, %d bytes" % (pages[0], r.status,
                                                                      len(body)))
                pages.pop(0)
            except (OSError, urllib.error.URLError):
                time.sleep(0.2)
        if pages:
            bad.append("-http: no answer for %s within 60 s" % pages[0])
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
        for _ in range(50):  # the group's other members are reaped by init
            try:
                os.killpg(p.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            bad.append("-http: a process of pprof's group is still alive")


def main(argv):
    http = "--http" in argv
    argv = [a for a in argv if a != "--http"]
    step = None
    if "--step" in argv:
        i = argv.index("--step")
        step = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    scope = ["--step", step] if step else []
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool, trace = argv
    go = shutil.which("go")
    if not go:
        print("check_convert: go missing, cannot run")
        return 1
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print("check_convert: %s: no such executable, cannot run" % tool)
        return 1

    tmp = tempfile.mkdtemp(prefix="t2p-convert-")
    env = go_env(tmp)
    out = os.path.join(tmp, "out.pb.gz")
    bad = []
    try:
        # operators only: Python frames are no operators (tests/check_pylines.py
        # checks them); --no-python leaves them out of both, their time their caller's
        a = subprocess.run([tool, "analyze", "--json", "--top", "0", "--no-python"] + scope + [trace],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        c = subprocess.run([tool, "convert", "--no-python"] + scope + [trace, out],
                           stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if a.returncode != 0:
            if c.returncode == 0 or os.path.exists(out):
                bad.append("analyze refused it but convert exited %d" % c.returncode)
            else:
                print("check_convert: %s: refused by both (exit %d)" % (trace, c.returncode))
            return report(trace, bad)
        if c.returncode != 0:
            bad.append("convert exited %d: %s" % (c.returncode,
                                                  c.stderr.decode(errors="replace")))
            return report(trace, bad)
        if [f for f in os.listdir(tmp) if f.endswith(".tmp")]:
            bad.append("a temporary file was left beside the output")
        got = json.loads(a.stdout)

        self_by, calls_by = {}, {}
        for o in got["ops"]:
            n = o["name"]
            self_by[n] = self_by.get(n, 0) + o["self_ns"]
            calls_by[n] = calls_by.get(n, 0) + o["count"]

        rows, total = top(go, env, out, "time")
        if total != got["busy_ns"]:
            bad.append("time: pprof total %d ns, analyze busy %d ns" % (total, got["busy_ns"]))
        for n, v in self_by.items():
            flat = rows.get(n, (0, 0))[0]
            if flat != v:
                bad.append("time: %r flat %d, analyze self %d" % (n, flat, v))
        for n in rows:
            if n not in self_by:
                bad.append("time: pprof lists %r, analyze does not" % n)

        # cum: pprof's cum with functions keyed by (name, category) equals the
        # op's cum_ns (time with it on the stack; recursion counted once)
        rows, _ = top(go, env, out, "time", ["-filefunctions"])
        ncum = 0
        for o in got["ops"]:
            key = o["name"] + (" " + o["category"] if o["category"] else "")
            cum = rows.get(key, (0, 0))[1]
            ncum += o["cum_ns"] != o["total_ns"]
            if cum != o["cum_ns"]:
                bad.append("time: %r cum %d, analyze cum %d" % (key, cum, o["cum_ns"]))

        rows, total = top(go, env, out, "samples")
        if total != sum(calls_by.values()):
            bad.append("samples: pprof total %d, analyze calls %d" % (total,
                                                                     sum(calls_by.values())))
        for n, v in calls_by.items():
            flat = rows.get(n, (0, 0))[0]
            if flat != v:
                bad.append("samples: %r flat %d, analyze calls %d" % (n, flat, v))

        rows, total = top(go, env, out, "device_time", ["-filefunctions"])
        if total != got["gpu_ns"]:
            bad.append("device_time: pprof total %d ns, analyze gpu %d ns" % (total, got["gpu_ns"]))
        ndev = 0
        for o in got["ops"]:
            # pprof shows "NAME FILE"; our file is the category
            key = o["name"] + (" " + o["category"] if o["category"] else "")
            cum = rows.get(key, (0, 0))[1]
            ndev += o["device_total_ns"] != 0
            if cum != o["device_total_ns"]:
                bad.append("device_time: %r cum %d, analyze device total %d"
                           % (key, cum, o["device_total_ns"]))

        # a selection made by convert against the same one made by pprof;
        # the regexes match no category (pprof's -focus also tests file names)
        sel = os.path.join(tmp, "sel.pb.gz")
        focus, ignore, thread = "^aten::", "ackward|zero_", "^thread"
        c = subprocess.run([tool, "convert", "--no-python", "--focus", focus, "--ignore", ignore,
                            "--thread", thread] + scope + [trace, sel], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if c.returncode != 0:
            bad.append("convert with a selection exited %d" % c.returncode)
        else:
            for index in ("time", "samples", "device_time"):
                mine, _ = top(go, env, sel, index)
                theirs, _ = top(go, env, out, index, ["-focus=" + focus, "-ignore=" + ignore,
                                                      "-tagfocus=thread=" + thread])
                a_, b_ = sum(v[0] for v in mine.values()), sum(v[0] for v in theirs.values())
                if a_ != b_:
                    bad.append("%s: selection by convert keeps %d, by pprof %d" % (index, a_, b_))

        if step:
            # the whole trace's profile, filtered by pprof on the step label
            whole = os.path.join(tmp, "whole.pb.gz")
            c = subprocess.run([tool, "convert", trace, whole], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
            if c.returncode != 0:
                bad.append("convert of the whole trace exited %d" % c.returncode)
            else:
                for index in ("time", "samples", "device_time"):
                    # pprof's total stays the unfiltered one: compare the flats
                    mine, _ = top(go, env, out, index)
                    theirs, _ = top(go, env, whole, index, ["-tagfocus=step=" + step])
                    tm = sum(v[0] for v in mine.values())
                    tt = sum(v[0] for v in theirs.values())
                    if tm != tt or {k: v[0] for k, v in mine.items() if v[0]} != \
                            {k: v[0] for k, v in theirs.items() if v[0]}:
                        bad.append("%s: convert --step %s total %d, whole profile with "
                                   "-tagfocus step=%s %d (or per function)" % (
                                       index, step, tm, step, tt))
        for args in (["-traces"], ["-tagfocus=thread=stream", "-top"], ["-peek", "."]):
            cmd, p = pprof(go, env, args, out)
            if p.returncode != 0:
                bad.append("`%s` exited %d: %s" % (" ".join(cmd), p.returncode,
                                                   p.stderr.decode(errors="replace")))
        if http:
            check_http(go, env, out, bad)
        if not bad:
            print("check_convert: %s: ok: total %d ns = busy, %d names, cum = cum_ns "
                  "(%d ops where cum != total), device %d ns = gpu, %d ops with device time%s"
                  % (trace, got["busy_ns"], len(self_by), ncum, got["gpu_ns"], ndev,
                     ", -http served" if http else ""))
        return report(trace, bad)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def report(trace, bad):
    if not bad:
        return 0
    print("check_convert: %s: %d mismatches" % (trace, len(bad)))
    for b in bad[:MAX_SHOWN]:
        print("  " + b)
    if len(bad) > MAX_SHOWN:
        print("  ... and %d more" % (len(bad) - MAX_SHOWN))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
