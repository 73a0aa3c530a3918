/* The Callers pane (bottom-up), perf report's caller view and pprof's
   -peek: i in the Tree or in Ops. Its top rows are the operators by the
   self time spent in them; each one's children are its callers with the part
   of that time that came through them, and so on up to the stacks' roots.
   From Ops it opens on the operator under the cursor alone, expanded; from
   the Tree on every operator, the cursor on the node's. The figures are
   core/callers' over the scope's stacks (focus, filter, step), all tracks
   merged; rows come from ui/tree_rows.c as the Tree's do. i, Esc or q go
   back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/callers.h"
#include "core/analyses/derived.h"
#include "core/base/fmt.h"
#include "core/load/pyframe.h"
#include "ui/callers_pane.h"
#include "ui/tree_rows.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_tree.h"
#include "ui/views/view_util.h"

enum { C_NAME, C_TIME, C_PCT, C_CALLS, C_SELF, C_DEV };

static const col cols[] = {
    { C_TIME, "Time ms", 11, MODEL_SORT_TOTAL, 0, false, false, false },
    { C_PCT, "%", 5, -1, 0, false, false, false }, /* of the scope's CPU time */
    { C_CALLS, "Calls", 10, MODEL_SORT_CALLS, 1, false, false, false },
    { C_SELF, "Top ms", 11, MODEL_SORT_SELF, 2, false, false, false },
    { C_DEV, "Dev ms", 11, MODEL_SORT_DEVICE_TOTAL, 1, true, false, false },
    { C_NAME, "Operator, then its callers", 28, MODEL_SORT_NAME, 0, false, true, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_TOTAL, MODEL_SORT_CALLS, MODEL_SORT_SELF,
                                         MODEL_SORT_DEVICE_TOTAL, MODEL_SORT_NAME,
                                         MODEL_SORT_N };

struct callers_state {
    callers_pane pane;   /* first: the rows and the pane's own sort */
    const callers *c;    /* core's (derived_callers); NULL until opened, or out of memory */
    uint32_t scope_gen;  /* the scope c was built for */
    bool hidden;         /* c was built without the Python frames (p) */
    uint32_t op;         /* the operator alone on top, or MODEL_NONE: all */
    uint32_t at_op;      /* the operator to put the cursor on when built */
    view *v;
};

static struct callers_state *st(view *v)
{
    return view_state(v, VIEW_CALLERS);
}

static int cl_open(view *v)
{
    struct callers_state *s = view_state_new(v, VIEW_CALLERS, sizeof *s);
    if (!s)
        return -1;
    s->op = s->at_op = MODEL_NONE;
    s->pane.sort = MODEL_SORT_TOTAL;
    s->v = v;
    return 0;
}

static void drop(struct callers_state *s)
{
    callers_pane_done(&s->pane);
    s->c = NULL;
}

static void cl_close(view *v)
{
    struct callers_state *s = st(v);
    if (!s)
        return;
    drop(s);
    free(s);
}

static int64_t key_of(const model_node *nd, enum model_sort sort)
{
    switch (sort) {
    case MODEL_SORT_CALLS: return (int64_t)nd->calls;
    case MODEL_SORT_SELF: return nd->self_ns;
    case MODEL_SORT_DEVICE_TOTAL: case MODEL_SORT_DEVICE_SELF: return nd->dev_total_ns;
    default: return nd->total_ns;
    }
}

/* siblings in the order of every view (view_keyed_sort): by the sort's
   figure, then by name */
static void sort_kids(void *ctx, uint32_t *ids, size_t n)
{
    struct callers_state *s = ctx;
    view_keyed *k = view_keyed_buf(s->v, n);
    if (!k)
        return; /* out of memory: callers_build's order is still an order */
    for (size_t i = 0; i < n; i++) {
        size_t len;
        k[i].key = key_of(&s->c->nodes[ids[i]], s->pane.sort);
        k[i].name = view_op_name(s->v, s->c->nodes[ids[i]].op, &len);
        k[i].id = ids[i];
    }
    view_keyed_sort(k, n, s->pane.sort == MODEL_SORT_NAME, s->pane.reverse);
    for (size_t i = 0; i < n; i++)
        ids[i] = k[i].id;
}

/* With p, the Python frames' operators, for callers_build to hide (as the
   Tree leaves them out); NULL without p or when out of memory (*oom). */
static uint8_t *python_ops(const view *v, bool *oom)
{
    const model *m = v->m;
    *oom = false;
    if (!v->hide_python)
        return NULL;
    uint8_t *hide = calloc(m->nops ? m->nops : 1, 1);
    if (!hide) {
        *oom = true;
        return NULL;
    }
    for (size_t i = 0; i < m->nops; i++)
        hide[i] = pyframe_is_cat(model_op_cat(m, (uint32_t)i));
    return hide;
}

