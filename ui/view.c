/* The view state of torch2pprof-tui; see ui/view.h. No curses here. */
#include "config.h"

#include "ui/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fmt.h"

/* ---------------------------------------------------------------- rows */

static int rows_reserve(view *v, int tab, size_t n)
{
    if (n <= v->caprows[tab])
        return 0;
    size_t nc = v->caprows[tab] ? v->caprows[tab] : 256;
    while (nc < n)
        nc *= 2;
    uint32_t *r = realloc(v->rows[tab], nc * sizeof *r);
    if (!r)
        return -1;
    v->rows[tab] = r;
    v->caprows[tab] = nc;
    return 0;
}

static int rows_push(view *v, int tab, uint32_t id)
{
    if (rows_reserve(v, tab, v->nrows[tab] + 1) < 0)
        return -1;
    v->rows[tab][v->nrows[tab]++] = id;
    return 0;
}

static void set_status(view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void set_status(view *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->status, sizeof v->status, fmt, ap);
    va_end(ap);
}

/* Writes to every page of a fresh allocation, so that a key press later
   does not take thousands of page faults (memset to 0 would not do: the
   compiler may turn malloc + memset into calloc, which leaves pages
   untouched). Costly on this kind of VM: 2,000 faults took 30 ms. */
static void prefault(void *p, size_t size)
{
    volatile unsigned char *b = p;
    for (size_t i = 0; i < size; i += 4096)
        b[i] = 0;
}

/* ---------------------------------------------------------------- names */

static const char *op_name(const model *m, uint32_t op, size_t *len)
{
    *len = strtab_len(m->tr->strs, m->ops[op].name);
    return trace_str(m->tr, m->ops[op].name);
}

/* "<process> / <thread label>": a track named from its metadata */
static const char *track_label(const model *m, uint32_t track, char *buf, size_t size)
{
    const trace *tr = m->tr;
    const trace_track *k = &tr->tracks[track];
    const trace_process *p = &tr->processes[k->process];
    char lab[256];
    trace_track_label(tr, track, lab, sizeof lab);
    const char *pn = p->name != STRTAB_NONE   ? trace_str(tr, p->name)
                     : p->labels != STRTAB_NONE ? trace_str(tr, p->labels)
                                                : trace_str(tr, p->pid);
    snprintf(buf, size, "%s / %s", pn, lab);
    return buf;
}

/* ---------------------------------------------------------------- trees */

static view_tree *cur_tree(view *v)
{
    return &v->trees[v->merged ? 1 : 0];
}

static void tree_free(view_tree *t)
{
    free(t->kid_start);
    free(t->kids);
    free(t->sorted_gen);
    free(t->tops);
    free(t->rowsz);
    free(t->pos);
    free(t->expanded);
    free(t->shown);
    free(t->sel);
    free(t->scum);
    free(t->sdev);
    free(t->bits);
    memset(t, 0, sizeof *t);
}

/* Sets pos[] of a slice after it was (re)ordered. */
static void set_pos(view_tree *t, const uint32_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        t->pos[ids[i]] = (uint32_t)i;
}

/* Children in one flat array (CSR), so that sorting a node's children sorts
   a slice in place and the order is cached until the sort or scope change. */
