#!/usr/bin/env python3
"""No circles between the modules of core/ and of ui/ (issue 23, item 5).

Modules. Every .c file under core/ and ui/ (in the source tree, any depth)
is a module, named by its path without ".c" (core/load/trace). Its headers:
  1. X.h beside X.c (same folder, same name) is X's;
  2. a header with no .c of its name (a private header: core/load/trace_int.h,
     ui/view_impl.h) belongs to every module whose .c includes it directly
     AND whose object defines a global symbol the header names (an
     identifier of the header outside comments): the modules that define
     what it declares. Without objects (see below) "defines" is read from
     the sources: a non-static definition at the start of a line;
  3. a header that rules 1 and 2 give to no module (types, macros and
     static inline functions only) is a module of its own, named by its
     path with ".h" (header-only: it has include edges, never symbol ones).
Generated files (core/pprof/profile.pb-c.[ch], in the build tree, which
is the source tree in a build without VPATH) and system headers are no
module.

Edges. A -> B when
  - A's .c or one of A's headers #includes "h" and h is B's header
    (reported as file:line), or
  - A's object has an undefined symbol that B's object defines (nm: the
    objects automake built, DIR/NAME.o or DIR/lib*_a-NAME.o under the build
    tree; reported by the symbol's name). A .c without an object (not built)
    has include edges only.
An edge from a module to itself is no circle. Every strongly connected
component of more than one module is a circle: each is printed with the
edges inside it, and the exit status is 1.

Known circles. KNOWN below lists the circles found when this check came
(issue 23), each as its modules: a circle whose modules all lie in one
KNOWN entry is reported as known and does not fail; any other fails. Break
them and shorten the list: an entry that matches nothing fails too, so the
list never outlives its circles.

Usage: circles.py [--srcdir DIR] [--builddir DIR] [--includes-only]
       circles.py --self-test
srcdir and builddir default to $top_srcdir and $top_builddir (make check
exports them), else to this script's tree. Without a build (no object for
any module) the check says so on stderr and checks the includes alone.
"""

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

TREES = ("core", "ui")
# generated into the build tree (the source tree too when they are one): no module
GENERATED = (".pb-c.c", ".pb-c.h")

# the circles still to break (issue 23, item 5); see "Known circles" above
KNOWN = [
    # ui/view_impl.h declares what seven modules define, so every view and
    # the machinery depend on each other through it (issue 23 item 5: open)
    {"ui/cmp", "ui/export", "ui/keys", "ui/screen", "ui/search", "ui/tree_moves", "ui/view",
     "ui/views/view_allranks", "ui/views/view_callers", "ui/views/view_cats",
     "ui/views/view_chooser", "ui/views/view_cmp_callers", "ui/views/view_cmp_cats",
     "ui/views/view_cmp_memory", "ui/views/view_cmp_ops", "ui/views/view_cmp_steps",
     "ui/views/view_cmp_threads", "ui/views/view_cmp_tree",
     "ui/views/view_collectives", "ui/views/view_gpu", "ui/views/view_kernels",
     "ui/views/view_memory", "ui/views/view_modules", "ui/views/view_ops", "ui/views/view_ranks",
     "ui/views/view_source", "ui/views/view_steps", "ui/views/view_threads",
     "ui/views/view_timeline", "ui/views/view_tree", "ui/views/view_util"},
]
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
IDENT_RE = re.compile(r"[A-Za-z_]\w*")
# a definition at the start of a line, for the source fallback:
# "int trace_load_open(trace *t, ...)" or "const yajl_callbacks x = {"
DEF_FN_RE = re.compile(r"^(?!static\b|extern\b|typedef\b|struct\b[^(]*[{;]|#)"
                       r"[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(")
DEF_VAR_RE = re.compile(r"^(?!static\b|extern\b|typedef\b|#)"
                        r"[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*=")


