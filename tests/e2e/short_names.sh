#!/bin/sh
# --short-names of analyze and convert against HTA's short names
# (tests/fixtures/short_names.tsv) and go tool pprof, on the sample data and
# the shared traces whose kernel and operator names carry templates.
set -u
tool="$top_builddir/torch2pprof"
py=$(command -v python3) || { echo "python3 missing (./setup.sh --test installs it)"; exit 1; }
fail=0
for t in "$top_srcdir"/data/*.json.gz "$SHARED"/traces/nccl_relative_time.json.gz \
         "$SHARED"/traces/sampled_rank0_noflows.json.gz "$SHARED"/traces/mtia_inference_rank0.json.gz; do
    [ -e "$t" ] || continue
    "$py" "$top_srcdir/tests/check_short_names.py" "$tool" "$t" || fail=1
done
exit $fail
