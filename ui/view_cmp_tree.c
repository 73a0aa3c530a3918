/* Comparing, the Tree view: the two merged call trees merged into one,
   matched by the path of operators (core/compare), with each node's
   figures (new, base or delta: b) and deltas; + a path only in the new
   trace, - only in the base. Rows come from ui/tree_rows.c over a shadow
   array of model_node that carries the compare tree's shape. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fmt.h"
#include "ui/cmp.h"
#include "ui/tree_rows.h"

enum { C_NAME, C_CALLS, C_SELF, C_TOTAL, C_DCALLS, C_DS, C_DT, C_DPCT, C_DDEV };

static const col cols[] = {
    { C_DT, "Δ total ms", 11, MODEL_SORT_TOTAL, 0, false, false, false },
    { C_DS, "Δ self ms", 11, MODEL_SORT_SELF, 0, false, false, false },
    { C_DCALLS, "Δ calls", 9, MODEL_SORT_CALLS, 2, false, false, false },
    { C_DPCT, "Δ %", 7, MODEL_SORT_AVG, 1, false, false, false },
    { C_DDEV, "Δ dev ms", 11, MODEL_SORT_DEVICE_TOTAL, 3, true, false, false },
    { C_TOTAL, "Total ms", 11, -1, 1, false, false, false },
    { C_SELF, "Self ms", 11, -1, 2, false, false, false },
    { C_CALLS, "Calls", 9, -1, 3, false, false, false },
    { C_NAME, "Name", 24, MODEL_SORT_NAME, 0, false, true, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_TOTAL, MODEL_SORT_SELF, MODEL_SORT_CALLS,
                                         MODEL_SORT_AVG, MODEL_SORT_DEVICE_TOTAL,
                                         MODEL_SORT_NAME, MODEL_SORT_N };

struct ctree {
    view *v;
    model_node *shadow; /* per compare node: its shape for tree_rows */
    tree_rows rows;
    uint32_t order_gen;
    uint32_t cursor_node; /* the node under the cursor after the last key */
    uint8_t *hit;         /* search: per node, its name matches */
    /* f: the stacks through a node, shown as the tree under it (in a
       merged tree those are its subtree's); Esc pops */
    uint32_t focus[SCOPE_MAX];
    int nfocus;
};

static struct ctree *st(view *v)
{
    return view_state(v, VIEW_TREE);
}

/* the sort key of a node: |Δ| of the sorted figure */
static int64_t key_of(const compare_node *n, enum model_sort s)
{
    compare_fig d = compare_delta(&n->b, &n->n);
    int64_t k;
    switch (s) {
    case MODEL_SORT_SELF: k = d.self_ns; break;
    case MODEL_SORT_CALLS: k = (int64_t)d.calls; break;
    case MODEL_SORT_DEVICE_SELF: k = d.dev_self_ns; break;
    case MODEL_SORT_DEVICE_TOTAL: k = d.dev_total_ns; break;
    case MODEL_SORT_AVG:
        /* |Δ %| in tenths of a percent; a path in one trace only first */
        if (n->status != COMPARE_BOTH || n->b.total_ns == 0)
            return INT64_MAX;
        k = (int64_t)(1000.0 * (double)d.total_ns / (double)n->b.total_ns);
        break;
    default: k = d.total_ns;
    }
    return k < 0 ? -k : k;
}

static const char *node_name(view *v, uint32_t u, size_t *len)
{
    const compare *c = v->cmp;
    if (c->nodes[u].row == MODEL_NONE) {
        *len = strlen("(all tracks)");
        return "(all tracks)";
    }
    uint32_t name = c->ops[c->nodes[u].row].name;
    *len = compare_strlen(c, name);
    return compare_str(c, name);
}

static void sort_kids(void *ctx, uint32_t *ids, size_t n)
{
    struct ctree *t = ctx;
    view *v = t->v;
    view_keyed *k = view_keyed_buf(v, n);
    if (!k)
        return; /* creation order is still an order */
    for (size_t i = 0; i < n; i++) {
        size_t len;
        k[i].key = key_of(&v->cmp->nodes[ids[i]], v->sort);
        k[i].name = node_name(v, ids[i], &len);
        k[i].id = ids[i];
    }
    view_keyed_sort(k, n, v->sort == MODEL_SORT_NAME, v->reverse);
    for (size_t i = 0; i < n; i++)
        ids[i] = k[i].id;
}