def strip_comments(text):
    """C text with comments and string literals blanked (line numbers kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def source_defs(text):
    """Global names a .c defines, read from the source (the fallback)."""
    names = set()
    lines = strip_comments(text).split("\n")
    for k, line in enumerate(lines):
        if not line or line[0] in " \t{}#":
            continue
        m = DEF_FN_RE.match(line)
        if m:
            # a definition, not a prototype: "{" comes before ";"
            rest = "\n".join(lines[k:k + 40])
            b, s = rest.find("{"), rest.find(";")
            if b >= 0 and (s < 0 or b < s):
                names.add(m.group(1))
            continue
        m = DEF_VAR_RE.match(line)
        if m:
            names.add(m.group(1))
    return names


def nm_symbols(objs):
    """(defined, undefined) global symbols of the objects."""
    defined, undefined = set(), set()
    for o in objs:
        out = subprocess.run(["nm", "-P", o], check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) < 2:
                continue
            name, kind = f[0], f[1]
            if kind == "U":
                undefined.add(name)
            elif kind in "TDBRCGSVW" and kind.isupper():
                defined.add(name)
    return defined, undefined - defined


def find_objects(builddir, rel_c):
    d, base = os.path.split(rel_c)
    stem = base[:-2]
    folder = os.path.join(builddir, d)
    if not os.path.isdir(folder):
        return []
    pat = re.compile(r"^(lib\w+_a-)?" + re.escape(stem) + r"\.o$")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if pat.match(f))


class Graph:
    def __init__(self, srcdir, builddir, includes_only=False, log=None):
        log = log or sys.stderr
        self.srcdir = srcdir
        self.files = []  # every .c and .h of the trees, relative
        for t in TREES:
            for root, dirs, names in os.walk(os.path.join(srcdir, t)):
                dirs.sort()
                for n in sorted(names):
                    if n.endswith((".c", ".h")) and not n.endswith(GENERATED):
                        self.files.append(os.path.relpath(os.path.join(root, n), srcdir))
        fileset = set(self.files)
        self.cs = [f for f in self.files if f.endswith(".c")]
        self.hs = [f for f in self.files if f.endswith(".h")]
        # includes: file -> [(line number, header relative to srcdir)]
        self.inc = {}
        for f in self.files:
            lst = []
            for no, line in enumerate(read(os.path.join(srcdir, f)).split("\n"), 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                name = m.group(1)
                for cand in (os.path.normpath(os.path.join(os.path.dirname(f), name)),
                             os.path.normpath(name)):
                    if cand in fileset:
                        lst.append((no, cand))
                        break
            self.inc[f] = lst
        # symbols, from the objects or (fallback) from the sources
        self.defs, self.undefs, self.has_obj = {}, {}, {}
        objs = {} if includes_only else {c: find_objects(builddir, c) for c in self.cs}
        self.symbols = any(objs.values())
        if not includes_only and not self.symbols:
            print("circles: no objects under %s (not built?): checking the #includes "
                  "only, not the calls" % builddir, file=log)
        for c in self.cs:
            if objs.get(c):
                self.defs[c], self.undefs[c] = nm_symbols(objs[c])
                self.has_obj[c] = True
            else:
                self.defs[c], self.undefs[c] = source_defs(read(os.path.join(srcdir, c))), set()
                self.has_obj[c] = False
        # headers -> owning modules
        self.owners = {}
        cset = set(self.cs)
        for h in self.hs:
            twin = h[:-2] + ".c"
            if twin in cset:
                self.owners[h] = [h[:-2]]
                continue
            idents = set(IDENT_RE.findall(strip_comments(read(os.path.join(srcdir, h)))))
            own = [c[:-2] for c in self.cs
                   if any(i == h for _, i in self.inc[c]) and self.defs[c] & idents]
            self.owners[h] = own if own else [h]
        # modules and their files
        self.mods = [c[:-2] for c in self.cs] + [h for h in self.hs if self.owners[h] == [h]]
        self.files_of = {m: ([m + ".c"] if not m.endswith(".h") else []) for m in self.mods}
        for h in self.hs:
            for m in self.owners[h]:
                self.files_of[m].append(h)
        # edges: (a, b) -> [reason]
        self.edges = {}
        for a in self.mods:
            for f in self.files_of[a]:
                for no, h in self.inc[f]:
                    for b in self.owners[h]:
                        if b != a:
                            self.edges.setdefault((a, b), []).append(
                                '%s:%d #include "%s"' % (f, no, h))
        definer = {}
        for c in self.cs:
            if self.has_obj[c]:
                for s in self.defs[c]:
                    definer.setdefault(s, []).append(c[:-2])
        for c in self.cs:
            a = c[:-2]
            for s in sorted(self.undefs[c]):
                for b in definer.get(s, []):
                    if b != a:
                        self.edges.setdefault((a, b), []).append("calls %s" % s)

    def sccs(self):
        """Tarjan's strongly connected components, iteratively."""
        succ = {m: [] for m in self.mods}
        for a, b in self.edges:
            succ[a].append(b)
        for m in succ:
            succ[m].sort()
        index, low, on, stack, out = {}, {}, set(), [], []
        counter = [0]
        for root in self.mods:
            if root in index:
                continue
            work = [(root, 0)]
            while work:
                v, i = work.pop()
                if i == 0:
                    index[v] = low[v] = counter[0]
                    counter[0] += 1
                    stack.append(v)
                    on.add(v)
                recurse = False
                for j in range(i, len(succ[v])):
                    w = succ[v][j]
                    if w not in index:
                        work.append((v, j + 1))
                        work.append((w, 0))
                        recurse = True
                        break
                    if w in on:
                        low[v] = min(low[v], index[w])
                if recurse:
                    continue
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
                if work:
                    p = work[-1][0]
                    low[p] = min(low[p], low[v])
        return out

    def report(self, out=None):
        out = out or sys.stdout
        circles = [c for c in self.sccs() if len(c) > 1]
        circles.sort()
        for k, comp in enumerate(circles, 1):
            inside = set(comp)
            print("circle %d: %s" % (k, " ".join(comp)), file=out)
            for (a, b), why in sorted(self.edges.items()):
                if a in inside and b in inside:
                    shown = why[:6] + (["... %d more" % (len(why) - 6)] if len(why) > 6 else [])
                    print("  %s -> %s: %s" % (a, b, "; ".join(shown)), file=out)
        return circles


