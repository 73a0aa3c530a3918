#!/bin/sh
# Golden screens: each tests/tui/NAME.keys is replayed headless
# (torch2pprof-tui --replay KEYS --print) and the printed screen must equal
# tests/tui/NAME.screen byte for byte. A .keys file starts with
#   # args: OPTIONS TRACE     (TRACE relative to the source tree)
#   # env: VAR=VALUE ...      (optional: the locale, NO_COLOR, ...)
# and the rest of it is the key script. The timing lines of --replay are
# dropped; the screen holds no time or absolute path.
# T2P_GOLDEN_UPDATE=1 rewrites the .screen files (review the diff!).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
tui="$top_builddir/torch2pprof-tui"
tmp=$(mktemp -d /tmp/t2p-golden.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0; n=0
# a .keys file whose env sets a non-UTF-8 locale (LC_ALL=C, LANG=POSIX...):
# its screen must be ASCII only, whatever the golden file says
ascii_locale() {
    case " $1 " in
    *" LC_ALL=C "* | *" LC_ALL=POSIX "* | *" LANG=C "* | *" LC_CTYPE=C "*) return 0 ;;
    *) return 1 ;;
    esac
}
cd "$top_srcdir" || exit 1
for k in tests/tui/*.keys; do
    name=$(basename "$k" .keys)
    args=$(sed -n 's/^# args: //p' "$k")
    envs=$(sed -n 's/^# env: //p' "$k")
    keys=$(grep -v '^# ' "$k")
    # shellcheck disable=SC2086
    env LC_ALL=C.UTF-8 $envs "$tui" --replay "$keys" --print $args >"$tmp/out" 2>"$tmp/err"
    rc=$?
    grep -v -e '^load ' -e '^first-screen ' -e '^key ' -e '^max-key ' "$tmp/out" >"$tmp/$name.screen"
    n=$((n + 1))
    if [ "${T2P_GOLDEN_UPDATE:-}" = 1 ]; then
        cp "$tmp/$name.screen" "tests/tui/$name.screen"
        echo "updated: $name"
    elif [ $rc -ne 0 ]; then
        echo "FAIL: $name: exit $rc: $(cat "$tmp/err")"; fail=1
    elif ascii_locale "$envs" && [ "$(LC_ALL=C tr -d '\000-\177' <"$tmp/$name.screen" | wc -c)" -ne 0 ]; then
        echo "FAIL: $name: bytes past ASCII on a screen in a non-UTF-8 locale ($envs)"; fail=1
    elif ! cmp -s "$tmp/$name.screen" "tests/tui/$name.screen"; then
        echo "FAIL: $name: the screen differs from tests/tui/$name.screen:"
        diff -u "tests/tui/$name.screen" "$tmp/$name.screen" | head -40
        fail=1
    else
        echo "ok: $name"
    fi
done
[ $n -gt 0 ] || { echo "FAIL: no golden screens found"; exit 1; }
exit $fail
