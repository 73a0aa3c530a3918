/* The Kernels view: TensorBoard's Kernel view (core/analyses/kernels.h).
   One row per kernel name: calls, total, mean, min, max, blocks per SM,
   achieved occupancy and tensor cores, sorted by any of them (< > r).
   Enter on a kernel lists the operators that launched it with their share
   of its time; Enter on one of those focuses that operator in every view
   (the Tree of its stacks); Esc goes back to the kernels. e exports what
   is shown, kernel time by launching stack: every kernel through the
   filter, or the kernel whose launchers are listed (convert --kernels,
   --kernel NAME), in the scope as e writes it everywhere.

   The figures are built on first use from the model the view shows (the
   whole trace: with its steps' span for the GPU summary; a step or a rank:
   that model's kernels), and under a focus or filter from the kernels
   launched inside the scope's stacks (kernels_build_in over scope_keep's
   mask: analyze --focus's figures), again on each change of the scope. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/derived.h"
#include "core/analyses/kernels.h"
#include "core/analyses/steps.h"
#include "core/base/fmt.h"
#include "core/model/catkind.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

/* The view's sorts, past the model's (MODEL_SORT_N ends a sort list): the
   tab line names them (sort_name) and the column arrow marks them. */
#define OWN(k) ((int)MODEL_SORT_N + 1 + (int)(k))

enum { C_NAME, C_SHARE, C_CALLS, C_TOTAL, C_MEAN, C_MIN, C_MAX, C_BPS, C_OCC, C_TC };

