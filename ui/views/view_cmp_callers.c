/* Comparing, the Callers pane (i in the Tree Δ or the Ops Δ): core/callers'
   inverted trees of both traces matched by the path of operators
   (compare_pair_trees), each node with the figures b shows and the deltas;
   + a caller only in the new trace, - only in the base. From the Ops Δ it
   opens on the operator under the cursor alone, expanded; from the Tree Δ
   on every operator, the cursor on the node's. i, Esc or q go back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/callers.h"
#include "core/analyses/derived.h"
#include "ui/callers_pane.h"
#include "ui/cmp.h"
#include "ui/tree_rows.h"
#include "ui/view.h"
#include "ui/views/view_util.h"

struct ccallers {
    callers_pane pane;   /* first: the rows (over shadow) and the pane's own sort */
    view *v;
    const compare_node *nodes; /* the paired inverted trees, node 0 the root (core's:
                                  derived_callers_vs) */
    size_t n;
    model_node *shadow;  /* their shape for tree_rows; op is the compare row */
    uint32_t row;        /* the operator (compare row) alone on top, or MODEL_NONE */
    uint32_t order_gen;
};

static struct ccallers *st(view *v)
{
    return view_state(v, VIEW_CALLERS);
}

static int cc_open(view *v)
{
    struct ccallers *s = view_state_new(v, VIEW_CALLERS, sizeof *s);
    if (!s)
        return -1;
    s->v = v;
    s->row = MODEL_NONE;
    s->pane.sort = MODEL_SORT_TOTAL;
    return 0;
}

static void drop(struct ccallers *s)
{
    callers_pane_done(&s->pane);
    free(s->shadow);
    s->nodes = NULL;
    s->shadow = NULL;
    s->n = 0;
}

static void cc_close(view *v)
{
    struct ccallers *s = st(v);
    if (!s)
        return;
    drop(s);
    free(s);
}

static void sort_kids(void *ctx, uint32_t *ids, size_t n)
{
    struct ccallers *s = ctx;
    view *v = s->v;
    view_keyed *k = view_keyed_buf(v, n);
    if (!k)
        return; /* creation order is still an order */
    for (size_t i = 0; i < n; i++) {
        size_t len;
        k[i].key = cmp_node_key(&s->nodes[ids[i]], s->pane.sort);
        k[i].name = cmp_node_name(v, &s->nodes[ids[i]], &len);
        k[i].id = ids[i];
    }
    view_keyed_sort(k, n, s->pane.sort == MODEL_SORT_NAME, s->pane.reverse);
    for (size_t i = 0; i < n; i++)
        ids[i] = k[i].id;
}

/* Both traces' callers, paired; the rows from the operators on top. */
static int build(view *v)
{
    struct ccallers *s = st(v);
    const compare *c = v->cmp;
    t2p_error err;
    drop(s);
    struct derived *db = view_derived(v, c->base), *dn = view_derived(v, c->new);
    if (db && dn)
        s->nodes = derived_callers_vs(dn, db, c, &s->n, &err);
    if (!s->nodes || !(s->shadow = calloc(s->n ? s->n : 1, sizeof *s->shadow)))
        return -1;
    uint32_t *tops = malloc((s->n ? s->n : 1) * sizeof *tops);
    if (!tops)
        return -1;
    size_t nt = 0;
    for (size_t i = 0; i < s->n; i++) {
        const compare_node *x = &s->nodes[i];
        s->shadow[i] = (model_node){ .op = x->row, .parent = x->parent,
                                     .first_child = x->first_child,
                                     .next_sibling = x->next_sibling, .track = MODEL_NONE,
                                     .depth = x->depth, .gpu = x->gpu, .stream = MODEL_NONE };
        if (x->parent == 0 && (s->row == MODEL_NONE || x->row == s->row))
            tops[nt++] = (uint32_t)i;
    }
    int rc = tree_rows_init(&s->pane.rows, s->shadow, s->n, tops, nt);
    free(tops);
    s->pane.has_rows = true;
    if (rc < 0)
        return -1;
    tree_rows_set_sort(&s->pane.rows, sort_kids, s);
    s->order_gen = v->order_gen;
    callers_pane_fold(&s->pane, s->row == MODEL_NONE);
    return 0;
}

