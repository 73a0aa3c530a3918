/* export_run: the one path of `torch2pprof convert` (see core/pprof/export.h).
   The inputs decide what is loaded (one trace, a job, a pair) and which
   writer makes the profile; the result carries what the summary says for
   each, so that the command line does nothing but parse options and print. */
#include "config.h"

#include "core/pprof/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/pair.h"
#include "core/analyses/ranks.h"
#include "core/base/vec.h"
#include "core/pprof/pprof.h"

void export_result_done(export_result *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->ntruncated; i++) {
        free(res->truncated[i].path);
        free(res->truncated[i].reason);
    }
    free(res->truncated);
    res->truncated = NULL;
    res->ntruncated = res->cap_truncated = 0;
}

/* A trace that ended early (path, reason), kept in res for the caller to
   tell: the one route for one trace, a pair and a job's ranks alike. */
static int keep_truncated(export_result *res, const char *path, const char *reason,
                          t2p_error *err)
{
    char *p = strdup(path), *r = strdup(reason);
    if (!p || !r || vec_grow_heap((void **)&res->truncated, &res->cap_truncated,
                                  res->ntruncated, sizeof *res->truncated) < 0) {
        free(p);
        free(r);
        error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory");
        return -1;
    }
    res->truncated[res->ntruncated++] = (export_cut){ .path = p, .reason = r };
    return 0;
}

static int run_one(const export_inputs *in, const export_args *a, const char *out,
                   export_tell_fn tell, void *ctx, export_result *res, t2p_error *err)
{
    trace_load_opts lo = { .partial = in->partial, .jobs = in->jobs };
    trace *tr = trace_load(in->paths[0], &lo, err);
    if (!tr)
        return -1;
    model_opts mo = in->mo;
    mo.jobs = in->jobs; /* the model's passes take as many threads as the load */
    model *m = model_build(tr, &mo, err);
    int rc = -1;
    if (!m)
        goto out;
    export_args one = *a;
    /* an entry that selects nothing in the trace: the profile is empty, as
       go tool pprof -focus makes it, but likely a mistake (analyze, which
       would report nothing, refuses it with this reason) */
    if (export_check_entries(m, &one, err) < 0) {
        if (err->kind != T2P_ERR_MISSING) {
            res->scope_error = true;
            goto out;
        }
        if (tell)
            tell(ctx, EXPORT_TELL_EMPTY, NULL, err);
    }
    int64_t rank = ranks_trace_rank(tr);
    one.has_rank = rank >= 0;
    one.rank = rank;
    if (export_trace(m, tr, &in->mo, &one, out, res, err) < 0) {
        /* a malformed --step, a step the trace lacks: the scope's fault */
        res->scope_error = err->kind == T2P_ERR_ARG || err->kind == T2P_ERR_MISSING;
        goto out;
    }
    rc = tr->truncated ? keep_truncated(res, tr->path, tr->truncated_reason, err) : 0;
out:
    model_free(m);
    trace_free(tr);
    return rc;
}

typedef struct job_ctx {
    const export_inputs *in;
    const export_args *a;
} job_ctx;

/* In a worker: this rank's piece (export_job.c), into f->out; with a rank
   picked, only that rank's. */
static int pack_rank(ranks_file *f, const model *whole, const steps *st, void *vctx,
                     t2p_error *err)
{
    const job_ctx *c = vctx;
    if (c->in->has_rank && f->rank != c->in->rank)
        return 0;
    return export_rank_pack(f, whole, st, &c->in->mo, c->a, err);
}

static void tell_notes(const ranks_job *j, size_t *told, export_tell_fn tell, void *ctx)
{
    for (; *told < j->nnotes; (*told)++)
        if (tell)
            tell(ctx, EXPORT_TELL_NOTE, NULL, &j->notes[*told]);
}

/* The stacks a's options keep are fewer than all (what the job's summary
   measures against the ranks' busy time): each rank's piece is selected on
   the worker that loaded it, so the job asks the options themselves. */
static bool args_select(const export_args *a)
{
    return a->nentries || a->filter || a->ignore_re || a->thread_re || a->kernels ||
           a->modules;
}