static int tree_init(view_tree *t, const model *m, bool merged)
{
    t->merged = merged;
    t->nodes = merged ? m->mnodes : m->nodes;
    t->n = merged ? m->nmnodes : m->nnodes;
    size_t n = t->n;
    t->kid_start = calloc(n + 1, sizeof *t->kid_start);
    t->kids = malloc((n ? n : 1) * sizeof *t->kids);
    t->sorted_gen = calloc(n ? n : 1, sizeof *t->sorted_gen);
    t->expanded = calloc(n ? n : 1, 1);
    t->tops = malloc((n ? n : 1) * sizeof *t->tops);
    t->rowsz = malloc((n ? n : 1) * sizeof *t->rowsz);
    t->pos = malloc((n ? n : 1) * sizeof *t->pos);
    if (!t->kid_start || !t->kids || !t->sorted_gen || !t->expanded || !t->tops || !t->rowsz ||
        !t->pos)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (t->nodes[i].parent != MODEL_NONE)
            t->kid_start[t->nodes[i].parent + 1]++;
    for (size_t i = 0; i < n; i++)
        t->kid_start[i + 1] += t->kid_start[i];
    uint32_t *fill = malloc((n ? n : 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, t->kid_start, n * sizeof *fill);
    for (size_t i = 0; i < n; i++) {
        uint32_t p = t->nodes[i].parent;
        if (p != MODEL_NONE)
            t->kids[fill[p]++] = (uint32_t)i;
    }
    free(fill);
    if (merged) {
        if (n)
            t->tops[t->ntops++] = 0;
    } else {
        for (size_t k = 0; k < m->ntracks; k++)
            if (m->tracks[k].events)
                t->tops[t->ntops++] = m->tracks[k].root;
    }
    for (size_t i = 0; i < t->ntops; i++)
        t->expanded[t->tops[i]] = 1;
    prefault(t->sorted_gen, n * sizeof *t->sorted_gen);
    prefault(t->expanded, n);
    for (size_t i = 0; i < t->ntops; i++)
        t->expanded[t->tops[i]] = 1;
    /* creation order until the first sort */
    for (size_t i = 0; i < n; i++)
        set_pos(t, t->kids + t->kid_start[i], t->kid_start[i + 1] - t->kid_start[i]);
    set_pos(t, t->tops, t->ntops);
    return 0;
}


static bool is_root(const view_tree *t, uint32_t i)
{
    return t->nodes[i].parent == MODEL_NONE;
}

static bool scoped(const view *v)
{
    return v->nfocus > 0 || v->filter[0];
}

static void tree_fig(const view_tree *t, uint32_t i, view_fig *f)
{
    const model_node *nd = &t->nodes[i];
    bool root = nd->parent == MODEL_NONE;
    f->calls = nd->calls;
    if (t->active) {
        f->self_ns = !root && t->sel[i] ? nd->self_ns : 0;
        f->total_ns = t->scum[i];
        f->dev_self_ns = !root && t->sel[i] ? nd->dev_self_ns : 0;
        f->dev_total_ns = t->sdev[i];
    } else {
        f->self_ns = nd->self_ns; /* 0 on a root: it is no call */
        f->total_ns = nd->total_ns;
        f->dev_self_ns = nd->dev_self_ns;
        f->dev_total_ns = nd->dev_total_ns;
    }
}

void view_node_fig(view *v, uint32_t node, view_fig *f)
{
    tree_fig(cur_tree(v), node, f);
}

static int64_t fig_key(const view_fig *f, enum model_sort s)
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


/* qsort has no context argument in C11; one sort runs at a time per thread */
static _Thread_local struct { bool by_name, reverse; } kctx;

static int cmp_keyed(const void *pa, const void *pb)
{
    const struct keyed *a = pa, *b = pb;
    int r = 0;
    if (!kctx.by_name)
        r = a->key > b->key ? -1 : a->key < b->key;
    if (r == 0)
        r = strcmp(a->name, b->name);
    if (r == 0)
        r = a->id < b->id ? -1 : a->id > b->id;
    return kctx.reverse ? -r : r;
}

static const char *node_name(view *v, const view_tree *t, uint32_t i, char *buf, size_t size,
                             size_t *len)
{
    const model_node *nd = &t->nodes[i];
    if (nd->parent == MODEL_NONE) {
        if (t->merged)
            snprintf(buf, size, "(all tracks)");
        else
            track_label(v->m, nd->track, buf, size);
        *len = strlen(buf);
        return buf;
    }
    return op_name(v->m, nd->op, len);
}

static struct keyed *keyed_buf(view *v, size_t n)
{
    if (n > v->kcap) {
        size_t nc = v->kcap ? v->kcap : 64;
        while (nc < n)
            nc *= 2;
        struct keyed *p = realloc(v->kbuf, nc * sizeof *p);
        if (!p)
            return NULL;
        v->kbuf = p;
        v->kcap = nc;
    }
    return v->kbuf;
}

static void sort_nodes(view *v, const view_tree *t, uint32_t *ids, size_t n)
{
    if (n < 2)
        return;
    struct keyed *k = keyed_buf(v, n);
    if (!k)
        return; /* out of memory: creation order is still a valid order */
    char tmp[300];
    for (size_t i = 0; i < n; i++) {
        view_fig f;
        tree_fig(t, ids[i], &f);
        size_t len;
        k[i].key = fig_key(&f, v->sort);
        /* a root has no self time of its own: rank tracks by their time */
        if (is_root(t, ids[i]) && (v->sort == MODEL_SORT_SELF || v->sort == MODEL_SORT_DEVICE_SELF))
            k[i].key = v->sort == MODEL_SORT_SELF ? f.total_ns : f.dev_total_ns;
        k[i].id = ids[i];
        if (is_root(t, ids[i]))
            k[i].name = strdup(node_name(v, t, ids[i], tmp, sizeof tmp, &len));
        else
            k[i].name = node_name(v, t, ids[i], tmp, sizeof tmp, &len);
    }
    kctx.by_name = v->sort == MODEL_SORT_NAME;
    kctx.reverse = v->reverse;
    qsort(k, n, sizeof *k, cmp_keyed);
    for (size_t i = 0; i < n; i++) {
        ids[i] = k[i].id;
        if (is_root(t, k[i].id))
            free((char *)k[i].name);
    }
}

/* The children of u in the current order (sorted on first use per gen). */
static const uint32_t *tree_kids(view *v, view_tree *t, uint32_t u, size_t *nk)
{
    uint32_t a = t->kid_start[u], b = t->kid_start[u + 1];
    if (t->sorted_gen[u] != v->gen) {
        sort_nodes(v, t, t->kids + a, b - a);
        set_pos(t, t->kids + a, b - a);
        t->sorted_gen[u] = v->gen;
    }
    *nk = b - a;
    return t->kids + a;
}

static const uint32_t *tree_tops(view *v, view_tree *t, size_t *n)
{
    if (t->tops_gen != v->gen) {
        sort_nodes(v, t, t->tops, t->ntops);
        set_pos(t, t->tops, t->ntops);
        t->tops_gen = v->gen;
    }
    *n = t->ntops;
    return t->tops;
}

static bool node_shown(const view_tree *t, uint32_t i)
{
    return !t->active || t->shown[i];
}

static bool has_kids(const view_tree *t, uint32_t u)
{
    uint32_t a = t->kid_start[u], b = t->kid_start[u + 1];
    if (!t->active)
        return b > a;
    for (uint32_t k = a; k < b; k++)
        if (t->shown[t->kids[k]])
            return true;
    return false;
}

static int scratch_push(view *v, size_t *n, uint32_t id)
{
    if (*n == v->scratch_cap) {
        size_t nc = v->scratch_cap ? v->scratch_cap * 2 : 1024;
        uint32_t *p = realloc(v->scratch, nc * sizeof *p);
        if (!p)
            return -1;
        v->scratch = p;
        v->scratch_cap = nc;
    }
    v->scratch[(*n)++] = id;
    return 0;
}

/* Rows without a row list. rowsz[i] is the number of rows node i takes when
   it is shown: itself, plus its shown children's rows when it is expanded.
   It is kept for every node, whatever the state of its ancestors, and does
   not depend on the order of children: a new sort costs nothing until rows
   are drawn (only the drawn nodes' children get sorted), expand-all is one
   pass over the nodes, and row i is found by descending from the tops. */
static void tree_size_all(view_tree *t)
{
    for (size_t i = 0; i < t->n; i++)
        t->rowsz[i] = 1;
    /* children have larger indices: each is complete before it is added */
    for (size_t i = t->n; i-- > 0;) {
        uint32_t p = t->nodes[i].parent;
        if (p != MODEL_NONE && t->expanded[p] && node_shown(t, (uint32_t)i))
            t->rowsz[p] += t->rowsz[i];
    }
}

static uint32_t kids_rows(const view_tree *t, uint32_t u)
{
    uint32_t s = 1;
    if (t->expanded[u])
        for (uint32_t k = t->kid_start[u]; k < t->kid_start[u + 1]; k++)
            if (node_shown(t, t->kids[k]))
                s += t->rowsz[t->kids[k]];
    return s;
}

/* u's rowsz changed by delta: its expanded ancestors grow by the same. */
static void tree_fix_up(view_tree *t, uint32_t u, int64_t delta)
{
    for (uint32_t x = u; delta && node_shown(t, x);) {
        uint32_t p = t->nodes[x].parent;
        if (p == MODEL_NONE || !t->expanded[p])
            break;
        t->rowsz[p] = (uint32_t)((int64_t)t->rowsz[p] + delta);
        x = p;
    }
}

static void tree_set_expanded(view_tree *t, uint32_t u, bool on)
{
    if (t->expanded[u] == on)
        return;
    uint32_t old = t->rowsz[u];
    t->expanded[u] = on;
    t->rowsz[u] = kids_rows(t, u);
    tree_fix_up(t, u, (int64_t)t->rowsz[u] - old);
}

/* Expands u and everything below it. */
static void tree_expand_subtree(view *v, view_tree *t, uint32_t u)
{
    size_t n = 0;
    uint32_t old = t->rowsz[u];
    if (scratch_push(v, &n, u) < 0)
        return;
    for (size_t i = 0; i < n; i++) { /* breadth first: parents before children */
        uint32_t x = v->scratch[i];
        t->expanded[x] = 1;
        for (uint32_t k = t->kid_start[x]; k < t->kid_start[x + 1]; k++)
            if (scratch_push(v, &n, t->kids[k]) < 0)
                return;
    }
    for (size_t i = n; i-- > 0;)
        t->rowsz[v->scratch[i]] = kids_rows(t, v->scratch[i]);
    tree_fix_up(t, u, (int64_t)t->rowsz[u] - old);
}

static size_t tree_nrows(view *v)
{
    view_tree *t = cur_tree(v);
    size_t n = 0;
    for (size_t i = 0; i < t->ntops; i++)
        if (node_shown(t, t->tops[i]))
            n += t->rowsz[t->tops[i]];
    return n;
}

static uint32_t tree_row_at(view *v, size_t i)
{
    view_tree *t = cur_tree(v);
    size_t nt, nk;
    const uint32_t *tops = tree_tops(v, t, &nt);
    uint32_t u = MODEL_NONE;
    for (size_t k = 0; k < nt; k++) {
        if (!node_shown(t, tops[k]))
            continue;
        if (i < t->rowsz[tops[k]]) {
            u = tops[k];
            break;
        }
        i -= t->rowsz[tops[k]];
    }
    while (u != MODEL_NONE && i > 0) {
        i--; /* u's own row */
        const uint32_t *kids = tree_kids(v, t, u, &nk);
        uint32_t next = MODEL_NONE;
        for (size_t k = 0; k < nk; k++) {
            if (!node_shown(t, kids[k]))
                continue;
            if (i < t->rowsz[kids[k]]) {
                next = kids[k];
                break;
            }
            i -= t->rowsz[kids[k]];
        }
        u = next;
    }
    return u;
}

/* The row of node u, or SIZE_MAX when it is not on screen (hidden by the
   scope, or under a collapsed node). */
static size_t tree_index_of(view *v, uint32_t u)
{
    view_tree *t = cur_tree(v);
    uint32_t path[512];
    size_t depth = 0, nk;
    if (u == MODEL_NONE || u >= t->n)
        return SIZE_MAX;
    for (uint32_t x = u; x != MODEL_NONE; x = t->nodes[x].parent) {
        if (!node_shown(t, x) || (x != u && !t->expanded[x]) || depth == 512)
            return SIZE_MAX;
        path[depth++] = x;
    }
    size_t idx = 0, nt;
    const uint32_t *tops = tree_tops(v, t, &nt);
    uint32_t top = path[depth - 1];
    size_t k;
    for (k = 0; k < nt && tops[k] != top; k++)
        if (node_shown(t, tops[k]))
            idx += t->rowsz[tops[k]];
    if (k == nt)
        return SIZE_MAX;
    for (size_t l = depth - 1; l > 0; l--) {
        const uint32_t *kids = tree_kids(v, t, path[l], &nk);
        idx++;
        for (k = 0; k < nk && kids[k] != path[l - 1]; k++)
            if (node_shown(t, kids[k]))
                idx += t->rowsz[kids[k]];
    }
    return idx;
}

/* The node on the row after u's, or MODEL_NONE. */
static uint32_t tree_next(view *v, uint32_t u)
{
    view_tree *t = cur_tree(v);
    size_t n;
    if (t->expanded[u]) {
        const uint32_t *kids = tree_kids(v, t, u, &n);
        for (size_t k = 0; k < n; k++)
            if (node_shown(t, kids[k]))
                return kids[k];
    }
    for (;;) {
        uint32_t p = t->nodes[u].parent;
        const uint32_t *sib = p == MODEL_NONE ? tree_tops(v, t, &n) : tree_kids(v, t, p, &n);
        for (size_t k = (size_t)t->pos[u] + 1; k < n; k++)
            if (node_shown(t, sib[k]))
                return sib[k];
        if (p == MODEL_NONE)
            return MODEL_NONE;
        u = p;
    }
}

/* Forget the cached row lookup: the tree's shape or order changed. */
static void tree_dirty(view *v)
{
    v->rc_node = MODEL_NONE;
}

/* Row i of the tree; drawing asks for consecutive rows, which cost one step. */
static uint32_t tree_row(view *v, size_t i)
{
    if (v->rc_node != MODEL_NONE && i == v->rc_i)
        return v->rc_node;
    uint32_t u = v->rc_node != MODEL_NONE && i == v->rc_i + 1 ? tree_next(v, v->rc_node)
                                                             : tree_row_at(v, i);
    v->rc_i = i;
    v->rc_node = u;
    return u;
}

/* The row of u or of its nearest ancestor on screen; 0 when none. */
static size_t tree_near(view *v, uint32_t u)
{
    view_tree *t = cur_tree(v);
    for (uint32_t x = u; x != MODEL_NONE && x < t->n; x = t->nodes[x].parent) {
        size_t i = tree_index_of(v, x);
        if (i != SIZE_MAX)
            return i;
    }
    return 0;
}

/* ---------------------------------------------------------------- scope */

/* Whether node i of t (not a root) satisfies focus entry f. */
static bool focus_hit(const view *v, const view_tree *t, const view_focus *f, uint32_t i)
{
    const model *m = v->m;
    const model_node *nd = &t->nodes[i];
    switch (f->kind) {
    case VIEW_FOCUS_OP: return nd->op == f->id;
    case VIEW_FOCUS_CAT: return m->ops[nd->op].cat == m->cats[f->id].name;
    case VIEW_FOCUS_NODE:
        return t->merged ? i == m->node_merged[f->id] : i == f->id;
    case VIEW_FOCUS_MNODE:
        return t->merged ? i == f->id : m->node_merged[i] == f->id;
    }
    return false;
}

/* The scope's arrays, allocated on first use and kept: a focus must not
   pay for fresh pages (page faults cost more than the passes here). */
static int scope_alloc(view_tree *t)
{
    size_t n = t->n ? t->n : 1;
    if (t->shown)
        return 0;
    t->shown = malloc(n);
    t->sel = malloc(n);
    t->scum = malloc(n * sizeof *t->scum);
    t->sdev = malloc(n * sizeof *t->sdev);
    t->bits = malloc(n * sizeof *t->bits);
    if (!t->shown || !t->sel || !t->scum || !t->sdev || !t->bits) {
        free(t->shown);
        free(t->sel);
        free(t->scum);
        free(t->sdev);
        free(t->bits);
        t->shown = t->sel = NULL;
        t->scum = t->sdev = NULL;
        t->bits = NULL;
        return -1;
    }
    prefault(t->shown, n);
    prefault(t->sel, n);
    prefault(t->scum, n * sizeof *t->scum);
    prefault(t->sdev, n * sizeof *t->sdev);
    prefault(t->bits, n * sizeof *t->bits);
    return 0;
}

/* One pass down (which scope tests each stack passes), one pass up (which
   nodes lead to a selected stack, and the selected time below each). Node
   indices are greater than their parent's in both trees. */
static int tree_scope(view *v, view_tree *t)
{
    const model *m = v->m;
    if (!scoped(v)) {
        t->active = false; /* the arrays stay for the next focus */
        t->scope_gen = v->scope_gen;
        v->scope_busy_ns = m->busy_ns;
        tree_size_all(t);
        return 0;
    }
    size_t n = t->n;
    if (scope_alloc(t) < 0)
        return -1;
    uint32_t *bits = t->bits;
    t->active = true;
    int nent = v->nfocus + (v->filter[0] ? 1 : 0);
    uint32_t all = nent >= 32 ? UINT32_MAX : ((uint32_t)1 << nent) - 1;
    if (v->filter[0])
        for (size_t o = 0; o < m->nops; o++)
            v->op_hit[o] = strstr(model_op_name(m, (uint32_t)o), v->filter) != NULL;
    /* Down: which tests the stack to each node passes, and the figures of
       the selected stacks themselves. Two passes in all, for memory speed:
       the nodes are many and each pass streams them. */
    int64_t busy = 0;
    for (size_t i = 0; i < n; i++) {
        const model_node *nd = &t->nodes[i];
        uint8_t sel = 0;
        t->rowsz[i] = 0;
        if (nd->parent == MODEL_NONE) {
            bits[i] = 0;
        } else {
            uint32_t b = bits[nd->parent];
            for (int f = 0; f < v->nfocus; f++)
                if (focus_hit(v, t, &v->focus[f], (uint32_t)i))
                    b |= (uint32_t)1 << f;
            if (v->filter[0] && v->op_hit[nd->op])
                b |= (uint32_t)1 << v->nfocus;
            bits[i] = b;
            sel = b == all;
        }
        t->sel[i] = t->shown[i] = sel;
        t->scum[i] = sel ? nd->self_ns : 0;
        t->sdev[i] = sel ? nd->dev_leaf_ns : 0;
        busy += t->scum[i];
    }
    v->scope_busy_ns = busy;
    t->scope_gen = v->scope_gen;
    /* Up: rowsz[i] first collects its shown children's rows (they come
       later, so they are done first), then becomes its own count. With
       reveal (a new focus), every node leading to a selected stack without
       being one opens on the way, so the topmost selected frames show. */
    bool reveal = v->reveal;
    v->reveal = false;
    for (size_t i = n; i-- > 0;) {
        uint32_t p = t->nodes[i].parent;
        if (reveal && t->shown[i] && !t->sel[i])
            t->expanded[i] = 1;
        t->rowsz[i] = 1 + (t->expanded[i] ? t->rowsz[i] : 0);
        if (p == MODEL_NONE)
            continue;
        t->scum[p] += t->scum[i];
        t->sdev[p] += t->sdev[i];
        t->shown[p] |= t->shown[i];
        if (t->shown[i])
            t->rowsz[p] += t->rowsz[i];
    }
    return 0;
}

/* Brings the displayed tree's scope up to date (the other tree waits until
   it is shown or exported). */
static int scope_update(view *v)
{
    view_tree *t = cur_tree(v);
    if (t->scope_gen == v->scope_gen)
        return 0;
    tree_dirty(v);
    return tree_scope(v, t);
}

/* The focus or filter changed: new masks, new figures, new child order. */
static void scope_changed(view *v)
{
    v->scope_gen++;
    v->gen++;
    if (scope_update(v) < 0)
        set_status(v, "out of memory computing the focus");
    for (int k = 0; k < VIEW_NTABS; k++)
        v->stale[k] = true;
}

/* ---------------------------------------------------------------- flat rows */

static void orders_update(view *v)
{
    if (!v->order_stale)
        return;
    model_sort_ops(v->m, v->sort, v->reverse, v->op_order);
    model_sort_cats(v->m, v->sort, v->reverse, v->cat_order);
    v->order_stale = false;
}

static bool name_passes(const view *v, const char *name)
{
    return !v->filter[0] || strstr(name, v->filter) != NULL;
}

struct thr_ctx {
    const view *v;
};

/* A stream shows its GPU work's busy time and idle gap, as analyze's streams
   table does; any other track its events' self time and largest gap. */
static int64_t track_busy(const model *m, uint32_t k)
{
    uint32_t s = m->tracks[k].stream;
    return s != MODEL_NONE ? m->streams[s].busy_ns : m->tracks[k].busy_ns;
}

static int64_t track_idle(const model *m, uint32_t k)
{
    uint32_t s = m->tracks[k].stream;
    return s != MODEL_NONE ? m->streams[s].max_gap_ns : m->tracks[k].max_gap_ns;
}

static int rows_rebuild(view *v, int tab)
{
    const model *m = v->m;
    char buf[600];
    v->nrows[tab] = 0;
    switch (tab) {
    case VIEW_OPS:
        orders_update(v);
        for (size_t i = 0; i < m->nops; i++) {
            if (v->top_ops && v->nrows[tab] >= v->top_ops)
                break;
            if (name_passes(v, model_op_name(m, v->op_order[i])) &&
                rows_push(v, tab, v->op_order[i]) < 0)
                return -1;
        }
        break;
    case VIEW_CATS:
        orders_update(v);
        for (size_t i = 0; i < m->ncats; i++)
            if (name_passes(v, trace_str(m->tr, m->cats[v->cat_order[i]].name)) &&
                rows_push(v, tab, v->cat_order[i]) < 0)
                return -1;
        break;
    case VIEW_TREE: /* virtual rows: see tree_size_all */
        break;
    case VIEW_THREADS: {
        size_t n = 0;
        for (size_t k = 0; k < m->ntracks; k++) {
            if (!m->tracks[k].events)
                continue;
            if (!name_passes(v, track_label(m, (uint32_t)k, buf, sizeof buf)))
                continue;
            if (rows_push(v, tab, (uint32_t)k) < 0)
                return -1;
            n++;
        }
        struct keyed *kb = keyed_buf(v, n);
        if (!kb)
            return -1;
        char (*names)[128] = malloc((n ? n : 1) * sizeof *names);
        if (!names)
            return -1;
        for (size_t i = 0; i < n; i++) {
            uint32_t k = v->rows[tab][i];
            snprintf(names[i], sizeof names[i], "%s", track_label(m, k, buf, sizeof buf));
            kb[i].name = names[i];
            kb[i].id = k;
            kb[i].key = v->sort == MODEL_SORT_CALLS ? (int64_t)m->tracks[k].events
                                                    : track_busy(m, k);
        }
        kctx.by_name = v->sort == MODEL_SORT_NAME;
        kctx.reverse = v->reverse;
        qsort(kb, n, sizeof *kb, cmp_keyed);
        for (size_t i = 0; i < n; i++)
            v->rows[tab][i] = kb[i].id;
        free(names);
        break;
    }
    }
    v->stale[tab] = false;
    return 0;
}

static void ensure_rows(view *v)
{
    if (!v->stale[v->tab])
        return;
    if (v->tab == VIEW_TREE) {
        if (scope_update(v) < 0)
            set_status(v, "out of memory computing the focus");
        tree_dirty(v);
        /* keep the cursor on the node it was on, or the nearest one shown */
        v->cur[VIEW_TREE] = tree_near(v, v->tnode);
        v->stale[VIEW_TREE] = false;
        return;
    }
    /* keep the cursor on the same item when it is still there */
    uint32_t keep = v->cur[v->tab] < v->nrows[v->tab] ? v->rows[v->tab][v->cur[v->tab]]
                                                      : UINT32_MAX;
    if (rows_rebuild(v, v->tab) < 0)
        set_status(v, "out of memory building the rows");
    size_t n = v->nrows[v->tab];
    size_t c = v->cur[v->tab] < n ? v->cur[v->tab] : n ? n - 1 : 0;
    for (size_t i = 0; i < n && keep != UINT32_MAX; i++)
        if (v->rows[v->tab][i] == keep) {
            c = i;
            break;
        }
    v->cur[v->tab] = c;
}

size_t view_nrows(view *v)
{
    ensure_rows(v);
    return v->tab == VIEW_TREE ? tree_nrows(v) : v->nrows[v->tab];
}

static void clamp(view *v)
{
    size_t n = view_nrows(v);
    size_t *c = &v->cur[v->tab], *t = &v->top[v->tab];
    size_t page = v->page > 0 ? (size_t)v->page : 1;
    if (n == 0) {
        *c = *t = 0;
        return;
    }
    if (*c >= n)
        *c = n - 1;
    if (*c < *t)
        *t = *c;
    if (*c >= *t + page)
        *t = *c - page + 1;
    if (*t + page > n)
        *t = n > page ? n - page : 0;
}

uint32_t view_row(view *v, size_t i)
{
    ensure_rows(v);
    if (v->tab == VIEW_TREE) {
        uint32_t u = i < tree_nrows(v) ? tree_row(v, i) : MODEL_NONE;
        return u == MODEL_NONE ? UINT32_MAX : u;
    }
    return i < v->nrows[v->tab] ? v->rows[v->tab][i] : UINT32_MAX;
}

size_t view_cursor(const view *v)
{
    return v->cur[v->tab];
}

size_t view_top(const view *v)
{
    return v->top[v->tab];
}

const char *view_row_name(view *v, size_t i, char *buf, size_t size, size_t *len)
{
    const model *m = v->m;
    uint32_t id = view_row(v, i);
    *len = 0;
    if (id == UINT32_MAX) {
        if (size)
            buf[0] = '\0';
        return buf;
    }
    switch (v->tab) {
    case VIEW_OPS: return op_name(m, id, len);
    case VIEW_CATS:
        *len = strtab_len(m->tr->strs, m->cats[id].name);
        if (*len == 0) {
            *len = 6;
            return "(none)";
        }
        return trace_str(m->tr, m->cats[id].name);
    case VIEW_TREE: return node_name(v, cur_tree(v), id, buf, size, len);
    default:
        track_label(m, id, buf, size);
        *len = strlen(buf);
        return buf;
    }
}

/* ---------------------------------------------------------------- life */

view *view_new(const model *m, const view_opts *o)
{
    view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->m = m;
    v->export_dir = o && o->export_dir ? o->export_dir : ".";
    v->tab = o ? o->tab : VIEW_OPS;
    v->sort = o ? o->sort : MODEL_SORT_SELF;
    v->top_ops = o ? o->top : 0;
    v->gpu = m->gpu_events > 0;
    v->gen = 1;
    v->order_stale = true;
    v->op_order = malloc((m->nops ? m->nops : 1) * sizeof *v->op_order);
    v->cat_order = malloc((m->ncats ? m->ncats : 1) * sizeof *v->cat_order);
    v->op_hit = malloc(m->nops ? m->nops : 1);
    v->rc_node = MODEL_NONE;
    v->tnode = MODEL_NONE;
    if (!v->op_order || !v->cat_order || !v->op_hit || tree_init(&v->trees[0], m, false) < 0 ||
        tree_init(&v->trees[1], m, true) < 0) {
        view_free(v);
        return NULL;
    }
    tree_size_all(&v->trees[0]);
    tree_size_all(&v->trees[1]);
    if (scope_alloc(&v->trees[0]) < 0 || scope_alloc(&v->trees[1]) < 0) {
        view_free(v);
        return NULL;
    }
    for (int k = 0; k < VIEW_NTABS; k++)
        v->stale[k] = true;
    view_resize(v, 80, 24);
    return v;
}

void view_free(view *v)
{
    if (!v)
        return;
    for (int k = 0; k < VIEW_NTABS; k++)
        free(v->rows[k]);
    free(v->op_order);
    free(v->cat_order);
    free(v->op_hit);
    tree_free(&v->trees[0]);
    tree_free(&v->trees[1]);
    free(v->scratch);
    free(v->kbuf);
    free(v);
}

void view_resize(view *v, int width, int height)
{
    v->width = width < 20 ? 20 : width > 1000 ? 1000 : width;
    v->height = height;
    v->page = height - 6 > 1 ? height - 6 : 1;
    ensure_rows(v);
    clamp(v);
}

/* ---------------------------------------------------------------- focus */

void view_push_focus(view *v, enum view_focus_kind kind, uint32_t id)
{
    if (v->nfocus >= VIEW_MAX_FOCUS - 1) {
        set_status(v, "focus is %d levels deep: Esc goes back", v->nfocus);
        return;
    }
    tree_dirty(v);
    view_focus *f = &v->focus[v->nfocus++];
    f->kind = kind;
    f->id = id;
    f->prev_tab = v->tab;
    f->prev_cursor = v->cur[v->tab];
    f->prev_top = v->top[v->tab];
    f->prev_merged = v->merged;
    f->prev_node = v->tab == VIEW_TREE ? view_row(v, v->cur[VIEW_TREE]) : MODEL_NONE;
    /* pprof's focus: every stack through it, in the merged tree */
    if (kind != VIEW_FOCUS_NODE)
        v->merged = true;
    v->tab = VIEW_TREE;
    v->reveal = true; /* open the way to the selected frames (tree_scope) */
    scope_changed(v);
    view_tree *t = cur_tree(v);
    if (kind == VIEW_FOCUS_NODE || kind == VIEW_FOCUS_MNODE)
        tree_set_expanded(t, kind == VIEW_FOCUS_NODE && v->merged ? v->m->node_merged[id] : id, true);
    v->stale[VIEW_TREE] = false;
    tree_dirty(v);
    /* the cursor on the first selected frame: after its ancestors */
    size_t n = tree_nrows(v), i = 0;
    v->cur[VIEW_TREE] = 0;
    v->top[VIEW_TREE] = 0;
    for (uint32_t u = n ? tree_row(v, 0) : MODEL_NONE; u != MODEL_NONE; u = tree_next(v, u), i++)
        if (t->active && t->sel[u]) {
            v->cur[VIEW_TREE] = i;
            break;
        }
    tree_dirty(v);
    clamp(v);
    v->status[0] = '\0';
}

static bool pop_focus(view *v)
{
    if (v->nfocus == 0)
        return false;
    view_focus *f = &v->focus[--v->nfocus];
    v->merged = f->prev_merged;
    v->tab = f->prev_tab;
    v->tnode = f->prev_node;
    scope_changed(v);
    ensure_rows(v);
    if (v->tab != VIEW_TREE)
        v->cur[v->tab] = f->prev_cursor;
    v->top[v->tab] = f->prev_top;
    tree_dirty(v);
    clamp(v);
    return true;
}

/* ---------------------------------------------------------------- search */

/* Whether row i of a flat tab has a name holding s (any case). The tree
   tests once per operator instead (tree_search). */
static bool name_matches(view *v, size_t i, const char *s)
{
    char buf[600];
    size_t len;
    const char *name = view_row_name(v, i, buf, sizeof buf, &len);
    return strcasestr(name, s) != NULL;
}

/* The node on the row before u's, or MODEL_NONE. */
static uint32_t tree_prev(view *v, uint32_t u)
{
    view_tree *t = cur_tree(v);
    size_t n;
    uint32_t p = t->nodes[u].parent;
    const uint32_t *sib = p == MODEL_NONE ? tree_tops(v, t, &n) : tree_kids(v, t, p, &n);
    uint32_t x = MODEL_NONE;
    for (size_t k = t->pos[u]; k-- > 0;)
        if (node_shown(t, sib[k])) {
            x = sib[k];
            break;
        }
    if (x == MODEL_NONE)
        return p; /* the first child: the parent's row is just above */
    /* the last row of the previous sibling's subtree */
    for (;;) {
        if (!t->expanded[x])
            return x;
        const uint32_t *kids = tree_kids(v, t, x, &n);
        uint32_t last = MODEL_NONE;
        for (size_t k = n; k-- > 0;)
            if (node_shown(t, kids[k])) {
                last = kids[k];
                break;
            }
        if (last == MODEL_NONE)
            return x;
        x = last;
    }
}

static bool tree_hit(view *v, view_tree *t, uint32_t u, const char *s)
{
    char buf[600];
    size_t len;
    if (is_root(t, u))
        return strcasestr(node_name(v, t, u, buf, sizeof buf, &len), s) != NULL;
    return v->op_hit[t->nodes[u].op];
}

/* The tree's next match from row `from` (inclusive) forward, or its previous
   one before it, wrapping: walks only as far as the match, one step per row
   and a byte test per row (the names are tested once per operator). */
static size_t tree_search(view *v, const char *s, size_t from, int dir)
{
    view_tree *t = cur_tree(v);
    char buf[600];
    size_t len, n = tree_nrows(v);
    bool any = false;
    for (size_t o = 0; o < v->m->nops; o++)
        any |= v->op_hit[o] = strcasestr(model_op_name(v->m, (uint32_t)o), s) != NULL;
    for (size_t k = 0; k < t->ntops && !any; k++)
        any = strcasestr(node_name(v, t, t->tops[k], buf, sizeof buf, &len), s) != NULL;
    if (!any || n == 0) /* nothing anywhere: no need to walk the rows */
        return SIZE_MAX;
    size_t i = dir > 0 ? from : (from + n - 1) % n;
    uint32_t u = tree_row_at(v, i);
    /* dense matches are near: walk; sparse ones may be a whole tree away:
       after a bounded walk, place each visible matching node instead */
    size_t limit = n < 20000 ? n : 20000;
    for (size_t step = 0; step < limit && u != MODEL_NONE; step++) {
        if (tree_hit(v, t, u, s))
            return i;
        if (dir > 0) {
            u = tree_next(v, u);
            i++;
            if (u == MODEL_NONE) {
                u = tree_row_at(v, 0);
                i = 0;
            }
        } else {
            u = tree_prev(v, u);
            if (u == MODEL_NONE) {
                i = n - 1;
                u = tree_row_at(v, i);
            } else {
                i--;
            }
        }
    }
    if (limit == n)
        return SIZE_MAX;
    size_t best = SIZE_MAX, wrap = SIZE_MAX;
    for (uint32_t x = 0; x < t->n; x++) {
        if (!node_shown(t, x) || !tree_hit(v, t, x, s))
            continue;
        bool vis = true;
        for (uint32_t p = t->nodes[x].parent; vis && p != MODEL_NONE; p = t->nodes[p].parent)
            vis = t->expanded[p] && node_shown(t, p);
        size_t at = vis ? tree_index_of(v, x) : SIZE_MAX;
        if (at == SIZE_MAX)
            continue;
        if (dir > 0) {
            if (at >= from && (best == SIZE_MAX || at < best))
                best = at;
            if (wrap == SIZE_MAX || at < wrap)
                wrap = at;
        } else {
            if (at < from && (best == SIZE_MAX || at > best))
                best = at;
            if (wrap == SIZE_MAX || at > wrap)
                wrap = at;
        }
    }
    return best != SIZE_MAX ? best : wrap;
}

/* Moves to the first row matching s at or after row `from` (dir > 0), or
   the last one before it (dir < 0), wrapping. One pass over the rows in
   order, so that the tree is walked forward only. */
static bool search_move(view *v, const char *s, size_t from, int dir)
{
    size_t n = view_nrows(v);
    if (!*s || n == 0)
        return false;
    from %= n;
    if (v->tab == VIEW_TREE) {
        size_t hit = tree_search(v, s, from, dir);
        tree_dirty(v);
        if (hit == SIZE_MAX)
            return false;
        v->cur[VIEW_TREE] = hit;
        clamp(v);
        return true;
    }
    size_t first = SIZE_MAX, before = SIZE_MAX, after = SIZE_MAX, last = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (!name_matches(v, i, s))
            continue;
        if (first == SIZE_MAX)
            first = i;
        last = i;
        if (i < from)
            before = i;
        if (i >= from && after == SIZE_MAX) {
            after = i;
            if (dir > 0)
                break;
        }
    }
    size_t hit = dir > 0 ? (after != SIZE_MAX ? after : first)
                         : (before != SIZE_MAX ? before : last);
    if (hit == SIZE_MAX)
        return false;
    v->cur[v->tab] = hit;
    clamp(v);
    return true;
}

