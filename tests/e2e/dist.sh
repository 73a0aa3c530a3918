#!/bin/sh
# The tarball packs what the tree ships, never what make check wrote: a
# test's .log/.trs beside a script in a shipped folder (tests/tui/) once made
# make distcheck fail after make check. Probe files stand in for them, so
# the check does not depend on which tests ran before this one.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}"
W=$(mktemp -d "${TMPDIR:-/tmp}/t2p-dist.XXXXXX") || exit 99
probes="tests/tui/zz-dist-probe.log tests/tui/zz-dist-probe.trs tests/fixtures/zz-dist-probe.log"
cleanup() {
    for p in $probes; do rm -f "$top_builddir/$p" "$top_srcdir/$p"; done
    chmod -R u+rwX "$W" 2>/dev/null; rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
for p in $probes; do
    mkdir -p "$top_builddir/${p%/*}" && echo probe > "$top_builddir/$p" || exit 99
done
# a make of its own, not a job of the make running the tests
if ! (cd "$top_builddir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        make -s distdir distdir="$W/d" >"$W/make.out" 2>&1); then
    echo "FAIL: make distdir failed:"; tail -20 "$W/make.out"; exit 1
fi
left=$(cd "$W/d" && find . \( -name '*.log' -o -name '*.trs' \) | sort)
if [ -n "$left" ]; then
    echo "FAIL: the tarball would pack test outputs:"; echo "$left"; exit 1
fi
# what a clone needs to run every test is in the tarball too
for f in tests/fixtures/shared/traces/tb_resnet50_w0.json.gz tests/fixtures/shared/tools/make-ranks.py; do
    [ -f "$W/d/$f" ] || { echo "FAIL: $f not in the tarball"; exit 1; }
done
echo "ok: no test outputs in the tarball, the shared fixtures in it"