def check(srcdir, builddir, includes_only=False, known=None):
    known = KNOWN if known is None else known
    g = Graph(srcdir, builddir, includes_only)
    circles = g.report()
    what = "#includes and calls" if g.symbols else "#includes"
    new = [c for c in circles if not any(set(c) <= k for k in known)]
    gone = [k for k in known if not any(set(c) <= k for c in circles)]
    for c in circles:
        if c not in new:
            print("circles: known (KNOWN in tests/circles.py, issue 23): %s" % " ".join(c))
    for k in gone:
        # only when the objects were read: without them a circle of calls is not seen
        if g.symbols:
            print("circles: FAIL: a KNOWN circle is gone, remove it from KNOWN: %s"
                  % " ".join(sorted(k)))
    for c in new:
        print("circles: FAIL: a new circle: %s" % " ".join(c))
    if new:
        print("circles: %d new circle(s) among the %d modules of %s (%s); a module may "
              "depend on another only if that one does not depend back"
              % (len(new), len(g.mods), "/".join(TREES), what))
    if new or (gone and g.symbols):
        return 1
    print("circles: no new circle among the %d modules of %s (%s), %d known"
          % (len(g.mods), "/".join(TREES), what, len(circles)))
    return 0


# ---- the self-test: trees with and without circles ----