/* ---------------------------------------------------------------- sort */

static const enum model_sort tab_sorts[VIEW_NTABS][8] = {
    [VIEW_OPS] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF, MODEL_SORT_TOTAL,
                   MODEL_SORT_AVG, MODEL_SORT_DEVICE_SELF, MODEL_SORT_DEVICE_TOTAL, MODEL_SORT_N },
    [VIEW_CATS] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF, MODEL_SORT_TOTAL,
                    MODEL_SORT_DEVICE_SELF, MODEL_SORT_N },
    [VIEW_TREE] = { MODEL_SORT_TOTAL, MODEL_SORT_SELF, MODEL_SORT_CALLS, MODEL_SORT_DEVICE_SELF,
                    MODEL_SORT_DEVICE_TOTAL, MODEL_SORT_NAME, MODEL_SORT_N },
    [VIEW_THREADS] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF, MODEL_SORT_N },
};

static bool sort_usable(const view *v, enum model_sort s)
{
    return v->gpu || (s != MODEL_SORT_DEVICE_SELF && s != MODEL_SORT_DEVICE_TOTAL);
}

static void sort_set(view *v, enum model_sort s, bool reverse)
{
    v->sort = s;
    v->reverse = reverse;
    v->order_stale = true;
    v->gen++;
    for (int k = 0; k < VIEW_NTABS; k++)
        v->stale[k] = true;
}

