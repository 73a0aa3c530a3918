#!/usr/bin/env python3
"""view_export_check.py MODE PROFILE JSON [ARG]: exit 0 when the profile the
explorer's e wrote in a view holds what that view shows, by the figures of
`torch2pprof analyze --json` (JSON; computed apart from the profile's
writer: TensorBoard's Kernel view over the trace's events, its Module view
over its own tree). Modes:
  kernels  every GPU kernel's time at the stacks that launched it: per
           kernel, device_time of the stacks ending at it = its total, and
           samples = its calls; no other leaf. ARG: a filter (smart case,
           as the explorer's) or =NAME for one kernel alone.
  modules  per nn.Module name, its frame's flat time = its host self time,
           its samples = its occurrences (summed over its distinct module
           ids), every stack through a module.
Reads `go tool pprof -raw` through same_samples.summed."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from same_samples import summed  # noqa: E402


def frame_name(loc):
    # "NAME CATEGORY:0 s=0()": the name may hold spaces, the rest does not
    return loc.rsplit(" ", 2)[0]


def passes(name, text):
    if not text:
        return True
    if text.startswith("="):
        return name == text[1:]
    if text != text.lower():
        return text in name
    return text.lower() in name.lower()


def check_kernels(prof, js, arg):
    want = {}
    for k in js["kernels"]:
        if passes(k["name"], arg):
            want[k["name"]] = (k["calls"], k["total_ns"])
    got = {}
    for (stack, _labels), v in prof.items():
        leaf = frame_name(stack[0])
        c, d = got.get(leaf, (0, 0))
        # samples count on the stream's own stack, device time under the launch
        got[leaf] = (c + v[0], d + v[2])
    bad = [n for n in set(want) | set(got) if want.get(n) != got.get(n)]
    for n in sorted(bad)[:5]:
        print("kernel %s: (calls, device ns) shown %s, exported %s" % (n[:80], want.get(n),
                                                                     got.get(n)))
    return not bad and bool(want)


def check_modules(prof, js):
    want = {}

    def walk(ms, seen):
        for m in ms:
            key = (m["name"], m["id"])
            if key not in seen:
                seen.add(key)
                o, s = want.get(m["name"], (0, 0))
                want[m["name"]] = (o + m["occurrences"], s + m["host_self_ns"])
            walk(m["children"], seen)
    walk(js["modules"], set())
    got = {}
    for (stack, _labels), v in prof.items():
        names = [frame_name(l) for l in stack]
        if not any(n.startswith("nn.Module: ") for n in names):
            print("a stack through no module: %s" % " <- ".join(names))
            return False
        leaf = names[0]
        if leaf.startswith("nn.Module: "):
            o, s = got.get(leaf[11:], (0, 0))
            got[leaf[11:]] = (o + v[0], s + v[1])
    bad = [n for n in set(want) | set(got) if want.get(n) != got.get(n)]
    for n in sorted(bad)[:5]:
        print("module %s: (occurrences, host self ns) shown %s, exported %s" %
              (n, want.get(n), got.get(n)))
    return not bad and bool(want)


def main():
    mode, path, jpath = sys.argv[1:4]
    arg = sys.argv[4] if len(sys.argv) > 4 else ""
    _types, prof = summed(path)
    with open(jpath) as f:
        js = json.load(f)
    ok = check_kernels(prof, js, arg) if mode == "kernels" else check_modules(prof, js)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