/* (Re)builds the inverted tree when the scope or p changed. */
static void sync(view *v)
{
    struct callers_state *s = st(v);
    scope *sc = view_scope(v);
    if (s->c && s->scope_gen == scope_gen(sc) && s->hidden == v->hide_python)
        return;
    drop(s);
    bool oom;
    uint8_t *keep = scope_active(sc) ? scope_keep(sc) : NULL;
    uint8_t *hide = python_ops(v, &oom);
    t2p_error err;
    if ((scope_active(sc) && !keep) || oom) {
        free(keep);
        view_status_set(v, "out of memory");
        return;
    }
    struct derived *d = view_derived(v, v->m);
    if (!d)
        error_set(&err, T2P_ERR_NOMEM, v->m->tr->path, -1, "out of memory");
    else
        s->c = derived_callers(d, v->m, keep, hide, &err);
    free(keep); /* derived keeps copies */
    free(hide);
    if (!s->c) {
        view_status_set(v, "%s", err.reason);
        return;
    }
    s->scope_gen = scope_gen(sc);
    s->hidden = v->hide_python;
    /* the root's children: every operator that ends a stack, or the one asked for */
    size_t n = 0;
    uint32_t *tops = malloc((s->c->nnodes ? s->c->nnodes : 1) * sizeof *tops);
    if (!tops)
        return;
    for (uint32_t u = s->c->nodes[0].first_child; u != MODEL_NONE;
         u = s->c->nodes[u].next_sibling)
        if (s->op == MODEL_NONE || s->c->nodes[u].op == s->op)
            tops[n++] = u;
    int rc = tree_rows_init(&s->pane.rows, s->c->nodes, s->c->nnodes, tops, n);
    free(tops);
    s->pane.has_rows = true;
    if (rc < 0) {
        drop(s);
        return;
    }
    tree_rows_set_sort(&s->pane.rows, sort_kids, s);
    callers_pane_fold(&s->pane, s->op == MODEL_NONE);
}

static size_t cl_count(view *v)
{
    struct callers_state *s = st(v);
    sync(v);
    return s->pane.has_rows ? tree_rows_count(&s->pane.rows) : 0;
}

static uint32_t cl_row(view *v, size_t i)
{
    struct callers_state *s = st(v);
    sync(v);
    uint32_t u = s->pane.has_rows ? tree_rows_at(&s->pane.rows, i) : MODEL_NONE;
    return u == MODEL_NONE ? UINT32_MAX : u;
}

static const char *cl_name(view *v, uint32_t u, char *buf, size_t size, size_t *len)
{
    size_t split;
    return view_op_label(v, st(v)->c->nodes[u].op, buf, size, len, &split);
}

static void cl_cell(view *v, uint32_t u, const col *c, int namew, cols_line *l)
{
    struct callers_state *s = st(v);
    const model_node *nd = &s->c->nodes[u];
    switch (c->id) {
    case C_NAME: {
        size_t len, split;
        char buf[600];
        const char *name = view_op_label(v, nd->op, buf, sizeof buf, &len, &split);
        int ind = (int)(nd->depth > 0 ? nd->depth - 1 : 0) * 2;
        if (ind > namew / 2)
            ind = namew / 2;
        if (ind > 40)
            ind = 40;
        cols_pad(l, (size_t)ind);
        const char *mark = !tree_rows_has_kids(&s->pane.rows, u) ? "  "
                           : tree_rows_expanded(&s->pane.rows, u) ? "\xe2\x96\xbe " : "\xe2\x96\xb8 ";
        cols_put(l, mark, strlen(mark));
        cols_cell_sec(l, name, len, split, namew - ind - (int)fmt_width(mark, strlen(mark)));
        break;
    }
    case C_TIME: view_cell_ms(l, nd->total_ns, c->width); break;
    case C_PCT: view_cell_pct(l, nd->total_ns, s->c->nodes[0].total_ns, c->width); break;
    case C_CALLS: view_cell_count(l, nd->calls, c->width); break;
    case C_SELF: view_cell_ms(l, nd->self_ns, c->width); break;
    case C_DEV: view_cell_ms(l, nd->dev_total_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

/* i from the Tree or Ops: the pane, on the operator under the cursor */
static int cl_global(view *v, enum key_act act, int arg)
{
    (void)arg;
    enum view_tab tab = view_current(v);
    if (act != ACT_CALLERS || (tab != VIEW_TREE && tab != VIEW_OPS))
        return -1;
    struct callers_state *s = st(v);
    uint32_t op = MODEL_NONE;
    if (view_nrows(v) > 0) {
        uint32_t id = view_row(v, view_cursor(v));
        if (tab == VIEW_OPS)
            op = id;
        else if (id != UINT32_MAX)
            op = view_tree_rows(v)->nodes[id].op;
    }
    drop(s);
    s->op = tab == VIEW_OPS ? op : MODEL_NONE;
    s->at_op = op;
    view_pane_open(v, VIEW_CALLERS);
    sync(v);
    callers_pane_place(v, &s->pane, op, "no stack of the scope ends at this operator");
    return VIEW_DRAW_ALL;
}

static int cl_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    return callers_pane_action(v, &st(v)->pane, act);
}

static size_t cl_refresh(view *v)
{
    struct callers_state *s = st(v);
    sync(v);
    if (!s->pane.has_rows)
        return 0;
    /* a sort change: re-sort, back to the top as every view does */
    tree_rows_resort(&s->pane.rows);
    return 0;
}

static void cl_tabinfo(view *v, char *buf, size_t size)
{
    struct callers_state *s = st(v);
    size_t len = 0;
    const char *name = s->op != MODEL_NONE ? view_op_name(v, s->op, &len) : NULL;
    snprintf(buf, size, "  callers of %.*s%s", name ? (int)len : 13,
             name ? name : "each operator", ", tracks merged");
}

const struct view_ops view_callers_ops = {
    .name = "callers",
    .label = "Callers",
    .cols = cols,
    .sorts = sorts,
    .open = cl_open,
    .close = cl_close,
    .count = cl_count,
    .row = cl_row,
    .refresh = cl_refresh,
    .name_of = cl_name,
    .cell = cl_cell,
    .action = cl_action,
    .global = cl_global,
    .own_sort = callers_pane_own_sort,
    .tabinfo = cl_tabinfo,
};
