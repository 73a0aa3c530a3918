/* The profile of one trace in a scope; see core/pprof/export.h. */
#include "config.h"

#include "core/pprof/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/memory.h"
#include "core/analyses/range.h"
#include "core/analyses/ranks.h"
#include "core/analyses/steps.h"
#include "core/model/scope.h"
#include "core/model/select.h"
#include "core/model/shortname.h"

/* ANDs the mask of a select_spec into *keep (allocating it as all-kept
   first). Returns 0, or -1 with err set. */
static int and_select(const model *m, const select_spec *sel, uint8_t **keep, t2p_error *err)
{
    uint8_t *k = select_nodes(m, sel, err);
    if (!k)
        return -1;
    if (!*keep) {
        *keep = k;
        return 0;
    }
    for (size_t i = 0; i < m->nnodes; i++)
        (*keep)[i] &= k[i];
    free(k);
    return 0;
}

int export_select(const model *m, const export_args *a, uint8_t **keep, bool *selecting,
                       t2p_error *err)
{
    *keep = NULL;
    *selecting = false;
    bool scoped = a->nentries || (a->filter && a->filter[0]);
    if (scoped) {
        scope *s = scope_new(m);
        if (!s)
            goto nomem;
        for (size_t i = 0; i < a->nentries; i++) {
            const export_entry *e = &a->entries[i];
            int r = scope_push_arg(s, e->opt, e->val);
            if (r < 0) {
                scope_free(s);
                error_set(err, T2P_ERR_ARG, NULL, -1, "more than %d focus entries",
                          SCOPE_MAX - 1);
                return -1;
            }
            if (r == 0)
                continue;
            /* not a name in this model: --focus is then a regular
               expression over frame names, as go tool pprof -focus;
               --category and --track name nothing: nothing is kept */
            /* a path (or a category or track) this model lacks (a step
               without it, the other side of a comparison): no stack passes */
            if (strcmp(e->opt, "focus") != 0 || strchr(e->val, '>')) {
                if (!*keep && !(*keep = calloc(m->nnodes ? m->nnodes : 1, 1))) {
                    scope_free(s);
                    goto nomem;
                }
                memset(*keep, 0, m->nnodes);
                continue;
            }
            select_spec sel;
            select_init(&sel);
            sel.focus_re = e->val;
            if (and_select(m, &sel, keep, err) < 0) {
                scope_free(s);
                free(*keep);
                *keep = NULL;
                return -1;
            }
        }
        scope_set_filter(s, a->filter);
        if (scope_active(s)) {
            uint8_t *k = scope_keep(s);
            if (!k) {
                scope_free(s);
                goto nomem;
            }
            if (*keep) {
                for (size_t i = 0; i < m->nnodes; i++)
                    (*keep)[i] &= k[i];
                free(k);
            } else {
                *keep = k;
            }
        }
        scope_free(s);
        *selecting = true;
    }
    if (a->ignore_re || a->thread_re) {
        select_spec sel;
        select_init(&sel);
        sel.ignore_re = a->ignore_re;
        sel.thread_re = a->thread_re;
        if (and_select(m, &sel, keep, err) < 0)
            return -1;
        *selecting = true;
    }
    return 0;
nomem:
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory selecting the stacks");
    return -1;
}

int export_trace(const model *whole, const trace *tr, const model_opts *mo, const export_args *a,
                 const char *out, export_result *res, t2p_error *err)
{
    model *own = NULL, *grouped = NULL;
    const steps *st = NULL;
    steps *own_st = NULL; /* built here when the caller had none (a->steps) */
    const char **labels = NULL;
    unsigned char *mask = NULL;
    uint8_t *keep = NULL;
    shortnames *sn = NULL;
    memory *mem = NULL;
    int rc = -1;
    memset(res, 0, sizeof *res);
    if (!whole && !(whole = own = model_build(tr, mo, err)))
        return -1;
    if (!(st = own ? NULL : a->steps) && !(st = own_st = steps_build(whole, err)))
        goto out;
    const model *m = whole;
    time_range rg;
    if (a->range) {
        /* the events of the window, each step's calls still apart */
        range_spec rs;
        if (range_parse(a->range, &rs, err) < 0 || range_resolve(whole, &rs, &rg, err) < 0) {
            char why[sizeof err->reason];
            snprintf(why, sizeof why, "--range: %.480s", err->reason);
            snprintf(err->reason, sizeof err->reason, "%s", why);
            err->kind = T2P_ERR_ARG;
            goto out;
        }
        if (!(mask = range_mask(whole, &rg, NULL)))
            goto nomem;
    }
    if (a->range || a->step || !st->whole_trace) {
        /* each step's calls in nodes of their own: a step label on every
           sample; with --step, only those steps' events count */
        size_t first = 0, last = 0;
        if (a->step) {
            if (steps_parse_range(st, a->step, &first, &last, err) < 0)
                goto out;
            char l[160];
            snprintf(res->step_note, sizeof res->step_note,
                     "scope: step%s %s (CPU events that start in it, the GPU work they launched)",
                     first == last ? "" : "s", steps_range_label(st, first, last, l, sizeof l));
            if (!(mask = steps_mask(st, first, last)))
                goto nomem;
        }
        if (!st->whole_trace && !(labels = steps_labels(st)))
            goto nomem;
        model_opts o = *mo;
        o.keep = mask;
        o.group = st->whole_trace ? NULL : st->ev_step;
        /* the whole trace's labelled model from the one built, when it kept
           its nesting (no second sort, nesting and linking); a scope builds
           its own */
        grouped = !mask && whole->ev_parent ? model_regroup(whole, o.group, err)
                                            : model_build(tr, &o, err);
        if (!grouped)
            goto out;
        /* the memory figures cover the window's records (memory.h) */
        if (a->range)
            range_window(&rg, grouped);
        else if (a->step)
            steps_window(st, first, last, grouped);
        m = grouped;
    }
    if (export_select(m, a, &keep, &res->selecting, err) < 0)
        goto out;
    if (a->short_names && !(sn = shortname_new(m)))
        goto nomem;
    if (tr->nmems && !a->no_memory && !(mem = memory_build(m, err)))
        goto out;
    const char *comments[16];
    size_t nc = 0;
    for (size_t i = 0; i < a->ncomments && nc < 15; i++)
        comments[nc++] = a->comments[i];
    if (res->step_note[0])
        comments[nc++] = res->step_note;
    pprof_opts po = { .keep = keep, .tool_version = a->tool_version, .comments = comments,
                      .ncomments = nc, .short_names = sn, .has_rank = a->has_rank,
                      .rank = a->rank, .step_labels = labels, .nsteps = labels ? st->nsteps : 0,
                      .mem = mem, .hide_python = a->hide_python,
                      .memory_types = !a->no_memory,
                      .no_overwrite = a->no_overwrite, .progress = a->progress,
                      .progress_ctx = a->progress_ctx };
    if (pprof_write(m, &po, out, &res->sum, err) < 0)
        goto out;
    res->memory = mem != NULL;
    res->busy_ns = m->busy_ns;
    res->gpu = m->gpu_events > 0;
    rc = 0;
    goto out;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory");
out:
    memory_free(mem);
    shortname_free(sn);
    free(keep);
    free(mask);
    free(labels);
    model_free(grouped);
    steps_free(own_st);
    model_free(own);
    return rc;
}

