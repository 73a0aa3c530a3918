#!/usr/bin/env python3
"""Text from a hostile trace (issue 16, defects 1 and 5).

usage: check_text.py TORCH2PPROF TORCH2PPROF_TUI HOSTILE_TRACE

HOSTILE_TRACE (tests/bad/inputs/hostile_text.json) names operators,
categories, a process, threads, a GPU stream, steps and a Python frame with
terminal controls (OSC title, CSI clear, CR, LF, BS, BEL, DEL, C1, bidi
override) and with bytes that are not UTF-8 (a lone surrogate escape, raw
overlong forms, a raw surrogate, a code point past U+10FFFF). It checks:

- every text output of analyze (totals, By Category, Steps, Top operations,
  the Cum note, GPU streams, Memory, --by-line, --base, ranks) and the
  messages that quote a path or a name hold no control byte but the report's
  own newlines, are valid UTF-8, show each control in its visible form
  (\\x1b, \\r, \\u009b, \\xc0 ...), and keep their columns in line;
- --json is strict JSON in valid UTF-8 (no lone surrogate escape), the names
  that are valid text come back exactly, the others with U+FFFD;
- convert's pprof string table is valid UTF-8 without NUL (read here, and
  through go tool pprof when go is installed);
- torch2pprof-tui --replay --print in every view: no control byte, valid
  UTF-8, every line as wide as the screen.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata

bad = []


def fail(what):
    bad.append(what)
    print("not ok: " + what)


def run(argv, cwd, env=None):
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return p.returncode, p.stdout, p.stderr


def text_of(what, data):
    """data decoded strictly, with no control character but newlines."""
    try:
        t = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: not valid UTF-8 (%s)" % (what, e))
        return None
    for ch in t:
        if ch == "\n":
            continue
        c = ord(ch)
        if c < 0x20 or 0x7F <= c <= 0x9F or unicodedata.category(ch) in ("Cc", "Zl", "Zp") or \
                unicodedata.bidirectional(ch) in ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI",
                                                  "FSI", "PDI"):
            line = next(l for l in t.split("\n") if ch in l)
            fail("%s: raw U+%04X reaches the terminal: %r" % (what, c, line[:160]))
            return t
    return t


# visible forms the report must show (the names as the trace spells them)
VISIBLE = [
    r"osc\x1b]0;pwned\x07title", r"csi\x1b[2Jclear", r"cr\rback", r"lf\nnext",
    r"bs\x08\x08\x08x", r"c1\u009b31mred", r"lone\xed\xb2\x80low", r"nul\x00inside",
    r"tab\there", r"del\x7fx", r"bidi\u202eevil", r"overlong\xc0\x80nul",
    r"overlong3\xe0\x80\xafslash", r"rawsurr\xed\xa0\x80x", r"big\xf5\x80\x80\x80x",
    r"rawc1\u009b2J",
]


def table(t, title):
    """The header and rows of the table under the line starting with title."""
    lines = t.split("\n")
    for i, l in enumerate(lines):
        if l.startswith(title):
            rows = []
            for r in lines[i + 2:]:
                if not r.strip() or r.startswith("*") or r.startswith("Unattributed"):
                    break
                rows.append(r)
            return lines[i + 1], rows
    fail("no table %r" % title)
    return "", []


def aligned(what, header, rows, col, left=False):
    """Each row has column `col` where the header has its title: a left
    aligned text starting under it, or a right aligned figure ending under
    it. Rows are as wide as one another: nothing was cut inside an escape."""
    at = header.find(col)
    if at < 1 or not rows:
        fail("%s: no column %r or no rows" % (what, col))
        return
    end = at + len(col)
    for r in rows:
        if left:
            ok = len(r) > at and r[at - 1] == " " and r[at] != " "
        else:
            ok = len(r) >= end and r[end - 1] != " " and (len(r) == end or r[end] == " ")
        if not ok:
            fail("%s: column %r out of line: %r" % (what, col, r[:120]))
            return
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        fail("%s: rows of different widths %s" % (what, sorted(widths)))


def check_analyze(tool, trace, w):
    rc, out, err = run([tool, "analyze", "--top", "0", "--by-line", trace], w)
    t = text_of("analyze", out)
    text_of("analyze stderr", err)
    if rc != 0 or t is None:
        fail("analyze: exit %d" % rc)
        return
    for v in VISIBLE:
        if v not in t:
            fail("analyze: %s not shown" % v)
    for v in [r"cat\x1b[2J\r", r"GPU 0 stream 7\x1b[2J", "1\\x1b[2J ", r"2\r ",
              r"osc\x1b]0;pwned\x07title (cpu_op): cum",
              r"in ProfilerStep* > osc\x1b]0;pwned\x07title",
              r"ev\x1b]0;x\x07il.py:12", r"fn\r\u009b", r"in step 2\r,"]:
        if v not in t:
            fail("analyze: %r not shown" % v)
    h, rows = table(t, "Top ")
    aligned("Top operations", h, rows, "Category", left=True)
    aligned("Top operations", h, rows, "Calls")
    h, rows = table(t, "By Category")
    aligned("By Category", h, rows, "Calls")
    h, rows = table(t, "GPU streams")
    aligned("GPU streams", h, rows, "GPU events")
    h, rows = table(t, "Top 2 operators by")
    aligned("Memory", h, rows, "Device", left=True)
    h, rows = table(t, "Top 1 source lines")
    aligned("Source lines", h, rows, "Function", left=True)
    aligned("Source lines", h, rows, "Self ms")

    rc, out, err = run([tool, "analyze", "--top", "0", "--base", trace, trace], w)
    t = text_of("analyze --base", out)
    if rc != 0 or t is None:
        fail("analyze --base: exit %d" % rc)
    else:
        for v in VISIBLE + [r"cat\x1b[2J\r"]:
            if v not in t:
                fail("analyze --base: %s not shown" % v)
        h, rows = table(t, "Top ")
        aligned("--base Top operations", h, rows, "Category", left=True)

    rc, out, err = run([tool, "analyze", "--steps", trace], w)
    t = text_of("analyze --steps", out)
    if t is not None and "1\\x1b[2J " not in t:
        fail("analyze --steps: the step label is not shown")


def check_json(tool, trace, w):
    for args in (["--top", "0", "--by-line"], ["--steps"], ["--base", trace], ["--step", "2\r"]):
        rc, out, err = run([tool, "analyze", "--json"] + args + [trace], w)
        what = "analyze --json " + " ".join(a for a in args if a != trace)
        if rc != 0:
            fail("%s: exit %d: %r" % (what, rc, err[:200]))
            continue
        try:
            s = out.decode("utf-8")
        except UnicodeDecodeError as e:
            fail("%s: not valid UTF-8 (%s)" % (what, e))
            continue
        if re.search(r"\\u[dD][89abAB]", s) or re.search(r"\\u[dD][c-fC-F]", s):
            fail("%s: a surrogate escape (strict readers refuse it)" % what)
        if any(ord(c) < 0x20 for c in s.rstrip("\n")):
            fail("%s: a raw control character inside the JSON" % what)
        try:
            d = json.loads(s)
        except ValueError as e:
            fail("%s: not JSON (%s)" % (what, e))
            continue
        if args[0] == "--top":
            names = {o["name"] for o in d["ops"]}
            for n in ["osc\x1b]0;pwned\x07title", "cr\rback", "lf\nnext", "c1\x9b31mred",
                      "nul\x00inside", "bidi\u202eevil", "rawc1\x9b2J",
                      "lone\ufffd\ufffd\ufffdlow", "overlong\ufffd\ufffdnul",
                      "rawsurr\ufffd\ufffd\ufffdx", "big\ufffd\ufffd\ufffd\ufffdx"]:
                if n not in names:
                    fail("%s: no op named %r" % (what, n))
            if "cat\x1b[2J\r" not in {c["name"] for c in d["categories"]}:
                fail("%s: the category does not come back" % what)
            if "stream 7\x1b[2J" not in {s["name"] for s in d["streams"]}:
                fail("%s: the stream label does not come back" % what)


def pb_fields(buf):
    """(field number, wire type, value) of one protobuf message."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield f, wt, v


