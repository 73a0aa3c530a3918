/* torch2pprof convert DIR|TRACE... OUT: each rank's profile is built on the
   worker that loaded it (then its model is dropped), labelled rank=N (and
   step=N, as single-trace convert does), and the pieces are merged in rank
   order into one profile. */
#include "config.h"

#include "src/convert_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/pprof/pprof.h"
#include "core/pprof/pprof_merge.h"
#include "core/analyses/ranks.h"
#include "core/model/shortname.h"
#include "core/analyses/steps.h"
#include "src/cli.h"

/* In a worker: this rank's piece (core/pprof/export_job.c), into f->out;
   with --rank, only that rank's. */
static int pack_rank(ranks_file *f, const model *whole, const steps *st, void *ctx,
                     t2p_error *err)
{
    const convert_ranks_opts *o = ctx;
    if (o->has_rank && f->rank != o->rank)
        return 0;
    return export_rank_pack(f, whole, st, &o->mo, o->args, err);
}

int convert_ranks(const convert_ranks_opts *o, int nargs, char **args, const char *out)
{
    t2p_error err;
    int rc = EXIT_INPUT;
    ranks_job *j = ranks_open((const char *const *)args, (size_t)nargs, &err);
    if (!j)
        return cli_fail(&err);
    /* before hours of loading: OUT must not be one of the traces */
    for (size_t i = 0; i < j->nfiles; i++)
        if (pprof_same_file(j->files[i].path, out)) {
            char vis[1200];
            fprintf(stderr, "torch2pprof: %s: is one of the traces being converted: "
                            "refusing to overwrite it\n", cli_shown(out, vis, sizeof vis));
            goto out;
        }
    ranks_load_opts lo = { .jobs = o->jobs, .partial = o->partial, .mo = o->mo,
                           .step = o->args->step, .on_model = pack_rank, .ctx = (void *)o };
    size_t noted = cli_print_notes(j, 0); /* before a load that may take long */
    int lrc = ranks_load(j, &lo, &err);
    cli_print_notes(j, noted);
    if (lrc < 0) {
        cli_fail(&err);
        goto out;
    }
    char buf[1200];
    for (size_t i = 0; i < j->nfiles; i++) {
        const ranks_file *f = &j->files[i];
        if (f->loaded && f->truncated)
            cli_warn_truncated(f->path, f->truncated_reason, "converted");
        else if (!f->loaded)
            fprintf(stderr, o->partial ? "torch2pprof: warning: %s; left out (--partial)\n"
                                       : "torch2pprof: %s\n",
                    error_format(&f->err, buf, sizeof buf));
    }
    if (j->nfailed && !o->partial) {
        fprintf(stderr, "torch2pprof: %zu of %zu traces failed to load "
                        "(--partial goes on without them)\n", j->nfailed, j->nfiles);
        goto out;
    }
    if (!j->nloaded) {
        fprintf(stderr, "torch2pprof: no trace loaded\n");
        goto out;
    }
    int64_t busy = 0, gpu = 0;
    size_t nranks = 0;
    for (size_t i = 0; i < j->nloaded; i++) {
        const ranks_file *f = &j->files[i];
        if (!f->out)
            continue;
        busy += f->st.busy_ns;
        gpu += f->st.gpu_events;
        nranks++;
    }
    if (o->has_rank && !nranks) {
        fprintf(stderr, "torch2pprof convert: --rank %lld: the job has no such rank (ranks",
                (long long)o->rank);
        for (size_t i = 0; i < j->nloaded; i++)
            fprintf(stderr, "%s%lld", i ? ", " : " ", (long long)j->files[i].rank);
        fputs(")\n", stderr);
        goto out;
    }
    pprof_summary sum;
    if (export_job_write(j, o->args, out, &sum, &err) < 0) {
        cli_fail(&err);
        goto out;
    }
    FILE *so = cli_summary_stream(out);
    char a[64], b[64], d[64], vis[1200];
    fprintf(so, "wrote %s: %zu rank%s, %zu samples, %zu locations, %zu functions, %zu strings, "
            "total %s ms", cli_shown(out, vis, sizeof vis), nranks, nranks == 1 ? "" : "s",
            sum.samples,
            sum.locations, sum.functions, sum.strings, fmt_ms(sum.total_ns, a, sizeof a));
    if (o->selecting)
        fprintf(so, " (of %s ms self time over all tracks)", fmt_ms(busy, b, sizeof b));
    else
        fputs(" (self time over all tracks)", so);
    if (gpu)
        fprintf(so, ", device %s ms", fmt_ms(sum.device_ns, d, sizeof d));
    if (sum.alloc_objects || sum.inuse_objects)
        fprintf(so, ", alloc_space %lld B in %llu objects, inuse_space %lld B in %llu objects",
                (long long)sum.alloc_bytes, (unsigned long long)sum.alloc_objects,
                (long long)sum.inuse_bytes, (unsigned long long)sum.inuse_objects);
    fputc('\n', so);
    rc = cli_summary_done(so, out);
out:
    ranks_free(j);
    return rc;
}