/* The rows from node top down (0: the whole tree). */
static int rows_at(struct ctree *t, uint32_t top)
{
    const compare *c = t->v->cmp;
    tree_rows_done(&t->rows);
    if (tree_rows_init(&t->rows, t->shadow, c->nnodes, &top, c->nnodes ? 1 : 0) < 0)
        return -1;
    tree_rows_set_sort(&t->rows, sort_kids, t);
    return 0;
}

static int ctree_open(view *v)
{
    const compare *c = v->cmp;
    struct ctree *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    view_set_state(v, VIEW_TREE, t);
    t->v = v;
    t->cursor_node = MODEL_NONE;
    t->shadow = calloc(c->nnodes ? c->nnodes : 1, sizeof *t->shadow);
    if (!t->shadow)
        return -1;
    for (size_t i = 0; i < c->nnodes; i++) {
        const compare_node *n = &c->nodes[i];
        t->shadow[i] = (model_node){ .op = n->row, .parent = n->parent,
                                     .first_child = n->first_child,
                                     .next_sibling = n->next_sibling, .track = MODEL_NONE,
                                     .depth = n->depth, .gpu = n->gpu, .stream = MODEL_NONE };
    }
    return rows_at(t, 0);
}

static void ctree_close(view *v)
{
    struct ctree *t = st(v);
    if (!t)
        return;
    tree_rows_done(&t->rows);
    free(t->shadow);
    free(t->hit);
    free(t);
}

static void sync(view *v)
{
    struct ctree *t = st(v);
    if (t->order_gen != v->order_gen) {
        tree_rows_resort(&t->rows);
        t->order_gen = v->order_gen;
    }
}

static size_t ctree_count(view *v)
{
    sync(v);
    return tree_rows_count(&st(v)->rows);
}

static uint32_t ctree_row(view *v, size_t i)
{
    sync(v);
    uint32_t u = tree_rows_at(&st(v)->rows, i);
    return u == MODEL_NONE ? UINT32_MAX : u;
}

static size_t ctree_refresh(view *v)
{
    sync(v);
    return tree_rows_near(&st(v)->rows, st(v)->cursor_node);
}

static const char *ctree_name(view *v, uint32_t u, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    return node_name(v, u, len);
}

