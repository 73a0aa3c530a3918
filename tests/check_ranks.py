#!/usr/bin/env python3
"""Check `torch2pprof analyze|convert DIR|TRACE...` (one job's ranks) against
independent figures.

usage: check_ranks.py TOOL SHARED_DIR

Builds jobs in a temporary directory (removed at the end) with
SHARED_DIR/tools/make-ranks.py, which writes N copies of a real trace with
distributedInfo.rank set and one rank's times stretched by a known factor:
  - each rank's events, window, busy time equal its single-file analyze; its
    CPU time equals the busy time of its threads that are neither GPU streams
    nor rows of a device-labelled process; its
    GPU busy time equals the union of its GPU events computed here;
  - the stretched rank is the straggler, its skew is the factor - 1;
  - per operation: sums over ranks and min / median / max / max_rank of the
    per-rank self time equal those computed here from tests/oracle.py's
    figures of each file (a second computation, not the tool's);
  - ranks by distributedInfo, by file name, by position; mixed plain and gz;
  - a directory with a bad file (exit 2 naming it; --partial goes on and
    lists it), duplicate ranks (exit 2 naming both), an empty directory;
  - convert: one profile whose rank labels cut it back to each rank's busy
    time (read with go tool pprof, when go is there), and per-rank converts
    merged by go tool pprof -proto keep their rank labels;
  - --step N[-M]: each rank's figures equal its single-file analyze --step,
    the merged ops the oracle's figures scoped to those steps; the step label
    of convert's samples: rank R then step N focused equals single-file
    convert --step N of rank R, as does convert --step N of the job.
Exit 0 if all match, 1 otherwise, 77 when python or the shared traces are
missing. Stdlib only.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402
import pprof_top  # noqa: E402

GPU_WORK = {"kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events"}
failures = []


def need(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(args, ok=(0,)):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=300)
    if p.returncode not in ok:
        need(False, "%s: exit %d, stderr %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p


def analyze_json(tool, args):
    p = run([tool, "analyze", "--json", "--top", "0"] + args)
    return json.loads(p.stdout) if p.returncode == 0 else None


def make_job(shared, src, out, n, slow, factor):
    subprocess.run([sys.executable, os.path.join(shared, "tools", "make-ranks.py"), src, out,
                    str(n), str(slow), str(factor)], check=True, timeout=300)
    exp = json.load(open(os.path.join(out, "expect.json")))
    os.unlink(os.path.join(out, "expect.json"))  # not a trace: keep the directory clean
    return exp


def gpu_union(path):
    events, base = oracle.load_events(path)
    spans = []
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") in GPU_WORK:
            ts = oracle.us_to_ns(e["ts"])
            spans.append((ts, ts + oracle.us_to_ns(e["dur"])))
    spans.sort()
    busy, cs, ce = 0, None, None
    for s, t in spans:
        if ce is not None and s <= ce:
            ce = max(ce, t)
            continue
        if ce is not None:
            busy += ce - cs
        cs, ce = s, t
    return busy + (ce - cs if ce is not None else 0)


def device_pids(path):
    """Pids (as text) of processes labelled as a device ("GPU 0", "MTIA 17")."""
    events, _ = oracle.load_events(path)
    dev = set()
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "M" and e.get("name") == "process_labels":
            lab = (e.get("args") or {}).get("labels")
            if isinstance(lab, str) and lab and not lab.startswith("CPU"):
                dev.add(oracle.track_text(e.get("pid")))
    return dev


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) // 2


def tool_windows(tool, trace):
    """The tool's step windows in absolute ns, for oracle.analyze's scope."""
    p = run([tool, "analyze", "--steps", "--json", trace])
    d = json.loads(p.stdout)
    return [(d["base_ns"] + st["start_ns"], d["base_ns"] + st["end_ns"]) for st in d["steps"]]


def check_per_op(d, files_by_rank, label, step=None):
    """Merged ops against oracle.py's figures of each rank's file (scoped by the
    oracle itself to steps STEP when given)."""
    per = {}
    sums = {}
    ranks = sorted(files_by_rank)
    for r in ranks:
        f = files_by_rank[r]
        o = oracle.analyze(f, scope=(step, tool_windows(d["tool"], f)) if step else None)
        for op in o["ops"]:
            k = (op["name"], op["category"])
            per.setdefault(k, {})[r] = op["self_ns"]
            s = sums.setdefault(k, [0, 0, 0])
            s[0] += op["count"]
            s[1] += op["self_ns"]
            s[2] += op["total_ns"]
    got = {(o["name"], o["category"]): o for o in d["ops"]}
    need(set(got) == set(per), "%s: merged ops %d, oracle %d" % (label, len(got), len(per)))
    for k, by_rank in per.items():
        o = got.get(k)
        if not o:
            continue
        v = [by_rank.get(r, 0) for r in ranks]
        mx = max(v)
        want = {"min_ns": min(v), "median_ns": median(v), "max_ns": mx,
                "max_rank": next(r for r in ranks if by_rank.get(r, 0) == mx)}
        need(o["per_rank"] == want, "%s: %s per_rank %s, want %s" % (label, k, o["per_rank"], want))
        need([o["count"], o["self_ns"], o["total_ns"]] == sums[k],
             "%s: %s sums %s, want %s" % (label, k, [o["count"], o["self_ns"], o["total_ns"]],
                                            sums[k]))


def check_rank_figures(tool, d, label, step=None):
    """Each rank's figures against its single-file analyze (--step STEP too
    when given: then the step figures come from the scope's kept steps)."""
    for r in d["ranks"]:
        one = analyze_json(tool, (["--step", step] if step else []) + [r["file"]])
        if not one:
            continue
        for k in ("events", "complete_events", "window_ns", "busy_ns", "gpu_events"):
            need(r[k] == one[k], "%s: rank %d %s %s, single-file analyze %s"
                 % (label, r["rank"], k, r[k], one[k]))
        # the same figures as the single-file report's, none computed twice
        for k, want in (("cpu_ns", one["cpu_time_ns"]), ("gpu_busy_ns", one["gpu_busy_ns"])):
            need(r[k] == want, "%s: rank %d %s %s, single-file analyze %s"
                 % (label, r["rank"], k, r[k], want))
        avg = one["steps_average"]
        kept = [x for x in one["steps"] if x["kept"]]
        if step and kept:
            n = len(kept)
            roles = {k: sum(x[k] for x in kept) // n for k in kept[0]
                     if k.endswith("_ns") and k not in ("start_ns", "end_ns", "duration_ns",
                                                       "gpu_busy_ns", "cpu_ns")}
            avg = dict(roles, steps=n, duration_ns=sum(x["duration_ns"] for x in kept) // n)
        elif step:
            avg = None
        if avg:
            want = {"steps": avg["steps"], "step_mean_ns": avg["duration_ns"],
                    "step_max_ns": max(x["duration_ns"] for x in kept),
                    "communication_ns": sum(x["overlap"]["communication_ns"] for x in kept) // len(kept),
                    "overlap_ns": sum(x["overlap"]["overlap_ns"] for x in kept) // len(kept),
                    "roles": {k: v for k, v in avg.items()
                              if k.endswith("_ns") and k not in ("duration_ns", "gpu_busy_ns")}}
        else:
            want = {"steps": 0, "step_mean_ns": None, "step_max_ns": None, "roles": None}
        got = {k: r[k] for k in want}
        need(got == want, "%s: rank %d steps %s, single-file analyze %s" % (label, r["rank"], got, want))
        streams = {(s["pid"], s["tid"]) for s in one["streams"]}
        dev = device_pids(r["file"])
        cpu = sum(t["busy_ns"] for t in one["threads"] if (t["pid"], t["tid"]) not in streams
                  and t["pid"] not in dev and not t["name"].lower().startswith("stream "))
        need(r["cpu_ns"] == cpu, "%s: rank %d cpu_ns %d, want %d" % (label, r["rank"], r["cpu_ns"], cpu))
        g = gpu_union(r["file"]) if not step else one["gpu_busy_ns"]
        need(r["gpu_busy_ns"] == g, "%s: rank %d gpu_busy_ns %d, want %d"
             % (label, r["rank"], r["gpu_busy_ns"], g))


def check_straggler(d, exp, label):
    need([r["rank"] for r in d["ranks"]] == list(range(exp["n"])), "%s: ranks %s"
         % (label, [r["rank"] for r in d["ranks"]]))
    need(d["straggler"] == exp["slow_rank"], "%s: straggler %s, want %s"
         % (label, d["straggler"], exp["slow_rank"]))
    for r in d["ranks"]:
        want = exp["factor"] - 1 if r["rank"] == exp["slow_rank"] else 0.0
        need(abs(r["skew"] - want) < 0.002, "%s: rank %d skew %.4f, want %.4f"
             % (label, r["rank"], r["skew"], want))
    metric = "step_mean_ns" if d["skew_by"] == "step_mean" else "busy_ns"
    med = median([r[metric] for r in d["ranks"]])
    need(d["median_ns"] == med, "%s: median %d, want %d" % (label, d["median_ns"], med))
    for r in d["ranks"]:
        want = (r[metric] - med) / med if med else 0.0
        need(abs(r["skew"] - want) < 1e-5, "%s: rank %d skew %.6f, want %.6f from %s"
             % (label, r["rank"], r["skew"], want, metric))


def pprof_top_rows(go, profile, extra):
    """pprof_top.top's rows of the profile's default sample type, {} when
    pprof fails (said as a failure)."""
    try:
        return pprof_top.top(go, None, profile, None, extra)[0]
    except RuntimeError as e:
        need(False, "go tool pprof %s: %s" % (extra, e))
        return {}


def pprof_total(go, profile, extra):
    """Sum of flat time (ns) pprof shows for profile with extra options."""
    return sum(flat for flat, _ in pprof_top_rows(go, profile, extra).values())


def check_convert(tool, go, job, d, work):
    out = os.path.join(work, "job.pb.gz")
    run([tool, "convert", job, out])
    if not go:
        need(False, "go missing: convert's profile cannot be read back (./setup.sh --test installs it)")
        return
    for r in d["ranks"]:
        t = pprof_total(go, out, ["-tagfocus", "rank=%d" % r["rank"]])
        need(t == r["busy_ns"], "convert: -tagfocus rank=%d total %d, want busy %d"
             % (r["rank"], t, r["busy_ns"]))
    need(pprof_total(go, out, []) == sum(r["busy_ns"] for r in d["ranks"]), "convert: total")
    # per-rank converts merged by pprof itself keep the labels
    parts = []
    for r in d["ranks"]:
        parts.append(os.path.join(work, "r%d.pb.gz" % r["rank"]))
        run([tool, "convert", r["file"], parts[-1]])
    merged = os.path.join(work, "merged.pb.gz")
    with open(merged, "wb") as f:
        p = subprocess.run([go, "tool", "pprof", "-proto"] + parts, stdout=f,
                           stderr=subprocess.PIPE, timeout=300)
    need(p.returncode == 0, "go tool pprof -proto: %s" % p.stderr)
    for r in d["ranks"]:
        t = pprof_total(go, merged, ["-tagfocus", "rank=%d" % r["rank"]])
        need(t == r["busy_ns"], "pprof -proto merge: rank=%d total %d, want %d"
             % (r["rank"], t, r["busy_ns"]))


def pprof_rows(go, profile, extra):
    """(flat ns, cum ns, name) of every row go tool pprof -top shows."""
    return sorted((f, c, n) for n, (f, c) in pprof_top_rows(go, profile, extra).items())


def check_steps(tool, go, job, spec, label, work, convert_step=None):
    """analyze --step SPEC of the job: each rank's figures equal its single-file
    analyze --step SPEC, the merged ops the oracle's scoped figures; convert of
    the job labels every sample with its step: -tagfocus rank=R then -tagfocus
    step=N (two pprof passes: a second -tagfocus replaces the first) equals
    single-file convert --step N of rank R, and so does convert --step N of
    the job focused on rank R."""
    d = analyze_json(tool, ["--step", spec, job])
    if not d:
        return
    d["tool"] = tool
    need(d.get("scope") == {"steps": spec}, "%s: scope %s" % (label, d.get("scope")))
    check_rank_figures(tool, d, label, step=spec)
    check_per_op(d, {r["rank"]: r["file"] for r in d["ranks"]}, label, step=spec)
    text = run([tool, "analyze", "--step", spec, job]).stdout
    need(re.search(r"^Scope: +steps? %s of each rank" % re.escape(spec), text, re.M) is not None,
         "%s: text says the scope" % label)
    if not convert_step or not go:
        return
    whole = os.path.join(work, label + ".pb.gz")
    scoped = os.path.join(work, label + "-step.pb.gz")
    run([tool, "convert", job, whole])
    run([tool, "convert", "--step", convert_step, job, scoped])
    for r in d["ranks"]:
        one = os.path.join(work, "%s-r%d.pb.gz" % (label, r["rank"]))
        run([tool, "convert", "--step", convert_step, r["file"], one])
        want = pprof_rows(go, one, [])
        part = os.path.join(work, "%s-r%d-all.pb.gz" % (label, r["rank"]))
        with open(part, "wb") as f:
            p = subprocess.run([go, "tool", "pprof", "-proto", "-tagfocus", "rank=%d" % r["rank"],
                                whole], stdout=f, stderr=subprocess.PIPE, timeout=300)
        need(p.returncode == 0, "go tool pprof -proto -tagfocus: %s" % p.stderr)
        got = pprof_rows(go, part, ["-tagfocus", "step=" + convert_step])
        need(want and got == want, "%s: rank %d: -tagfocus rank then step=%s: %d rows, "
             "single-file convert --step %d rows" % (label, r["rank"], convert_step, len(got),
                                                     len(want)))
        got = pprof_rows(go, scoped, ["-tagfocus", "rank=%d" % r["rank"]])
        need(got == want, "%s: rank %d: convert --step %s of the job, focused on the rank: %d "
             "rows, single-file %d" % (label, r["rank"], convert_step, len(got), len(want)))


def tui_screen(tui, keys, args):
    p = run([tui, "--replay", keys, "--print", "--size", "160x20"] + args)
    return [l for l in p.stdout.splitlines()
            if not re.match(r"^(load|first-screen|key|max-key) ", l)]


def check_tui(tui, job):
    """The explorer on the job (with a bad file): the Ranks view lists the
    ranks with the straggler starred and the bad file failed; Enter on a rank
    shows it in every view; All ranks shows the merged min/median/max."""
    if not os.path.exists(tui):
        print("note: %s missing: explorer not checked" % tui)
        return
    scr = tui_screen(tui, "", [job])
    rows = [l for l in scr if re.match(r"^[> ][ \u25b8!][ *] *\d+ rank-", l)]
    need(len(rows) == 5, "tui: 4 ranks and the failed file listed: %s" % rows)
    need(any(re.match(r"^[> ][ \u25b8]\*2 rank-2\.json\.gz", l) for l in rows), "tui: rank 2 starred")
    need(any("9 rank-9.json: failed" in l for l in rows), "tui: the bad file is listed as failed")
    need(scr[0].startswith(os.path.join(job, "rank-0.json.gz")), "tui: rank 0 shown first: %s" % scr[0])
    # rows: (all ranks), then by busy time: rank 2 first; <Down> x3 is the second of ranks 0,1,3
    scr = tui_screen(tui, "<Down> <Enter> 1", [job])
    need(scr[0].startswith(os.path.join(job, "rank-2.json.gz")) and "[1 Ops]" in scr[2],
         "tui: Enter on rank 2 shows it in the Ops view: %s" % scr[:3])
    scr = tui_screen(tui, "<Enter>", [job])
    need("[7 All ranks]" in scr[2] and "Median ms" in scr[3], "tui: (all ranks) opens All ranks: %s"
         % scr[2:4])
    scr = tui_screen(tui, "7 <Esc>", [job])
    need("[6 Ranks]" in scr[2], "tui: Esc returns to Ranks")


def main():
    tool, shared = sys.argv[1], sys.argv[2]
    traces = os.path.join(shared, "traces")
    src = os.path.join(traces, "amd_mi250_train.json.gz")
    if not os.path.exists(src):
        print("cannot run: %s missing" % src)
        return 1
    go = shutil.which("go")
    work = tempfile.mkdtemp(prefix="t2p-ranks-")
    try:
        # A: 4 ranks by distributedInfo, rank 2 stretched 1.25x; rank 1 plain JSON
        a = os.path.join(work, "a")
        exp = make_job(shared, src, a, 4, 2, "1.25")
        with gzip.open(os.path.join(a, "rank-1.json.gz")) as f, \
                open(os.path.join(a, "rank-1.json"), "wb") as g:
            shutil.copyfileobj(f, g)
        os.unlink(os.path.join(a, "rank-1.json.gz"))
        d = analyze_json(tool, [a])
        if d:
            need(all(r["rank_from"] == "trace" for r in d["ranks"]), "a: ranks from distributedInfo")
            need(d["failed"] == [], "a: nothing failed")
            check_straggler(d, exp, "a")
            check_rank_figures(tool, d, "a")
            check_per_op(d, {r["rank"]: r["file"] for r in d["ranks"]}, "a")
            one = analyze_json(tool, ["--jobs", "1", a])
            need(one == d, "a: --jobs 1 gives the same report")
            files = sorted(os.path.join(a, x) for x in os.listdir(a))
            need(analyze_json(tool, files) == d, "a: the files named one by one give the same report")
            text = run([tool, "analyze", a]).stdout
            need(re.search(r"^Straggler: +rank 2 \(rank-2\.json\.gz\): mean step .* \+25\.0% over",
                           text, re.M) is not None, "a: text names the straggler")
            rows = [l for l in text.splitlines() if re.match(r"^[* ] +\d+ rank-", l)]
            need(len(rows) == 4 and rows[2].startswith("*") and
                 not any(r.startswith("*") for i, r in enumerate(rows) if i != 2),
                 "a: the Ranks table marks rank 2 alone: %s" % rows)
            spread = analyze_json(tool, ["--sort", "spread", a])
            if spread:
                sp = [o["per_rank"]["max_ns"] - o["per_rank"]["min_ns"] for o in spread["ops"]]
                need(sp == sorted(sp, reverse=True) and sp[0] > 0, "a: --sort spread order")
            check_convert(tool, go, a, d, work)
            # its step 1 (two ProfilerStep#1 in this trace: -tagfocus step=1 would
            # take both, so no convert check here)
            check_steps(tool, go, a, "1", "a-step1", work)
            # a step whose GPU work the profiler missed: no kept step, no mean
            check_steps(tool, go, a, "2", "a-step2", work)

        # communication: 3 ranks of an NCCL job, rank 1 stretched 1.1x
        n = os.path.join(work, "nccl")
        exp = make_job(shared, os.path.join(traces, "nccl_relative_time.json.gz"), n, 3, 1, "1.1")
        d = analyze_json(tool, [n])
        if d:
            need(d["skew_by"] == "step_mean", "nccl: skew by mean step")
            need(all(r["communication_ns"] > 0 and 0 < r["overlap_ns"] <= r["communication_ns"]
                     for r in d["ranks"]), "nccl: communication and overlap found")
            check_straggler(d, exp, "nccl")
            check_rank_figures(tool, d, "nccl")
        # --step: one step, then a range, of each rank
        check_steps(tool, go, n, "5", "nccl-step5", work, convert_step="5")
        check_steps(tool, go, n, "4-5", "nccl-steps4-5", work)

        # B: different traces per rank, ranks from file names (an even count: the
        # median of two different middle values)
        b = os.path.join(work, "b")
        os.mkdir(b)
        shutil.copy(src, os.path.join(b, "job_rank-0.json.gz"))
        shutil.copy(os.path.join(traces, "triton_example.json.gz"), os.path.join(b, "rank_1.json.gz"))
        shutil.copy(os.path.join(traces, "x_events_only.json.gz"), os.path.join(b, "worker3.pt.trace.json.gz"))
        shutil.copy(os.path.join(traces, "mtia_inference_rank0.json.gz"), os.path.join(b, "rank2.json.gz"))
        d = analyze_json(tool, [b])
        if d:
            need([(r["rank"], r["rank_from"]) for r in d["ranks"]] ==
                 [(0, "name"), (1, "name"), (2, "name"), (3, "name")], "b: ranks from names: %s"
                 % [(r["rank"], r["rank_from"]) for r in d["ranks"]])
            check_rank_figures(tool, d, "b")
            check_per_op(d, {r["rank"]: r["file"] for r in d["ranks"]}, "b")
            busy = {r["rank"]: r["busy_ns"] for r in d["ranks"]}
            top = max(busy, key=lambda r: (busy[r], -r))
            med = median(list(busy.values()))
            flagged = (busy[top] - med) / med > 0.05
            need(d["straggler"] == (top if flagged else None), "b: straggler %s" % d["straggler"])

        # C: no rank anywhere: position in name order
        c = os.path.join(work, "c")
        os.mkdir(c)
        shutil.copy(os.path.join(traces, "x_events_only.json.gz"), os.path.join(c, "b.json.gz"))
        shutil.copy(os.path.join(traces, "triton_example.json.gz"), os.path.join(c, "a.json.gz"))
        d = analyze_json(tool, [c])
        if d:
            need([(r["rank"], os.path.basename(r["file"]), r["rank_from"]) for r in d["ranks"]] ==
                 [(0, "a.json.gz", "position"), (1, "b.json.gz", "position")], "c: ranks by position")

        # a bad file among the ranks
        bad = os.path.join(a, "rank-9.json")
        with open(bad, "w") as f:
            f.write("this is not JSON\n")
        check_tui(tool + "-tui", a)
        p = run([tool, "analyze", a], ok=(2,))
        need("rank-9.json" in p.stderr and p.stdout == "", "bad: analyze names it and reports nothing")
        p = run([tool, "convert", a, os.path.join(work, "bad.pb.gz")], ok=(2,))
        need("rank-9.json" in p.stderr and not os.path.exists(os.path.join(work, "bad.pb.gz")),
             "bad: convert names it and writes nothing")
        p = run([tool, "analyze", "--json", "--partial", a])
        if p.returncode == 0:
            d = json.loads(p.stdout)
            need([r["rank"] for r in d["ranks"]] == [0, 1, 2, 3] and len(d["failed"]) == 1 and
                 d["failed"][0]["file"].endswith("rank-9.json") and "rank-9.json" in p.stderr,
                 "bad --partial: goes on without it and says so")
        p = run([tool, "convert", "--partial", a, os.path.join(work, "partial.pb.gz")])
        need("rank-9.json" in p.stderr and os.path.exists(os.path.join(work, "partial.pb.gz")),
             "bad --partial: convert goes on and says so")
        os.unlink(bad)

        # duplicate ranks: the same distributedInfo.rank twice
        dup = os.path.join(work, "dup")
        os.mkdir(dup)
        shutil.copy(os.path.join(a, "rank-0.json.gz"), os.path.join(dup, "x.json.gz"))
        shutil.copy(os.path.join(a, "rank-0.json.gz"), os.path.join(dup, "y.json.gz"))
        for cmd in (["analyze", dup], ["convert", dup, os.path.join(work, "dup.pb.gz")]):
            p = run([tool] + cmd, ok=(2,))
            need("x.json.gz" in p.stderr and "y.json.gz" in p.stderr and "rank 0" in p.stderr,
                 "dup: %s names both files: %s" % (cmd[0], p.stderr.strip()))

        # one-trace options refuse a job rather than ignore it
        for cmd in (["analyze", "--steps", a], ["analyze", "--base", a, a],
                    ["analyze", "--short-names", a], ["convert", "--base", a, a, "x.pb.gz"]):
            p = run([tool] + cmd, ok=(1,))
            need("not several or a directory" in p.stderr or "one TRACE" in p.stderr,
                 "%s: usage error: %s" % (" ".join(cmd[:2]), p.stderr.strip()))

        # a step some rank lacks: exit 2 naming the ranks
        p = run([tool, "analyze", "--step", "9", n], ok=(2,))
        need("rank-0.json.gz: --step: no step 9" in p.stderr, "step 9: named: %s" % p.stderr.strip())

        # an empty directory
        empty = os.path.join(work, "empty")
        os.mkdir(empty)
        for cmd in (["analyze", empty], ["convert", empty, os.path.join(work, "e.pb.gz")]):
            p = run([tool] + cmd, ok=(2,))
            need("no trace files" in p.stderr, "empty: %s says so: %s" % (cmd[0], p.stderr.strip()))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("check_ranks: %d failures" % len(failures))
        return 1
    print("ok: ranks (analyze, convert, straggler, per-op spread, bad inputs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
