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
    uint8_t *keep = NULL;
    unsigned char *mask = NULL;
    const char **labels = NULL;
    shortnames *sn = NULL;
    memory *mem = NULL;
    model *gm = NULL;
    int rc = -1;
    const model *m = whole;
    if (a->step || !st->whole_trace) {
        /* each step's calls in nodes of their own: the step label, as a
           single trace's profile has it */
        model_opts so = *mo;
        if (a->step) {
            size_t first, last;
            if (steps_parse_range(st, a->step, &first, &last, err) < 0)
                goto out;
            if (!(mask = steps_mask(st, first, last)))
                goto nomem;
        }
        if (!(labels = steps_labels(st)))
            goto nomem;
        so.keep = mask;
        so.group = st->ev_step;
        gm = !mask && whole->ev_parent ? model_regroup(whole, st->ev_step, err)
                                       : model_build(whole->tr, &so, err);
        if (!gm)
            goto out;
        m = gm;
    }
    bool selecting;
    if (export_select(m, a, &keep, &selecting, err) < 0)
        goto out;
    if (a->short_names && !(sn = shortname_new(m)))
        goto nomem;
    /* the heap types on every rank, zero where it recorded no [memory]
       events: the pieces then share their sample types and merge */
    if (whole->tr->nmems && !a->no_memory && !(mem = memory_build(m, err)))
        goto out;
    pprof_opts po = { .keep = keep, .tool_version = a->tool_version, .has_rank = true,
                      .rank = f->rank, .short_names = sn, .step_labels = labels,
                      .nsteps = labels ? st->nsteps : 0, .hide_python = a->hide_python,
                      .modules_only = a->modules,
                      .mem = mem, .memory_types = !a->no_memory };
    uint8_t *buf;
    size_t len;
    if (pprof_merge_pack(m, &po, &buf, &len, err) < 0)
        goto out;
    free(f->out);
    f->out = buf;
    f->out_len = len;
    rc = 0;
    goto out;
nomem:
    error_set(err, T2P_ERR_NOMEM, f->path, -1, "out of memory");
out:
    memory_free(mem);
    free(keep);
    free(mask);
    free(labels);
    shortname_free(sn);
    model_free(gm);
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
