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
#include "core/model/catkind.h"
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

/* With a->kernels: the stacks that end at a GPU kernel (under the launch
   that caused it, or on its stream), of a->kernel's name when given, whose
   name passes a->filter (smart case, as the Kernels view's filter), ANDed
   into *keep. Returns 0, or -1 when out of memory. */
static int and_kernels(const model *m, const export_args *a, uint8_t **keep)
{
    scope *s = scope_new(m); /* for its filter's matching alone */
    if (!s)
        return -1;
    scope_set_filter(s, a->filter);
    uint8_t *k = calloc(m->nnodes ? m->nnodes : 1, 1);
    /* per op: 1 kept, 0 not (decided once per operator) */
    uint8_t *opk = calloc(m->nops ? m->nops : 1, 1);
    if (!k || !opk) {
        free(k);
        free(opk);
        scope_free(s);
        return -1;
    }
    for (size_t o = 0; o < m->nops; o++) {
        uint32_t cat = m->ops[o].cat;
        const char *name = model_op_name(m, (uint32_t)o);
        opk[o] = cat < m->ncatkind && m->catkind[cat] == CATKIND_KERNEL &&
                 (!a->kernel || strcmp(name, a->kernel) == 0) && scope_name_passes(s, name);
    }
    for (size_t i = 0; i < m->nnodes; i++)
        k[i] = m->nodes[i].op != MODEL_NONE && opk[m->nodes[i].op] && (!*keep || (*keep)[i]);
    free(opk);
    free(*keep);
    *keep = k;
    scope_free(s);
    return 0;
}

/* With a->modules: the stacks through an nn.Module call, ANDed into *keep
   (the Modules view shows nothing outside the modules). Returns 0, or -1
   when out of memory. */
static int and_modules(const model *m, uint8_t **keep)
{
    uint8_t *k = calloc(m->nnodes ? m->nnodes : 1, 1);
    if (!k)
        return -1;
    /* a node's index is greater than its parent's: parents first */
    for (size_t i = 0; i < m->nnodes; i++) {
        const model_node *nd = &m->nodes[i];
        if (nd->parent == MODEL_NONE)
            continue;
        k[i] = k[nd->parent] || pprof_is_module_op(m, nd->op);
    }
    for (size_t i = 0; i < m->nnodes; i++)
        k[i] &= !*keep || (*keep)[i];
    free(*keep);
    *keep = k;
    return 0;
}

int export_select(const model *m, const export_args *a, uint8_t **keep, bool *selecting,
                       t2p_error *err)
{
    *keep = NULL;
    *selecting = false;
    bool kernels = a->kernels || a->kernel;
    /* with kernels the filter is the kernel's (and_kernels) */
    const char *filter = kernels ? NULL : a->filter;
    bool scoped = a->nentries || (filter && filter[0]);
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
        scope_set_filter(s, filter);
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
    if (kernels) {
        if (and_kernels(m, a, keep) < 0)
            goto nomem;
        *selecting = true;
    }
    if (a->modules) {
        if (and_modules(m, keep) < 0)
            goto nomem;
        *selecting = true;
    }
    return 0;
nomem:
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory selecting the stacks");
    return -1;
}

int export_check_entries(const model *m, const export_args *a, t2p_error *err)
{
    for (size_t i = 0; i < a->nentries; i++) {
        const export_entry *e = &a->entries[i];
        export_args one = { .entries = e, .nentries = 1 };
        uint8_t *keep;
        bool selecting;
        if (export_select(m, &one, &keep, &selecting, err) < 0)
            return -1;
        size_t n = 0;
        for (size_t k = 0; keep && k < m->nnodes; k++)
            n += keep[k] != 0;
        free(keep);
        if (n)
            continue;
        const char *why = !strcmp(e->opt, "category")
                              ? "no operator of this category"
                          : !strcmp(e->opt, "track")
                              ? "no thread or stream of this name (\"PROCESS / THREAD\", "
                                "as the threads are listed)"
                              : "no operator of this name, no call path from the top of a "
                                "stack, and no frame name that matches it as a regular "
                                "expression";
        error_set(err, T2P_ERR_MISSING, m->tr->path, -1, "--%s %s names nothing in the trace: %s",
                  e->opt, e->val, why);
        return -1;
    }
    return 0;
}

void export_piece_done(export_piece *p)
{
    memory_free(p->mem);
    shortname_free(p->sn);
    free(p->keep);
    free(p->mask);
    free(p->labels);
    free(p->comments);
    model_free(p->grouped);
    export_shape_done(&p->shape);
    steps_free(p->own_st);
    memset(p, 0, sizeof *p);
}

/* export_prepare's by-shape piece (export_args.by_shape): the operator calls
   of p->mask (a step's, a range's) that a's scope keeps, on whole's stacks
   (the filter tests the operator's name, as the Ops view's filter tests its
   rows), written as export_shape builds them. */
