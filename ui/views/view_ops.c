/* The Ops view: one row per operator, as PyTorch's key_averages() table.
   Enter focuses the Tree on every stack through the operator. I groups the
   rows by (operator, input shape) as TensorBoard's Operator view did
   (core/analyses/opshape.h: its own tree over the whole trace, whose calls
   in the model's step or range count, as analyze --by-shape and convert
   --by-shape take them; a focus does not narrow those rows; the filter
   does). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/derived.h"
#include "core/analyses/opshape.h"
#include "core/base/fmt.h"
#include "core/load/pyframe.h"
#include "core/model/catkind.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

enum { C_NAME, C_CAT, C_CALLS, C_SELF, C_SELFPCT, C_TOTAL, C_CUM, C_AVG, C_MIN, C_MAX, C_DSELF, C_DTOTAL };

static const col cols[] = {
    { C_NAME, "Name", 20, MODEL_SORT_NAME, 0, false, true, true },
    { C_CAT, "Category", 14, -1, 2, false, false, true },
    { C_CALLS, "Calls", 10, MODEL_SORT_CALLS, 1, false, false, false },
    { C_SELF, "Self ms", 12, MODEL_SORT_SELF, 0, false, false, false },
    { C_SELFPCT, "Self%", 6, -1, 1, false, false, false },
    { C_TOTAL, "Total ms", 12, MODEL_SORT_TOTAL, 0, false, false, false },
    { C_CUM, "Cum ms", 12, -1, 3, false, false, false },
    { C_AVG, "Avg ms", 10, MODEL_SORT_AVG, 3, false, false, false },
    { C_MIN, "Min ms", 10, -1, 4, false, false, false },
    { C_MAX, "Max ms", 10, -1, 4, false, false, false },
    { C_DSELF, "Dev self ms", 12, MODEL_SORT_DEVICE_SELF, 2, true, false, false },
    { C_DTOTAL, "Dev total ms", 12, MODEL_SORT_DEVICE_TOTAL, 1, true, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF,
                                         MODEL_SORT_TOTAL, MODEL_SORT_AVG, MODEL_SORT_DEVICE_SELF,
                                         MODEL_SORT_DEVICE_TOTAL, MODEL_SORT_N };

/* grouped by input shape */
enum { S_NAME = 100, S_SHAPE, S_CALLS, S_SELF, S_TOTAL, S_AVG, S_DSELF, S_DTOTAL, S_TC, S_TCSELF,
       S_TCTOTAL };

