/* Matching two models. The strings of both traces are interned once more in
   the compare's own table, so that a (name, category) pair has one key
   whichever trace it came from; rows and nodes are then found through
   64-bit keys in hash maps, as the model itself builds its tables. */
#include "config.h"

#include "core/analyses/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/hmap.h"
#include "core/model/track_figs.h"
#include "core/base/vec.h"

/* x / div rounded half away from zero */
static int64_t div_round(int64_t x, uint64_t div)
{
    if (div <= 1)
        return x;
    int64_t d = (int64_t)div;
    return x >= 0 ? (x + d / 2) / d : -((-x + d / 2) / d);
}

static compare_fig fig_of(uint64_t calls, int64_t self_ns, int64_t total_ns, int64_t dev_self_ns,
                          int64_t dev_total_ns, uint64_t div)
{
    compare_fig f = {
        .calls = div > 1 ? (double)calls / (double)div : (double)calls,
        .self_ns = div_round(self_ns, div),
        .total_ns = div_round(total_ns, div),
        .dev_self_ns = div_round(dev_self_ns, div),
        .dev_total_ns = div_round(dev_total_ns, div),
    };
    return f;
}

compare_fig compare_delta(const compare_fig *b, const compare_fig *n)
{
    compare_fig d = {
        .calls = n->calls - b->calls,
        .self_ns = n->self_ns - b->self_ns,
        .total_ns = n->total_ns - b->total_ns,
        .dev_self_ns = n->dev_self_ns - b->dev_self_ns,
        .dev_total_ns = n->dev_total_ns - b->dev_total_ns,
    };
    return d;
}

double compare_delta_pct(const compare_fig *b, const compare_fig *n)
{
    if (b->self_ns == 0)
        return 0;
    return 100.0 * (double)(n->self_ns - b->self_ns) / (double)b->self_ns;
}

const char *compare_str(const compare *c, uint32_t id)
{
    return strtab_str(c->strs, id);
}

size_t compare_strlen(const compare *c, uint32_t id)
{
    return strtab_len(c->strs, id);
}

/* the id in c->strs of string id of tr */
static uint32_t local_id(compare *c, const trace *tr, uint32_t id)
{
    return strtab_intern(c->strs, trace_str(tr, id), strtab_len(tr->strs, id));
}

static int push_row(compare_row **rows, size_t *n, size_t *cap, compare_row r)
{
    if (vec_grow_heap((void **)rows, cap, *n, sizeof **rows) < 0)
        return -1;
    (*rows)[(*n)++] = r;
    return 0;
}

/* A model scoped to a step keeps the operators of the stacks around it,
   with nothing counted: such a row is not in that side. */
static bool fig_empty(const compare_fig *f)
{
    return f->calls == 0 && !f->self_ns && !f->total_ns && !f->dev_self_ns && !f->dev_total_ns;
}

/* Rows for the ops (cats == false) or categories of one side. map holds
   (name << 32 | cat) -> row; side 0 is new, 1 is base. */
static int add_rows(compare *c, const model *m, bool cats, int side, hmap *map, size_t *cap)
{
    compare_row **rows = cats ? &c->cats : &c->ops;
    size_t *nrows = cats ? &c->ncats : &c->nops;
    size_t n = cats ? m->ncats : m->nops;
    uint64_t div = side ? c->base_div : c->new_div;
    for (size_t i = 0; i < n; i++) {
        uint32_t name, cat = STRTAB_NONE;
        compare_fig f;
        if (cats) {
            const model_cat *k = &m->cats[i];
            name = local_id(c, m->tr, k->name);
            f = fig_of(k->calls, k->self_ns, k->total_ns, k->dev_self_ns, 0, div);
        } else {
            const model_op *o = &m->ops[i];
            name = local_id(c, m->tr, o->name);
            cat = local_id(c, m->tr, o->cat);
            f = fig_of(o->calls, o->self_ns, o->total_ns, o->dev_self_ns, o->dev_total_ns, div);
        }
        if (name == STRTAB_NONE || (!cats && cat == STRTAB_NONE))
            return -1;
        if (fig_empty(&f))
            continue;
        uint64_t key = (uint64_t)name << 32 | cat;
        uint32_t r = hmap_get(map, key);
        if (r == UINT32_MAX) {
            compare_row row = { .name = name, .cat = cat, .base = MODEL_NONE, .new = MODEL_NONE,
                                .status = side ? COMPARE_REMOVED : COMPARE_ADDED };
            r = (uint32_t)*nrows;
            if (push_row(rows, nrows, cap, row) < 0 || hmap_put(map, key, r) < 0)
                return -1;
        } else {
            (*rows)[r].status = COMPARE_BOTH;
        }
        compare_row *row = &(*rows)[r];
        if (side) {
            row->base = (uint32_t)i;
            row->b = f;
        } else {
            row->new = (uint32_t)i;
            row->n = f;
        }
    }
    return 0;
}

