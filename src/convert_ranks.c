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
#include "core/analyses/memory.h"
#include "core/pprof/pprof_merge.h"
#include "core/analyses/ranks.h"
#include "core/model/shortname.h"
#include "core/analyses/steps.h"
#include "src/cli.h"

/* The model convert writes for one rank: each step's calls in nodes of
   their own, so that every sample carries its step label as single-trace
   convert does (only the steps --step kept when f->scoped); m itself for a
   trace without ProfilerStep#. */
static model *step_model(const ranks_file *f, const model *m, const steps *st,
                         const model_opts *mo, t2p_error *err)
{
    if (st->whole_trace && !f->scoped)
        return (model *)m;
    model_opts so = *mo;
    unsigned char *keep = NULL;
    if (f->scoped && !(keep = steps_mask(st, f->step_first, f->step_last))) {
        error_set(err, T2P_ERR_NOMEM, f->path, -1, "out of memory");
        return NULL;
    }
    so.keep = keep;
    so.group = st->ev_step;
    model *gm = model_build(m->tr, &so, err);
    free(keep);
    return gm;
}

/* In a worker: this rank's profile, packed, into f->out. */
static int pack_rank(ranks_file *f, const model *whole, const steps *st, void *ctx,
                     t2p_error *err)
{
    const convert_ranks_opts *o = ctx;
    uint8_t *keep = NULL;
    const char **labels = NULL;
    shortnames *sn = NULL;
    memory *mem = NULL;
    int rc = -1;
    model *m = step_model(f, whole, st, &o->mo, err);
    if (!m)
        return -1;
    if (m != whole && !(labels = steps_labels(st))) {
        error_set(err, T2P_ERR_NOMEM, f->path, -1, "out of memory");
        goto out;
    }
    if (o->sel && !(keep = select_nodes(m, o->sel, err)))
        goto out;
    if (o->short_names && !(sn = shortname_new(m))) {
        error_set(err, T2P_ERR_NOMEM, f->path, -1, "out of memory");
        goto out;
    }
    /* the heap types on every rank, zero where it recorded no [memory]
       events: the pieces then share their sample types and merge */
    if (whole->tr->nmems && !o->no_memory && !(mem = memory_build(m, err)))
        goto out;
    pprof_opts po = { .keep = keep, .tool_version = PACKAGE_VERSION, .has_rank = true,
                      .rank = f->rank, .short_names = sn,
                      .step_labels = labels, .nsteps = labels ? st->nsteps : 0,
                      .mem = mem, .memory_types = !o->no_memory };
    uint8_t *buf;
    size_t len;
    if (pprof_merge_pack(m, &po, &buf, &len, err) < 0)
        goto out;
    f->out = buf;
    f->out_len = len;
    rc = 0;
out:
    memory_free(mem);
    free(keep);
    free(labels);
    shortname_free(sn);
    if (m != whole)
        model_free(m);
    return rc;
}

int convert_ranks(const convert_ranks_opts *o, int nargs, char **args, const char *out)
{
    t2p_error err;
    int rc = EXIT_INPUT;
    pprof_merge *pm = NULL;
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
                           .step = o->step, .on_model = pack_rank, .ctx = (void *)o };
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
    pm = pprof_merge_new();
    if (!pm) {
        fprintf(stderr, "torch2pprof: out of memory\n");
        goto out;
    }
    int64_t busy = 0, gpu = 0;
    for (size_t i = 0; i < j->nloaded; i++) {
        ranks_file *f = &j->files[i];
        if (pprof_merge_add(pm, f->out, f->out_len, f->path, &err) < 0) {
            cli_fail(&err);
            goto out;
        }
        free(f->out); /* merged: the piece is no longer needed */
        f->out = NULL;
        busy += f->st.busy_ns;
        gpu += f->st.gpu_events;
    }
    char line[200];
    const char *comments[8];
    size_t nc = 0;
    snprintf(line, sizeof line, "%zu ranks, each sample labelled rank=N (-tagfocus rank=3)",
             j->nloaded);
    comments[nc++] = line;
    char scope[200];
    if (o->step) {
        snprintf(scope, sizeof scope, "scope: step %s of each rank (CPU events that start in "
                 "it, the GPU work they launched)", o->step);
        comments[nc++] = scope;
    }
    for (size_t i = 0; i < o->ncomments && nc < 8; i++)
        comments[nc++] = o->comments[i];
    char mapping[64];
    snprintf(mapping, sizeof mapping, "%zu ranks", j->nloaded);
    const char **paths = malloc(j->nfiles * sizeof *paths);
    if (!paths) {
        fprintf(stderr, "torch2pprof: out of memory\n");
        goto out;
    }
    for (size_t i = 0; i < j->nfiles; i++)
        paths[i] = j->files[i].path;
    pprof_summary sum;
    int wrc = pprof_merge_write(pm, out, mapping, comments, nc, paths, j->nfiles, &sum, &err);
    free(paths);
    if (wrc < 0) {
        cli_fail(&err);
        goto out;
    }
    FILE *so = cli_summary_stream(out);
    char a[64], b[64], d[64], vis[1200];
    fprintf(so, "wrote %s: %zu ranks, %zu samples, %zu locations, %zu functions, %zu strings, "
            "total %s ms", cli_shown(out, vis, sizeof vis), j->nloaded, sum.samples,
            sum.locations, sum.functions, sum.strings, fmt_ms(sum.total_ns, a, sizeof a));
    if (o->sel)
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
    pprof_merge_free(pm);
    ranks_free(j);
    return rc;
}