static const col shape_cols[] = {
    { S_NAME, "Name", 20, MODEL_SORT_NAME, 0, false, true, true },
    { S_SHAPE, "Input shape", 34, -1, 0, false, false, true },
    { S_CALLS, "Calls", 10, MODEL_SORT_CALLS, 1, false, false, false },
    { S_SELF, "Self ms", 12, MODEL_SORT_SELF, 0, false, false, false },
    { S_TOTAL, "Total ms", 12, MODEL_SORT_TOTAL, 0, false, false, false },
    { S_AVG, "Avg ms", 10, MODEL_SORT_AVG, 3, false, false, false },
    { S_DSELF, "Dev self ms", 12, MODEL_SORT_DEVICE_SELF, 2, true, false, false },
    { S_DTOTAL, "Dev total ms", 12, MODEL_SORT_DEVICE_TOTAL, 1, true, false, false },
    { S_TC, "TC", 3, -1, 3, true, false, true },
    { S_TCSELF, "TC self%", 8, -1, 4, true, false, false },
    { S_TCTOTAL, "TC total%", 9, -1, 4, true, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

struct ops_state {
    uint32_t *order; /* ops in the current sort */
    bool by_shape;   /* I: rows are opshape rows */
    const opshape *shp; /* core's (derived_opshape), asked on the first I */
    uint32_t *shape_order; /* shp's rows in the current sort */
};

static int ops_open(view *v)
{
    struct ops_state *s = view_state_new(v, VIEW_OPS, sizeof *s);
    if (!s)
        return -1;
    s->order = malloc((v->m->nops ? v->m->nops : 1) * sizeof *s->order);
    return s->order ? 0 : -1;
}

static void ops_close(view *v)
{
    struct ops_state *s = view_state(v, VIEW_OPS);
    if (s) {
        free(s->order);
        free(s->shape_order);
    }
    free(s);
}

static struct ops_state *st(view *v)
{
    return view_state(v, VIEW_OPS);
}

static bool by_shape(view *v)
{
    return st(v)->by_shape;
}

static const col *ops_cols_of(view *v)
{
    return by_shape(v) ? shape_cols : cols;
}

/* The rows by input shape: TensorBoard's, by the current sort (core's rule,
   opshape_sort: analyze --by-shape lists them alike), through the filter. */
static int shape_rebuild(view *v, view_rows *r)
{
    struct ops_state *s = st(v);
    const opshape *sh = s->shp;
    const trace *tr = v->m->tr;
    if (!s->shape_order &&
        !(s->shape_order = malloc((sh->nrows ? sh->nrows : 1) * sizeof *s->shape_order)))
        return -1;
    opshape_sort(sh, tr, v->sort, v->reverse, s->shape_order);
    for (size_t i = 0; i < sh->nrows; i++) {
        if (v->top_ops && r->n >= v->top_ops)
            break;
        uint32_t row = s->shape_order[i];
        if (scope_name_passes(v->scope, trace_str(tr, sh->rows[row].name)) &&
            view_rows_push(r, row) < 0)
            return -1;
    }
    return 0;
}

/* I: asks for the rows of TensorBoard's tree once, then flips the grouping. */
static int shape_toggle(view *v)
{
    struct ops_state *s = st(v);
    if (!s->shp) {
        t2p_error err;
        struct derived *d = view_derived(v, v->m);
        if (!d || !(s->shp = derived_opshape(d, v->m, &err))) {
            view_status_set(v, "out of memory: no rows by input shape");
            return VIEW_DRAW_FOOTER;
        }
    }
    s->by_shape = !s->by_shape;
    v->cur[VIEW_OPS] = v->top[VIEW_OPS] = 0;
    v->rows[VIEW_OPS].n = 0; /* its ids mean other rows now: the cursor starts on top */
    v->stale[VIEW_OPS] = true;
    if (s->by_shape)
        view_status_set(v, "by input shape: %zu rows, TensorBoard's tree%s (I: by name)",
                        s->shp->nrows, v->m->keep ? ", calls in the scope's steps or range" : "");
    else
        view_status_set(v, "by name (I: by input shape)");
    return VIEW_DRAW_ALL;
}

/* Enter on a row by shape: the operator of that name (category cpu_op). */
static uint32_t shape_op(view *v, uint32_t row)
{
    const model *m = v->m;
    uint32_t name = st(v)->shp->rows[row].name;
    for (size_t o = 0; o < m->nops; o++)
        if (m->ops[o].name == name && m->ops[o].cat < m->ncatkind &&
            m->catkind[m->ops[o].cat] == CATKIND_CPU_OP)
            return (uint32_t)o;
    return MODEL_NONE;
}

/* An op's figures: the model's, or within the scope. */
static void op_fig(view *v, uint32_t op, scope_fig *f)
{
    const scope_fig *sf = scope_ops(v->scope);
    if (sf) {
        *f = sf[op];
        return;
    }
    const model_op *o = &v->m->ops[op];
    *f = (scope_fig){ .calls = o->calls, .self_ns = o->self_ns, .total_ns = o->total_ns,
                      .cum_ns = o->cum_ns, .dev_self_ns = o->dev_self_ns,
                      .dev_total_ns = o->dev_total_ns };
}

static int ops_rebuild(view *v, view_rows *r)
{
    const model *m = v->m;
    struct ops_state *s = view_state(v, VIEW_OPS);
    const scope_fig *sf = scope_ops(v->scope);
    size_t n = m->nops;
    if (s->by_shape)
        return shape_rebuild(v, r);
    /* under a scope, the ops on its stacks by their figures in it; else
       every op: one sorter, one tie rule (model_sort_ops_keyed) */
    if (!sf)
        model_sort_ops(m, v->sort, v->reverse, s->order);
    else
        n = scope_sort_ops(v->scope, v->sort, v->reverse, s->order);
    for (size_t i = 0; i < n; i++) {
        if (v->top_ops && r->n >= v->top_ops)
            break;
        if (v->hide_python && pyframe_is_cat(model_op_cat(m, s->order[i])))
            continue; /* p: no Python frames */
        if (scope_name_passes(v->scope, model_op_name(m, s->order[i])) &&
            view_rows_push(r, s->order[i]) < 0)
            return -1;
    }
    return 0;
}

static const char *ops_name(view *v, uint32_t op, char *buf, size_t size, size_t *len)
{
    if (by_shape(v)) {
        const opshape *sh = st(v)->shp;
        const trace *tr = v->m->tr;
        size_t sl;
        const char *shape = opshape_shape(sh, tr, op, &sl);
        int n = snprintf(buf, size, "%s %.*s", trace_str(tr, sh->rows[op].name), (int)sl, shape);
        *len = n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
        return buf;
    }
    return view_op_name(v, op, len);
}

static void shape_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    const opshape *sh = st(v)->shp;
    const opshape_row *r = &sh->rows[id];
    const trace *tr = v->m->tr;
    size_t len;
    const char *s;
    char t[32];
    switch (c->id) {
    case S_NAME:
        cols_cell(l, trace_str(tr, r->name), strtab_len(tr->strs, r->name), namew, false);
        break;
    case S_SHAPE:
        s = opshape_shape(sh, tr, id, &len);
        cols_cell(l, s, len, c->width, false);
        break;
    case S_CALLS: view_cell_count(l, r->calls, c->width); break;
    case S_SELF: view_cell_ms(l, r->self_ns, c->width); break;
    case S_TOTAL: view_cell_ms(l, r->total_ns, c->width); break;
    case S_AVG: view_cell_ms(l, r->calls ? r->total_ns / (int64_t)r->calls : 0, c->width); break;
    case S_DSELF: view_cell_ms(l, r->dev_self_ns, c->width); break;
    case S_DTOTAL: view_cell_ms(l, r->dev_total_ns, c->width); break;
    case S_TC: cols_cell(l, r->tc_eligible ? "yes" : "no", r->tc_eligible ? 3 : 2, c->width, false); break;
    case S_TCSELF:
        snprintf(t, sizeof t, "%.2f", opshape_tc_self_pct(r));
        cols_cell(l, t, strlen(t), c->width, true);
        break;
    case S_TCTOTAL:
        snprintf(t, sizeof t, "%.2f", opshape_tc_total_pct(r));
        cols_cell(l, t, strlen(t), c->width, true);
        break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static void ops_cell(view *v, uint32_t op, const col *c, int namew, cols_line *l)
{
    const model *m = v->m;
    const model_op *o = &m->ops[op];
    bool scoped = scope_active(v->scope);
    scope_fig f;
    size_t len;
    const char *s;
    char t[64];
    if (by_shape(v)) {
        shape_cell(v, op, c, namew, l);
        return;
    }
    op_fig(v, op, &f);
    switch (c->id) {
    case C_NAME:
        s = ops_name(v, op, NULL, 0, &len);
        cols_cell(l, s, len, namew, false);
        break;
    case C_CAT:
        s = model_op_cat(m, op);
        cols_cell(l, s, strlen(s), c->width, false);
        break;
    case C_CALLS: view_cell_count(l, f.calls, c->width); break;
    case C_SELF: view_cell_ms(l, f.self_ns, c->width); break;
    case C_SELFPCT: view_cell_pct(l, f.self_ns, scope_busy(v->scope), c->width); break;
    case C_TOTAL: view_cell_ms(l, f.total_ns, c->width); break;
    case C_CUM: {
        /* marked where pprof's cum and PyTorch's total part (see the help) */
        size_t n = strlen(fmt_ms(f.cum_ns, t, sizeof t));
        snprintf(t + n, sizeof t - n, "%s", f.cum_ns != f.total_ns ? "*" : " ");
        cols_cell(l, t, strlen(t), c->width, true);
        break;
    }
    case C_AVG: view_cell_ms(l, f.calls ? f.total_ns / (int64_t)f.calls : 0, c->width); break;
    /* the extremes of single calls are not known within a scope */
    case C_MIN: scoped ? cols_cell(l, "-", 1, c->width, true) : view_cell_ms(l, o->min_ns, c->width); break;
    case C_MAX: scoped ? cols_cell(l, "-", 1, c->width, true) : view_cell_ms(l, o->max_ns, c->width); break;
    case C_DSELF: view_cell_ms(l, f.dev_self_ns, c->width); break;
    case C_DTOTAL: view_cell_ms(l, f.dev_total_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static bool ops_gpu(view *v, uint32_t op)
{
    return !by_shape(v) && v->m->ops[op].gpu;
}

static int ops_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act == ACT_BY_SHAPE)
        return shape_toggle(v);
    if (by_shape(v) && act == ACT_CALLERS) {
        view_status_set(v, "callers: by name only (I: back to rows by name)");
        return VIEW_DRAW_FOOTER;
    }
    if (act != ACT_DRILL || view_nrows(v) == 0)
        return -1;
    uint32_t op = view_row(v, view_cursor(v));
    if (by_shape(v) && (op = shape_op(v, op)) == MODEL_NONE)
        return -1;
    view_push_focus(v, SCOPE_OP, op);
    return VIEW_DRAW_ALL;
}

/* e by input shape exports what is shown: every sample labelled with the
   input shape of the innermost operator on its stack (convert --by-shape:
   pprof -tagfocus input_shape=..., -tagleaf input_shape), so that an
   operator's flat time per shape is the row's self time. One trace: not
   for a rank of a job. Only while this view is shown. */
static void ops_scope_args(view *v, struct view_scope_args *a)
{
    if (v->tab == VIEW_OPS && st(v) && by_shape(v) && !v->ranks)
        a->by_shape = true;
}

static void ops_tabinfo(view *v, char *buf, size_t size)
{
    snprintf(buf, size, "%s", by_shape(v) ? "  by input shape" : "");
}

const struct view_ops view_ops_ops = {
    .name = "ops",
    .label = "Ops",
    .cols = cols,
    .cols_of = ops_cols_of,
    .namecap = 90,
    .sorts = sorts,
    .open = ops_open,
    .close = ops_close,
    .rebuild = ops_rebuild,
    .name_of = ops_name,
    .cell = ops_cell,
    .gpu = ops_gpu,
    .action = ops_action,
    .tabinfo = ops_tabinfo,
    .scope_args = ops_scope_args,
};
