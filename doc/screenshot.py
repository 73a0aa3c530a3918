#!/usr/bin/env python3
"""A real screen of the explorer as an SVG picture, for the README.

usage: doc/screenshot.py TUI OUT.svg COLSxROWS "KEYS" TRACE [ARGS...]

Runs TUI on TRACE in a detached tmux pane of COLSxROWS (its own server
socket, killed at the end), types KEYS (tmux send-keys names, separated by
blanks; a key "wait" waits a moment), and turns `tmux capture-pane -e` (the
text with its colours as escape sequences) into SVG: one rectangle per run
of background colour, one <text> per run of foreground colour and weight.
Stdlib only. `make doc-images` runs it for every picture in doc/.
"""
import html
import os
import re
import subprocess
import sys
import time

# xterm's 16 colours, as most terminals show them
BASE16 = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
          "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"]
FG, BG = "#d4d4d4", "#1e1e1e"
CW, CH = 8.4, 17  # a cell of a 14px monospace font


def color256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        v = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (v[n // 36], v[n // 6 % 6], v[n % 6])
    g = 8 + 10 * (n - 232)
    return "#%02x%02x%02x" % (g, g, g)


def parse(text, cols):
    """[[ (char, fg, bg, bold) ]] per line from text with SGR escapes."""
    rows = []
    for line in text.split("\n"):
        fg, bg, bold, dim, rev = None, None, False, False, False
        cells = []
        for tok in re.split(r"(\x1b\[[0-9;]*m)", line):
            m = re.match(r"\x1b\[([0-9;]*)m", tok)
            if not m:
                for ch in tok:
                    f, b = (bg or BG, fg or FG) if rev else (fg, bg)
                    if dim and f is None:
                        f = "#8a8a8a"
                    cells.append((ch, f, b, bold))
                continue
            codes = [int(c) if c else 0 for c in m.group(1).split(";")]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    fg, bg, bold, dim, rev = None, None, False, False, False
                elif c == 1:
                    bold = True
                elif c == 2:
                    dim = True
                elif c == 22:
                    bold = dim = False
                elif c == 7:
                    rev = True
                elif c == 27:
                    rev = False
                elif 30 <= c <= 37:
                    fg = BASE16[c - 30]
                elif 90 <= c <= 97:
                    fg = BASE16[c - 90 + 8]
                elif c == 39:
                    fg = None
                elif 40 <= c <= 47:
                    bg = BASE16[c - 40]
                elif 100 <= c <= 107:
                    bg = BASE16[c - 100 + 8]
                elif c == 49:
                    bg = None
                elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                    if c == 38:
                        fg = color256(codes[i + 2])
                    else:
                        bg = color256(codes[i + 2])
                    i += 2
                elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
                    v = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5])
                    if c == 38:
                        fg = v
                    else:
                        bg = v
                    i += 4
                i += 1
        rows.append(cells[:cols])
    return rows


def svg(rows, cols, nrows):
    w, h = cols * CW + 16, nrows * CH + 16
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14">' % (w, h, w, h),
           '<rect width="100%%" height="100%%" rx="6" fill="%s"/>' % BG]
    for y, cells in enumerate(rows[:nrows]):
        x = 0
        while x < len(cells):  # backgrounds
            b = cells[x][2]
            e = x
            while e < len(cells) and cells[e][2] == b:
                e += 1
            if b:
                out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                           % (8 + x * CW, 8 + y * CH, (e - x) * CW, CH, b))
            x = e
        x = 0
        while x < len(cells):  # text
            f, bold = cells[x][1], cells[x][3]
            e = x
            while e < len(cells) and (cells[e][1], cells[e][3]) == (f, bold):
                e += 1
            s = "".join(c[0] for c in cells[x:e])
            if s.strip():
                out.append('<text x="%.1f" y="%d" fill="%s"%s xml:space="preserve" '
                           'textLength="%.1f">%s</text>'
                           % (8 + x * CW, 8 + y * CH + 13, f or FG,
                              ' font-weight="bold"' if bold else "", (e - x) * CW, html.escape(s)))
            x = e
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    tui, out, size, keys, trace = sys.argv[1:6]
    cols, nrows = (int(v) for v in size.split("x"))
    sock = "t2p-shot-%d" % os.getpid()
    tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
    cmd = " ".join("'%s'" % a for a in [tui] + sys.argv[6:] + [trace])
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("NO_COLOR", None)
    try:
        subprocess.run(tmux + ["new-session", "-d", "-x", str(cols), "-y", str(nrows), cmd],
                       check=True, env=env)
        time.sleep(3)
        for k in keys.split():
            if k == "wait":
                time.sleep(1)
            else:
                subprocess.run(tmux + ["send-keys", k], check=True)
                time.sleep(0.3)
        time.sleep(1)
        text = subprocess.run(tmux + ["capture-pane", "-p", "-e"], check=True,
                              capture_output=True, text=True).stdout
    finally:
        subprocess.run(tmux + ["kill-server"], stderr=subprocess.DEVNULL)
    rows = parse(text.rstrip("\n"), cols)
    if sum(1 for r in rows if "".join(c[0] for c in r).strip()) < 4:
        sys.exit("screenshot: the screen is mostly empty:\n" + text)
    with open(out, "w") as f:
        f.write(svg(rows, cols, nrows))
    print("wrote %s (%dx%d)" % (out, cols, nrows))


if __name__ == "__main__":
    main()
