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
#include "src/convert_steps.h"

int convert_compare(const convert_compare_opts *o)
{
    const char *paths[2] = { o->base_path, o->new_path };
    pair_load_opts lo = { .partial = o->partial, .mo = o->mo, .jobs = cli_jobs() };
    pair_side side[2];
    uint8_t *keep[2] = { NULL, NULL };
    convert_steps cs[2];
    memory *mem[2] = { NULL, NULL };
    t2p_error err;
    int rc = EXIT_INPUT;
    bool usage_error;

    memset(cs, 0, sizeof cs);
    if (pair_load(paths, &lo, side, &err) < 0)
        return cli_fail(&err);
    /* the step labels a single trace's convert gives, for the same reason as
       the rank label below */
    for (int s = 0; s < 2; s++)
        if (convert_steps_prepare(&cs[s], &side[s].m, &o->mo, NULL, &usage_error) < 0)
            goto out;
    for (int s = 0; s < 2 && o->sel; s++)
        if (!(keep[s] = select_nodes(side[s].m, o->sel, &err))) {
            cli_fail(&err);
            goto out;
        }
    /* the heap sample types on both sides, zero on a side without
       [memory] records: as the two single-trace converts have them */
    bool with_mem = !o->no_memory && (side[0].tr->nmems || side[1].tr->nmems);
    for (int s = 0; s < 2 && with_mem; s++)
        if (side[s].tr->nmems && !(mem[s] = memory_build(side[s].m, &err))) {
            cli_fail(&err);
            goto out;
        }
    pprof_opts po[2];
    for (int s = 0; s < 2; s++) {
        /* the rank label a single trace's convert gives, so the diff stays
           what pprof -diff_base makes of the two converts */
        int64_t rank = ranks_trace_rank(side[s].m->tr);
        po[s] = (pprof_opts){ .keep = keep[s], .tool_version = PACKAGE_VERSION,
                              .comments = o->comments, .ncomments = o->ncomments,
                              .has_rank = rank >= 0, .rank = rank,
                              .step_labels = cs[s].labels, .nsteps = cs[s].nlabels,
                              .mem = mem[s], .memory_types = !o->no_memory };
    }
    pprof_summary sum;
    if (pprof_write_diff(side[0].m, &po[0], side[1].m, &po[1], o->out_path, &sum, &err) < 0) {
        cli_fail(&err);
        goto out;
    }
    FILE *so = cli_summary_stream(o->out_path);
    char a[64], vo[1200], vn[1200], vb[1200];
    fprintf(so, "wrote %s: %zu samples, %zu locations, %zu functions, %zu strings, "
            "%s minus %s: time %s ms net",
            cli_shown(o->out_path, vo, sizeof vo), sum.samples, sum.locations, sum.functions,
            sum.strings, cli_shown(o->new_path, vn, sizeof vn),
            cli_shown(o->base_path, vb, sizeof vb), fmt_ms(sum.total_ns, a, sizeof a));
    if (side[0].m->gpu_events || side[1].m->gpu_events)
        fprintf(so, ", device %s ms net", fmt_ms(sum.device_ns, a, sizeof a));
    if (with_mem)
        fprintf(so, ", alloc_space %lld B in %lld objects net, inuse_space %lld B in %lld objects net",
                (long long)sum.alloc_bytes, (long long)sum.alloc_objects,
                (long long)sum.inuse_bytes, (long long)sum.inuse_objects);
    fputc('\n', so);
    for (int s = 0; s < 2; s++)
        if (side[s].tr->truncated)
            cli_warn_truncated(side[s].tr->path, side[s].tr->truncated_reason, "converted");
    rc = cli_summary_done(so, o->out_path);
out:
    for (int s = 0; s < 2; s++) {
        memory_free(mem[s]);
        free(keep[s]);
        model_free(side[s].m);
        convert_steps_done(&cs[s]);
        trace_free(side[s].tr);
    }
    return rc;
}
