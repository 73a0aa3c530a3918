/* The rows of a call tree; see ui/tree_rows.h. */
#include "config.h"

#include "ui/tree_rows.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/vec.h"

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

/* Sets pos[] of a slice after it was (re)ordered. */
static void set_pos(tree_rows *t, const uint32_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        t->pos[ids[i]] = (uint32_t)i;
}

/* A row shows when any node merged into it is in the scope. */
bool tree_rows_shown(const tree_rows *t, uint32_t u)
{
    if (t->skip && (t->skip[u] || t->rep[u] != u))
        return false;
    if (!t->shown)
        return true;
    for (uint32_t x = u; x != MODEL_NONE; x = t->fold ? t->fold[x] : MODEL_NONE)
        if (t->shown[x])
            return true;
    return false;
}

uint32_t tree_rows_rep(const tree_rows *t, uint32_t u)
{
    return t->rep ? t->rep[u] : u;
}

uint32_t tree_rows_fold_next(const tree_rows *t, uint32_t u)
{
    return t->fold ? t->fold[u] : MODEL_NONE;
}

uint32_t tree_rows_parent(const tree_rows *t, uint32_t u)
{
    return t->par[u];
}

uint32_t tree_rows_depth(const tree_rows *t, uint32_t u)
{
    return t->depth[u];
}

bool tree_rows_expanded(const tree_rows *t, uint32_t u)
{
    return t->expanded[u];
}

bool tree_rows_has_kids(const tree_rows *t, uint32_t u)
{
    uint32_t a = t->kid_start[u], b = t->kid_start[u + 1];
    if (!t->shown && !t->skip)
        return b > a;
    for (uint32_t k = a; k < b; k++)
        if (tree_rows_shown(t, t->kids[k]))
            return true;
    return false;
}

/* Rows node u takes from its own state and its children's rowsz. */
static uint32_t kids_rows(const tree_rows *t, uint32_t u)
{
    uint32_t s = 1;
    if (t->expanded[u])
        for (uint32_t k = t->kid_start[u]; k < t->kid_start[u + 1]; k++)
            if (tree_rows_shown(t, t->kids[k]))
                s += t->rowsz[t->kids[k]];
    return s;
}

/* rowsz of every node, in one pass from the leaves up. */
static void size_all(tree_rows *t)
{
    for (size_t i = 0; i < t->n; i++)
        t->rowsz[i] = 1;
    /* children have larger indices: each is complete before it is added */
    for (size_t i = t->n; i-- > 0;) {
        uint32_t p = t->par[i];
        if (p != MODEL_NONE && t->expanded[p] && tree_rows_shown(t, (uint32_t)i))
            t->rowsz[p] += t->rowsz[i];
    }
    tree_rows_dirty(t);
}

/* Children in one flat array (CSR) by par[], so that sorting a node's
   children sorts a slice in place and the order is cached until the sort or
   scope change. kid_start zeroed; fill: n entries of scratch. */
static void link_kids(tree_rows *t, uint32_t *fill)
{
    size_t n = t->n;
    for (size_t i = 0; i < n; i++)
        if (t->par[i] != MODEL_NONE)
            t->kid_start[t->par[i] + 1]++;
    for (size_t i = 0; i < n; i++)
        t->kid_start[i + 1] += t->kid_start[i];
    memcpy(fill, t->kid_start, n * sizeof *fill);
    for (size_t i = 0; i < n; i++) {
        uint32_t p = t->par[i];
        if (p != MODEL_NONE)
            t->kids[fill[p]++] = (uint32_t)i;
    }
    /* creation order until the next sort */
    for (size_t i = 0; i < n; i++)
        set_pos(t, t->kids + t->kid_start[i], t->kid_start[i + 1] - t->kid_start[i]);
}