static void sort_step(view *v, int dir)
{
    const enum model_sort *l = tab_sorts[v->tab];
    int n = 0, at = -1;
    while (l[n] != MODEL_SORT_N)
        n++;
    for (int i = 0; i < n; i++)
        if (l[i] == v->sort)
            at = i;
    int i = at;
    for (int k = 0; k < n; k++) {
        i = at < 0 ? (dir > 0 ? k : n - 1 - k) : ((i + dir) % n + n) % n;
        if (sort_usable(v, l[i]))
            break;
    }
    sort_set(v, l[i], false);
}

/* ---------------------------------------------------------------- keys */

static int tree_key(view *v, int key)
{
    view_tree *t = cur_tree(v);
    size_t r = v->cur[VIEW_TREE];
    if (tree_nrows(v) == 0)
        return -1;
    uint32_t u = view_row(v, r);
    bool kids = has_kids(t, u);
    switch (key) {
    case VK_ENTER: case VK_RIGHT: case 'l':
        if (kids && !t->expanded[u])
            tree_set_expanded(t, u, true);
        else if (kids)
            v->cur[VIEW_TREE] = r + 1;
        break;
    case VK_LEFT: case 'h':
        if (kids && t->expanded[u]) {
            tree_set_expanded(t, u, false);
        } else if (t->nodes[u].parent != MODEL_NONE) {
            size_t p = tree_index_of(v, t->nodes[u].parent);
            if (p != SIZE_MAX)
                v->cur[VIEW_TREE] = p;
        }
        break;
    case '+':
        if (kids)
            tree_set_expanded(t, u, true);
        break;
    case '-':
        tree_set_expanded(t, u, false);
        break;
    case '*':
        tree_expand_subtree(v, t, u);
        break;
    case 'E':
        memset(t->expanded, 1, t->n);
        tree_size_all(t);
        tree_dirty(v);
        v->cur[VIEW_TREE] = tree_near(v, u);
        break;
    case 'C':
        memset(t->expanded, 0, t->n);
        tree_size_all(t);
        tree_dirty(v);
        v->cur[VIEW_TREE] = tree_near(v, u);
        break;
    case 'm': {
        uint32_t mn = v->merged ? u : is_root(t, u) ? 0 : v->m->node_merged[u];
        v->merged = !v->merged;
        tree_dirty(v);
        scope_update(v);
        /* stay on the same stack when the other tree shows it */
        uint32_t to = mn;
        if (!v->merged) {
            to = MODEL_NONE;
            for (size_t i = 0; i < v->m->nnodes && mn; i++)
                if (v->m->node_merged[i] == mn && tree_index_of(v, (uint32_t)i) != SIZE_MAX) {
                    to = (uint32_t)i;
                    break;
                }
        }
        v->cur[VIEW_TREE] = to == MODEL_NONE ? 0 : tree_near(v, to);
        set_status(v, "%s", v->merged ? "tree merged across tracks" : "one tree per track");
        break;
    }
    case 'f':
        if (is_root(t, u)) {
            set_status(v, "focus on a frame, not a track");
            return VIEW_DRAW_FOOTER;
        }
        view_push_focus(v, v->merged ? VIEW_FOCUS_MNODE : VIEW_FOCUS_NODE, u);
        return VIEW_DRAW_ALL;
    default:
        return -1; /* not a tree key */
    }
    tree_dirty(v);
    clamp(v);
    return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;
}

