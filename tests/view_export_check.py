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
  shapes   per (operator, input shape) row of ops_by_shape: the calls, self
           time and device self time of the samples ending at that
           operator labelled input_shape=that shape; no other sample.
  modules  per nn.Module name, its frame's flat time = its host self time,
           its samples = its occurrences (summed over its distinct module
           ids), every stack through a module.
Reads `go tool pprof -raw` through same_samples.summed."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from same_samples import raw, summed  # noqa: E402


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


def label_of(labels, key):
    # "k:[v] k2:[v2]": the value of key (a shape holds spaces and brackets)
    i = labels.find(key + ":[")
    if i < 0:
        return None
    j = i + len(key) + 2
    depth = 1
    for k in range(j, len(labels)):
        depth += {"[": 1, "]": -1}.get(labels[k], 0)
        if depth == 0:
            return labels[j:k]
    return None


def raw_samples(path):
    """(values, [location text leaf first], labels text as pprof prints
    them) per sample: same_samples.summed sorts the labels' words, which
    splits an input shape."""
    _, samples, locs = raw(path)
    return [(v, [locs[x][0] for x in ids], lab) for v, ids, lab in samples]


def check_shapes(path, js):
    """Every (operator, input shape) row: the flat samples, time and
    device_time of the stacks ending at that operator with that
    input_shape label = the row's calls, self_ns and device_self_ns; no
    sample outside the rows."""
    want = {}
    for r in js["ops_by_shape"]:
        want[(r["name"], r["input_shape"])] = (r["calls"], r["self_ns"], r["device_self_ns"])
    got = {}
    for v, stack, labels in raw_samples(path):
        shape = label_of(labels, "input_shape")
        key = (frame_name(stack[0]), shape)
        c, s, d = got.get(key, (0, 0, 0))
        got[key] = (c + v[0], s + v[1], d + v[2])
    bad = [k for k in set(want) | set(got) if want.get(k, (0, 0, 0)) != got.get(k, (0, 0, 0))]
    for k in sorted(bad, key=str)[:5]:
        print("%s %s: (calls, self ns, device self ns) shown %s, exported %s" %
              (k[0], k[1], want.get(k), got.get(k)))
    print("%d of %d rows equal (calls, self, device self)" % (len(want) - len(bad), len(want)))
    return not bad and bool(want)


def main():
    mode, path, jpath = sys.argv[1:4]
    arg = sys.argv[4] if len(sys.argv) > 4 else ""
    _types, prof = summed(path)
    with open(jpath) as f:
        js = json.load(f)
    if mode == "kernels":
        ok = check_kernels(prof, js, arg)
    elif mode == "shapes":
        ok = check_shapes(path, js)
    else:
        ok = check_modules(prof, js)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