int tree_rows_init(tree_rows *t, const model_node *nodes, size_t n, const uint32_t *tops,
                   size_t ntops)
{
    memset(t, 0, sizeof *t);
    t->nodes = nodes;
    t->n = n;
    t->gen = 1;
    t->rc_node = MODEL_NONE;
    size_t n1 = n ? n : 1;
    t->kid_start = calloc(n + 1, sizeof *t->kid_start);
    t->kids = malloc(n1 * sizeof *t->kids);
    t->sorted_gen = calloc(n1, sizeof *t->sorted_gen);
    t->expanded = calloc(n1, 1);
    t->tops = malloc((ntops ? ntops : 1) * sizeof *t->tops);
    t->rowsz = malloc(n1 * sizeof *t->rowsz);
    t->pos = calloc(n1, sizeof *t->pos); /* is_top reads the pos of any root */
    t->par = malloc(n1 * sizeof *t->par);
    t->depth = malloc(n1 * sizeof *t->depth);
    uint32_t *fill = malloc(n1 * sizeof *fill);
    if (!t->kid_start || !t->kids || !t->sorted_gen || !t->expanded || !t->tops || !t->rowsz ||
        !t->pos || !t->par || !t->depth || !fill) {
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        t->par[i] = nodes[i].parent;
        t->depth[i] = nodes[i].depth;
    }
    link_kids(t, fill);
    free(fill);
    memcpy(t->tops, tops, ntops * sizeof *tops);
    t->ntops = ntops;
    prefault(t->sorted_gen, n * sizeof *t->sorted_gen);
    prefault(t->expanded, n);
    for (size_t i = 0; i < ntops; i++)
        t->expanded[tops[i]] = 1;
    set_pos(t, t->tops, t->ntops);
    size_all(t);
    return 0;
}

/* Same row: the same operator, GPU or not, on the same stream. */
static bool same_row(const model_node *a, const model_node *b)
{
    return a->op == b->op && a->gpu == b->gpu && a->stream == b->stream;
}

int tree_rows_set_skip(tree_rows *t, const uint8_t *skip)
{
    size_t n1 = t->n ? t->n : 1, hn = 1;
    while (hn < 2 * n1)
        hn <<= 1;
    uint32_t *fill = malloc(n1 * sizeof *fill);
    uint32_t *hash = skip ? malloc(hn * sizeof *hash) : NULL;
    if (skip && (!t->rep || !t->fold)) {
        free(t->rep);
        free(t->fold);
        t->rep = malloc(n1 * sizeof *t->rep);
        t->fold = malloc(n1 * sizeof *t->fold);
    }
    if (!fill || (skip && (!hash || !t->rep || !t->fold))) {
        free(fill);
        free(hash);
        return -1;
    }
    if (!skip) {
        free(t->rep);
        free(t->fold);
        t->rep = t->fold = NULL;
    } else {
        memset(hash, 0xff, hn * sizeof *hash);
    }
    t->skip = skip;
    /* parents come before their children: one pass, which also merges
       each node into the first sibling on screen that is the same row */
    for (size_t i = 0; i < t->n; i++) {
        const model_node *nd = &t->nodes[i];
        uint32_t p = nd->parent;
        while (skip && p != MODEL_NONE && skip[p])
            p = t->par[p];
        if (skip && p != MODEL_NONE)
            p = t->rep[p];
        t->par[i] = p;
        t->depth[i] = p == MODEL_NONE ? 0 : t->depth[p] + 1;
        if (!skip)
            continue;
        t->rep[i] = (uint32_t)i;
        t->fold[i] = MODEL_NONE;
        if (skip[i] || p == MODEL_NONE)
            continue;
        size_t h = ((size_t)p * 2654435761u ^ (size_t)nd->op * 40503u ^ nd->stream) & (hn - 1);
        for (;; h = (h + 1) & (hn - 1)) {
            uint32_t r = hash[h];
            if (r == MODEL_NONE) {
                hash[h] = (uint32_t)i;
                break;
            }
            if (t->par[r] == p && same_row(&t->nodes[r], nd)) {
                t->rep[i] = r;
                t->fold[i] = t->fold[r];
                t->fold[r] = (uint32_t)i;
                break;
            }
        }
    }
    free(hash);
    memset(t->kid_start, 0, (t->n + 1) * sizeof *t->kid_start);
    link_kids(t, fill);
    free(fill);
    tree_rows_resort(t);
    size_all(t);
    return 0;
}

