#!/usr/bin/env python3
"""Independent check of analyze's Kernels and Memory sections under a scope
of stacks (--focus OP, --focus A>B, --filter TEXT): computed here from the
trace JSON alone, compared exactly with `torch2pprof analyze --json --top 0`.

    check_focus_figures.py TORCH2PPROF TRACE [--empty] SCOPE_OPTION VALUE [...]

--empty declares a scope that holds nothing; without it a case that
compares no kernel, allocation or source line fails, and with it one that
holds figures fails.

Rules, written from the definitions (doc/usage.md, core/analyses/memory.h,
core/analyses/gpu.h), not from the C code:
* Complete events (ph X, cat not "Trace") nest per thread (pid, tid): the
  parent is the innermost event that fully contains one (oracle.py's rule).
  ProfilerStep#N is named ProfilerStep*.
* A stack is the names from the outermost event down to one event.
* A kernel (cat kernel, any case) is launched by the first launch event
  (cat cuda_runtime / cuda_driver / *_runtime) with its args.correlation;
  its stack is the launch's stack then the kernel's name; without a launch,
  its own stack on its stream.
* A [memory] record belongs to the innermost complete event on its thread
  whose [ts, ts + dur) holds its ts (latest start, then shortest, then
  latest in the file); its stack is that event's. A record on no event's
  stack is at the thread's root: in no scope of stacks.
* --focus OP: a stack holding a frame named OP; --focus A>B: a stack whose
  outermost frames are A then B; --filter TEXT: a stack with a frame whose
  name contains TEXT (any case unless TEXT holds a capital letter).
  Several options: every one must pass.
* A kernel's operator (kernels_by_op) is its launch's parent, or the
  launch itself when nothing holds it; none without a launch.
* An allocation is live when no later record on its device frees its
  address (Bytes < 0, the same Addr) before the address is allocated
  again; without an Addr it cannot be matched and is not counted live.
* Source lines: check_pylines.py's oracle over the events on the scope's
  stacks only.
Compared exactly: the kernels' count and time, per kernel name and per
(operator, kernel name) calls and time; per device, over the devices
either side names, the allocations (count, bytes), the net increase and
the live allocations (count, bytes) inside the scope; the source lines'
self and total (--by-line); and the device figures ("gpus"), which must be
the unscoped report's (the whole device, checked by check_kernels.py).
The text report's "in the scope" kernel time (and the whole trace's) and
per-device memory line are compared with the same figures as it prints
them (ms to the microsecond, bytes in KiB/MiB/GiB to one decimal).
Exit 1 on a difference, printing it."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (load_events, us_to_ns, correlation, find_parents)
import check_pylines  # noqa: E402  (the source lines' oracle)

LAUNCH_CATS = ("cuda_runtime", "cuda_driver")
ZERO = {"allocs": 0, "alloc_bytes": 0, "increase_bytes": 0, "live_allocs": 0, "live_bytes": 0}


def passes(stack, tests):
    for kind, val in tests:
        if kind == "focus" and ">" in val:
            path = [p for p in val.split(">") if p]
            if stack[:len(path)] != path:
                return False
        elif kind == "focus":
            if val not in stack:
                return False
        elif kind == "filter":
            exact = any(c.isupper() for c in val)
            if not any((val in n) if exact else (val.lower() in n.lower()) for n in stack):
                return False
        else:
            raise SystemExit("check_focus_figures: unknown option --" + kind)
    return True


def figures(path, tests):
    events, base = oracle.load_events(path)
    off = base or 0
    timed, recs = [], []
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        track = (oracle.plain(e.get("pid")), oracle.plain(e.get("tid")))
        if e.get("name") == "[memory]" and e.get("ph") in ("i", "I"):
            a = e.get("args") or {}
            dtype = int(oracle.to_decimal(a.get("Device Type", 0)))
            dev = "CPU" if dtype == 0 else "GPU%d" % int(oracle.to_decimal(a.get("Device Id", 0)))
            addr = a.get("Addr")
            recs.append({"ts": oracle.us_to_ns(e["ts"]) + off, "order": i, "dev": dev,
                         "bytes": int(oracle.to_decimal(a.get("Bytes", 0))), "track": track,
                         "addr": None if addr is None else str(addr)})
            continue
        if e.get("ph") != "X" or e.get("dur") is None or "ts" not in e:
            continue
        cat = str(e.get("cat", ""))
        cat = oracle.MODERN.get(cat, cat)
        if cat == "Trace":
            continue
        dur = oracle.us_to_ns(e["dur"])
        if dur < 0:
            continue
        ts = oracle.us_to_ns(e["ts"]) + off
        name = str(e.get("name", ""))
        if name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"
        timed.append({"name": name, "cat": cat.lower(), "track": track, "ts": ts, "dur": dur,
                      "end": ts + dur, "order": i, "corr": oracle.correlation(e)})
    by_track = {}
    for t in timed:
        by_track.setdefault(t["track"], []).append(t)
    for evs in by_track.values():
        evs.sort(key=lambda t: (t["ts"], -t["dur"], t["order"]))
        oracle.find_parents(evs)
        for t in evs:
            p = t["parent"]
            t["stack"] = (evs[p]["stack"] if p is not None else []) + [t["name"]]
    launches = {}
    for t in sorted(timed, key=lambda t: t["order"]):
        c = t["cat"]
        if t["corr"] is not None and (c in LAUNCH_CATS or c.endswith("_runtime")):
            launches.setdefault(t["corr"], t)
    kern = {"events": 0, "total_ns": 0, "names": {}, "by_op": {}}
    for t in timed:
        if t["cat"] != "kernel":
            continue
        ln = launches.get(t["corr"]) if t["corr"] is not None else None
        stack = ln["stack"] + [t["name"]] if ln is not None else t["stack"]
        if not passes(stack, tests):
            continue
        kern["events"] += 1
        kern["total_ns"] += t["dur"]
        r = kern["names"].setdefault(t["name"], [0, 0])
        r[0] += 1
        r[1] += t["dur"]
        # its operator: the launch's parent, the launch itself when none holds it
        op = None if ln is None else (ln["stack"][-2] if len(ln["stack"]) > 1 else ln["name"])
        r = kern["by_op"].setdefault((op, t["name"]), [0, 0])
        r[0] += 1
        r[1] += t["dur"]
    # an allocation is live when no later record on its device frees its
    # address (Bytes < 0, same Addr) before the address is allocated again
    freed = set()
    open_at = {}
    for r in sorted(recs, key=lambda r: (r["ts"], r["order"])):
        if r["addr"] is None:
            continue
        k = (r["dev"], r["addr"])
        if r["bytes"] > 0:
            open_at[k] = r["order"]
        elif r["bytes"] < 0 and k in open_at:
            freed.add(open_at.pop(k))
    mem = {}
    for r in recs:
        hold = [x for x in by_track.get(r["track"], []) if x["ts"] <= r["ts"] < x["end"]]
        if not hold:
            continue
        inner = max(hold, key=lambda x: (x["ts"], -x["dur"], x["order"]))
        if not passes(inner["stack"], tests):
            continue
        d = mem.setdefault(r["dev"], dict(ZERO))
        d["increase_bytes"] += r["bytes"]
        if r["bytes"] > 0:
            d["allocs"] += 1
            d["alloc_bytes"] += r["bytes"]
            # without an address a block cannot be matched with its free: not
            # counted live (the device's live figure says allocated - freed)
            if r["addr"] is not None and r["order"] not in freed:
                d["live_allocs"] += 1
                d["live_bytes"] += r["bytes"]
    return kern, mem


def fmt_bytes(n):
    """Bytes as the text report prints them: B below 1 KiB, else one decimal
    of KiB, MiB, GiB or TiB."""
    a, sign = abs(n), "-" if n < 0 else ""
    if a < 1024:
        return "%s%d B" % (sign, a)
    a /= 1024
    u = 0
    while a >= 1024 and u < 3:
        a /= 1024
        u += 1
    return "%s%.1f %s" % (sign, a, ("KiB", "MiB", "GiB", "TiB")[u])


MEM_LINE = re.compile(r"^(\S+)\s+in the scope: ([\d,]+) allocs \(([^)]*)\), increase ([^;]*); "
                      r"([\d,]+) of them \(([^)]*)\) never freed in the window$", re.M)


def text_figures(text, kern, mem, whole_ns):
    """The text report's "in the scope" figures against the oracle's."""
    bad = []
    if kern["events"]:
        want = "in the scope: those launched inside its stacks, %s of %s ms kernel time" % (
            oracle.ms(kern["total_ns"]), oracle.ms(whole_ns))
    elif whole_ns:
        want = "Kernels: none launched inside the scope's stacks (%s ms of kernel time" % (
            oracle.ms(whole_ns))
    else:
        want = None  # a trace without kernels: no Kernels section to check
    if want and want not in text:
        bad.append("text: no %r" % want)
    shown = {m.group(1): m.groups()[1:] for m in MEM_LINE.finditer(text)}
    for dev in sorted(set(shown) | set(mem)):
        d = mem.get(dev, ZERO)
        want = ("{:,}".format(d["allocs"]), fmt_bytes(d["alloc_bytes"]),
                fmt_bytes(d["increase_bytes"]), "{:,}".format(d["live_allocs"]),
                fmt_bytes(d["live_bytes"]))
        if shown.get(dev) != want:
            bad.append("text memory %s in the scope: %s, here %s" % (dev, shown.get(dev), want))
    return bad


def run_json(tool, args):
    return json.loads(subprocess.run([tool, "analyze", "--json", "--top", "0"] + args,
                                     check=True, capture_output=True).stdout)


def main(argv):
    argv = list(argv)
    empty = "--empty" in argv
    if empty:
        argv.remove("--empty")
    if len(argv) < 5 or len(argv) % 2 == 0:
        print(__doc__, file=sys.stderr)
        return 2
    tool, path = argv[1], argv[2]
    tests = [(argv[i].lstrip("-"), argv[i + 1]) for i in range(3, len(argv), 2)]
    got = run_json(tool, ["--by-line"] + argv[3:] + [path])
    whole = run_json(tool, [path])
    kern, mem = figures(path, tests)
    bad = []
    info = got["kernels_info"]
    if info.get("scope") != "stacks":
        bad.append("kernels_info has no \"scope\":\"stacks\"")
    if (info["events"], info["total_ns"]) != (kern["events"], kern["total_ns"]):
        bad.append("kernels: tool %d in %d ns, here %d in %d ns"
                   % (info["events"], info["total_ns"], kern["events"], kern["total_ns"]))
    tk = {k["name"]: [k["calls"], k["total_ns"]] for k in got["kernels"]}
    if tk != kern["names"]:
        for n in sorted(set(tk) | set(kern["names"])):
            if tk.get(n) != kern["names"].get(n):
                bad.append("kernel %s: tool %s, here %s" % (n[:60], tk.get(n),
                                                             kern["names"].get(n)))
    tb = {}
    for k in got.get("kernels_by_op", []):
        key = (k["op"], k["name"])
        if key in tb:
            bad.append("kernels_by_op: two rows for %s" % (key,))
        tb[key] = [k["calls"], k["total_ns"]]
    for key in sorted(set(tb) | set(kern["by_op"]), key=str):
        if tb.get(key) != kern["by_op"].get(key):
            bad.append("kernels_by_op %s / %s: tool %s, here %s"
                       % (key[0], key[1][:50], tb.get(key), kern["by_op"].get(key)))
    # the device figures are the whole device's, not the scope's: the
    # unscoped report's, which check_kernels.py checks against the plugin
    if got.get("gpus") != whole.get("gpus"):
        bad.append("gpus under the scope %s, unscoped %s" % (got.get("gpus"), whole.get("gpus")))
    # memory: every device either side names (a device the tool leaves out
    # is a difference, not a zero)
    tdev = {d["device"]: d["in_scope"] for d in got["memory"].get("devices", [])}
    nmem = 0
    for dev in sorted(set(tdev) | set(mem)):
        want = mem.get(dev, dict(ZERO))
        s = tdev.get(dev)
        have = None if s is None else {k: s.get(k) for k in ZERO}
        if have != want:
            bad.append("memory %s: tool %s, here %s" % (dev, have, want))
        nmem += want["allocs"] + abs(want["increase_bytes"])
    # source lines by self under the scope: check_pylines' oracle on the
    # scope's stacks
    lines = check_pylines.oracle(check_pylines.load(path), lambda st: passes(st, tests)) or {}
    lines = {k: tuple(v) for k, v in lines.items() if v[0] or v[1]}
    tl = {(r["file"], r["line"], r["function"]): (r["self_ns"], r["total_ns"])
          for r in got.get("lines", [])}
    tl = {k: v for k, v in tl.items() if v[0] or v[1]}
    for k in sorted(set(tl) | set(lines), key=str):
        if tl.get(k) != lines.get(k):
            bad.append("line %s:%d %s: tool %s, here %s" % (k[0][-40:], k[1], k[2], tl.get(k),
                                                           lines.get(k)))
    text = subprocess.run([tool, "analyze", "--top", "3"] + argv[3:] + [path], check=True,
                          capture_output=True, text=True).stdout
    bad += text_figures(text, kern, mem, whole["kernels_info"]["total_ns"])
    print("%s %s: %d kernels, %d ns, %d by-op rows; memory %s; %d lines"
          % (os.path.basename(path), " ".join(argv[3:]), kern["events"], kern["total_ns"],
             len(kern["by_op"]), json.dumps(mem, sort_keys=True), len(lines)))
    compared = kern["events"] + nmem + len(lines)
    if compared == 0 and not empty:
        bad.append("nothing in the scope was compared (no kernel, allocation or line);"
                   " pass --empty if that is the case's point")
    elif compared and empty:
        bad.append("declared --empty, but the scope holds figures")
    for b in bad:
        print("  DIFF " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