def varint(buf, i):
    v = s = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << s
        s += 7
        if b < 0x80:
            return v, i


def check_pprof(tool, trace, w):
    out = os.path.join(w, "hostile.pb.gz")
    rc, o, err = run([tool, "convert", trace, out], w)
    text_of("convert", o)
    if rc != 0:
        fail("convert: exit %d: %r" % (rc, err[:200]))
        return
    with gzip.open(out, "rb") as f:
        prof = f.read()
    strings = [v for f, wt, v in pb_fields(prof) if f == 6 and wt == 2]
    for s in strings:
        try:
            s.decode("utf-8")
        except UnicodeDecodeError:
            fail("pprof: string %r is not valid UTF-8" % s[:80])
        if b"\0" in s:
            fail("pprof: string %r holds NUL" % s[:80])
    for n in [b"osc\x1b]0;pwned\x07title", "lone\ufffd\ufffd\ufffdlow".encode(),
              "nul\ufffdinside".encode()]:
        if n not in strings:
            fail("pprof: no string %r" % n)
    go = shutil.which("go")
    if not go:
        fail("go missing: pprof cannot read the strings back (./setup.sh --test installs it)")
        return
    env = dict(os.environ)
    env.update(HOME=w, GOCACHE=os.path.join(w, "gocache"), GOFLAGS="", PPROF_TMPDIR=w,
               GOTOOLCHAIN="local")
    rc, raw, err = run([go, "tool", "pprof", "-raw", out], w, env)
    if rc != 0:
        fail("go tool pprof -raw: exit %d: %r" % (rc, err[-300:]))
        return
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("go tool pprof -raw: names not valid UTF-8 (%s)" % e)
    if b"osc\x1b]0;pwned\x07title" not in raw:
        fail("go tool pprof -raw: the name does not come back")


