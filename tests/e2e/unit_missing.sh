#!/bin/sh
# Listed in TESTS only when configure found no cmocka: the unit tests were
# not built, and a suite that silently ran less must not pass.
echo "cannot run the unit tests: configure found no cmocka."
echo "Run ./setup.sh --test (it installs libcmocka-dev and reconfigures), then make check."
exit 1
