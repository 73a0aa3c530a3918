/* A job's profile: each rank's piece, then the merge (see core/pprof/export.h).
   convert DIR packs each rank on the worker that loaded it (then its model is
   dropped); the explorer packs the ranks it holds. One code path, so that the
   command the explorer records writes the same profile. */
#include "config.h"

#include "core/pprof/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/memory.h"
#include "core/analyses/ranks.h"
#include "core/analyses/steps.h"
#include "core/model/shortname.h"
#include "core/pprof/pprof_merge.h"

int export_rank_pack(ranks_file *f, const model *whole, const steps *st, const model_opts *mo,
                     const export_args *a, t2p_error *err)
{
    export_piece p;
    int rc = -1;
    if (export_prepare(whole, st, mo, a, &p, err) < 0)
        goto out;
    /* what differs from one trace's profile: the rank label always (every
       sample of the job has one), and no comments, no progress: the merge
       writes the job's (export_job_write) */
    p.po.has_rank = true;
    p.po.rank = f->rank;
    p.po.comments = NULL;
    p.po.ncomments = 0;
    p.po.no_overwrite = false;
    p.po.progress = NULL;
    p.po.progress_ctx = NULL;
    uint8_t *buf;
    size_t len;
    if (pprof_merge_pack(p.m, &p.po, &buf, &len, err) < 0)
        goto out;
    free(f->out);
    f->out = buf;
    f->out_len = len;
    rc = 0;
out:
    export_piece_done(&p);
    return rc;
}

int export_job_write(ranks_job *j, const export_args *a, const char *out, pprof_summary *sum,
                     t2p_error *err)
{
    int rc = -1;
    const char **paths = NULL;
    pprof_merge *pm = pprof_merge_new();
    if (!pm)
        goto nomem;
    size_t nranks = 0;
    for (size_t i = 0; i < j->nloaded; i++) {
        ranks_file *f = &j->files[i];
        if (!f->out)
            continue;
        if (pprof_merge_add(pm, f->out, f->out_len, f->path, err) < 0)
            goto out;
        free(f->out); /* merged: the piece is no longer needed */
        f->out = NULL;
        nranks++;
    }
    char line[200], scope[200], mapping[64];
    const char *comments[24];
    size_t nc = 0;
    /* the command first, as every profile convert writes */
    if (a->ncomments)
        comments[nc++] = a->comments[0];
    snprintf(line, sizeof line, "%zu ranks, each sample labelled rank=N (-tagfocus rank=3)",
             nranks);
    comments[nc++] = line;
    if (a->step) {
        snprintf(scope, sizeof scope, "scope: step %s of each rank (CPU events that start in "
                 "it, the GPU work they launched)", a->step);
        comments[nc++] = scope;
    } else if (a->range) {
        snprintf(scope, sizeof scope, "scope: range %s of each rank, from the rank's own start "
                 "(CPU events that start in it, the GPU work they launched)", a->range);
        comments[nc++] = scope;
    }
    for (size_t i = 1; i < a->ncomments && nc < 24; i++)
        comments[nc++] = a->comments[i];
    snprintf(mapping, sizeof mapping, "%zu ranks", nranks);
    if (!(paths = malloc((j->nfiles ? j->nfiles : 1) * sizeof *paths)))
        goto nomem;
    for (size_t i = 0; i < j->nfiles; i++)
        paths[i] = j->files[i].path;
    if (pprof_merge_write(pm, out, mapping, comments, nc, paths, j->nfiles, sum, err) < 0)
        goto out;
    rc = 0;
    goto out;
nomem:
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory");
out:
    /* every piece goes, merged or not: one left from a failed merge would
       join the next export of this job */
    for (size_t i = 0; i < j->nfiles; i++) {
        free(j->files[i].out);
        j->files[i].out = NULL;
        j->files[i].out_len = 0;
    }
    free(paths);
    pprof_merge_free(pm);
    return rc;
}