static void prompt_backspace(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && ((unsigned char)s[n - 1] & 0xC0) == 0x80)
        n--;
    if (n > 0)
        n--;
    s[n] = '\0';
}

static bool prompt_add(char *s, int key)
{
    size_t n = strlen(s);
    if (key < 0x20 || key > 0xff || key == 0x7f || n + 2 > VIEW_TEXT)
        return false;
    s[n] = (char)key;
    s[n + 1] = '\0';
    return true;
}

static int prompt_key(view *v, int key)
{
    bool search = v->mode == VIEW_MODE_SEARCH;
    switch (key) {
    case VK_ENTER:
        v->mode = VIEW_MODE_NORMAL;
        if (search) {
            snprintf(v->search, sizeof v->search, "%s", v->prompt);
            if (v->prompt[0] && !search_move(v, v->search, v->search_from, 1))
                set_status(v, "not found: %s", v->search);
        } else {
            snprintf(v->filter, sizeof v->filter, "%s", v->prompt);
            scope_changed(v);
            set_status(v, v->filter[0] ? "filter: %s" : "%sfilter cleared", v->filter);
        }
        return VIEW_DRAW_ALL;
    case VK_ESC:
        v->mode = VIEW_MODE_NORMAL;
        if (search) {
            v->cur[v->tab] = v->search_from;
            clamp(v);
        } else if (v->filter[0]) {
            v->filter[0] = '\0';
            scope_changed(v);
            set_status(v, "filter cleared");
        }
        return VIEW_DRAW_ALL;
    case VK_BACKSPACE:
        prompt_backspace(v->prompt);
        break;
    default:
        if (!prompt_add(v->prompt, key))
            return 0;
    }
    if (search) {
        /* incremental: from where the search started, on every key */
        if (v->prompt[0] && !search_move(v, v->prompt, v->search_from, 1))
            set_status(v, "not found: %s", v->prompt);
        else
            v->status[0] = '\0';
        return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;
    }
    return VIEW_DRAW_FOOTER;
}

