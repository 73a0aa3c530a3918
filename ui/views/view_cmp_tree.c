/* Comparing, the Tree view: the two merged call trees merged into one,
   matched by the path of operators (core/compare), with each node's
   figures (new, base or delta: b) and deltas; + a path only in the new
   trace, - only in the base. Rows come from ui/tree_rows.c over a shadow
   array of model_node that carries the compare tree's shape. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "ui/cmp.h"
#include "ui/tree_moves.h"
#include "ui/tree_rows.h"
#include "ui/view.h"
#include "ui/views/view_util.h"

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

static const char *node_name(view *v, uint32_t u, size_t *len)
{
    return cmp_node_name(v, &v->cmp->nodes[u], len);
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
        k[i].key = cmp_node_key(&v->cmp->nodes[ids[i]], v->sort);
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
    uint32_t top = t->nfocus ? t->focus[t->nfocus - 1] : 0;
    cmp_node_cell(v, &v->cmp->nodes[u], &t->rows, u, v->cmp->nodes[top].depth, c, namew, l);
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

/* f's stacks as --focus paths from the top of the stack (">A" for a
   path of one), which each trace's model reads back (core/model/scope.h). */
static void ctree_scope_args(view *v, struct view_scope_args *a)
{
    struct ctree *t = st(v);
    if (v->tab != VIEW_TREE || !t)
        return;
    for (int i = 0; i < t->nfocus && a->nfocus < 8; i++) {
        uint32_t chain[256];
        size_t n = 0, len, o = 0;
        for (uint32_t u = t->focus[i]; u != MODEL_NONE && v->cmp->nodes[u].parent != MODEL_NONE &&
                                       n < 256;
             u = v->cmp->nodes[u].parent)
            chain[n++] = u;
        char *buf = a->focus[a->nfocus];
        size_t size = sizeof a->focus[0];
        if (n == 1)
            buf[o++] = '>';
        buf[o] = '\0';
        for (size_t k = n; k-- > 0 && o < size;) {
            const char *name = node_name(v, chain[k], &len);
            o += (size_t)snprintf(buf + o, size - o, "%s%.*s", k + 1 < n ? ">" : "", (int)len,
                                  name);
        }
        if (o < size)
            a->nfocus++;
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
    .cols = cmp_node_cols,
    .sorts = cmp_node_sorts,
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
    .scope_args = ctree_scope_args,
    .off_acts = cmp_tree_off,
};