/* The thread rows of one side (0 new, 1 base), as add_rows does for ops. */
static int add_threads(compare *c, const model *m, int side, hmap *map, size_t *cap)
{
    uint64_t div = side ? c->base_div : c->new_div;
    char buf[600];
    for (size_t k = 0; k < m->ntracks; k++) {
        const model_track *t = &m->tracks[k];
        if (!t->events)
            continue;
        trace_track_fullname(m->tr, (uint32_t)k, buf, sizeof buf);
        uint32_t name = strtab_intern(c->strs, buf, strlen(buf));
        if (name == STRTAB_NONE)
            return -1;
        compare_fig f = fig_of(t->events, track_figs_busy(m, (uint32_t)k),
                               track_figs_idle(m, (uint32_t)k), 0, 0, div);
        uint64_t key = (uint64_t)name << 32 | STRTAB_NONE;
        uint32_t r = hmap_get(map, key);
        if (r == UINT32_MAX) {
            compare_row row = { .name = name, .cat = STRTAB_NONE, .base = MODEL_NONE,
                                .new = MODEL_NONE,
                                .status = side ? COMPARE_REMOVED : COMPARE_ADDED };
            r = (uint32_t)c->nthreads;
            if (push_row(&c->threads, &c->nthreads, cap, row) < 0 || hmap_put(map, key, r) < 0)
                return -1;
        } else {
            c->threads[r].status = COMPARE_BOTH;
        }
        compare_row *row = &c->threads[r];
        if (side) {
            row->base = (uint32_t)k;
            row->b = f;
        } else {
            row->new = (uint32_t)k;
            row->n = f;
        }
    }
    return 0;
}

/* A growing array of compare nodes. */
struct nodes_out {
    compare_node *v;
    size_t n, cap;
};

static int push_node(struct nodes_out *o, compare_node v)
{
    if (vec_grow_heap((void **)&o->v, &o->cap, o->n, sizeof *o->v) < 0)
        return -1;
    o->v[o->n++] = v;
    return 0;
}

/* Adds one side's tree (nodes[0..nn), a parent before its children, one
   root at 0) to o, whose node 0 is the root: a node joins the one of the
   same operator row under the same compare parent. to gets each node's. */
static int add_tree(struct nodes_out *o, const model_node *nodes, size_t nn, int side,
                    const uint32_t *op_row, hmap *map, uint32_t *to, uint64_t div)
{
    for (size_t i = 0; i < nn; i++) {
        const model_node *nd = &nodes[i];
        uint32_t ci;
        if (nd->parent == MODEL_NONE) {
            ci = 0;
        } else {
            uint32_t cp = to[nd->parent];
            uint32_t row = op_row[nd->op];
            uint64_t key = (uint64_t)cp << 32 | row;
            ci = hmap_get(map, key);
            if (ci == UINT32_MAX) {
                compare_node v = { .row = row, .base = MODEL_NONE, .new = MODEL_NONE,
                                   .parent = cp, .first_child = MODEL_NONE,
                                   .next_sibling = MODEL_NONE, .depth = o->v[cp].depth + 1,
                                   .gpu = nd->gpu,
                                   .status = side ? COMPARE_REMOVED : COMPARE_ADDED };
                ci = (uint32_t)o->n;
                if (push_node(o, v) < 0 || hmap_put(map, key, ci) < 0)
                    return -1;
            } else if (ci != 0) {
                o->v[ci].status = COMPARE_BOTH;
            }
        }
        to[i] = ci;
        compare_node *cn = &o->v[ci];
        compare_fig f = fig_of(nd->calls, nd->self_ns, nd->total_ns, nd->dev_self_ns,
                               nd->dev_total_ns, div);
        if (side) {
            cn->base = (uint32_t)i;
            cn->b = f;
        } else {
            cn->new = (uint32_t)i;
            cn->n = f;
        }
    }
    return 0;
}