static int key_apply(view *v, int key)
{
    ensure_rows(v);
    if (v->mode == VIEW_MODE_HELP) {
        v->mode = VIEW_MODE_NORMAL;
        return VIEW_DRAW_ALL;
    }
    if (v->mode == VIEW_MODE_SEARCH || v->mode == VIEW_MODE_FILTER)
        return prompt_key(v, key);

    v->status[0] = '\0';
    int tab = v->tab;
    size_t n = view_nrows(v);
    size_t page = (size_t)v->page;
    size_t *c = &v->cur[tab];
    int redraw = VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;

    if (tab == VIEW_TREE) {
        int r = tree_key(v, key);
        if (r >= 0)
            return r;
    }
    switch (key) {
    case 'q': return VIEW_QUIT;
    case VK_UP: case 'k': if (*c > 0) (*c)--; break;
    case VK_DOWN: case 'j': if (*c + 1 < n) (*c)++; break;
    case VK_PGUP: *c = *c > page ? *c - page : 0; v->top[tab] = v->top[tab] > page ? v->top[tab] - page : 0; break;
    case VK_PGDN: *c = n == 0 ? 0 : *c + page < n ? *c + page : n - 1; v->top[tab] += page; break;
    case VK_HOME: case 'g': *c = 0; break;
    case VK_END: case 'G': *c = n ? n - 1 : 0; break;
    case '1': case '2': case '3': case '4':
        v->tab = (enum view_tab)(key - '1');
        redraw = VIEW_DRAW_ALL;
        break;
    case VK_TAB: v->tab = (enum view_tab)((tab + 1) % VIEW_NTABS); redraw = VIEW_DRAW_ALL; break;
    case VK_BTAB: v->tab = (enum view_tab)((tab + VIEW_NTABS - 1) % VIEW_NTABS); redraw = VIEW_DRAW_ALL; break;
    case '<': sort_step(v, -1); redraw = VIEW_DRAW_ALL; break;
    case '>': sort_step(v, 1); redraw = VIEW_DRAW_ALL; break;
    case 'r': sort_set(v, v->sort, !v->reverse); redraw = VIEW_DRAW_ALL; break;
    case VK_ENTER:
        if (n == 0)
            break;
        if (tab == VIEW_OPS)
            view_push_focus(v, VIEW_FOCUS_OP, v->rows[tab][*c]);
        else if (tab == VIEW_CATS)
            view_push_focus(v, VIEW_FOCUS_CAT, v->rows[tab][*c]);
        return VIEW_DRAW_ALL;
    case VK_ESC: case VK_BACKSPACE:
        if (pop_focus(v))
            return VIEW_DRAW_ALL;
        if (key == VK_ESC && v->filter[0]) {
            v->filter[0] = '\0';
            scope_changed(v);
            set_status(v, "filter cleared");
            ensure_rows(v);
            clamp(v);
            return VIEW_DRAW_ALL;
        }
        break;
    case '/':
        v->mode = VIEW_MODE_SEARCH;
        v->prompt[0] = '\0';
        v->search_from = *c;
        return VIEW_DRAW_FOOTER;
    case 'n': case 'N':
        if (!v->search[0])
            set_status(v, "no search yet: / to search");
        else if (!search_move(v, v->search, key == 'n' ? *c + 1 : *c + n - 1, key == 'n' ? 1 : -1))
            set_status(v, "not found: %s", v->search);
        break;
    case '\\':
        v->mode = VIEW_MODE_FILTER;
        snprintf(v->prompt, sizeof v->prompt, "%s", v->filter);
        return VIEW_DRAW_FOOTER;
    case 'e':
        view_export(v);
        return VIEW_DRAW_FOOTER;
    case '?': case VK_F1:
        v->mode = VIEW_MODE_HELP;
        return VIEW_DRAW_ALL;
    default:
        return 0;
    }
    ensure_rows(v);
    clamp(v);
    return redraw;
}

int view_key(view *v, int key)
{
    tree_dirty(v);
    int r = key_apply(v, key);
    /* the node under the tree's cursor, to find it again when the tree
       changes shape (sort, scope, mode) */
    if (v->tab == VIEW_TREE) {
        ensure_rows(v);
        v->tnode = view_row(v, v->cur[VIEW_TREE]);
    }
    return r;
}

/* ---------------------------------------------------------------- text */

enum col_id {
    C_NAME, C_CAT, C_CALLS, C_SELF, C_SELFPCT, C_TOTAL, C_AVG, C_MIN, C_MAX, C_DSELF, C_DTOTAL,
    C_BUSYPCT, C_KIND, C_EVENTS, C_BUSY, C_WINPCT, C_IDLE
};

struct col {
    enum col_id id;
    const char *title;
    int width; /* the name column: its least width */
    int sort;  /* model_sort, or -1 */
    int prio;  /* lower stays longer when the screen is narrow */
    bool gpu;  /* only with GPU work */
};

#define NCOLS 12
static const struct col tab_cols[VIEW_NTABS][NCOLS] = {
    [VIEW_OPS] = {
        { C_NAME, "Name", 20, MODEL_SORT_NAME, 0, false },
        { C_CAT, "Category", 14, -1, 2, false },
        { C_CALLS, "Calls", 10, MODEL_SORT_CALLS, 1, false },
        { C_SELF, "Self ms", 12, MODEL_SORT_SELF, 0, false },
        { C_SELFPCT, "Self%", 6, -1, 1, false },
        { C_TOTAL, "Total ms", 12, MODEL_SORT_TOTAL, 0, false },
        { C_AVG, "Avg ms", 10, MODEL_SORT_AVG, 3, false },
        { C_MIN, "Min ms", 10, -1, 4, false },
        { C_MAX, "Max ms", 10, -1, 4, false },
        { C_DSELF, "Dev self ms", 12, MODEL_SORT_DEVICE_SELF, 2, true },
        { C_DTOTAL, "Dev total ms", 12, MODEL_SORT_DEVICE_TOTAL, 1, true },
        { -1, NULL, 0, 0, 0, false } },
    [VIEW_CATS] = {
        { C_NAME, "Category", 20, MODEL_SORT_NAME, 0, false },
        { C_CALLS, "Calls", 12, MODEL_SORT_CALLS, 0, false },
        { C_SELF, "Self ms", 14, MODEL_SORT_SELF, 0, false },
        { C_TOTAL, "Total ms", 14, MODEL_SORT_TOTAL, 0, false },
        { C_BUSYPCT, "% busy", 7, -1, 0, false },
        { C_DSELF, "Dev self ms", 12, MODEL_SORT_DEVICE_SELF, 1, true },
        { -1, NULL, 0, 0, 0, false } },
    [VIEW_TREE] = {
        { C_TOTAL, "Total ms", 12, MODEL_SORT_TOTAL, 0, false },
        { C_SELF, "Self ms", 12, MODEL_SORT_SELF, 0, false },
        { C_CALLS, "Calls", 10, MODEL_SORT_CALLS, 1, false },
        { C_DSELF, "Dev self ms", 12, MODEL_SORT_DEVICE_SELF, 2, true },
        { C_DTOTAL, "Dev total ms", 12, MODEL_SORT_DEVICE_TOTAL, 2, true },
        { C_NAME, "Name", 24, MODEL_SORT_NAME, 0, false },
        { -1, NULL, 0, 0, 0, false } },
    [VIEW_THREADS] = {
        { C_NAME, "Track", 24, MODEL_SORT_NAME, 0, false },
        { C_KIND, "Kind", 4, -1, 1, false },
        { C_EVENTS, "Events", 12, MODEL_SORT_CALLS, 0, false },
        { C_BUSY, "Busy ms", 14, MODEL_SORT_SELF, 0, false },
        { C_WINPCT, "% window", 8, -1, 0, false },
        { C_IDLE, "Max idle ms", 14, -1, 2, false },
        { -1, NULL, 0, 0, 0, false } },
};

