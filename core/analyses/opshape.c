/* Operators by input shape (see opshape.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/analyses/opshape.h"
#include "core/base/hmap.h"
#include "core/base/vec.h"

/* By binary search in trace->shapes (event order). */
uint32_t opshape_event_shape(const trace *tr, uint32_t e, uint32_t empty)
{
    size_t lo = 0, hi = tr->nshapes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tr->shapes[mid].event < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < tr->nshapes && tr->shapes[lo].event == e && tr->shapes[lo].shape != empty)
        return tr->shapes[lo].shape;
    return STRTAB_NONE; /* "[]": no shape, or an empty one */
}

opshape *opshape_build(const tbtree *t, const unsigned char *keep, t2p_error *err)
{
    const trace *tr = t->m->tr;
    opshape *s = calloc(1, sizeof *s);
    size_t cap = 0;
    hmap idx = { 0 };
    if (!s || hmap_init(&idx, 256) < 0)
        goto nomem;
    uint32_t empty = strtab_find(tr->strs, "[]", 2);
    for (size_t i = 0; i < t->n; i++) {
        const tbtree_node *n = &t->nodes[i];
        if (!opshape_counts(n, keep))
            continue;
        uint32_t name = tr->events[n->event].name;
        uint32_t shape = opshape_event_shape(tr, n->event, empty);
        uint64_t key = (uint64_t)name << 32 | shape;
        uint32_t r = hmap_get(&idx, key);
        if (r == UINT32_MAX) {
            if (vec_grow_heap((void **)&s->rows, &cap, s->nrows, sizeof *s->rows) < 0)
                goto nomem;
            r = (uint32_t)s->nrows;
            if (hmap_put(&idx, key, r) < 0)
                goto nomem;
            s->rows[s->nrows++] = (opshape_row){ .name = name, .shape = shape,
                                                 .tc_eligible = n->tc_eligible, .first = n->post };
        }
        opshape_row *row = &s->rows[r];
        int64_t k = n->copies;
        row->calls += n->copies;
        row->total_ns += k * n->total_ns;
        row->self_ns += k * n->self_ns;
        row->dev_total_ns += k * n->dev_total_ns;
        row->dev_self_ns += k * n->dev_self_ns;
        row->tc_total_ns += k * n->tc_total_ns;
        row->tc_self_ns += k * n->tc_self_ns;
        /* the plugin keeps the eligibility of the row's first call in its
           operator list (post-order), which calls of one row can differ in */
        if (n->post < row->first) {
            row->first = n->post;
            row->tc_eligible = n->tc_eligible;
        }
    }
    hmap_done(&idx);
    return s;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory");
    hmap_done(&idx);
    opshape_free(s);
    return NULL;
}

void opshape_free(opshape *s)
{
    if (!s)
        return;
    free(s->rows);
    free(s);
}

bool opshape_counts(const tbtree_node *n, const unsigned char *keep)
{
    /* copies: how many times the plugin's tree holds it (0: a backward root
       it left out when regrouping by the flows) */
    return n->is_operator && n->copies && (!keep || keep[n->event]);
}

const char *opshape_shape_text(const trace *tr, uint32_t id, size_t *len)
{
    if (id == STRTAB_NONE) {
        if (len)
            *len = 2;
        return "[]";
    }
    if (len)
        *len = strtab_len(tr->strs, id);
    return trace_str(tr, id);
}

const char *opshape_shape(const opshape *s, const trace *tr, size_t row, size_t *len)
{
    return opshape_shape_text(tr, s->rows[row].shape, len);
}

double opshape_tc_self_pct(const opshape_row *r)
{
    return r->dev_self_ns > 0 ? 100.0 * (double)r->tc_self_ns / (double)r->dev_self_ns : 0;
}

double opshape_tc_total_pct(const opshape_row *r)
{
    return r->dev_total_ns > 0 ? 100.0 * (double)r->tc_total_ns / (double)r->dev_total_ns : 0;
}

/* qsort has no context argument in C11; one sort per thread at a time */
static _Thread_local struct {
    const opshape *s;
    const trace *tr;
    enum model_sort by;
    bool reverse;
} sctx;

static int cmp_text(uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    const char *x = a == STRTAB_NONE ? "[]" : trace_str(sctx.tr, a);
    const char *y = b == STRTAB_NONE ? "[]" : trace_str(sctx.tr, b);
    return strcmp(x, y);
}

static int64_t row_key(const opshape_row *r)
{
    return model_sort_key(sctx.by, r->calls, r->self_ns, r->total_ns, r->dev_self_ns,
                          r->dev_total_ns);
}

static int cmp_row(const void *pa, const void *pb)
{
    uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
    const opshape_row *a = &sctx.s->rows[ia], *b = &sctx.s->rows[ib];
    int r = 0;
    if (sctx.by != MODEL_SORT_NAME) {
        int64_t x = row_key(a), y = row_key(b);
        r = x > y ? -1 : x < y;
    }
    if (r == 0)
        r = cmp_text(a->name, b->name);
    if (r == 0)
        r = cmp_text(a->shape, b->shape);
    if (r == 0)
        r = ia < ib ? -1 : ia > ib;
    return sctx.reverse ? -r : r;
}

void opshape_sort(const opshape *s, const trace *tr, enum model_sort by, bool reverse,
                  uint32_t *idx)
{
    for (size_t i = 0; i < s->nrows; i++)
        idx[i] = (uint32_t)i;
    sctx.s = s;
    sctx.tr = tr;
    sctx.by = by;
    sctx.reverse = reverse;
    qsort(idx, s->nrows, sizeof *idx, cmp_row);
}
