#!/bin/sh
# The explorer's source pane (v on a Python frame): its time per line equals
# analyze --by-line --json, on the hand-made traces in both forms (python_function
# events, Call stacks) whose frames name tests/fixtures/pysrc/model.py, and on
# the torch 1.13 with_stack fixture (torch/nn/modules/linear.py, not found). Fails, saying so, without python3.
set -u
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
fx="$top_srcdir/tests/fixtures"
fail=0
check() {
    "$py" "$top_srcdir/tests/check_tui_source.py" "$top_builddir/torch2pprof" \
        "$top_builddir/torch2pprof-tui" "$fx/$1" "$fx/pysrc" "$2" "$3" || fail=1
}
check pyfunc_frames.json "E j j v" model.py
check pystack_calls.json "E j j v" model.py
# recorded as /home/ci/proj/model.py: found as pysrc/model.py, the path less its directories
check pysrc_abs.json "E j j v" /home/ci/proj/model.py
check pysrc_abs.json "/aten::mul <Enter> v" /home/ci/proj/model.py
# not under pysrc: the pane lists the lines with time
check pystack_train.json.gz "/aten::linear <Enter> v" torch/nn/modules/linear.py
exit $fail