/* The columns that fit in the width, in display order; *namew gets the
   name column's width. Columns are dropped by priority, narrow screens first
   losing min/max, then averages, categories and device self time. */
static int layout(const view *v, const struct col **out, int *namew)
{
    const struct col *cols = tab_cols[v->tab];
    int n = 0;
    while (cols[n].title)
        n++;
    bool keep[NCOLS] = { false };
    int used = cols[0].width; /* the name's least width is always there */
    for (int i = 0; i < n; i++)
        if (cols[i].id == C_NAME) {
            keep[i] = true;
            used = cols[i].width;
        }
    for (int p = 0; p <= 4; p++)
        for (int i = 0; i < n; i++) {
            if (keep[i] || cols[i].prio != p || (cols[i].gpu && !v->gpu))
                continue;
            if (used + 1 + cols[i].width <= v->width) {
                keep[i] = true;
                used += 1 + cols[i].width;
            }
        }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (keep[i])
            out[k++] = &cols[i];
    *namew = v->width - used;
    for (int i = 0; i < k; i++)
        if (out[i]->id == C_NAME)
            *namew += out[i]->width;
    /* on a wide screen a name column before the figures must not push them
       out of sight of the name; the tree's name comes last and takes all */
    if (v->tab != VIEW_TREE && *namew > 90)
        *namew = 90;
    return k;
}

struct line {
    char *buf;
    size_t size, off;
};

static void put(struct line *l, const char *s, size_t len)
{
    if (l->off + len + 1 > l->size)
        len = l->size > l->off + 1 ? l->size - l->off - 1 : 0;
    memcpy(l->buf + l->off, s, len);
    l->off += len;
    l->buf[l->off] = '\0';
}

static void pad(struct line *l, size_t n)
{
    while (n-- > 0)
        put(l, " ", 1);
}

/* blanks to the screen's width: a table narrower than the screen still
   paints whole lines (the cursor bar) */
static void pad_to(const view *v, struct line *l)
{
    size_t w = fmt_width(l->buf, l->off);
    if (w < (size_t)v->width)
        pad(l, (size_t)v->width - w);
}

/* s cut to width columns (with an ellipsis) and padded, left or right */
static void cell(struct line *l, const char *s, size_t len, int width, bool right)
{
    char tmp[4200];
    if (width <= 0)
        return;
    fmt_ellipsize(s, len, (size_t)width, tmp, sizeof tmp);
    size_t w = fmt_width(tmp, strlen(tmp));
    size_t gap = w < (size_t)width ? (size_t)width - w : 0;
    if (right)
        pad(l, gap);
    put(l, tmp, strlen(tmp));
    if (!right)
        pad(l, gap);
}

static bool col_right(enum col_id id)
{
    return id != C_NAME && id != C_CAT && id != C_KIND;
}

static const char *sort_arrow(const view *v)
{
    bool up = v->sort == MODEL_SORT_NAME ? !v->reverse : v->reverse;
    return up ? "\xe2\x96\xb2" : "\xe2\x96\xbc"; /* ▲ ▼ */
}

void view_colheader(view *v, char *buf, size_t size)
{
    const struct col *cols[NCOLS];
    int namew;
    int k = layout(v, cols, &namew);
    struct line l = { buf, size, 0 };
    buf[0] = '\0';
    for (int i = 0; i < k; i++) {
        char t[64];
        bool sorted = cols[i]->sort == (int)v->sort;
        snprintf(t, sizeof t, "%s%s", cols[i]->title, sorted ? sort_arrow(v) : "");
        if (i)
            put(&l, " ", 1);
        cell(&l, t, strlen(t), cols[i]->id == C_NAME ? namew : cols[i]->width,
             col_right(cols[i]->id));
    }
    pad_to(v, &l);
}

static void num_ms(char *t, size_t size, int64_t ns)
{
    fmt_ms(ns, t, size);
}

static void line_ops(view *v, uint32_t op, const struct col *c, int namew, struct line *l)
{
    const model *m = v->m;
    const model_op *o = &m->ops[op];
    char t[64];
    size_t len;
    const char *s = t;
    switch (c->id) {
    case C_NAME: s = op_name(m, op, &len); cell(l, s, len, namew, false); return;
    case C_CAT: s = model_op_cat(m, op); cell(l, s, strlen(s), c->width, false); return;
    case C_CALLS: fmt_count(o->calls, t, sizeof t); break;
    case C_SELF: num_ms(t, sizeof t, o->self_ns); break;
    case C_SELFPCT: fmt_pct(o->self_ns, m->busy_ns, t, sizeof t); break;
    case C_TOTAL: num_ms(t, sizeof t, o->total_ns); break;
    case C_AVG: num_ms(t, sizeof t, o->calls ? o->total_ns / (int64_t)o->calls : 0); break;
    case C_MIN: num_ms(t, sizeof t, o->min_ns); break;
    case C_MAX: num_ms(t, sizeof t, o->max_ns); break;
    case C_DSELF: num_ms(t, sizeof t, o->dev_self_ns); break;
    case C_DTOTAL: num_ms(t, sizeof t, o->dev_total_ns); break;
    default: t[0] = '\0';
    }
    cell(l, s, strlen(s), c->width, true);
}

static void line_cats(view *v, uint32_t ci, const struct col *c, int namew, struct line *l)
{
    const model *m = v->m;
    const model_cat *k = &m->cats[ci];
    char t[64];
    switch (c->id) {
    case C_NAME: {
        const char *s = trace_str(m->tr, k->name);
        if (!*s)
            s = "(none)";
        cell(l, s, strlen(s), namew, false);
        return;
    }
    case C_CALLS: fmt_count(k->calls, t, sizeof t); break;
    case C_SELF: num_ms(t, sizeof t, k->self_ns); break;
    case C_TOTAL: num_ms(t, sizeof t, k->total_ns); break;
    case C_BUSYPCT: fmt_pct(k->self_ns, m->busy_ns, t, sizeof t); break;
    case C_DSELF: num_ms(t, sizeof t, k->dev_self_ns); break;
    default: t[0] = '\0';
    }
    cell(l, t, strlen(t), c->width, true);
}

static void line_tree(view *v, uint32_t u, const struct col *c, int namew, struct line *l,
                      bool *gpu)
{
    view_tree *t = cur_tree(v);
    const model_node *nd = &t->nodes[u];
    view_fig f;
    char x[64];
    tree_fig(t, u, &f);
    switch (c->id) {
    case C_NAME: {
        char nb[600], pre[64];
        size_t len, o = 0;
        const char *s = node_name(v, t, u, nb, sizeof nb, &len);
        /* indent, capped so that deep stacks still show a name */
        int ind = (int)nd->depth * 2;
        if (ind > namew / 2)
            ind = namew / 2;
        if (ind > 40)
            ind = 40;
        pad(l, (size_t)ind);
        const char *mark = !has_kids(t, u) ? "  " : t->expanded[u] ? "\xe2\x96\xbe " : "\xe2\x96\xb8 ";
        o = (size_t)snprintf(pre, sizeof pre, "%s%s", mark, nd->gpu ? "[GPU] " : "");
        put(l, pre, o);
        int w = namew - ind - (int)fmt_width(pre, o);
        cell(l, s, len, w, false);
        *gpu = nd->gpu;
        return;
    }
    case C_TOTAL: num_ms(x, sizeof x, f.total_ns); break;
    case C_SELF: num_ms(x, sizeof x, f.self_ns); break;
    case C_CALLS: fmt_count(f.calls, x, sizeof x); break;
    case C_DSELF: num_ms(x, sizeof x, f.dev_self_ns); break;
    case C_DTOTAL: num_ms(x, sizeof x, f.dev_total_ns); break;
    default: x[0] = '\0';
    }
    cell(l, x, strlen(x), c->width, true);
}

static void line_threads(view *v, uint32_t k, const struct col *c, int namew, struct line *l,
                         bool *gpu)
{
    const model *m = v->m;
    const model_track *mt = &m->tracks[k];
    char t[600];
    bool g = m->tr->tracks[k].is_gpu || mt->stream != MODEL_NONE;
    *gpu = g;
    switch (c->id) {
    case C_NAME: track_label(m, k, t, sizeof t); cell(l, t, strlen(t), namew, false); return;
    case C_KIND: cell(l, g ? "GPU" : "CPU", 3, c->width, false); return;
    case C_EVENTS: fmt_count(mt->events, t, sizeof t); break;
    case C_BUSY: num_ms(t, sizeof t, track_busy(m, k)); break;
    case C_WINPCT: fmt_pct(track_busy(m, k), m->window_ns, t, sizeof t); break;
    case C_IDLE: num_ms(t, sizeof t, track_idle(m, k)); break;
    default: t[0] = '\0';
    }
    cell(l, t, strlen(t), c->width, true);
}

