#!/usr/bin/env python3
"""Record HTA's short names for every operator and kernel name of the traces.

usage: [HTA_COMMIT=SHA] /usr/bin/python3 tests/record_short_names.py HTA_DIR [TRACE ...]

HTA_DIR is a checkout of facebookresearch/HolisticTraceAnalysis (its `hta`
package is imported from there; it needs Debian's python3-pandas and
python3-psutil). Without TRACE arguments it reads ../shared/traces/*, data/*.json.gz
and tests/fixtures/*.json*. Every distinct name of a timed event (ph X or B),
plus a few hand-made corner cases, goes through HTA's own
hta.utils.utils.shorten_name (the rule behind its use_short_name) and is
written to tests/fixtures/short_names.tsv as "NAME<TAB>SHORT" lines, after a
"#<TAB>" header saying where they came from. Names holding a tab or a line
break cannot be written that way and are left out (the header counts them).
HTA_COMMIT in the environment names the HTA commit when HTA_DIR is no git
checkout (e.g. one made with git archive). The file holds HTA's output as is;
tests/unit/test_shortname.c reads it and allows the one departure documented
in core/model/shortname.h (a short name with no letter or digit keeps the full
name). Nothing else needs HTA.
"""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import oracle  # noqa: E402

# corner cases the traces may lack
EXTRA = [
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
    "Memcpy HtoD (Pageable -> Device)", "Memset (Device)", "hipMemcpyAsync (x)", "dma_copy(a)",
    "aten::add", "foo(int) const", "a > b", "x->y(z)", "operator<<(std::ostream&)",
    "std::function<void ()>::operator()() const", "f(g(h(1)))", "unbalanced>(", "t<a<b>c>d",
    "ends with space( ) ", "", "(", ")", "<", ">", "->", "-->>", "ctor<T>::ctor()",
    "void (anonymous namespace)::kern<float>(float*)", "triton_poi_fused_add_cos_sin_0",
    "ProfilerStep*",  # what torch2pprof merges ProfilerStep#N into
]


def names_of(path):
    try:
        events, _ = oracle.load_events(path)
    except oracle.NotATrace:
        return set()
    out = set()
    for e in events:
        if isinstance(e, dict) and e.get("ph") in ("X", "B") and isinstance(e.get("name"), str):
            out.add(e["name"])
    return out


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    hta_dir, traces = argv[0], argv[1:]
    sys.path.insert(0, os.path.abspath(hta_dir))
    from hta.utils.utils import shorten_name  # noqa: E402
    top = os.path.dirname(HERE)
    if not traces:
        traces = sorted(glob.glob(os.path.join(top, "..", "shared", "traces", "*")) +
                        glob.glob(os.path.join(top, "data", "*.json.gz")) +
                        glob.glob(os.path.join(top, "tests", "fixtures", "*.json*")))
        traces = [t for t in traces if not t.endswith(".expected.json")]
    names = set(EXTRA)
    for t in traces:
        names |= names_of(t)
    commit = os.environ.get("HTA_COMMIT", "")
    if not commit:
        try:
            commit = subprocess.run(["git", "-C", hta_dir, "rev-parse", "HEAD"],
                                    capture_output=True, text=True).stdout.strip()
        except OSError:
            pass
    commit = commit or "(commit unknown)"
    rows, left_out = [], 0
    for n in sorted(names):
        s = shorten_name(n)
        if any(c in n for c in "\t\r\n") or n.startswith("#\t"):
            left_out += 1
            continue
        rows.append((n, s))
    out = os.path.join(top, "tests", "fixtures", "short_names.tsv")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write("#\tHTA %s hta.utils.utils.shorten_name over %d traces; %d names, "
                "%d left out (tab or line break)\n" % (commit, len(traces), len(rows), left_out))
        for n, s in rows:
            f.write("%s\t%s\n" % (n, s))
    print("wrote %s: %d names (%d shortened)" % (out, len(rows),
                                                sum(1 for n, s in rows if n != s)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
