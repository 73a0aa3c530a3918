/* The Ops view: one row per operator, as PyTorch's key_averages() table.
   Enter focuses the Tree on every stack through the operator. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/load/pyframe.h"
#include "ui/view_impl.h"

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

struct ops_state {
    uint32_t *order; /* ops in the current sort */
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
    if (s)
        free(s->order);
    free(s);
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

static int64_t fig_key(const scope_fig *f, enum model_sort s)
{
    switch (s) {
    case MODEL_SORT_TOTAL: return f->total_ns;
    case MODEL_SORT_CALLS: return (int64_t)f->calls;
    case MODEL_SORT_AVG: return f->calls ? f->total_ns / (int64_t)f->calls : 0;
    case MODEL_SORT_DEVICE_SELF: return f->dev_self_ns;
    case MODEL_SORT_DEVICE_TOTAL: return f->dev_total_ns;
    default: return f->self_ns;
    }
}

/* Under a scope: the ops on its stacks, by their figures in it. */
static int scoped_order(view *v, const scope_fig *sf, uint32_t *order, size_t *n)
{
    const model *m = v->m;
    view_keyed *k = view_keyed_buf(v, m->nops);
    if (!k)
        return -1;
    size_t c = 0;
    for (size_t o = 0; o < m->nops; o++) {
        const scope_fig *f = &sf[o];
        if (!f->calls && !f->total_ns && !f->dev_total_ns && !f->dev_events)
            continue;
        k[c].key = fig_key(f, v->sort);
        k[c].name = model_op_name(m, (uint32_t)o);
        k[c].id = (uint32_t)o;
        c++;
    }
    view_keyed_sort(k, c, v->sort == MODEL_SORT_NAME, v->reverse);
    for (size_t i = 0; i < c; i++)
        order[i] = k[i].id;
    *n = c;
    return 0;
}

static int ops_rebuild(view *v, view_rows *r)
{
    const model *m = v->m;
    struct ops_state *s = view_state(v, VIEW_OPS);
    const scope_fig *sf = scope_ops(v->scope);
    size_t n = m->nops;
    if (!sf)
        model_sort_ops(m, v->sort, v->reverse, s->order);
    else if (scoped_order(v, sf, s->order, &n) < 0)
        return -1;
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
    (void)buf;
    (void)size;
    return view_op_name(v, op, len);
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
    return v->m->ops[op].gpu;
}

static int ops_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act != ACT_DRILL || view_nrows(v) == 0)
        return -1;
    view_push_focus(v, SCOPE_OP, view_row(v, view_cursor(v)));
    return VIEW_DRAW_ALL;
}

const struct view_ops view_ops_ops = {
    .name = "ops",
    .label = "Ops",
    .cols = cols,
    .namecap = 90,
    .sorts = sorts,
    .open = ops_open,
    .close = ops_close,
    .rebuild = ops_rebuild,
    .name_of = ops_name,
    .cell = ops_cell,
    .gpu = ops_gpu,
    .action = ops_action,
};
