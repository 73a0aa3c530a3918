#!/bin/sh
# Configuring again with other flags (./configure --enable-sanitizers on a
# built tree) must rebuild every object (issue 16, defect 12): config.h
# records the flags, and every object depends on config.h. A rebuild itself
# is too slow for make check: tests/ci-hardening.sh builds the sanitizer
# tree and checks its programs carry ASan.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
B=$top_builddir
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# 1. config.h holds every word of the flags the Makefile compiles with
flags=$(sed -n 's/^#define T2P_BUILD_FLAGS //p' "$B/config.h")
if [ -z "$flags" ]; then
    bad "config.h does not record the build flags (T2P_BUILD_FLAGS)"
else
    missing=""
    for var in CFLAGS SAN_CFLAGS; do
        for w in $(sed -n "s/^$var = //p" "$B/Makefile"); do
            case $flags in *"$w"*) ;; *) missing="$missing $w" ;; esac
        done
    done
    [ -z "$missing" ] && ok "config.h records the flags ($flags)" ||
        bad "config.h's flags lack:$missing"
fi

# 2. every object of the programs depends on config.h: its dependency file
# lists it, or (the generated protobuf code) the Makefile says so
n=0
for po in "$B"/core/.deps/*.Po "$B"/src/.deps/*.Po "$B"/ui/.deps/*.Po; do
    [ -f "$po" ] || continue
    n=$((n + 1))
    case $po in *profile.pb-c.Po) continue ;; esac
    grep -q 'config\.h' "$po" || bad "$(basename "$po" .Po).o does not depend on config.h"
done
if make -C "$B" -s -p -q core/libt2pcore_a-profile.pb-c.o 2>/dev/null |
    grep -q '^core/libt2pcore_a-profile\.pb-c\.o:.*config\.h'; then
    ok "the generated protobuf object depends on config.h"
else
    bad "core/libt2pcore_a-profile.pb-c.o does not depend on config.h"
fi
[ "$n" -gt 30 ] && ok "$n objects depend on config.h" || bad "only $n dependency files found"
exit $fail
