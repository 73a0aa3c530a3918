#!/bin/sh
# same_profile.sh A B: exit 0 when the pprof profiles A and B are the same as
# go tool pprof reads them (-raw: header, samples, locations, mappings), the
# comment that records the command aside (it names each profile's own OUT),
# and the one naming the program that wrote it (convert, or the explorer's e).
# Exit 1 when they differ or cannot be read.
set -u
raw() {
    go tool pprof -raw "$1" 2>/dev/null |
        grep -v -e '^Comment: torch2pprof convert ' -e '^Comment: torch2pprof [0-9]' \
            -e '^Comment: torch2pprof torch2pprof-tui [0-9]'
}
a=$(raw "$1") && b=$(raw "$2") || exit 1
[ -n "$a" ] && [ "$a" = "$b" ]