void tree_rows_done(tree_rows *t)
{
    if (!t)
        return;
    free(t->kid_start);
    free(t->kids);
    free(t->sorted_gen);
    free(t->tops);
    free(t->rowsz);
    free(t->pos);
    free(t->par);
    free(t->depth);
    free(t->rep);
    free(t->fold);
    free(t->expanded);
    free(t->scratch);
    free(t->below);
    free(t->found);
    free(t->stack);
    memset(t, 0, sizeof *t);
}

void tree_rows_set_sort(tree_rows *t, tree_rows_sort_fn fn, void *ctx)
{
    t->sort = fn;
    t->sort_ctx = ctx;
    tree_rows_resort(t);
}

void tree_rows_resort(tree_rows *t)
{
    t->gen++;
    tree_rows_dirty(t);
}

void tree_rows_dirty(tree_rows *t)
{
    t->rc_node = MODEL_NONE;
}

void tree_rows_set_shown(tree_rows *t, const uint8_t *shown, const uint8_t *sel)
{
    t->shown = shown;
    if (shown && sel)
        for (size_t i = 0; i < t->n; i++)
            if (shown[i] && !sel[i])
                t->expanded[i] = 1;
    size_all(t);
}

/* The children of u in the current order (sorted on first use per gen). */
static const uint32_t *kids_of(tree_rows *t, uint32_t u, size_t *nk)
{
    uint32_t a = t->kid_start[u], b = t->kid_start[u + 1];
    if (t->sorted_gen[u] != t->gen) {
        if (t->sort && b - a > 1)
            t->sort(t->sort_ctx, t->kids + a, b - a);
        set_pos(t, t->kids + a, b - a);
        t->sorted_gen[u] = t->gen;
    }
    *nk = b - a;
    return t->kids + a;
}

static const uint32_t *tops_of(tree_rows *t, size_t *n)
{
    if (t->tops_gen != t->gen) {
        if (t->sort && t->ntops > 1)
            t->sort(t->sort_ctx, t->tops, t->ntops);
        set_pos(t, t->tops, t->ntops);
        t->tops_gen = t->gen;
    }
    *n = t->ntops;
    return t->tops;
}

static const uint32_t *siblings(tree_rows *t, uint32_t u, size_t *n)
{
    uint32_t p = t->par[u];
    return p == MODEL_NONE ? tops_of(t, n) : kids_of(t, p, n);
}

static int scratch_push(tree_rows *t, size_t *n, uint32_t id)
{
    if (vec_grow_heap((void **)&t->scratch, &t->scratch_cap, *n, sizeof *t->scratch) < 0)
        return -1;
    t->scratch[(*n)++] = id;
    return 0;
}

/* u's rowsz changed by delta: its expanded ancestors grow by the same. */
static void fix_up(tree_rows *t, uint32_t u, int64_t delta)
{
    for (uint32_t x = u; delta && tree_rows_shown(t, x);) {
        uint32_t p = t->par[x];
        if (p == MODEL_NONE || !t->expanded[p])
            break;
        t->rowsz[p] = (uint32_t)((int64_t)t->rowsz[p] + delta);
        x = p;
    }
}

void tree_rows_expand(tree_rows *t, uint32_t u, bool on)
{
    if (u >= t->n || t->expanded[u] == on)
        return;
    uint32_t old = t->rowsz[u];
    t->expanded[u] = on;
    t->rowsz[u] = kids_rows(t, u);
    fix_up(t, u, (int64_t)t->rowsz[u] - old);
    tree_rows_dirty(t);
}

void tree_rows_expand_subtree(tree_rows *t, uint32_t u)
{
    size_t n = 0;
    uint32_t old = t->rowsz[u];
    if (scratch_push(t, &n, u) < 0)
        return;
    for (size_t i = 0; i < n; i++) { /* breadth first: parents before children */
        uint32_t x = t->scratch[i];
        t->expanded[x] = 1;
        for (uint32_t k = t->kid_start[x]; k < t->kid_start[x + 1]; k++)
            if (scratch_push(t, &n, t->kids[k]) < 0)
                return;
    }
    for (size_t i = n; i-- > 0;)
        t->rowsz[t->scratch[i]] = kids_rows(t, t->scratch[i]);
    fix_up(t, u, (int64_t)t->rowsz[u] - old);
    tree_rows_dirty(t);
}

