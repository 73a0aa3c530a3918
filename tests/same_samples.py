#!/usr/bin/env python3
"""same_samples.py A B: exit 0 when the pprof profiles A and B are equal as
pprof users see them: the same sample types and, after summing the samples
whose stacks (function, file and line of each frame) and labels are the
same, the same values. What #23 asks of a recorded command: it writes a
profile equal to the one that recorded it, however its samples are split.
Reads `go tool pprof -raw`; the comment holding the command is left aside.
Exit 1 with the first differences when they differ or cannot be read."""
import re
import subprocess
import sys


def raw(path, args=()):
    """What `go tool pprof -raw [args]` prints of path (args: more pprof
    options, e.g. -tagfocus): the sample types, the samples as [values,
    location ids, labels text] and {location id: its lines (the address
    line's text, then one per inlined frame)}. Exits saying why when pprof
    fails."""
    p = subprocess.run(["go", "tool", "pprof", "-raw"] + list(args) + [path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("same_samples: %s: %s" % (path, p.stderr.strip()))
    lines = p.stdout.splitlines()
    i = lines.index("Samples:")
    types = lines[i + 1].replace("[dflt]", "").split()
    locs, samples = {}, []
    j = i + 2
    while j < len(lines) and lines[j] != "Locations":
        m = re.match(r"^\s+([-\d ]+?)\s*:\s*([\d ]*)$", lines[j])
        if m:
            samples.append([tuple(int(v) for v in m.group(1).split()),
                            m.group(2).split(), ""])
        elif samples:
            samples[-1][2] += lines[j].strip() + " "
        j += 1
    cur = None
    for line in lines[j + 1:]:
        if line.startswith("Mappings"):
            break
        m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*)$", line)
        if m:
            cur = m.group(1)
            locs[cur] = [m.group(2).strip()]
        elif cur:
            locs[cur].append(line.strip())
    return types, samples, locs


def stacks(path, args=(), drop=()):
    """The sample types, and each sample as (values, stack, labels): the
    stack as its locations' text (ids differ between profiles), the labels
    sorted, without those whose key is in drop."""
    types, samples, locs = raw(path, args)
    locs = {k: " | ".join(v) for k, v in locs.items()}
    out = []
    for vals, ids, labels in samples:
        keep = ["%s:[%s]" % kv for kv in re.findall(r"(\S+?):\[([^\]]*)\]", labels)
                if kv[0] not in drop]
        out.append((vals, tuple(locs[x] for x in ids), " ".join(sorted(keep))))
    return types, out


def summed(path, args=(), drop=()):
    """The sample types, and the values summed per (stack, labels); args and
    drop as stacks()."""
    types, samples = stacks(path, args, drop)
    out = {}
    for vals, stack, labels in samples:
        key = (stack, labels)
        old = out.get(key, (0,) * len(vals))
        out[key] = tuple(a + b for a, b in zip(old, vals))
    # a stack whose values all sum to zero is no sample
    return types, {k: v for k, v in out.items() if any(v)}


def main():
    ta, a = summed(sys.argv[1])
    tb, b = summed(sys.argv[2])
    if ta != tb:
        print("sample types differ: %s vs %s" % (ta, tb))
        return 1
    diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
    for k in sorted(diff, key=str)[:5]:
        print("differs: %s %s: %s vs %s" % (" <- ".join(k[0]), k[1], a.get(k), b.get(k)))
    if not a:
        print("no samples")
        return 1
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