static void sync(view *v)
{
    struct ccallers *s = st(v);
    if (s->pane.has_rows && s->order_gen != v->order_gen) {
        tree_rows_resort(&s->pane.rows);
        s->order_gen = v->order_gen;
    }
}

static size_t cc_count(view *v)
{
    struct ccallers *s = st(v);
    sync(v);
    return s->pane.has_rows ? tree_rows_count(&s->pane.rows) : 0;
}

static uint32_t cc_row(view *v, size_t i)
{
    struct ccallers *s = st(v);
    sync(v);
    uint32_t u = s->pane.has_rows ? tree_rows_at(&s->pane.rows, i) : MODEL_NONE;
    return u == MODEL_NONE ? UINT32_MAX : u;
}

static size_t cc_refresh(view *v)
{
    sync(v);
    return 0; /* a new order shows from its top */
}

static const char *cc_name(view *v, uint32_t u, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    return cmp_node_name(v, &st(v)->nodes[u], len);
}

static void cc_cell(view *v, uint32_t u, const col *c, int namew, cols_line *l)
{
    struct ccallers *s = st(v);
    cmp_node_cell(v, &s->nodes[u], &s->pane.rows, u, 1, c, namew, l);
}

static enum view_style cc_style(view *v, uint32_t u)
{
    const compare_node *n = &st(v)->nodes[u];
    return cmp_style(n->n.total_ns - n->b.total_ns);
}

/* i from the Tree Δ or the Ops Δ: the pane, on the operator under the cursor */
static int cc_global(view *v, enum key_act act, int arg)
{
    (void)arg;
    enum view_tab tab = view_current(v);
    if (act != ACT_CALLERS || (tab != VIEW_TREE && tab != VIEW_OPS))
        return -1;
    struct ccallers *s = st(v);
    uint32_t row = MODEL_NONE;
    if (view_nrows(v) > 0) {
        uint32_t id = view_row(v, view_cursor(v));
        if (tab == VIEW_OPS)
            row = id;
        else if (id != UINT32_MAX)
            row = v->cmp->nodes[id].row;
    }
    s->row = tab == VIEW_OPS ? row : MODEL_NONE;
    view_pane_open(v, VIEW_CALLERS);
    if (build(v) < 0) {
        drop(s);
        view_status_set(v, "out of memory");
    }
    callers_pane_place(v, &s->pane, row, "no stack of either trace ends at this operator");
    return VIEW_DRAW_ALL;
}

static int cc_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act == ACT_CMP_FIGS)
        return cmp_action(v, act);
    return callers_pane_action(v, &st(v)->pane, act);
}

static void cc_tabinfo(view *v, char *buf, size_t size)
{
    struct ccallers *s = st(v);
    size_t len = 0;
    const char *name = s->row != MODEL_NONE ? compare_str(v->cmp, v->cmp->ops[s->row].name) : NULL;
    if (name)
        len = compare_strlen(v->cmp, v->cmp->ops[s->row].name);
    int o = snprintf(buf, size, "  callers of %.*s, tracks merged", name ? (int)len : 13,
                     name ? name : "each operator");
    if (o > 0 && (size_t)o < size)
        cmp_tabinfo(v, buf + o, size - (size_t)o);
}

const struct view_ops view_cmp_callers_ops = {
    .name = "callers",
    .label = "Callers Δ",
    .cols = cmp_node_cols,
    .sorts = cmp_node_sorts,
    .open = cc_open,
    .close = cc_close,
    .count = cc_count,
    .row = cc_row,
    .refresh = cc_refresh,
    .name_of = cc_name,
    .cell = cc_cell,
    .style = cc_style,
    .action = cc_action,
    .global = cc_global,
    .own_sort = callers_pane_own_sort,
    .tabinfo = cc_tabinfo,
};