static int run_job(const export_inputs *in, const export_args *a, const char *out,
                   export_tell_fn tell, void *ctx, export_result *res, t2p_error *err)
{
    int rc = -1;
    ranks_job *j = ranks_open(in->paths, in->npaths, err);
    if (!j)
        return -1;
    /* before hours of loading: OUT must not be one of the traces */
    for (size_t i = 0; i < j->nfiles; i++)
        if (pprof_same_file(j->files[i].path, out)) {
            error_set(err, T2P_ERR_ARG, out, -1,
                      "is one of the traces being converted: refusing to overwrite it");
            goto out;
        }
    job_ctx jc = { .in = in, .a = a };
    ranks_load_opts lo = { .jobs = in->jobs, .partial = in->partial, .mo = in->mo,
                           .step = a->step, .on_model = pack_rank, .ctx = &jc };
    size_t told = 0;
    tell_notes(j, &told, tell, ctx); /* before a load that may take long */
    int lrc = ranks_load(j, &lo, err);
    tell_notes(j, &told, tell, ctx);
    if (lrc < 0)
        goto out;
    for (size_t i = 0; i < j->nfiles; i++) {
        const ranks_file *f = &j->files[i];
        if (f->loaded && f->truncated) {
            if (keep_truncated(res, f->path, f->truncated_reason, err) < 0)
                goto out;
        } else if (!f->loaded && tell) {
            tell(ctx, EXPORT_TELL_FAILED, f->path, &f->err);
        }
    }
    if (j->nfailed && !in->partial) {
        error_set(err, T2P_ERR_IO, NULL, -1,
                  "%zu of %zu traces failed to load (--partial goes on without them)",
                  j->nfailed, j->nfiles);
        goto out;
    }
    if (!j->nloaded) {
        error_set(err, T2P_ERR_EMPTY, NULL, -1, "no trace loaded");
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
    if (in->has_rank && !nranks) {
        /* the ranks it has, as many as the reason holds */
        char *r = err->reason;
        size_t size = sizeof err->reason, at = 0;
        at += (size_t)snprintf(r, size, "--rank %lld: the job has no such rank (ranks",
                               (long long)in->rank);
        for (size_t i = 0; i < j->nloaded && at < size; i++)
            at += (size_t)snprintf(r + at, size - at, "%s%lld", i ? ", " : " ",
                                   (long long)j->files[i].rank);
        if (at < size)
            snprintf(r + at, size - at, ")");
        err->kind = T2P_ERR_MISSING;
        err->offset = -1;
        err->sys_errno = 0;
        err->file[0] = '\0';
        res->scope_error = true;
        goto out;
    }
    if (export_job_write(j, a, out, &res->sum, err) < 0)
        goto out;
    res->job = true;
    res->nranks = nranks;
    res->busy_ns = busy;
    res->gpu = gpu != 0;
    res->selecting = args_select(a);
    /* the merged profile's heap figures, when any rank had some */
    res->memory = res->sum.alloc_objects || res->sum.inuse_objects;
    rc = 0;
out:
    ranks_free(j);
    return rc;
}

static int run_pair(const export_inputs *in, const export_args *a, const char *out,
                    export_result *res, t2p_error *err)
{
    const char *paths[2] = { in->base, in->paths[0] };
    pair_load_opts lo = { .partial = in->partial, .mo = in->mo, .jobs = in->jobs };
    pair_side side[2];
    if (pair_load(paths, &lo, side, err) < 0)
        return -1;
    int rc = export_diff(side[0].m, side[1].m, &in->mo, a, out, res, err);
    res->diff = true;
    for (int s = 0; s < 2; s++) {
        if (rc == 0 && side[s].tr->truncated)
            rc = keep_truncated(res, side[s].tr->path, side[s].tr->truncated_reason, err);
        model_free(side[s].m);
        trace_free(side[s].tr);
    }
    return rc;
}

int export_run(const export_inputs *in, const export_args *a, const char *out,
               export_tell_fn tell, void *tell_ctx, export_result *res, t2p_error *err)
{
    memset(res, 0, sizeof *res);
    if (in->job)
        return run_job(in, a, out, tell, tell_ctx, res, err);
    if (in->base)
        return run_pair(in, a, out, res, err);
    return run_one(in, a, out, tell, tell_ctx, res, err);
}