static int shape_prepare(const model *whole, const export_args *a, export_piece *p,
                         t2p_error *err)
{
    const trace *tr = whole->tr;
    export_args sa = *a;
    sa.filter = NULL;
    uint8_t *nk = NULL, *opk = NULL;
    unsigned char *ev = NULL;
    scope *s = NULL;
    int rc = -1;
    if (export_select(whole, &sa, &nk, &p->selecting, err) < 0)
        return -1;
    if (a->filter && a->filter[0]) {
        /* per operator, decided once */
        if (!(s = scope_new(whole)) || !(opk = calloc(whole->nops ? whole->nops : 1, 1)))
            goto nomem;
        scope_set_filter(s, a->filter);
        for (size_t o = 0; o < whole->nops; o++)
            opk[o] = scope_name_passes(s, model_op_name(whole, (uint32_t)o));
        p->selecting = true;
    }
    if (p->mask || nk || opk) {
        if (!(ev = malloc(tr->nevents ? tr->nevents : 1)))
            goto nomem;
        for (size_t e = 0; e < tr->nevents; e++) {
            uint32_t n = whole->ev_node[e];
            ev[e] = (!p->mask || p->mask[e]) && (!nk || (n != MODEL_NONE && nk[n])) &&
                    (!opk || (n != MODEL_NONE && whole->nodes[n].op != MODEL_NONE &&
                              opk[whole->nodes[n].op]));
        }
    }
    if (export_shape_build(&p->shape, whole, p->st, ev, err) < 0)
        goto out;
    const model *m = p->m = p->shape.m;
    if (a->short_names && !(p->sn = shortname_new(m)))
        goto nomem;
    size_t nc = 0;
    if (!(p->comments = malloc((a->ncomments + 2) * sizeof *p->comments)))
        goto nomem;
    for (size_t i = 0; i < a->ncomments; i++)
        p->comments[nc++] = a->comments[i];
    if (p->step_note[0])
        p->comments[nc++] = p->step_note;
    p->comments[nc++] = "by input shape: the operator calls of TensorBoard's tree (its Operator "
                        "view), each at the stack of its ancestors in that tree, labelled "
                        "input_shape; time = its self time (less its children and runtime "
                        "calls), device_time = the GPU time of its own launches, samples = "
                        "its calls";
    /* no heap types: the samples are the tree's operators, not the model's
       stacks the memory records are attributed to */
    p->po = (pprof_opts){ .tool_version = a->tool_version, .comments = p->comments,
                          .ncomments = nc, .short_names = p->sn, .has_rank = a->has_rank,
                          .rank = a->rank, .step_labels = p->shape.steps,
                          .shape_labels = p->shape.shapes, .nsteps = p->shape.ngroups,
                          .hide_python = a->hide_python, .modules_only = a->modules,
                          .no_overwrite = a->no_overwrite, .progress = a->progress,
                          .progress_ctx = a->progress_ctx };
    rc = 0;
    goto out;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory");
out:
    scope_free(s);
    free(opk);
    free(nk);
    free(ev);
    return rc;
}