void view_line(view *v, size_t i, char *buf, size_t size, bool *gpu)
{
    const struct col *cols[NCOLS];
    int namew;
    int k = layout(v, cols, &namew);
    struct line l = { buf, size, 0 };
    uint32_t id = view_row(v, i);
    buf[0] = '\0';
    *gpu = false;
    if (id == UINT32_MAX)
        return;
    for (int c = 0; c < k; c++) {
        if (c)
            put(&l, " ", 1);
        switch (v->tab) {
        case VIEW_OPS:
            line_ops(v, id, cols[c], namew, &l);
            *gpu = v->m->ops[id].gpu;
            break;
        case VIEW_CATS: line_cats(v, id, cols[c], namew, &l); break;
        case VIEW_TREE: line_tree(v, id, cols[c], namew, &l, gpu); break;
        default: line_threads(v, id, cols[c], namew, &l, gpu); break;
        }
    }
    pad_to(v, &l);
}

void view_title(view *v, char *buf, size_t size)
{
    const model *m = v->m;
    char a[32], b[32], c[32], d[32], tmp[1200];
    snprintf(tmp, sizeof tmp, "%s%s | window %s ms | busy %s ms | events %s | tracks %s",
             m->tr->path, m->tr->truncated ? " (truncated)" : "", fmt_ms(m->window_ns, a, sizeof a),
             fmt_ms(m->busy_ns, b, sizeof b), fmt_count(m->complete_events, c, sizeof c),
             fmt_count(m->tracks_with_events, d, sizeof d));
    if (v->gpu) {
        size_t o = strlen(tmp);
        snprintf(tmp + o, sizeof tmp - o, " | GPU %s ms", fmt_ms(m->gpu_ns, a, sizeof a));
    }
    struct line l = { buf, size, 0 };
    buf[0] = '\0';
    cell(&l, tmp, strlen(tmp), v->width, false);
}

static void focus_text(const view *v, const view_focus *f, char *buf, size_t size)
{
    const model *m = v->m;
    switch (f->kind) {
    case VIEW_FOCUS_OP: snprintf(buf, size, "%s", model_op_name(m, f->id)); break;
    case VIEW_FOCUS_CAT: snprintf(buf, size, "category %s", trace_str(m->tr, m->cats[f->id].name)); break;
    case VIEW_FOCUS_NODE: snprintf(buf, size, "%s (one track)", model_op_name(m, m->nodes[f->id].op)); break;
    case VIEW_FOCUS_MNODE: snprintf(buf, size, "%s (this stack)", model_op_name(m, m->mnodes[f->id].op)); break;
    }
}

void view_crumb(view *v, char *buf, size_t size)
{
    char tmp[2000], a[32], b[32], f[300];
    size_t o = 0;
    if (v->m->tr->truncated)
        o = (size_t)snprintf(tmp, sizeof tmp, "TRUNCATED TRACE (%s): figures cover the events read | ",
                             v->m->tr->truncated_reason);
    o += (size_t)snprintf(tmp + o, sizeof tmp - o, "Focus: all");
    for (int i = 0; i < v->nfocus && o < sizeof tmp; i++) {
        focus_text(v, &v->focus[i], f, sizeof f);
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, " \xe2\x80\xba %s", f); /* › */
    }
    if (v->filter[0] && o < sizeof tmp)
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, " | filter \"%s\"", v->filter);
    if (scoped(v) && o < sizeof tmp) {
        scope_update(v);
        snprintf(tmp + o, sizeof tmp - o, " | scope busy %s ms (%s%%)",
                 fmt_ms(v->scope_busy_ns, a, sizeof a),
                 fmt_pct(v->scope_busy_ns, v->m->busy_ns, b, sizeof b));
    }
    struct line l = { buf, size, 0 };
    buf[0] = '\0';
    cell(&l, tmp, strlen(tmp), v->width, false);
}

void view_tabs(view *v, char *buf, size_t size)
{
    static const char *const names[VIEW_NTABS] = { "1 Ops", "2 Categories", "3 Tree", "4 Threads" };
    char tmp[400];
    size_t o = 0;
    for (int i = 0; i < VIEW_NTABS; i++)
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, i == (int)v->tab ? "[%s] " : " %s  ",
                              names[i]);
    snprintf(tmp + o, sizeof tmp - o, "  sort: %s%s%s", model_sort_name(v->sort), sort_arrow(v),
             v->tab == VIEW_TREE ? (v->merged ? "  tree: merged" : "  tree: per track") : "");
    struct line l = { buf, size, 0 };
    buf[0] = '\0';
    cell(&l, tmp, strlen(tmp), v->width, false);
}

void view_footer(view *v, char *buf, size_t size)
{
    char tmp[1200];
    struct line l = { buf, size, 0 };
    buf[0] = '\0';
    if (v->mode == VIEW_MODE_SEARCH || v->mode == VIEW_MODE_FILTER) {
        snprintf(tmp, sizeof tmp, "%s%s%s", v->mode == VIEW_MODE_SEARCH ? "/" : "filter: ",
                 v->prompt, v->status[0] && v->mode == VIEW_MODE_SEARCH ? "   (not found)" : "");
    } else if (v->status[0]) {
        snprintf(tmp, sizeof tmp, "%s", v->status);
    } else {
        /* the selected row's full name: the table cuts long ones */
        char nb[600];
        size_t len;
        if (view_nrows(v) == 0) {
            snprintf(tmp, sizeof tmp, "%s", scoped(v) ? "nothing in this scope" : "no rows");
        } else {
            const char *s = view_row_name(v, v->cur[v->tab], nb, sizeof nb, &len);
            char *p = stpncpy(tmp, s, len < sizeof tmp - 1 ? len : sizeof tmp - 1);
            *p = '\0';
        }
    }
    cell(&l, tmp, strlen(tmp), v->width, false);
}

void view_keys(view *v, char *buf, size_t size)
{
    const char *k = v->tab == VIEW_TREE
        ? "q quit  ? help  1-4 views  \xe2\x86\x90\xe2\x86\x92 fold  E/C all  f focus  m merge  "
          "Esc back  </> sort  / search  \\ filter  e export"
        : "q quit  ? help  1-4 views  Enter drill down  Esc back  </> sort  r reverse  "
          "/ search  \\ filter  e export";
    struct line l = { buf, size, 0 };
    buf[0] = '\0';
    cell(&l, k, strlen(k), v->width, false);
}

static const char *const help_text[] = {
    "torch2pprof-tui: keys",
    "",
    "  Up Down j k       move          PgUp PgDn        page",
    "  Home End g G      first, last   1 2 3 4          Ops, Categories, Tree, Threads",
    "  Tab Shift-Tab     next, previous view",
    "  < >               sort by the previous / next column     r   reverse the sort",
    "",
    "  Tree",
    "  Enter Right l     expand, or go to the first child",
    "  Left h            collapse, or go to the parent",
    "  + -               expand / collapse one node    *  expand the whole subtree",
    "  E C               expand all / collapse all     m  one tree per track / merged",
    "",
    "  Drill down",
    "  Enter             on an operator or a category: the Tree of every stack through it",
    "  f                 focus the selected tree node (its stacks only)",
    "  Esc Backspace     back one level",
    "",
    "  / text            incremental search; n N next, previous match",
    "  \\ text            keep rows whose name holds text (Enter applies, Esc clears)",
    "  e                 export the current scope to pprof (NAME.pb.gz, never overwrites)",
    "  ? F1              this help           q   quit",
    "",
    "Figures are the model's, as `torch2pprof analyze` prints them (ms).",
    "Under a focus or filter the tree shows only the selected stacks' time, like pprof.",
    "",
    "Any key closes this help.",
    NULL
};

const char *view_help_line(size_t i)
{
    return i < sizeof help_text / sizeof *help_text ? help_text[i] : NULL;
}

/* ---------------------------------------------------------------- scope out */

bool view_scope(view *v, select_spec *s)
{
    memset(s, 0, sizeof *s);
    s->focus_op = MODEL_NONE;
    s->focus_mnode = MODEL_NONE;
    bool ok = true;
    for (int i = 0; i < v->nfocus; i++) {
        const view_focus *f = &v->focus[i];
        if (f->kind == VIEW_FOCUS_OP && s->focus_op == MODEL_NONE)
            s->focus_op = f->id;
        else if (f->kind == VIEW_FOCUS_MNODE && s->focus_mnode == MODEL_NONE)
            s->focus_mnode = f->id;
        else
            ok = false;
    }
    if (v->filter[0])
        s->filter = v->filter;
    return ok;
}

uint8_t *view_keep(view *v)
{
    view_tree *t = &v->trees[0];
    if (t->scope_gen != v->scope_gen) {
        /* the per-track tree's scope, computed now if the merged one is shown */
        int64_t busy = v->scope_busy_ns;
        int rc = tree_scope(v, t);
        v->scope_busy_ns = busy;
        if (rc < 0)
            return NULL;
    }
    uint8_t *keep = malloc(t->n ? t->n : 1);
    if (!keep)
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        keep[i] = is_root(t, (uint32_t)i) ? 0 : t->active ? t->sel[i] : 1;
    return keep;
}
