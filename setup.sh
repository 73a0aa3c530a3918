#!/bin/sh
# Set-up for a fresh Debian machine: installs what is missing (when root;
# otherwise prints the apt-get line to run), then configures and builds.
#   ./setup.sh               what building and running need
#   ./setup.sh --test        that, and what make check needs (cmocka, python3, tmux, go, time)
#   ./setup.sh --hardening   that, and what tests/ci-hardening.sh needs (clang, valgrind)
# Safe to run again: it installs only what is missing and reconfigures only
# when the build files are older than their sources or packages were added.
set -eu
cd "$(dirname "$0")"

# libisal-dev (faster gzip) is optional: see below
build="build-essential autoconf automake pkg-config libyajl-dev zlib1g-dev
libprotobuf-c-dev protobuf-c-compiler libncurses-dev libisal-dev"
test="libcmocka-dev python3 tmux golang-go time"
hardening="clang libclang-rt-dev valgrind"
case "${1:-}" in
"") pkgs=$build what="building and running" ;;
--test) pkgs="$build $test" what="building and testing" ;;
--hardening) pkgs="$build $test $hardening" what="building, testing and hardening runs" ;;
*) echo "usage: ./setup.sh [--test | --hardening]" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done

# what apt would add, dependencies included: a count and megabytes
size_of() {
    # shellcheck disable=SC2086
    apt-get -s install --no-install-recommends $1 2>/dev/null | awk '/^Inst /{print $2}' |
        xargs -r apt-cache show --no-all-versions 2>/dev/null |
        awk '/^Package:/{n++} /^Installed-Size:/{s+=$2} END{printf "%d packages, about %d MB", n, s/1024}'
}

if [ -z "$missing" ]; then
    echo "setup: the packages for $what are installed"
elif [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing for $what:$missing ($(size_of "$missing") with dependencies)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # libisal-dev is not built for every architecture: without it configure
    # keeps zlib, so its absence must not stop us
    # shellcheck disable=SC2086
    if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null; then
        rest=$(echo "$missing" | sed 's/ libisal-dev//')
        [ "$rest" != "$missing" ] || exit 1
        echo "setup: libisal-dev not available here: gzip input inflates with zlib"
        # shellcheck disable=SC2086
        [ -z "${rest# }" ] || apt-get install -y -qq --no-install-recommends $rest >/dev/null
    fi
    # configure looks for cmocka and isa-l once: let it see the new ones
    rm -f config.status
else
    echo "setup: missing for $what ($(size_of "$missing") with dependencies); run this, then $0${1:+ $1} again:" >&2
    echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
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
if [ ! -f Makefile ] || [ ! -f config.status ] || [ configure -nt config.status ]; then
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