void tree_rows_expand_all(tree_rows *t, bool on)
{
    memset(t->expanded, on ? 1 : 0, t->n);
    size_all(t);
}

void tree_rows_reveal(tree_rows *t, uint32_t u)
{
    for (uint32_t p = t->par[u]; p != MODEL_NONE; p = t->par[p])
        tree_rows_expand(t, p, true);
}

size_t tree_rows_count(const tree_rows *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->ntops; i++)
        if (tree_rows_shown(t, t->tops[i]))
            n += t->rowsz[t->tops[i]];
    return n;
}

static uint32_t row_at(tree_rows *t, size_t i)
{
    size_t nt, nk;
    const uint32_t *tops = tops_of(t, &nt);
    uint32_t u = MODEL_NONE;
    for (size_t k = 0; k < nt; k++) {
        if (!tree_rows_shown(t, tops[k]))
            continue;
        if (i < t->rowsz[tops[k]]) {
            u = tops[k];
            break;
        }
        i -= t->rowsz[tops[k]];
    }
    while (u != MODEL_NONE && i > 0) {
        i--; /* u's own row */
        const uint32_t *kids = kids_of(t, u, &nk);
        uint32_t next = MODEL_NONE;
        for (size_t k = 0; k < nk; k++) {
            if (!tree_rows_shown(t, kids[k]))
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

uint32_t tree_rows_at(tree_rows *t, size_t i)
{
    if (t->rc_node != MODEL_NONE && i == t->rc_i)
        return t->rc_node;
    uint32_t u = t->rc_node != MODEL_NONE && i == t->rc_i + 1 ? tree_rows_next(t, t->rc_node)
                                                             : row_at(t, i);
    t->rc_i = i;
    t->rc_node = u;
    return u;
}

/* Whether top is one of the top-level rows (a root may not be: a track
   without events). */
static bool is_top(tree_rows *t, uint32_t top)
{
    size_t nt;
    const uint32_t *tops = tops_of(t, &nt);
    return t->pos[top] < nt && tops[t->pos[top]] == top;
}

/* From u up, with no bound on the depth (a trace may nest 100,000 calls):
   each level adds the rows of the shown siblings before it and its
   parent's own row. O(depth + their siblings). */
size_t tree_rows_index_of(tree_rows *t, uint32_t u)
{
    size_t n, idx = 0;
    if (u == MODEL_NONE || u >= t->n)
        return SIZE_MAX;
    uint32_t top = u;
    for (uint32_t x = u; x != MODEL_NONE; x = t->par[x]) {
        if (!tree_rows_shown(t, x) || (x != u && !t->expanded[x]))
            return SIZE_MAX;
        top = x;
    }
    if (!is_top(t, top))
        return SIZE_MAX;
    for (uint32_t x = u; x != MODEL_NONE; x = t->par[x]) {
        const uint32_t *sib = siblings(t, x, &n); /* brings pos[] up to the order */
        for (size_t k = 0; k < t->pos[x]; k++)
            if (tree_rows_shown(t, sib[k]))
                idx += t->rowsz[sib[k]];
        if (t->par[x] != MODEL_NONE)
            idx++;
    }
    return idx;
}

size_t tree_rows_near(tree_rows *t, uint32_t u)
{
    if (u == MODEL_NONE || u >= t->n)
        return 0;
    /* the lowest of u and its ancestors on screen, in one pass up: not
       below a node not shown, nor below a folded one */
    uint32_t best = u;
    for (uint32_t x = u; x != MODEL_NONE; x = t->par[x]) {
        if (!tree_rows_shown(t, x))
            best = t->par[x];
        else if (x != best && !t->expanded[x])
            best = x;
    }
    size_t i = best == MODEL_NONE ? SIZE_MAX : tree_rows_index_of(t, best);
    return i == SIZE_MAX ? 0 : i;
}

uint32_t tree_rows_next(tree_rows *t, uint32_t u)
{
    size_t n;
    if (t->expanded[u]) {
        const uint32_t *kids = kids_of(t, u, &n);
        for (size_t k = 0; k < n; k++)
            if (tree_rows_shown(t, kids[k]))
                return kids[k];
    }
    for (;;) {
        uint32_t p = t->par[u];
        const uint32_t *sib = siblings(t, u, &n);
        for (size_t k = (size_t)t->pos[u] + 1; k < n; k++)
            if (tree_rows_shown(t, sib[k]))
                return sib[k];
        if (p == MODEL_NONE)
            return MODEL_NONE;
        u = p;
    }
}

uint32_t tree_rows_prev(tree_rows *t, uint32_t u)
{
    size_t n;
    uint32_t p = t->par[u];
    const uint32_t *sib = siblings(t, u, &n);
    uint32_t x = MODEL_NONE;
    for (size_t k = t->pos[u]; k-- > 0;)
        if (tree_rows_shown(t, sib[k])) {
            x = sib[k];
            break;
        }
    if (x == MODEL_NONE)
        return p; /* the first child: the parent's row is just above */
    /* the last row of the previous sibling's subtree */
    for (;;) {
        if (!t->expanded[x])
            return x;
        const uint32_t *kids = kids_of(t, x, &n);
        uint32_t last = MODEL_NONE;
        for (size_t k = n; k-- > 0;)
            if (tree_rows_shown(t, kids[k])) {
                last = kids[k];
                break;
            }
        if (last == MODEL_NONE)
            return x;
        x = last;
    }
}

size_t tree_rows_find(tree_rows *t, const uint8_t *hit, const uint32_t **out)
{
    size_t n1 = t->n ? t->n : 1, nf = 0, sp = 0, nt, nk;
    if (!t->below) {
        t->below = malloc(n1);
        t->found = malloc(n1 * sizeof *t->found);
        t->stack = malloc(n1 * sizeof *t->stack);
        if (!t->below || !t->found || !t->stack) {
            free(t->below);
            free(t->found);
            free(t->stack);
            t->below = NULL;
            t->found = t->stack = NULL;
            return SIZE_MAX;
        }
    }
    /* children have larger indices: one pass up marks the paths to hits */
    for (size_t i = 0; i < t->n; i++)
        t->below[i] = hit[i] && tree_rows_shown(t, (uint32_t)i);
    for (size_t i = t->n; i-- > 0;) {
        uint32_t p = t->par[i];
        if (t->below[i] && p != MODEL_NONE)
            t->below[p] = 1;
    }
    /* depth first in row order, down the marked paths only; each node is
       pushed once, so the stack never holds more than n */
    const uint32_t *tops = tops_of(t, &nt);
    for (size_t k = nt; k-- > 0;)
        if (t->below[tops[k]])
            t->stack[sp++] = tops[k];
    while (sp > 0) {
        uint32_t u = t->stack[--sp];
        if (hit[u])
            t->found[nf++] = u;
        const uint32_t *kids = kids_of(t, u, &nk);
        for (size_t k = nk; k-- > 0;)
            if (t->below[kids[k]])
                t->stack[sp++] = kids[k];
    }
    *out = t->found;
    return nf;
}

static uint32_t depth_of(const tree_rows *t, uint32_t u)
{
    uint32_t d = 0;
    for (uint32_t p = t->par[u]; p != MODEL_NONE; p = t->par[p])
        d++;
    return d;
}

bool tree_rows_before(tree_rows *t, uint32_t a, uint32_t b)
{
    size_t n;
    if (a == b)
        return false;
    uint32_t da = depth_of(t, a), db = depth_of(t, b), x = a, y = b;
    while (da > db) {
        x = t->par[x];
        da--;
    }
    while (db > da) {
        y = t->par[y];
        db--;
    }
    if (x == y) /* one holds the other: the ancestor's row comes first */
        return x == a;
    while (t->par[x] != t->par[y]) {
        x = t->par[x];
        y = t->par[y];
    }
    siblings(t, x, &n); /* brings pos[] up to the order */
    return t->pos[x] < t->pos[y];
}
