"""What the checks read from `go tool pprof -top`, the independent reader of
the profiles convert writes (never our own decoder): one parser for every
check, so that a change of pprof's layout is met in one place.

    env = go_env(tmp)                         # go wants a home and a cache
    rows, total = top(go, env, profile, "time", ["-filefunctions"])
    flat, cum = rows["aten::mm"]

Stdlib only, Python >= 3.9."""
import os
import re
import subprocess

ROW = re.compile(r"^\s*(\S+) +(\S+) +(\S+) +(\S+) +(\S+)  (.*)$")
TOTAL = re.compile(r"of (\S+) total")


def go_env(tmp):
    """The environment for go tool pprof: go wants a cache and a home, CI may
    give neither; everything it writes goes below tmp."""
    env = dict(os.environ)
    env.update(HOME=tmp, GOCACHE=os.path.join(tmp, "gocache"), GOFLAGS="",
               PPROF_TMPDIR=tmp, GOTOOLCHAIN="local")
    return env


def number(s):
    """pprof prints 123ns, 1.5ms, 42 ...; with -unit=ns values are integers."""
    m = re.match(r"^(-?[0-9.]+)([a-z]*)$", s)
    if not m or m.group(2) not in ("", "ns"):
        raise ValueError("unexpected pprof value %r" % s)
    v = float(m.group(1))
    if v != int(v):
        raise ValueError("non-integer pprof value %r" % s)
    return int(v)


def pprof(go, env, args, profile):
    """(the command, its CompletedProcess with bytes) of go tool pprof ARGS PROFILE."""
    cmd = [go, "tool", "pprof"] + args + [profile]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       timeout=300)
    return cmd, p


def top(go, env, profile, index, extra=()):
    """{name: (flat, cum)} and the total of sample type index (None: the
    profile's default), from pprof -top in nanoseconds (or plain counts),
    every node shown; env None: this process's. Raises RuntimeError when
    pprof fails, a row cannot be read or a name comes twice."""
    args = ["-top", "-unit=ns", "-nodecount=1000000", "-nodefraction=0",
            "-edgefraction=0"] + (["-sample_index=" + index] if index else []) + list(extra)
    cmd, p = pprof(go, env, args, profile)
    if p.returncode != 0:
        raise RuntimeError("`%s` exited %d: %s" % (" ".join(cmd), p.returncode,
                                                  p.stderr.decode(errors="replace")))
    rows, total, header = {}, None, True
    for line in p.stdout.decode("utf-8", errors="replace").split("\n"):
        if header:
            m = TOTAL.search(line)
            if m and line.startswith("Showing nodes"):
                total = number(m.group(1))
            if line.split() == ["flat", "flat%", "sum%", "cum", "cum%"]:
                header = False
            continue
        if not line:
            continue
        m = ROW.match(line)
        if not m:
            raise RuntimeError("cannot read pprof row %r" % line)
        name = m.group(6)
        if name in rows:
            raise RuntimeError("pprof lists %r twice" % name)
        rows[name] = (number(m.group(1)), number(m.group(4)))
    if total is None:
        # an empty profile has no "Showing nodes" line
        total = 0
    return rows, total
