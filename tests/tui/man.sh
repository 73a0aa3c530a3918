#!/bin/sh
# The man page's SYNOPSIS names every view the explorer has (its --view
# names, as the program lists them for an unknown one), and the help
# screen has a section for every view with keys of its own (Memory).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
tui="$top_builddir/torch2pprof-tui"
man="$top_srcdir/man/torch2pprof-tui.1"
fail=0
names=$("$tui" --view '?' /dev/null 2>&1 | sed -n "s/.*unknown view '?' (\(.*\)).*/\1/p" | tr -d ',')
[ -n "$names" ] || { echo "FAIL: no view names from --view '?'"; exit 1; }
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$man" | grep -A1 -F '[ \-\-view' | sed -n 2p |
    sed -e 's/^\.IR//' -e 's/[]|[]/ /g')
for n in $names; do
    case " $synopsis " in
    *" $n "*) echo "ok: SYNOPSIS lists view $n" ;;
    *) echo "FAIL: man/torch2pprof-tui.1 SYNOPSIS lacks view $n: $synopsis"; fail=1 ;;
    esac
done
help=$(LC_ALL=C.UTF-8 "$tui" --replay '?' --print --size 100x200 "$top_srcdir/tests/fixtures/cnn_memory.json.gz")
if printf '%s\n' "$help" | grep -qx 'Memory'; then
    echo "ok: the help has a Memory section"
else
    echo "FAIL: the help has no Memory section"; fail=1
fi
exit $fail
