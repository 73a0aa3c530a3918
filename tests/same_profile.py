#!/usr/bin/env python3
"""Are two pprof profiles (gzip) the same but for their comments?

usage: same_profile.py A.pb.gz B.pb.gz

convert records the command that makes a profile again as a comment
('torch2pprof convert ... -o OUT'), so two profiles of one trace written to
different names, or by the explorer's e, differ in their comments and in
where their strings sit in the string table. This decodes both, each string
index resolved to its string, comments left out, and compares what is left
field by field, in order. Exit 0 when the same, 1 (saying where) when not.
Stdlib only.
"""
import gzip
import sys

# per message: field number -> "str" (an index into the string table), a
# message name (nested), or "skip"; other fields compare as their raw bytes
SCHEMA = {
    "Profile": {1: "ValueType", 2: "Sample", 3: "Mapping", 4: "Location", 5: "Function",
                6: "skip", 7: "str", 8: "str", 11: "ValueType", 13: "skip", 14: "str"},
    "ValueType": {1: "str", 2: "str"},
    "Sample": {3: "Label"},
    "Label": {1: "str", 2: "str", 4: "str"},
    "Mapping": {5: "str", 6: "str"},
    "Location": {4: "Line"},
    "Line": {},
    "Function": {2: "str", 3: "str", 4: "str"},
}


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def raw_fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        no, wt = key >> 3, key & 7
        if wt == 0:
            val, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            val, i = b[i:i + n], i + n
        elif wt == 1:
            val, i = b[i:i + 8], i + 8
        elif wt == 5:
            val, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield no, val


def decode(b, kind, strings):
    out = []
    for no, val in raw_fields(b):
        how = SCHEMA[kind].get(no)
        if how == "skip":
            continue
        if how == "str":
            val = strings[val]
        elif how:
            val = decode(val, how, strings)
        out.append((no, val))
    return tuple(out)


def load(path):
    b = gzip.open(path).read()
    strings = [v.decode("utf-8", "replace") for no, v in raw_fields(b) if no == 6]
    return decode(b, "Profile", strings)


def main():
    a, b = (load(p) for p in sys.argv[1:3])
    if a == b:
        return 0
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            print("same_profile: top-level field %d (#%d) differs: %.200r / %.200r" % (x[0], k, x, y))
            return 1
    print("same_profile: %d top-level fields / %d" % (len(a), len(b)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
