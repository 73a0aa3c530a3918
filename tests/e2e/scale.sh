#!/bin/sh
# Ranks at scale (issue 28): the map (analyze --json --top 0 TRACE per rank)
# and the reduce (analyze of the analysis files) give the job report of
# analyze DIR on the traces, equal in every figure, text and --json; mixed
# with traces, one file alone, and with --step. Collectives matched across
# ranks against the waits tests/make_nccl_job.py computes from the
# definitions. Bad analysis files: same rank twice, another format
# version, cut short, made without -top 0, a rank of another job.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
work=$(mktemp -d /tmp/t2p-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# same_json A B WHAT: equal but for the file names ("file" members)
same_json() {
    if "$py" - "$1" "$2" <<'PY'
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "file"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("    | differs:", k, str(a.get(k))[:200], "|", str(b.get(k))[:200])
    sys.exit(1)
PY
    then ok "$3"; else bad "$3"; fi
}
same_text() {
    if cmp -s "$1" "$2"; then ok "$3"; else bad "$3"; diff "$1" "$2" | head -10 | sed 's/^/    | /'; fi
}

# map: one analysis file per rank, named like a scheduler's array task would
map() { # TRACEDIR OUTDIR [analyze options]
    src=$1 dst=$2
    shift 2
    mkdir -p "$dst"
    for t in "$src"/rank-*.json.gz; do
        r=$(basename "$t" .json.gz)
        "$tool" analyze --json --top 0 "$@" "$t" >"$dst/$r.analysis.json" ||
            { bad "map of $t"; return 1; }
    done
}

for job in nccl nccl_seq real; do
    case $job in
    nccl) "$py" "$top_srcdir/tests/make_nccl_job.py" "$work/$job" 4 --memory 0,2 ;;
    nccl_seq) "$py" "$top_srcdir/tests/make_nccl_job.py" "$work/$job" 3 --seq ;;
    real) mkdir "$work/real" && cp "$top_srcdir"/data/ranks/rank-*.json.gz "$work/real/" ;;
    esac
    map "$work/$job" "$work/$job.an" || continue
    grep -q '^{"analysis_format":1,' "$work/$job.an/rank-0.analysis.json" &&
        ok "$job: the map starts with its format version" || bad "$job: no analysis_format first"
    "$tool" analyze --top 0 "$work/$job" >"$work/a.txt" 2>"$work/a.err"
    "$tool" analyze --top 0 "$work/$job.an" >"$work/b.txt" 2>"$work/b.err" ||
        { bad "$job: reduce failed"; sed 's/^/    | /' "$work/b.err"; continue; }
    same_text "$work/a.txt" "$work/b.txt" "$job: reduce of DIR's analysis files = analyze DIR (text)"
    "$tool" analyze --json --top 0 "$work/$job" >"$work/a.json" 2>/dev/null
    "$tool" analyze --json --top 0 "$work/$job.an"/*.json >"$work/b.json"
    same_json "$work/a.json" "$work/b.json" "$job: reduce = analyze DIR (--json, every figure)"
    "$tool" analyze --json --sort spread "$work/$job" >"$work/a.json" 2>/dev/null
    "$tool" analyze --json --sort spread "$work/$job.an" >"$work/b.json"
    same_json "$work/a.json" "$work/b.json" "$job: --sort spread the same"
    # a mix: rank 0 as a trace, the others as analysis files
    mkdir "$work/$job.mix"
    cp "$work/$job/rank-0.json.gz" "$work/$job.mix/"
    cp "$work/$job.an"/*.json "$work/$job.mix/"
    rm "$work/$job.mix/rank-0.analysis.json"
    "$tool" analyze --json --top 0 "$work/$job.mix" >"$work/c.json" 2>"$work/c.err"
    "$tool" analyze --json --top 0 "$work/$job" >"$work/a.json" 2>/dev/null
    same_json "$work/a.json" "$work/c.json" "$job: traces and analysis files mixed"
done

# --step: map and reduce of one step against analyze DIR --step
map "$work/nccl" "$work/step.an" --step 1 &&
    "$tool" analyze --top 0 --step 1 "$work/nccl" >"$work/a.txt" 2>/dev/null &&
    "$tool" analyze --top 0 "$work/step.an" >"$work/b.txt" &&
    same_text "$work/a.txt" "$work/b.txt" "--step 1: the reduce of step maps = analyze DIR --step 1"
"$tool" analyze --step 2 "$work/step.an" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q 'this analysis file covers steps 1' "$work/err" &&
    ok "--step of a reduce other than the map's: refused, naming the file" ||
    { bad "--step 2 over step-1 maps"; sed 's/^/    | /' "$work/err"; }

# one analysis file alone is a job of one rank
"$tool" analyze "$work/nccl.an/rank-1.analysis.json" >"$work/out" 2>&1 &&
    grep -q '^Ranks: *1 loaded' "$work/out" && ok "one analysis file: the job report of its rank" ||
    { bad "one analysis file"; sed 's/^/    | /' "$work/out" | head -5; }

# collectives against the waits computed from the definitions
for job in nccl nccl_seq; do
    "$tool" analyze --json "$work/$job.an" >"$work/b.json"
    if "$py" - "$work/b.json" "$work/$job.expect.json" <<'PY'
import json, sys
got, exp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
calls = got["collectives"]
assert len(calls) == len(exp), (len(calls), len(exp))
waits = {}
for c, e in zip(calls, exp):
    for k in ("name", "process_group", "seq", "bytes", "last_rank", "transfer_ns"):
        assert c[k] == e[k], (k, c[k], e[k])
    w = {str(x["rank"]): x["wait_ns"] for x in c["ranks"]}
    assert w == {str(k): v for k, v in e["wait"].items()}, (w, e["wait"])
    for r, v in w.items():
        waits[r] = waits.get(r, 0) + v
cw = {str(x["rank"]): (x["wait_ns"], x["collectives"]) for x in got["collective_wait"]}
assert cw == {r: (v, len(exp)) for r, v in waits.items()}, (cw, waits)
PY
    then ok "$job: collectives, waits, last rank and transfer as computed from the definitions"
    else bad "$job: collectives differ from the expected"; fi
done
"$tool" analyze "$work/nccl.an" >"$work/out"
# by collective: allreduce durations 3000 - 150 r us (mean 2.775 ms), waits 450 - 150 r
# (mean 0.225); broadcast durations 170 + 10 r (0.185), waits 10 r (0.015)
grep -q '^allreduce  *0  *3  *12,582,912  *2\.775  *0\.225  *3 (3 of 3)$' "$work/out" &&
    grep -q '^broadcast  *1  *3  *240  *0\.185  *0\.015  *0 (3 of 3)$' "$work/out" &&
    ok "text: by collective, mean time and wait per rank as computed by hand" ||
    { bad "text: the by-collective table"; grep -A3 '^By collective' "$work/out" | sed 's/^/    | /'; }
grep -q '^Collectives: 6 calls in 2 process groups' "$work/out" &&
    grep -q '^Collective wait per rank' "$work/out" && ok "text: the collectives tables" ||
    bad "text: no collectives table"

# convert: ranks 0 and 2 recorded memory, 1 and 3 did not. The built-in
# merge and the README's (per-rank converts merged by go tool pprof -proto)
# both keep the heap types, with each rank's bytes under its label.
mkdir "$work/pb"
if "$tool" convert -o "$work/pb/job.pb.gz" "$work/nccl" 2>"$work/err"; then
    ok "convert DIR with memory on some ranks only"
    grep -q 'alloc_space 24576 B' "$work/err" && ok "convert DIR: the two ranks' 24576 B allocated" ||
        { bad "convert DIR: alloc_space"; sed 's/^/    | /' "$work/err"; }
else
    bad "convert DIR with memory on some ranks only"; sed 's/^/    | /' "$work/err"
fi
for r in 0 1 2 3; do
    "$tool" convert "$work/nccl/rank-$r.json.gz" "$work/pb/rank-$r.pb.gz" 2>/dev/null ||
        bad "convert of rank $r"
done
if command -v go >/dev/null 2>&1; then
    for p in job merged; do
        [ $p = merged ] && { go tool pprof -proto "$work"/pb/rank-*.pb.gz >"$work/pb/merged.pb.gz" 2>"$work/err" ||
            { bad "go tool pprof -proto of per-rank profiles, some with memory"; sed 's/^/    | /' "$work/err"; continue; }; }
        go tool pprof -sample_index=alloc_space -tags "$work/pb/$p.pb.gz" >"$work/tags" 2>/dev/null
        # the rank block: 12.0kB for ranks 0 and 2, 0 for 1 and 3
        if awk '/^ rank:/{on=1; next} on && /^$/{exit} on{print}' "$work/tags" |
            tr -s ' ' | sort >"$work/ranks" &&
            grep -q '12.0kB (50.00%): 0$' "$work/ranks" && grep -q '12.0kB (50.00%): 2$' "$work/ranks" &&
            grep -q '0.0B ( 0%): 1$' "$work/ranks" && grep -q '0.0B ( 0%): 3$' "$work/ranks"; then
            ok "$p: alloc_space per rank label (12 kB on ranks 0 and 2, none on 1 and 3)"
        else
            bad "$p: alloc_space per rank"; sed 's/^/    | /' "$work/tags" | head -20
        fi
    done
else
    echo "go missing: the go tool pprof merge is not checked"
fi

# bad input
an="$work/nccl.an"
mkdir "$work/dup" && cp "$an/rank-1.analysis.json" "$work/dup/a.analysis.json" &&
    cp "$an/rank-1.analysis.json" "$work/dup/b.analysis.json"
"$tool" analyze "$work/dup" >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "a.analysis.json" "$work/err" &&
    grep -q "b.analysis.json" "$work/err" && ok "same rank twice: one line naming both, exit 2" ||
    { bad "same rank twice (exit $rc)"; sed 's/^/    | /' "$work/err"; }
badone() { # NAME WHAT TEXT: analyze of the job with rank 3 replaced by $work/bad/NAME
    rm -rf "$work/bj" && mkdir "$work/bj" && cp "$an"/rank-[012].analysis.json "$work/bj/" &&
        cp "$work/bad/$1" "$work/bj/"
    "$tool" analyze "$work/bj" >/dev/null 2>"$work/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "$1" "$work/err" && grep -qF "$3" "$work/err" &&
        ok "$2: an error naming the file, exit 2" ||
        { bad "$2 (exit $rc)"; sed 's/^/    | /' "$work/err"; }
}
mkdir "$work/bad"
sed 's/^{"analysis_format":1,/{"analysis_format":99,/' "$an/rank-3.analysis.json" >"$work/bad/v99.analysis.json"
badone v99.analysis.json "another format version" "format 99"
head -c 3000 "$an/rank-3.analysis.json" >"$work/bad/cut.analysis.json"
badone cut.analysis.json "a cut analysis file" "cut short"
"$tool" analyze --json --top 5 "$work/nccl/rank-3.json.gz" >"$work/bad/top5.analysis.json"
badone top5.analysis.json "a map made without -top 0" "make it with -top 0"
# a rank of another job: kept, with a note naming it
"$py" "$top_srcdir/tests/make_nccl_job.py" "$work/other" 4 --world 16
"$tool" analyze --json --top 0 "$work/other/rank-3.json.gz" >"$work/bad/rank-3.analysis.json"
rm -rf "$work/bj" && mkdir "$work/bj" && cp "$an"/rank-[012].analysis.json "$work/bad/rank-3.analysis.json" "$work/bj/"
"$tool" analyze "$work/bj" >/dev/null 2>"$work/err"
grep -q "note: $work/bj/rank-3.analysis.json: rank 3 says a world size of 16 where 3 ranks say 4" "$work/err" &&
    ok "a rank of another job: a note naming the file" ||
    { bad "a rank of another job"; sed 's/^/    | /' "$work/err"; }
exit $fail