/* A node is in a side when something at or below it counts there: in a
   model scoped to a step, the callers of the step's calls are kept with
   nothing counted. Children come after their parents, so one backward pass. */
static int mark_present(compare_node *nodes, size_t nn)
{
    uint8_t *has = calloc(nn ? nn : 1, 1); /* bit 0 base, bit 1 new */
    if (!has)
        return -1;
    for (size_t i = nn; i-- > 1;) {
        compare_node *n = &nodes[i];
        has[i] |= (n->base != MODEL_NONE && !fig_empty(&n->b) ? 1 : 0) |
                  (n->new != MODEL_NONE && !fig_empty(&n->n) ? 2 : 0);
        has[n->parent] |= has[i];
        n->status = has[i] == 1 ? COMPARE_REMOVED : has[i] == 2 ? COMPARE_ADDED : COMPARE_BOTH;
    }
    free(has);
    return 0;
}

/* first_child / next_sibling, children in creation order (new's first) */
static void link_children(compare_node *nodes, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        uint32_t p = nodes[i].parent;
        if (p != MODEL_NONE) {
            nodes[i].next_sibling = nodes[p].first_child;
            nodes[p].first_child = (uint32_t)i;
        }
    }
}

/* The two trees matched (new's nodes first, then base's); NULL when out
   of memory. */
static compare_node *pair_trees(const model_node *bn, size_t nb, const model_node *nn, size_t nnew,
                                const uint32_t *brow, const uint32_t *nrow, uint32_t *bto,
                                uint32_t *nto, uint64_t bdiv, uint64_t ndiv, size_t *n)
{
    struct nodes_out o = { 0 };
    hmap map = { 0 };
    compare_node root = { .row = MODEL_NONE, .base = MODEL_NONE, .new = MODEL_NONE,
                          .parent = MODEL_NONE, .first_child = MODEL_NONE,
                          .next_sibling = MODEL_NONE, .status = COMPARE_BOTH };
    if (push_node(&o, root) < 0 || hmap_init(&map, nnew + nb / 4 + 16) < 0 ||
        add_tree(&o, nn, nnew, 0, nrow, &map, nto, ndiv) < 0 ||
        add_tree(&o, bn, nb, 1, brow, &map, bto, bdiv) < 0) {
        hmap_done(&map);
        free(o.v);
        return NULL;
    }
    hmap_done(&map);
    link_children(o.v, o.n);
    if (mark_present(o.v, o.n) < 0) {
        free(o.v);
        return NULL;
    }
    *n = o.n;
    return o.v;
}

compare_node *compare_pair_trees(const compare *c, const model_node *base, size_t nbase,
                                 const model_node *new, size_t nnew, size_t *n)
{
    uint32_t *row[2] = { malloc((c->new->nops ? c->new->nops : 1) * sizeof(uint32_t)),
                         malloc((c->base->nops ? c->base->nops : 1) * sizeof(uint32_t)) };
    uint32_t *bto = malloc((nbase ? nbase : 1) * sizeof *bto);
    uint32_t *nto = malloc((nnew ? nnew : 1) * sizeof *nto);
    compare_node *r = NULL;
    if (row[0] && row[1] && bto && nto) {
        for (size_t i = 0; i < c->nops; i++) {
            if (c->ops[i].new != MODEL_NONE)
                row[0][c->ops[i].new] = (uint32_t)i;
            if (c->ops[i].base != MODEL_NONE)
                row[1][c->ops[i].base] = (uint32_t)i;
        }
        r = pair_trees(base, nbase, new, nnew, row[1], row[0], bto, nto, c->base_div, c->new_div,
                       n);
    }
    free(row[0]);
    free(row[1]);
    free(bto);
    free(nto);
    return r;
}