/* One side of a difference: whole with its steps' calls apart (the step
   labels each side's convert gives), its selection and memory. */
struct side {
    model *grouped;
    steps *st;
    const char **labels;
    uint8_t *keep;
    memory *mem;
    shortnames *sn;
};

static void side_done(struct side *d)
{
    memory_free(d->mem);
    shortname_free(d->sn);
    free(d->keep);
    free(d->labels);
    model_free(d->grouped);
    steps_free(d->st);
}

static int side_prepare(struct side *d, const model *whole, const model_opts *mo,
                        const export_args *a, bool with_mem, pprof_opts *po, bool *selecting,
                        t2p_error *err)
{
    const model *m = whole;
    if (!(d->st = steps_build(whole, err)))
        return -1;
    if (!d->st->whole_trace) {
        model_opts o = *mo;
        o.keep = NULL;
        o.group = d->st->ev_step;
        d->grouped = whole->ev_parent ? model_regroup(whole, d->st->ev_step, err)
                                      : model_build(whole->tr, &o, err);
        if (!d->grouped)
            return -1;
        if (!(d->labels = steps_labels(d->st)))
            goto nomem;
        m = d->grouped;
    }
    if (export_select(m, a, &d->keep, selecting, err) < 0)
        return -1;
    if (with_mem && whole->tr->nmems && !(d->mem = memory_build(m, err)))
        return -1;
    if (a->short_names && !(d->sn = shortname_new(m)))
        goto nomem;
    /* the rank label a single trace's convert gives, so the diff stays what
       pprof -diff_base makes of the two converts */
    int64_t rank = ranks_trace_rank(whole->tr);
    *po = (pprof_opts){ .keep = d->keep, .tool_version = a->tool_version,
                        .comments = a->comments, .ncomments = a->ncomments,
                        .has_rank = rank >= 0, .rank = rank, .short_names = d->sn,
                        .step_labels = d->labels, .nsteps = d->labels ? d->st->nsteps : 0,
                        .mem = d->mem, .hide_python = a->hide_python,
                        .memory_types = !a->no_memory,
                        .no_overwrite = a->no_overwrite, .progress = a->progress,
                        .progress_ctx = a->progress_ctx };
    return 0;
nomem:
    error_set(err, T2P_ERR_NOMEM, whole->tr->path, -1, "out of memory");
    return -1;
}

int export_diff(const model *base_whole, const model *new_whole, const model_opts *mo,
                const export_args *a, const char *out, export_result *res, t2p_error *err)
{
    struct side d[2];
    pprof_opts po[2];
    int rc = -1;
    memset(d, 0, sizeof d);
    memset(res, 0, sizeof *res);
    const model *whole[2] = { base_whole, new_whole };
    /* the heap sample types on both sides, zero on a side without [memory]
       records: as the two single-trace converts have them */
    bool with_mem = !a->no_memory && (base_whole->tr->nmems || new_whole->tr->nmems);
    for (int k = 0; k < 2; k++)
        if (side_prepare(&d[k], whole[k], mo, a, with_mem, &po[k], &res->selecting, err) < 0)
            goto out;
    const model *m0 = d[0].grouped ? d[0].grouped : base_whole;
    const model *m1 = d[1].grouped ? d[1].grouped : new_whole;
    if (pprof_write_diff(m0, &po[0], m1, &po[1], out, &res->sum, err) < 0)
        goto out;
    res->memory = with_mem;
    res->gpu = base_whole->gpu_events || new_whole->gpu_events;
    rc = 0;
out:
    for (int k = 0; k < 2; k++)
        side_done(&d[k]);
    return rc;
}