def _tree(files):
    d = tempfile.mkdtemp(prefix="circles-")
    for path, text in files.items():
        p = os.path.join(d, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    return d


def _circles(files, build=False):
    d = _tree(files)
    try:
        if build:
            for c in [f for f in files if f.endswith(".c")]:
                subprocess.run(["cc", "-c", "-I", d, "-o", os.path.join(d, c[:-2] + ".o"),
                                os.path.join(d, c)], check=True)
        with open(os.devnull, "w") as null:
            g = Graph(d, d, includes_only=False, log=null)
            return g.report(out=null), g
    finally:
        shutil.rmtree(d)


def self_test():
    fails = []

    def expect(name, got, want):
        if got != want:
            fails.append("%s: got %r, want %r" % (name, got, want))

    # a.c includes b.h, b.c includes a.h: one circle, by #include
    files = {"core/a.c": '#include "core/b.h"\nint a(void) { return 1; }\n',
             "core/a.h": "int a(void);\n",
             "core/b.c": '#include "core/a.h"\nint b(void) { return 2; }\n',
             "core/b.h": "int b(void);\n"}
    c, g = _circles(files)
    expect("include circle", c, [["core/a", "core/b"]])
    expect("include edge", g.edges.get(("core/a", "core/b")), ['core/a.c:1 #include "core/b.h"'])
    # the same without b.c's include: no circle
    files["core/b.c"] = "int b(void) { return 2; }\n"
    c, _ = _circles(files)
    expect("no circle", c, [])
    # through a third module: a -> b -> c -> a
    files3 = {"ui/a.c": '#include "ui/b.h"\n', "ui/a.h": "",
              "ui/b.c": '#include "ui/c.h"\n', "ui/b.h": "",
              "ui/c.c": '#include "ui/a.h"\n', "ui/c.h": ""}
    c, _ = _circles(files3)
    expect("circle of three", c, [["ui/a", "ui/b", "ui/c"]])
    # a private header defined by two modules that include it: its owners
    # depend on each other through it; a types-only header is a leaf
    files4 = {"core/p.c": '#include "core/p_int.h"\n#include "core/types.h"\n'
                          "int p_one(void)\n{\n    return 1;\n}\n",
              "core/p.h": "",
              "core/p_two.c": '#include "core/p_int.h"\nint p_two(void) { return 2; }\n',
              "core/p_int.h": "/* p_three is no one's */\nint p_one(void);\nint p_two(void);\n",
              "core/types.h": "typedef int p_t;\n"}
    c, g = _circles(files4)
    expect("private header owners", g.owners.get("core/p_int.h"), ["core/p", "core/p_two"])
    expect("header-only module", g.owners.get("core/types.h"), ["core/types.h"])
    expect("private header circle", c, [["core/p", "core/p_two"]])
    # calls alone (objects built with cc): a calls b, b calls a, no includes
    if shutil.which("cc") and shutil.which("nm"):
        files5 = {"core/a.c": "int b(void);\nint a(void) { return b(); }\n",
                  "core/b.c": "int a(void);\nint b(void) { return a() + 1; }\n"}
        c, g = _circles(files5, build=True)
        expect("call circle", c, [["core/a", "core/b"]])
        expect("call edge", g.edges.get(("core/a", "core/b")), ["calls b"])
        files5["core/b.c"] = "int b(void) { return 1; }\n"
        c, _ = _circles(files5, build=True)
        expect("one-way call", c, [])
    else:
        fails.append("cc or nm missing: the call edges went untested")
    # the KNOWN list: a known circle passes, a new one or a gone one fails
    if shutil.which("cc") and shutil.which("nm"):
        files6 = {"core/a.c": "int b(void);\nint a(void) { return b(); }\n",
                  "core/b.c": "int a(void);\nint b(void) { return a() + 1; }\n",
                  "core/c.c": "int c(void) { return 3; }\n"}
        d = _tree(files6)
        try:
            for c in files6:
                subprocess.run(["cc", "-c", "-o", os.path.join(d, c[:-2] + ".o"),
                                os.path.join(d, c)], check=True)
            with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
                got = [check(d, d, known=[{"core/a", "core/b"}]),
                       check(d, d, known=[]),
                       check(d, d, known=[{"core/a", "core/b"}, {"core/c", "core/b"}])]
            expect("KNOWN: known, new, gone", got, [0, 1, 1])
        finally:
            shutil.rmtree(d)
    for f in fails:
        print("circles self-test FAIL: " + f)
    if not fails:
        print("circles self-test: ok (include, three-module, private-header and call circles "
              "found; acyclic trees pass; KNOWN passes known circles only)")
    return 1 if fails else 0


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--srcdir", default=os.environ.get("top_srcdir") or here)
    ap.add_argument("--builddir", default=os.environ.get("top_builddir") or here)
    ap.add_argument("--includes-only", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    return check(a.srcdir, a.builddir, a.includes_only)


if __name__ == "__main__":
    sys.exit(main())