static const col kernel_cols[] = {
    { C_NAME, "Kernel", 24, OWN(KERNELS_SORT_NAME), 0, false, true, true },
    { C_CALLS, "Calls", 8, OWN(KERNELS_SORT_CALLS), 0, false, false, false },
    { C_TOTAL, "Total ms", 11, OWN(KERNELS_SORT_TOTAL), 0, false, false, false },
    { C_MEAN, "Mean ms", 9, OWN(KERNELS_SORT_MEAN), 1, false, false, false },
    { C_MIN, "Min ms", 9, OWN(KERNELS_SORT_MIN), 3, false, false, false },
    { C_MAX, "Max ms", 9, OWN(KERNELS_SORT_MAX), 3, false, false, false },
    { C_BPS, "Blk/SM", 8, OWN(KERNELS_SORT_BPS), 2, false, false, false },
    { C_OCC, "Occ %", 6, OWN(KERNELS_SORT_OCC), 2, false, false, false },
    { C_TC, "TC", 3, OWN(KERNELS_SORT_TC), 1, false, false, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const col launcher_cols[] = {
    { C_NAME, "Launched by", 24, OWN(KERNELS_SORT_NAME), 0, false, true, true },
    { C_SHARE, "Share", 6, -1, 0, false, false, false },
    { C_CALLS, "Calls", 8, OWN(KERNELS_SORT_CALLS), 0, false, false, false },
    { C_TOTAL, "Total ms", 11, OWN(KERNELS_SORT_TOTAL), 0, false, false, false },
    { C_MEAN, "Mean ms", 9, OWN(KERNELS_SORT_MEAN), 1, false, false, false },
    { C_MIN, "Min ms", 9, OWN(KERNELS_SORT_MIN), 3, false, false, false },
    { C_MAX, "Max ms", 9, OWN(KERNELS_SORT_MAX), 3, false, false, false },
    { C_BPS, "Blk/SM", 8, OWN(KERNELS_SORT_BPS), 2, false, false, false },
    { C_OCC, "Occ %", 6, OWN(KERNELS_SORT_OCC), 2, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

/* < and > cycle the view's own keys (core/analyses/kernels.h's), every
   column but the launchers' share (the total's order); listed so that the
   tab line names the sort */
#define S(k) (enum model_sort) OWN(k)
static const enum model_sort sorts[] = { S(KERNELS_SORT_TOTAL), S(KERNELS_SORT_CALLS),
                                         S(KERNELS_SORT_MEAN),  S(KERNELS_SORT_MIN),
                                         S(KERNELS_SORT_MAX),   S(KERNELS_SORT_BPS),
                                         S(KERNELS_SORT_OCC),   S(KERNELS_SORT_TC),
                                         S(KERNELS_SORT_NAME),  MODEL_SORT_N };
#undef S
static const char *const key_names[KERNELS_SORT_N] = {
    "total", "calls", "mean", "min", "max", "blocks/SM", "occupancy", "tensor cores", "name"
};

struct kstate {
    const model *m;   /* the model the figures are of */
    const kernels *k; /* core's (derived_kernels, _in), shared */
    bool scoped;      /* k counts the stacks of a focus or filter alone */
    uint32_t gen;     /* scope_gen it was built for */
    enum model_sort sort; /* OWN(enum kernels_sort) */
    bool reverse;
    bool launchers;   /* showing the launchers of kernel row `kernel` */
    uint32_t kernel;
    size_t kcur;      /* the cursor in the kernel list, for Esc */
    char err[200];
};

static struct kstate *state(view *v)
{
    return view_state(v, VIEW_KERNELS);
}

static int kview_open(view *v)
{
    struct kstate *s = view_state_new(v, VIEW_KERNELS, sizeof *s);
    if (!s)
        return -1;
    s->sort = (enum model_sort)OWN(KERNELS_SORT_TOTAL);
    return 0;
}

static int key_of(const struct kstate *s)
{
    return (int)s->sort - OWN(0);
}

static void drop(struct kstate *s)
{
    s->k = NULL;
}

static void kview_close(view *v)
{
    struct kstate *s = state(v);
    if (!s)
        return;
    drop(s);
    free(s);
}

/* The figures of the model shown, built when it changes; NULL after an
   error (s->err says it). */
static const kernels *kernels_of(view *v)
{
    struct kstate *s = state(v);
    bool scoped = scope_active(v->scope);
    if (s->m == v->m && (s->k || s->err[0]) && s->scoped == scoped &&
        (!scoped || s->gen == scope_gen(v->scope)))
        return s->k;
    /* the launchers of one kernel stay listed through a change of scope on
       the same model (the kernel is found again by name) */
    uint32_t name = s->launchers && s->k && s->m == v->m ? s->k->rows[s->kernel].name : UINT32_MAX;
    drop(s);
    s->m = v->m;
    s->err[0] = '\0';
    s->launchers = false;
    s->scoped = scoped;
    s->gen = scope_gen(v->scope);
    t2p_error err;
    struct derived *d = view_derived(v, v->m);
    if (!d) {
        error_set(&err, T2P_ERR_NOMEM, v->m->tr->path, -1, "out of memory");
    } else if (scoped) {
        /* the kernels whose stacks the scope selects, as analyze --focus and
           e count them */
        uint8_t *sel = scope_keep(v->scope);
        if (!sel)
            error_set(&err, T2P_ERR_NOMEM, v->m->tr->path, -1, "out of memory");
        else
            s->k = derived_kernels_in(d, v->m, sel, &err);
        free(sel); /* derived keeps a copy */
    } else if (model_is_scoped(v->m)) {
        /* a step's or a range's: a scoped model has no steps */
        s->k = derived_kernels_in(d, v->m, NULL, &err);
    } else {
        /* the whole trace's, over its steps' span, is the trace's shared one
           (the Steps view's header shows it too); without steps, no span */
        if (!(s->k = derived_kernels(d, &err)))
            s->k = derived_kernels_in(d, v->m, NULL, &err);
    }
    for (size_t i = 0; s->k && name != UINT32_MAX && i < s->k->nrows; i++)
        if (s->k->rows[i].name == name) {
            s->kernel = (uint32_t)i;
            s->launchers = true;
        }
    if (!s->k) {
        snprintf(s->err, sizeof s->err, "%.180s", err.reason);
        return NULL;
    }
    return s->k;
}

static const col *kview_cols(view *v)
{
    return state(v)->launchers ? launcher_cols : kernel_cols;
}

static int kview_rebuild(view *v, view_rows *r)
{
    struct kstate *s = state(v);
    const kernels *k = kernels_of(v);
    if (!k)
        return 0;
    const kernels_row *rows = s->launchers ? k->by_op : k->rows;
    size_t n = s->launchers ? k->nby_op : k->nrows;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return -1;
    if (s->launchers) {
        /* one kernel's launchers (core picks them), then their order */
        n = kernels_launcher_ids(k, k->rows[s->kernel].name, idx);
        kernels_sort_ids(k, rows, idx, n, (enum kernels_sort)key_of(s), s->reverse);
    } else {
        kernels_sort(k, rows, n, (enum kernels_sort)key_of(s), s->reverse, idx);
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        /* without a scope every kernel; under one, the figures already
           count its stacks alone (a filter selects the kernels it names and
           those launched under an operator it names) */
        rc = view_rows_push(r, idx[i]);
    }
    free(idx);
    return rc;
}

static const kernels_row *row_of(view *v, uint32_t id)
{
    struct kstate *s = state(v);
    return s->launchers ? &s->k->by_op[id] : &s->k->rows[id];
}

static const char *kview_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    struct kstate *s = state(v);
    const kernels_row *x = row_of(v, id);
    if (s->launchers) {
        if (x->op == MODEL_NONE) {
            snprintf(buf, size, "(no launch: no correlation matched one)");
            *len = strlen(buf);
            return buf;
        }
        return view_op_name(v, x->op, len);
    }
    *len = strtab_len(v->m->tr->strs, x->name);
    return trace_str(v->m->tr, x->name);
}

static void cell_fig(cols_line *l, double f, int width)
{
    char t[32];
    snprintf(t, sizeof t, "%.2f", f);
    cols_cell(l, t, strlen(t), width, true);
}

static void kview_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    struct kstate *s = state(v);
    const kernels_row *x = row_of(v, id);
    switch (c->id) {
    case C_NAME: {
        char buf[64];
        size_t len;
        const char *n = kview_name(v, id, buf, sizeof buf, &len);
        cols_cell(l, n, len, namew, false);
        break;
    }
    case C_SHARE: view_cell_pct(l, x->total_ns, s->k->rows[s->kernel].total_ns, c->width); break;
    case C_CALLS: view_cell_count(l, x->calls, c->width); break;
    case C_TOTAL: view_cell_ms(l, x->total_ns, c->width); break;
    case C_MEAN: view_cell_ms(l, (int64_t)(x->mean_ns + 0.5), c->width); break;
    case C_MIN: view_cell_ms(l, x->min_ns, c->width); break;
    case C_MAX: view_cell_ms(l, x->max_ns, c->width); break;
    case C_BPS: cell_fig(l, x->blocks_per_sm, c->width); break;
    case C_OCC: cell_fig(l, x->occupancy_pct, c->width); break;
    case C_TC: cols_cell(l, x->tensor_cores ? "yes" : "no", x->tensor_cores ? 3 : 2, c->width, false); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static bool kview_gpu(view *v, uint32_t id)
{
    (void)id;
    return !state(v)->launchers; /* a kernel is GPU work; its launchers are not */
}

static int kview_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    struct kstate *s = state(v);
    const kernels *k = kernels_of(v);
    switch (act) {
    case ACT_DRILL: {
        if (!k || view_nrows(v) == 0)
            return VIEW_DRAW_FOOTER;
        uint32_t id = view_row(v, view_cursor(v));
        if (!s->launchers) {
            s->kernel = id;
            s->kcur = view_cursor(v);
            s->launchers = true;
            v->cur[VIEW_KERNELS] = v->top[VIEW_KERNELS] = 0;
            view_all_stale(v);
            view_status_set(v, "the operators that launched it: Enter focuses one in every "
                               "view, Esc back to the kernels");
            return VIEW_DRAW_ALL;
        }
        const kernels_row *x = &k->by_op[id];
        if (x->op == MODEL_NONE) {
            view_status_set(v, "no operator launched these: no correlation matched a launch");
            return VIEW_DRAW_FOOTER;
        }
        view_push_focus(v, SCOPE_OP, x->op);
        return VIEW_DRAW_ALL;
    }
    case ACT_BACK:
        if (!s->launchers)
            return -1;
        s->launchers = false;
        view_all_stale(v);
        v->cur[VIEW_KERNELS] = s->kcur;
        v->top[VIEW_KERNELS] = 0;
        view_clamp(v);
        return VIEW_DRAW_ALL;
    case ACT_SORT_NEXT:
    case ACT_SORT_PREV:
        s->sort = (enum model_sort)OWN(
            (key_of(s) + (act == ACT_SORT_NEXT ? 1 : KERNELS_SORT_N - 1)) % KERNELS_SORT_N);
        s->reverse = false;
        view_all_stale(v);
        return VIEW_DRAW_ALL;
    case ACT_REVERSE:
        s->reverse = !s->reverse;
        view_all_stale(v);
        return VIEW_DRAW_ALL;
    default:
        return -1;
    }
}

static void kview_tabinfo(view *v, char *buf, size_t size)
{
    struct kstate *s = state(v);
    const kernels *k = kernels_of(v);
    if (!k) {
        snprintf(buf, size, "  no kernels%s%s", s->err[0] ? ": " : "", s->err);
        return;
    }
    if (s->launchers) {
        snprintf(buf, size, " | the launchers of one kernel (Esc: every kernel)");
        return;
    }
    char c[32];
    snprintf(buf, size, " | %zu kernels, %s calls%s", k->nrows,
             fmt_count(k->kernel_events, c, sizeof c),
             s->scoped ? " launched in the scope" : "");
}

/* e exports what is shown: every kernel through the filter (its name), or
   the kernel whose launchers are listed, each at the stacks that launched
   it (convert --kernels, --kernel NAME). Only while this view is shown. */
static void kview_scope_args(view *v, struct view_scope_args *a)
{
    struct kstate *s = state(v);
    if (v->tab != VIEW_KERNELS || !s)
        return;
    a->kernels = true;
    if (s->launchers && s->k && s->m == v->m)
        a->kernel = trace_str(v->m->tr, s->k->rows[s->kernel].name);
}

static const char *kview_sort_name(view *v, int sort)
{
    (void)v;
    int k = sort - OWN(0);
    return k >= 0 && k < KERNELS_SORT_N ? key_names[k] : NULL;
}

static void kview_own_sort(view *v, enum model_sort **sort, bool **reverse)
{
    struct kstate *s = state(v);
    *sort = &s->sort;
    *reverse = &s->reverse;
}

const struct view_ops view_kernels_ops = {
    .name = "kernels",
    .label = "Kernels",
    .cols = kernel_cols,
    .cols_of = kview_cols,
    .namecap = 80,
    .sorts = sorts,
    .open = kview_open,
    .close = kview_close,
    .rebuild = kview_rebuild,
    .name_of = kview_name,
    .cell = kview_cell,
    .gpu = kview_gpu,
    .action = kview_action,
    .tabinfo = kview_tabinfo,
    .sort_name = kview_sort_name,
    .own_sort = kview_own_sort,
    .scope_args = kview_scope_args,
};
