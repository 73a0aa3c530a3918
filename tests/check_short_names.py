#!/usr/bin/env python3
"""Check --short-names of `torch2pprof analyze` and `convert`.

usage: check_short_names.py TOOL TRACE

  - analyze --json --top 0 --short-names lists the same ops with the same figures
    as without it (rows whose short names are equal stay separate rows), each
    with full_name = the name it has without the option and name = HTA's short
    name of it from tests/fixtures/short_names.tsv (HTA's own output; a short
    name with no letter or digit keeps the full name, as core/model/shortname.h says);
  - convert --short-names read by go tool pprof -filefunctions: each function
    (short name, category) has the flat time of the ops it stands for, and
    pprof's total is unchanged (skipped without go).
Exit 0 if all match, 1 on a mismatch, 77 if TOOL is missing. Stdlib only.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pprof_top  # noqa: E402


def hta_names():
    out = {}
    with open(os.path.join(HERE, "fixtures", "short_names.tsv"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#\t"):
                continue
            name, short = line.split("\t", 1)
            if not re.search(r"[0-9A-Za-z\x80-\U0010ffff]", short):
                short = name
            out[name] = short
    return out


def analyze(tool, trace, extra):
    p = subprocess.run([tool, "analyze", "--json", "--top", "0"] + extra + [trace],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("analyze %s exited %d" % (" ".join(extra), p.returncode))
    return json.loads(p.stdout)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool, trace = argv
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print("check_short_names: %s: no such executable, cannot run" % tool)
        return 1
    bad = []
    want = hta_names()
    full = analyze(tool, trace, [])
    short = analyze(tool, trace, ["--short-names"])
    if len(full["ops"]) != len(short["ops"]):
        bad.append("%d ops, %d with --short-names" % (len(full["ops"]), len(short["ops"])))
    figs = ("count", "self_ns", "total_ns", "cum_ns", "device_self_ns", "device_total_ns")
    nshort = 0
    for a, b in zip(full["ops"], short["ops"]):
        if b.get("full_name") != a["name"] or b["category"] != a["category"]:
            bad.append("row %r: full_name %r" % (a["name"], b.get("full_name")))
            continue
        if [a[f] for f in figs] != [b[f] for f in figs]:
            bad.append("row %r: figures differ with --short-names" % a["name"])
        if a["name"] not in want:
            bad.append("%r: not in tests/fixtures/short_names.tsv (re-record it)" % a["name"])
        elif b["name"] != want[a["name"]]:
            bad.append("%r: short %r, HTA %r" % (a["name"], b["name"], want[a["name"]]))
        nshort += b["name"] != a["name"]

    go = shutil.which("go")
    if not go:
        bad.append("go missing: pprof's total cannot be checked (./setup.sh --test installs it)")
    if go:
        tmp = tempfile.mkdtemp(prefix="t2p-short-")
        env = pprof_top.go_env(tmp)
        try:
            out = os.path.join(tmp, "s.pb.gz")
            c = subprocess.run([tool, "convert", "--short-names", trace, out],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if c.returncode != 0:
                bad.append("convert --short-names exited %d" % c.returncode)
            else:
                rows, total = pprof_top.top(go, env, out, "time", ["-filefunctions"])
                if total != full["busy_ns"]:
                    bad.append("pprof total %d, busy %d" % (total, full["busy_ns"]))
                flat = {}
                for o in short["ops"]:
                    key = o["name"] + (" " + o["category"] if o["category"] else "")
                    flat[key] = flat.get(key, 0) + o["self_ns"]
                for k, v in flat.items():
                    if rows.get(k, (0, 0))[0] != v:
                        bad.append("pprof %r flat %d, ops %d" % (k, rows.get(k, (0, 0))[0], v))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if bad:
        print("check_short_names: %s: %d mismatches" % (trace, len(bad)))
        for b in bad[:20]:
            print("  " + b)
        return 1
    print("check_short_names: %s: ok: %d ops, %d shortened%s" % (
        trace, len(short["ops"]), nshort, ", pprof agrees" if go else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