static void ctree_cell(view *v, uint32_t u, const col *c, int namew, cols_line *l)
{
    struct ctree *t = st(v);
    const compare_node *n = &v->cmp->nodes[u];
    compare_fig f = cmp_shown(v, &n->b, &n->n), d = compare_delta(&n->b, &n->n);
    bool delta = v->cmp_fig == CMP_FIG_DELTA;
    switch (c->id) {
    case C_NAME: {
        char pre[64];
        size_t len;
        const char *s = node_name(v, u, &len);
        uint32_t top = t->nfocus ? t->focus[t->nfocus - 1] : 0;
        int ind = (int)(n->depth - v->cmp->nodes[top].depth) * 2;
        if (ind > namew / 2)
            ind = namew / 2;
        if (ind > 40)
            ind = 40;
        cols_pad(l, (size_t)ind);
        const char *mark = !tree_rows_has_kids(&t->rows, u) ? "  "
                           : tree_rows_expanded(&t->rows, u) ? "\xe2\x96\xbe " : "\xe2\x96\xb8 ";
        size_t k = (size_t)snprintf(pre, sizeof pre, "%s%s", mark, n->gpu ? "[GPU] " : "");
        cols_put(l, pre, k);
        cmp_cell_name(l, n->status, s, len, namew - ind - (int)fmt_width(pre, k));
        break;
    }
    case C_CALLS: (delta ? cmp_cell_dcount : cmp_cell_count)(l, f.calls, c->width); break;
    case C_SELF: (delta ? cmp_cell_dms : view_cell_ms)(l, f.self_ns, c->width); break;
    case C_TOTAL: (delta ? cmp_cell_dms : view_cell_ms)(l, f.total_ns, c->width); break;
    case C_DCALLS: cmp_cell_dcount(l, d.calls, c->width); break;
    case C_DS: cmp_cell_dms(l, d.self_ns, c->width); break;
    case C_DT: cmp_cell_dms(l, d.total_ns, c->width); break;
    case C_DPCT: {
        /* a node's change is its inclusive time's: Δ total % of base total */
        compare_fig b = n->b, nn = n->n;
        b.self_ns = b.total_ns;
        nn.self_ns = nn.total_ns;
        cmp_cell_dpct(l, n->status, &b, &nn, c->width);
        break;
    }
    case C_DDEV: cmp_cell_dms(l, d.dev_total_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static enum view_style ctree_style(view *v, uint32_t u)
{
    const compare_node *n = &v->cmp->nodes[u];
    return cmp_style(n->n.total_ns - n->b.total_ns);
}

/* f on a node: its stacks alone; Esc: back one focus, to the node. */
static int focus_key(view *v, enum key_act act)
{
    struct ctree *t = st(v);
    uint32_t u = ctree_row(v, v->cur[VIEW_TREE]);
    if (act == ACT_FOCUS) {
        if (u == UINT32_MAX || v->cmp->nodes[u].parent == MODEL_NONE) {
            view_status_set(v, "f on a node below (all tracks) shows its stacks alone");
            return VIEW_DRAW_FOOTER;
        }
        if (t->nfocus >= SCOPE_MAX) {
            view_status_set(v, "focus is %d levels deep: Esc goes back", t->nfocus);
            return VIEW_DRAW_FOOTER;
        }
        t->focus[t->nfocus++] = u;
    } else if (act == ACT_BACK && t->nfocus > 0) {
        u = t->focus[--t->nfocus];
    } else {
        return -1;
    }
    if (rows_at(t, t->nfocus ? t->focus[t->nfocus - 1] : 0) < 0)
        return VIEW_QUIT; /* out of memory: the view cannot go on */
    tree_rows_reveal(&t->rows, u);
    size_t i = tree_rows_index_of(&t->rows, u);
    v->cur[VIEW_TREE] = i == SIZE_MAX ? 0 : i;
    v->top[VIEW_TREE] = 0;
    view_clamp(v);
    return VIEW_DRAW_ALL;
}

static void ctree_scope_part(view *v, char *buf, size_t size)
{
    struct ctree *t = st(v);
    size_t o = 0, len;
    buf[0] = '\0';
    if (v->tab != VIEW_TREE) /* the tables are not focused */
        return;
    for (int i = 0; t && i < t->nfocus && o < size; i++) {
        const char *n = node_name(v, t->focus[i], &len);
        o += (size_t)snprintf(buf + o, size - o, "%s%.*s (this stack)", i ? " \xe2\x80\xba " : "",
                              (int)len, n);
    }
}

static int ctree_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    int r = focus_key(v, act);
    if (r >= 0)
        return r;
    r = cmp_action(v, act);
    if (r >= 0 || ctree_count(v) == 0)
        return r;
    struct ctree *s = st(v);
    tree_rows *t = &s->rows;
    size_t row = v->cur[VIEW_TREE];
    uint32_t u = ctree_row(v, row);
    return view_tree_move(v, t, act, u, t->nodes[u].parent != MODEL_NONE);
}

/* Search over every node, folded or not, as the Tree's. */
static void ctree_search(view *v, const char *pat, size_t from, int dir, bool at,
                         search_found *f)
{
    struct ctree *t = st(v);
    const uint32_t *m = NULL;
    size_t k = SIZE_MAX, len;
    sync(v);
    if (t->hit || (t->hit = malloc(t->rows.n ? t->rows.n : 1))) {
        for (size_t u = 0; u < t->rows.n; u++)
            t->hit[u] = search_match(node_name(v, (uint32_t)u, &len), pat);
        k = tree_rows_find(&t->rows, t->hit, &m);
    }
    view_tree_step(&t->rows, m, k, from, dir, at, f);
}

static void ctree_after_key(view *v)
{
    st(v)->cursor_node = view_row(v, v->cur[VIEW_TREE]);
}

const struct view_ops view_cmp_tree_ops = {
    .name = "tree",
    .label = "Tree Δ",
    .cols = cols,
    .sorts = sorts,
    .open = ctree_open,
    .close = ctree_close,
    .count = ctree_count,
    .row = ctree_row,
    .refresh = ctree_refresh,
    .name_of = ctree_name,
    .cell = ctree_cell,
    .style = ctree_style,
    .action = ctree_action,
    .search = ctree_search,
    .tabinfo = cmp_tabinfo,
    .after_key = ctree_after_key,
    .scope_part = ctree_scope_part,
    .off_acts = cmp_tree_off,
};
