/* convert --base BASE TRACE OUT: TRACE minus BASE per stack, as pprof's own
   -diff_base would make it from the two single-trace profiles (see
   core/pprof/pprof_merge.c). */
#include "config.h"

#include "src/convert_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/analyses/memory.h"
#include "core/analyses/pair.h"
#include "core/pprof/pprof.h"
#include "core/analyses/ranks.h"
#include "src/cli.h"

int convert_compare(const convert_compare_opts *o)
{
    const char *paths[2] = { o->base_path, o->new_path };
    pair_load_opts lo = { .partial = o->partial, .mo = o->mo, .jobs = cli_jobs() };
    pair_side side[2];
    t2p_error err;
    int rc = EXIT_INPUT;
    if (pair_load(paths, &lo, side, &err) < 0)
        return cli_fail(&err);
    export_result res;
    const export_args *a = o->args;
    if (export_diff(side[0].m, side[1].m, &o->mo, a, o->out_path, &res, &err) < 0) {
        cli_fail(&err);
        goto out;
    }
    const pprof_summary *sum = &res.sum;
    FILE *so = cli_summary_stream(o->out_path);
    char x[64], vo[1200], vn[1200], vb[1200];
    fprintf(so, "wrote %s: %zu samples, %zu locations, %zu functions, %zu strings, "
            "%s minus %s: time %s ms net",
            cli_shown(o->out_path, vo, sizeof vo), sum->samples, sum->locations, sum->functions,
            sum->strings, cli_shown(o->new_path, vn, sizeof vn),
            cli_shown(o->base_path, vb, sizeof vb), fmt_ms(sum->total_ns, x, sizeof x));
    if (res.gpu)
        fprintf(so, ", device %s ms net", fmt_ms(sum->device_ns, x, sizeof x));
    if (res.memory)
        fprintf(so, ", alloc_space %lld B in %lld objects net, inuse_space %lld B in %lld objects net",
                (long long)sum->alloc_bytes, (long long)sum->alloc_objects,
                (long long)sum->inuse_bytes, (long long)sum->inuse_objects);
    fputc('\n', so);
    for (int s = 0; s < 2; s++)
        if (side[s].tr->truncated)
            cli_warn_truncated(side[s].tr->path, side[s].tr->truncated_reason, "converted");
    rc = cli_summary_done(so, o->out_path);
out:
    for (int s = 0; s < 2; s++) {
        model_free(side[s].m);
        trace_free(side[s].tr);
    }
    return rc;
}