compare *compare_build(const model *base, const model *new, const compare_opts *opts,
                       t2p_error *err)
{
    hmap map = { 0 };
    uint32_t *row_of[2] = { NULL, NULL }; /* per op of new, of base: its row */
    size_t cap = 0;
    compare *c = calloc(1, sizeof *c);
    if (!c)
        goto nomem;
    c->base = base;
    c->new = new;
    c->base_div = opts && opts->base_div > 1 ? opts->base_div : 1;
    c->new_div = opts && opts->new_div > 1 ? opts->new_div : 1;
    c->base_busy = fig_of(base->complete_events, base->busy_ns, base->busy_ns, base->gpu_ns,
                          base->gpu_ns, c->base_div);
    c->new_busy = fig_of(new->complete_events, new->busy_ns, new->busy_ns, new->gpu_ns,
                         new->gpu_ns, c->new_div);
    c->strs = strtab_new();
    if (!c->strs)
        goto nomem;

    if (hmap_init(&map, base->nops + new->nops + 16) < 0)
        goto nomem;
    if (add_rows(c, new, false, 0, &map, &cap) < 0 || add_rows(c, base, false, 1, &map, &cap) < 0)
        goto nomem;
    hmap_done(&map);
    cap = 0;
    if (hmap_init(&map, base->ncats + new->ncats + 16) < 0)
        goto nomem;
    if (add_rows(c, new, true, 0, &map, &cap) < 0 || add_rows(c, base, true, 1, &map, &cap) < 0)
        goto nomem;
    hmap_done(&map);
    cap = 0;
    if (hmap_init(&map, base->ntracks + new->ntracks + 16) < 0)
        goto nomem;
    if (add_threads(c, new, 0, &map, &cap) < 0 || add_threads(c, base, 1, &map, &cap) < 0)
        goto nomem;
    hmap_done(&map);

    const model *side[2] = { new, base };
    for (int s = 0; s < 2; s++) {
        row_of[s] = malloc((side[s]->nops ? side[s]->nops : 1) * sizeof *row_of[s]);
        if (!row_of[s])
            goto nomem;
    }
    for (size_t r = 0; r < c->nops; r++) {
        if (c->ops[r].new != MODEL_NONE)
            row_of[0][c->ops[r].new] = (uint32_t)r;
        if (c->ops[r].base != MODEL_NONE)
            row_of[1][c->ops[r].base] = (uint32_t)r;
    }
    c->new_node = malloc((new->nmnodes ? new->nmnodes : 1) * sizeof *c->new_node);
    c->base_node = malloc((base->nmnodes ? base->nmnodes : 1) * sizeof *c->base_node);
    if (!c->new_node || !c->base_node)
        goto nomem;
    hmap_done(&map);
    c->nodes = pair_trees(base->mnodes, base->nmnodes, new->mnodes, new->nmnodes, row_of[1],
                          row_of[0], c->base_node, c->new_node, c->base_div, c->new_div,
                          &c->nnodes);
    if (!c->nodes)
        goto nomem;
    free(row_of[0]);
    free(row_of[1]);
    return c;
nomem:
    error_set(err, T2P_ERR_NOMEM, new->tr->path, -1, "out of memory comparing with %s",
              base->tr->path);
    hmap_done(&map);
    free(row_of[0]);
    free(row_of[1]);
    compare_free(c);
    return NULL;
}

