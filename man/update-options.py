#!/usr/bin/env python3
"""The OPTIONS of the man pages, made from the programs' own --help.

Each program's options are declared once, in src/opts_table.c; --help prints
them. This script turns that --help into roff and puts it between the
markers of the man page:

    .\\" OPTIONS analyze: made by man/update-options.py from --help
    ...
    .\\" END OPTIONS analyze

The explorer's KEYS come the same way from its own help screen (the key
table in ui/keys.c), between `.\" KEYS torch2pprof-tui` markers.

    man/update-options.py BUILDDIR SRCDIR           rewrite the pages
    man/update-options.py --check BUILDDIR SRCDIR   exit 1 when a page differs
                                                    (tests/e2e/cli.sh, make check)
"""
import os
import re
import subprocess
import sys

PAGES = [
    ("man/torch2pprof.1", "analyze", ["torch2pprof", "analyze", "--help"]),
    ("man/torch2pprof.1", "convert", ["torch2pprof", "convert", "--help"]),
    ("man/torch2pprof-tui.1", "torch2pprof-tui", ["torch2pprof-tui", "--help"]),
]


def roff_text(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    if s.startswith(".") or s.startswith("'"):
        s = "\\&" + s
    return s


def roff_head(head):
    """'-o, --output OUT' -> roff with the names bold and the value italic."""
    parts = []
    for piece in head.split(", "):
        m = re.match(r"^(-{1,2}[A-Za-z0-9-]+)(?: (.+))?$", piece)
        if not m:
            parts.append(roff_text(piece))
            continue
        s = "\\fB" + roff_text(m.group(1)) + "\\fR"
        if m.group(2):
            s += " \\fI" + roff_text(m.group(2)) + "\\fR"
        parts.append(s)
    return ", ".join(parts)


def options_of(help_text):
    """[(heading or None, head, text)] from the Options part of --help."""
    lines = help_text.split("\n")
    try:
        start = lines.index("Options:") + 1
    except ValueError:
        sys.exit("no 'Options:' line in --help")
    out, heading, cur = [], None, None
    for line in lines[start:]:
        if line == "":
            if cur and heading is None:
                pass
            continue
        if not line.startswith(" "):
            if line.endswith(":"):
                heading = line[:-1]
                continue
            break  # the text after the options
        m = re.match(r"^ {2,6}(-\S.*?)(?:\s{2,}(\S.*))?$", line)
        if m and not line.startswith(" " * 22):
            cur = [heading, m.group(1).strip(), [m.group(2)] if m.group(2) else []]
            heading = None
            out.append(cur)
        elif cur is not None:
            cur[2].append(line.strip())
    return [(h, head, " ".join(t)) for h, head, t in out]


def block(name, help_text):
    r = ['.\\" OPTIONS %s: made by man/update-options.py from --help' % name]
    for heading, head, text in options_of(help_text):
        if heading:
            r.append(".PP")
            r.append("\\fI%s:\\fR" % roff_text(heading))
        r.append(".TP")
        r.append(roff_head(head))
        r.append(roff_text(text))
    r.append('.\\" END OPTIONS %s' % name)
    return r


def keys_block(help_screen):
    """The explorer's help screen (--replay '?' --print) as roff: a
    sub-section per heading, a tagged paragraph per key."""
    r = ['.\\" KEYS torch2pprof-tui: made by man/update-options.py from the help screen']
    lines = help_screen.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("torch2pprof-tui: keys")) + 1
    cur = None
    for line in lines[start:]:
        if not line.strip():
            continue
        if line.startswith("-- "):
            break  # the help pager's footer ("-- lines 1-128 of 128: ...")
        if not line.startswith(" "):
            if "." in line or "`" in line:
                break  # the closing paragraph: headings are names of views
            r.append(".SS %s" % roff_text(line.strip()))
            cur = None
            continue
        m = re.match(r"^  (\S.*?)\s{2,}(\S.*)$", line)
        if m and not line.startswith(" " * 4):
            r.append(".TP")
            r.append("\\fB%s\\fR" % roff_text(m.group(1)))
            r.append(roff_text(m.group(2)))
            cur = len(r) - 1
        elif cur is not None:
            r[cur] += " " + roff_text(line.strip())
    r.append('.\\" END KEYS torch2pprof-tui')
    return r


def main():
    args = sys.argv[1:]
    check = args and args[0] == "--check"
    if check:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    builddir, srcdir = args
    bad = 0
    pages = {}
    for page, name, cmd in PAGES:
        path = os.path.join(srcdir, page)
        if path not in pages:
            with open(path) as f:
                pages[path] = f.read().split("\n")
        text = subprocess.run([os.path.join(builddir, cmd[0])] + cmd[1:], check=True,
                              capture_output=True, text=True).stdout
        new = block(name, text)
        lines = pages[path]
        begin = '.\\" OPTIONS %s:' % name
        end = '.\\" END OPTIONS %s' % name
        try:
            i = next(k for k, l in enumerate(lines) if l.startswith(begin))
            j = lines.index(end, i)
        except (StopIteration, ValueError):
            print("%s: no OPTIONS markers for %s" % (page, name), file=sys.stderr)
            bad = 1
            continue
        if lines[i:j + 1] != new:
            if check:
                old = set(lines[i:j + 1])
                diff = [l for l in new if l not in old][:5]
                print("%s: the OPTIONS of %s differ from `%s`; run man/update-options.py "
                      "(first new lines: %s)" % (page, name, " ".join(cmd), diff),
                      file=sys.stderr)
                bad = 1
            pages[path] = lines[:i] + new + lines[j + 1:]
    # the explorer's keys, from its help screen on a shipped sample
    path = os.path.join(srcdir, "man/torch2pprof-tui.1")
    screen = subprocess.run([os.path.join(builddir, "torch2pprof-tui"), "--replay", "?", "--print",
                             "--size", "200x400", os.path.join(srcdir, "data/cnn_train_cpu.json.gz")],
                            check=True, capture_output=True, text=True).stdout
    new = keys_block(screen)
    lines = pages[path]
    try:
        i = next(k for k, l in enumerate(lines) if l.startswith('.\\" KEYS torch2pprof-tui:'))
        j = lines.index('.\\" END KEYS torch2pprof-tui', i)
        if lines[i:j + 1] != new:
            if check:
                print("man/torch2pprof-tui.1: its KEYS differ from the help screen; run make man",
                      file=sys.stderr)
                bad = 1
            pages[path] = lines[:i] + new + lines[j + 1:]
    except (StopIteration, ValueError):
        print("man/torch2pprof-tui.1: no KEYS markers", file=sys.stderr)
        bad = 1
    if not check:
        for path, lines in pages.items():
            with open(path, "w") as f:
                f.write("\n".join(lines))
    sys.exit(bad)


if __name__ == "__main__":
    main()
