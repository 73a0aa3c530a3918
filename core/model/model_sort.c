/* The model's operators and categories in the orders the fronts show
   (model_sort_ops, model_sort_cats: see core/model/model.h). */
#include "config.h"

#include "core/model/model.h"

#include <stdlib.h>
#include <string.h>

static const char *const sort_names[MODEL_SORT_N] = {
    "self", "total", "calls", "name", "avg", "device_self", "device_total"
};

const char *model_sort_name(enum model_sort s)
{
    return (unsigned)s < MODEL_SORT_N ? sort_names[s] : "?";
}

int model_sort_parse(const char *s)
{
    for (int i = 0; i < MODEL_SORT_N; i++)
        if (strcmp(s, sort_names[i]) == 0)
            return i;
    if (strcmp(s, "device") == 0)
        return MODEL_SORT_DEVICE_TOTAL;
    return -1;
}

struct sort_ctx {
    const model *m;
    enum model_sort s;
    bool reverse;
    bool cats;
    const int64_t *key; /* per op: its key (model_sort_ops_keyed); NULL: the model's figures */
};

/* qsort has no context argument in C11; the sort runs on one thread at a time */
static _Thread_local struct sort_ctx sctx;

static int cmp_i64(int64_t a, int64_t b)
{
    return a < b ? -1 : (a > b);
}

int64_t model_sort_key(enum model_sort s, uint64_t calls, int64_t self_ns, int64_t total_ns,
                       int64_t dev_self_ns, int64_t dev_total_ns)
{
    switch (s) {
    case MODEL_SORT_TOTAL: return total_ns;
    case MODEL_SORT_CALLS: return (int64_t)calls;
    case MODEL_SORT_AVG: return calls ? total_ns / (int64_t)calls : 0;
    case MODEL_SORT_DEVICE_SELF: return dev_self_ns;
    case MODEL_SORT_DEVICE_TOTAL: return dev_total_ns;
    default: return self_ns;
    }
}

static void figures(const struct sort_ctx *c, uint32_t i, int64_t *v, uint32_t *name)
{
    if (c->cats) {
        const model_cat *k = &c->m->cats[i];
        *name = k->name;
        /* a category has device self time only: it stands for device total too */
        *v = model_sort_key(c->s, k->calls, k->self_ns, k->total_ns, k->dev_self_ns, k->dev_self_ns);
        return;
    }
    const model_op *o = &c->m->ops[i];
    *name = o->name;
    if (c->key) {
        *v = c->key[i];
        return;
    }
    *v = model_sort_key(c->s, o->calls, o->self_ns, o->total_ns, o->dev_self_ns, o->dev_total_ns);
}

static int cmp_sort(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    int64_t va, vb;
    uint32_t na, nb;
    figures(&sctx, a, &va, &na);
    figures(&sctx, b, &vb, &nb);
    const strtab *st = sctx.m->tr->strs;
    int r;
    if (sctx.s == MODEL_SORT_NAME) {
        r = strcmp(strtab_str(st, na), strtab_str(st, nb));
    } else {
        r = -cmp_i64(va, vb);
        if (r == 0)
            r = strcmp(strtab_str(st, na), strtab_str(st, nb));
    }
    if (r == 0)
        r = a < b ? -1 : (a > b);
    return sctx.reverse ? -r : r;
}

static void sort_idx(const model *m, enum model_sort s, bool reverse, bool cats, uint32_t *idx,
                     size_t n)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    sctx = (struct sort_ctx){ m, s, reverse, cats, NULL };
    qsort(idx, n, sizeof *idx, cmp_sort);
}

void model_sort_ops(const model *m, enum model_sort s, bool reverse, uint32_t *idx)
{
    sort_idx(m, s, reverse, false, idx, m->nops);
}

void model_sort_cats(const model *m, enum model_sort s, bool reverse, uint32_t *idx)
{
    sort_idx(m, s, reverse, true, idx, m->ncats);
}

void model_sort_ops_keyed(const model *m, enum model_sort s, bool reverse, const int64_t *key,
                          uint32_t *idx, size_t n)
{
    sctx = (struct sort_ctx){ m, s, reverse, false, key };
    qsort(idx, n, sizeof *idx, cmp_sort);
}