int export_prepare(const model *whole, const steps *st, const model_opts *mo,
                   const export_args *a, export_piece *p, t2p_error *err)
{
    const trace *tr = whole->tr;
    memset(p, 0, sizeof *p);
    p->m = whole;
    if (!st && !(st = p->own_st = steps_build(whole, err)))
        return -1;
    p->st = st;
    if (a->range && a->step) {
        /* one mask holds one scope: neither may silently win */
        error_set(err, T2P_ERR_ARG, tr->path, -1, "--range and --step are two scopes: give one");
        return -1;
    }
    time_range rg;
    if (a->range) {
        /* the events of the window, each step's calls still apart */
        range_spec rs;
        if (range_parse(a->range, &rs, err) < 0 || range_resolve(whole, &rs, &rg, err) < 0) {
            char why[sizeof err->reason];
            snprintf(why, sizeof why, "--range: %.480s", err->reason);
            snprintf(err->reason, sizeof err->reason, "%s", why);
            err->kind = T2P_ERR_ARG;
            return -1;
        }
        if (!(p->mask = range_mask(whole, &rg, NULL)))
            goto nomem;
    }
    size_t first = 0, last = 0;
    if (a->step) {
        /* with --step, only those steps' events count */
        if (steps_parse_range(st, a->step, &first, &last, err) < 0)
            return -1;
        char l[160];
        snprintf(p->step_note, sizeof p->step_note,
                 "scope: step%s %s (CPU events that start in it, the GPU work they launched)",
                 first == last ? "" : "s", steps_range_label(st, first, last, l, sizeof l));
        if (!(p->mask = steps_mask(st, first, last)))
            goto nomem;
    }
    if (a->by_shape)
        return shape_prepare(whole, a, p, err);
    if (a->range || a->step || !st->whole_trace) {
        /* each step's calls in nodes of their own: a step label on every
           sample */
        if (!st->whole_trace && !(p->labels = steps_labels(st)))
            goto nomem;
        model_opts o = *mo;
        o.keep = p->mask;
        o.group = st->whole_trace ? NULL : st->ev_step;
        /* the whole trace's labelled model from the one built, when it kept
           its nesting (no second sort, nesting and linking); a scope builds
           its own */
        p->grouped = !p->mask && whole->ev_parent ? model_regroup(whole, o.group, err)
                                                  : model_build(tr, &o, err);
        if (!p->grouped)
            return -1;
        /* the memory figures cover the window's records (memory.h) */
        if (a->range)
            range_window(&rg, p->grouped);
        else if (a->step)
            steps_window(st, first, last, p->grouped);
        p->m = p->grouped;
    }
    const model *m = p->m;
    if (export_select(m, a, &p->keep, &p->selecting, err) < 0)
        return -1;
    if (a->short_names && !(p->sn = shortname_new(m)))
        goto nomem;
    if (tr->nmems && !a->no_memory && !(p->mem = memory_build(m, err)))
        return -1;
    size_t nc = 0;
    if (!(p->comments = malloc((a->ncomments + 1) * sizeof *p->comments)))
        goto nomem;
    for (size_t i = 0; i < a->ncomments; i++)
        p->comments[nc++] = a->comments[i];
    if (p->step_note[0])
        p->comments[nc++] = p->step_note;
    p->po = (pprof_opts){ .keep = p->keep, .tool_version = a->tool_version,
                          .comments = p->comments, .ncomments = nc, .short_names = p->sn,
                          .has_rank = a->has_rank, .rank = a->rank,
                          .step_labels = p->labels, .nsteps = p->labels ? st->nsteps : 0,
                          .mem = p->mem, .hide_python = a->hide_python,
                          .modules_only = a->modules, .memory_types = !a->no_memory,
                          .no_overwrite = a->no_overwrite, .progress = a->progress,
                          .progress_ctx = a->progress_ctx };
    return 0;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory");
    return -1;
}

int export_trace(const model *whole, const trace *tr, const model_opts *mo, const export_args *a,
                 const char *out, export_result *res, t2p_error *err)
{
    model *own = NULL;
    export_piece p;
    int rc = -1;
    memset(res, 0, sizeof *res);
    memset(&p, 0, sizeof p);
    if (!whole && !(whole = own = model_build(tr, mo, err)))
        return -1;
    /* the caller's steps are those of its own whole model */
    if (export_prepare(whole, own ? NULL : a->steps, mo, a, &p, err) < 0)
        goto out;
    res->selecting = p.selecting;
    snprintf(res->step_note, sizeof res->step_note, "%s", p.step_note);
    if (pprof_write(p.m, &p.po, out, &res->sum, err) < 0)
        goto out;
    res->memory = p.mem != NULL;
    res->busy_ns = p.m->busy_ns;
    res->gpu = p.m->gpu_events > 0;
    rc = 0;
out:
    export_piece_done(&p);
    model_free(own);
    return rc;
}

int export_diff(const model *base_whole, const model *new_whole, const model_opts *mo,
                const export_args *a, const char *out, export_result *res, t2p_error *err)
{
    export_piece d[2];
    int rc = -1;
    memset(d, 0, sizeof d);
    memset(res, 0, sizeof *res);
    const model *whole[2] = { base_whole, new_whole };
    /* each side whole: the two traces have their own steps and clocks (convert
       refuses --step, --range and --by-shape with --base) */
    export_args sa = *a;
    sa.step = NULL;
    sa.range = NULL;
    sa.by_shape = false;
    /* the heap sample types on both sides, zero on a side without [memory]
       records: as the two single-trace converts have them */
    bool with_mem = !a->no_memory && (base_whole->tr->nmems || new_whole->tr->nmems);
    for (int k = 0; k < 2; k++) {
        if (export_prepare(whole[k], NULL, mo, &sa, &d[k], err) < 0)
            goto out;
        res->selecting |= d[k].selecting;
        /* the rank label a single trace's convert gives, so the diff stays
           what pprof -diff_base makes of the two converts */
        int64_t rank = ranks_trace_rank(whole[k]->tr);
        d[k].po.has_rank = rank >= 0;
        d[k].po.rank = rank;
    }
    if (pprof_write_diff(d[0].m, &d[0].po, d[1].m, &d[1].po, out, &res->sum, err) < 0)
        goto out;
    res->memory = with_mem;
    res->gpu = base_whole->gpu_events || new_whole->gpu_events;
    rc = 0;
out:
    for (int k = 0; k < 2; k++)
        export_piece_done(&d[k]);
    return rc;
}
