#!/bin/sh
# Set-up for a fresh Debian machine: installs the packages the build and the
# tests need (when root; otherwise prints the apt-get line to run), then
# configures and builds. Safe to run again: it only installs what is missing
# and only reconfigures when the build files are older than their sources.
set -eu
cd "$(dirname "$0")"

pkgs="build-essential autoconf automake pkg-config libyajl-dev zlib1g-dev
libprotobuf-c-dev protobuf-c-compiler libncurses-dev libcmocka-dev libisal-dev
python3 tmux golang-go clang libclang-rt-dev valgrind time"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "setup: installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        # libisal-dev (faster gzip) is not built for every architecture:
        # without it configure keeps zlib, so its absence must not stop us
        if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null; then
            rest=$(echo "$missing" | sed 's/ libisal-dev//')
            [ "$rest" != "$missing" ] || exit 1
            echo "setup: libisal-dev not available here: gzip input inflates with zlib"
            # shellcheck disable=SC2086
            [ -z "${rest# }" ] || apt-get install -y -qq --no-install-recommends $rest >/dev/null
        fi
    else
        echo "setup: missing packages; run this, then ./setup.sh again:" >&2
        echo "  sudo apt-get install -y$missing" >&2
        exit 1
    fi
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
    # automake reports each helper it copies into build-aux/ on stderr:
    # show what else it says, all of it when it fails
    if ! autoreconf -fi >autoreconf.log 2>&1; then
        cat autoreconf.log >&2
        exit 1
    fi
    grep -v "^[^ ]*: installing '" autoreconf.log >&2 || true
    rm -f autoreconf.log
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
    # autoconf's checks try "rm -f core", which complains about our core/ folder
    if ! ./configure -q 2>config.err; then
        cat config.err >&2
        exit 1
    fi
    grep -v "cannot remove 'core'" config.err >&2 || true
    rm -f config.err
fi
make -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
echo "setup: built ./torch2pprof and ./torch2pprof-tui"