def check_messages(tool, trace, w):
    # a path with controls in a message: one line, shown visibly
    name = "bad\x1b]0;t\x07\r.json"
    with open(os.path.join(w, name), "w") as f:
        f.write("nope")
    rc, out, err = run([tool, "analyze", name], w)
    t = text_of("error message", err)
    if rc != 2 or t is None or t.count("\n") != 1 or r"bad\x1b]0;t\x07\r.json" not in t:
        fail("error message: exit %d, %r" % (rc, err[:200]))
    # the ranks of a directory whose file names hold controls
    d = os.path.join(w, "ranks")
    os.mkdir(d)
    shutil.copy(trace, os.path.join(d, "rank0-\x1b]0;t\x07.json"))
    shutil.copy(trace, os.path.join(d, "rank1.json"))
    with open(os.path.join(d, "rank2-\r\x1b[2J.json"), "w") as f:
        f.write('{"traceEvents":[')
    rc, out, err = run([tool, "analyze", "--partial", "ranks"], w)
    t = text_of("analyze DIR", out)
    e = text_of("analyze DIR stderr", err)
    if rc != 0 or t is None or e is None:
        fail("analyze DIR: exit %d" % rc)
    else:
        for v in [r"rank0-\x1b]0;t\x07.json", r"rank2-\r\x1b[2J.json"]:
            if v not in t:
                fail("analyze DIR: %s not shown" % v)
        if r"rank2-\r\x1b[2J.json: truncated" not in e:
            fail("analyze DIR: the warning does not show the path: %r" % e)
        h, rows = table(t, "Ranks (")
        aligned("Ranks", h, rows, "Events")
    rc, out, err = run([tool, "analyze", "--json", "--partial", "ranks"], w)
    try:
        files = {r["file"] for r in json.loads(out.decode("utf-8"))["ranks"]}
        if "ranks/rank0-\x1b]0;t\x07.json" not in files:
            fail("analyze DIR --json: the path does not come back: %r" % files)
    except (UnicodeDecodeError, ValueError) as e:
        fail("analyze DIR --json: %s" % e)


def check_tui(tui, trace, w):
    env = dict(os.environ, LC_ALL="C.UTF-8")
    width, height = 100, 30
    for keys in ["1", "2", "3", "4", "5", "6", "7", "8", "1 <Enter>", "3 <Down> <Down> f",
                 "3 <Down> <Enter>", "2 <Down> <Enter>", "4 <Enter>", "/osc <Enter>",
                 "1 <Down> <Down> <Down> <Down> <Down> <Down> <Down> <Down> <Down> <Down>"]:
        rc, out, err = run([tui, "--replay", keys, "--print", "--size", "%dx%d" % (width, height),
                            trace], w, env)
        what = "tui %r" % keys
        if rc != 0:
            fail("%s: exit %d: %r" % (what, rc, err[:200]))
            continue
        t = text_of(what, out)
        if t is None:
            continue
        screen = [l for l in t.split("\n")[:-1]
                  if not re.match(r"(load|first-screen|key|max-key|status:) ", l)]
        if len(screen) != height:
            fail("%s: %d lines, not %d" % (what, len(screen), height))
            continue
        for y, l in enumerate(screen):
            body = 4 <= y < height - 2
            # body rows carry the cursor mark in front; empty rows are just that
            want = (width + 1, 1) if body else (width,)
            if len(l) not in want:
                fail("%s: line %d is %d columns wide: %r" % (what, y, len(l), l[:120]))
                break


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    tool, tui, trace = (os.path.abspath(a) for a in argv)
    w = tempfile.mkdtemp(prefix="t2p-text-")
    try:
        check_analyze(tool, trace, w)
        check_json(tool, trace, w)
        check_pprof(tool, trace, w)
        check_messages(tool, trace, w)
        check_tui(tui, trace, w)
    finally:
        shutil.rmtree(w, ignore_errors=True)
    if bad:
        print("check_text: %d failure(s)" % len(bad))
        return 1
    print("check_text: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