void compare_free(compare *c)
{
    if (!c)
        return;
    strtab_free(c->strs);
    free(c->ops);
    free(c->cats);
    free(c->threads);
    free(c->nodes);
    free(c->base_node);
    free(c->new_node);
    free(c);
}

/* ---- sorting ---- */

static const char *const sort_names[COMPARE_SORT_N] = {
    "delta_self", "delta_total", "delta_calls", "delta_device_self", "delta_device_total",
    "delta_pct", "self", "total", "calls", "name", "device_self", "device_total",
};

const char *compare_sort_name(enum compare_sort s)
{
    return (unsigned)s < COMPARE_SORT_N ? sort_names[s] : "?";
}

int compare_sort_parse(const char *s)
{
    for (int i = 0; i < COMPARE_SORT_N; i++)
        if (!strcmp(s, sort_names[i]))
            return i;
    if (!strcmp(s, "delta"))
        return COMPARE_SORT_DELTA_SELF;
    if (!strcmp(s, "delta_device"))
        return COMPARE_SORT_DELTA_DEVICE_TOTAL;
    if (!strcmp(s, "device"))
        return COMPARE_SORT_DEVICE_TOTAL;
    return -1;
}

struct sort_item {
    double key;
    const char *name, *cat;
    uint32_t idx;
};

static int cmp_item(const void *pa, const void *pb)
{
    const struct sort_item *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    int r = strcmp(a->name, b->name);
    if (r)
        return r;
    return strcmp(a->cat, b->cat);
}

static int cmp_item_rev(const void *pa, const void *pb)
{
    return cmp_item(pb, pa);
}

static double sort_key(const compare_row *r, enum compare_sort s)
{
    const compare_fig *f = r->status == COMPARE_REMOVED ? &r->b : &r->n;
    compare_fig d = compare_delta(&r->b, &r->n);
    switch (s) {
    case COMPARE_SORT_DELTA_SELF: return fabs((double)d.self_ns);
    case COMPARE_SORT_DELTA_TOTAL: return fabs((double)d.total_ns);
    case COMPARE_SORT_DELTA_CALLS: return fabs(d.calls);
    case COMPARE_SORT_DELTA_DEVICE_SELF: return fabs((double)d.dev_self_ns);
    case COMPARE_SORT_DELTA_DEVICE_TOTAL: return fabs((double)d.dev_total_ns);
    case COMPARE_SORT_DELTA_PCT:
        /* a row in one trace only changed by all of it: before any finite % */
        if (r->status != COMPARE_BOTH)
            return HUGE_VAL;
        return fabs(compare_delta_pct(&r->b, &r->n));
    case COMPARE_SORT_SELF: return (double)f->self_ns;
    case COMPARE_SORT_TOTAL: return (double)f->total_ns;
    case COMPARE_SORT_CALLS: return f->calls;
    case COMPARE_SORT_DEVICE_SELF: return (double)f->dev_self_ns;
    case COMPARE_SORT_DEVICE_TOTAL: return (double)f->dev_total_ns;
    case COMPARE_SORT_NAME:
    case COMPARE_SORT_N: break;
    }
    return 0;
}

void compare_sort_rows(const compare *c, const compare_row *rows, size_t n,
                       enum compare_sort s, bool reverse, uint32_t *idx)
{
    struct sort_item *it = malloc((n ? n : 1) * sizeof *it);
    if (!it) {
        /* no memory for keys: the rows' own order, still a permutation */
        for (size_t i = 0; i < n; i++)
            idx[i] = (uint32_t)i;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const compare_row *r = &rows[i];
        it[i] = (struct sort_item){
            .key = s == COMPARE_SORT_NAME ? 0 : sort_key(r, s),
            .name = compare_str(c, r->name),
            .cat = r->cat == STRTAB_NONE ? "" : compare_str(c, r->cat),
            .idx = (uint32_t)i,
        };
    }
    qsort(it, n, sizeof *it, reverse ? cmp_item_rev : cmp_item);
    for (size_t i = 0; i < n; i++)
        idx[i] = it[i].idx;
    free(it);
}
