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
for po in "$B"/core/*/.deps/*.Po "$B"/src/.deps/*.Po "$B"/ui/.deps/*.Po "$B"/ui/views/.deps/*.Po; do
    [ -f "$po" ] || continue
    n=$((n + 1))
    case $po in *profile.pb-c.Po) continue ;; esac
    grep -q 'config\.h' "$po" || bad "$(basename "$po" .Po).o does not depend on config.h"
done
if make -C "$B" -s -p -q core/pprof/libt2pcore_a-profile.pb-c.o 2>/dev/null |
    grep -q '^core/pprof/libt2pcore_a-profile\.pb-c\.o:.*config\.h'; then
    ok "the generated protobuf object depends on config.h"
else
    bad "core/pprof/libt2pcore_a-profile.pb-c.o does not depend on config.h"
fi
[ "$n" -gt 30 ] && ok "$n objects depend on config.h" || bad "only $n dependency files found"

# 3. the libraries configure found link a call to floor()
# (src/analyze_compare.c): at -O0 or with clang it is no builtin but a call
# into libm, which the link lacked
cc=$(sed -n 's/^CC = //p' "$B/Makefile")
libs=$(sed -n 's/^LIBS = //p' "$B/Makefile")
T=$(mktemp -d "${TMPDIR:-/tmp}/t2p-build.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
printf '#include <math.h>\n#include <stdlib.h>\nint main(int argc, char **argv)\n{\n    (void)argc;\n    return floor(atof(argv[0])) > 0;\n}\n' >"$T/floor.c"
# shellcheck disable=SC2086
if $cc -O0 -fno-builtin -o "$T/floor" "$T/floor.c" $libs 2>"$T/err"; then
    ok "a call to floor() links with the configured LIBS ($libs)"
else
    bad "a call to floor() does not link with the configured LIBS ($libs): $(head -3 "$T/err" | tr '\n' ' ')"
fi
exit $fail
