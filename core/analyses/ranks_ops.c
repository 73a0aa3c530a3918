/* The operators and categories merged across a job's ranks, sorted and
   summed (core/analyses/ranks.h): apart from ranks.c, which builds them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/analyses/ranks.h"
#include "core/base/hmap.h"

/* ---- sorting merged ops ---- */

struct sort_ctx {
    const ranks_job *j;
    enum model_sort s;
    bool spread;
};

static int64_t sort_figure(const struct sort_ctx *c, const ranks_op *o)
{
    if (c->spread)
        return o->max_ns - o->min_ns;
    return model_sort_key(c->s, o->calls, o->self_ns, o->total_ns, o->dev_self_ns, o->dev_total_ns);
}

static int cmp_str(const strtab *t, uint32_t a, uint32_t b)
{
    size_t la = strtab_len(t, a), lb = strtab_len(t, b);
    int r = memcmp(strtab_str(t, a), strtab_str(t, b), la < lb ? la : lb);
    return r ? r : (la > lb) - (la < lb);
}

static int cmp_op(const void *pa, const void *pb, void *arg)
{
    const struct sort_ctx *c = arg;
    const ranks_op *a = &c->j->ops[*(const uint32_t *)pa], *b = &c->j->ops[*(const uint32_t *)pb];
    if (c->spread || c->s != MODEL_SORT_NAME) {
        int64_t x = sort_figure(c, a), y = sort_figure(c, b);
        if (x != y)
            return x > y ? -1 : 1;
    }
    int r = cmp_str(c->j->strs, a->name, b->name);
    return r ? r : cmp_str(c->j->strs, a->cat, b->cat);
}

void ranks_sort_ops(const ranks_job *j, enum model_sort s, bool spread, uint32_t *idx)
{
    struct sort_ctx c = { j, s, spread };
    for (size_t i = 0; i < j->nops; i++)
        idx[i] = (uint32_t)i;
    qsort_r(idx, j->nops, sizeof *idx, cmp_op, &c);
}

ranks_cat *ranks_cats(const ranks_job *j, size_t *n)
{
    *n = 0;
    ranks_cat *c = malloc((j->nops ? j->nops : 1) * sizeof *c);
    uint32_t *of = malloc((j->nops ? j->nops : 1) * sizeof *of);
    int64_t *per = NULL, *v = malloc((j->nloaded ? j->nloaded : 1) * sizeof *v);
    hmap map;
    if (!c || !of || !v || hmap_init(&map, 64) < 0) {
        free(c);
        free(of);
        free(v);
        return NULL;
    }
    for (size_t op = 0; op < j->nops; op++) {
        const ranks_op *o = &j->ops[op];
        uint32_t k = hmap_get(&map, o->cat);
        if (k == UINT32_MAX) {
            k = (uint32_t)(*n)++;
            c[k] = (ranks_cat){ .name = o->cat };
            if (hmap_put(&map, o->cat, k) < 0)
                goto fail;
        }
        of[op] = k;
        c[k].nops++;
        c[k].calls += o->calls;
        c[k].self_ns += o->self_ns;
        c[k].dev_self_ns += o->dev_self_ns;
    }
    /* one rank's self time per category: its operators' */
    per = calloc((*n ? *n : 1) * (j->nfiles ? j->nfiles : 1), sizeof *per);
    if (!per)
        goto fail;
    for (size_t op = 0; op < j->nops; op++)
        for (size_t i = 0; i < j->nloaded; i++)
            per[(size_t)of[op] * j->nfiles + i] += j->self[op * j->nfiles + i];
    for (size_t k = 0; k < *n; k++) {
        ranks_cat *x = &c[k];
        const int64_t *row = &per[k * j->nfiles];
        x->min_ns = j->nloaded ? INT64_MAX : 0;
        x->max_ns = j->nloaded ? INT64_MIN : 0;
        for (size_t i = 0; i < j->nloaded; i++) {
            v[i] = row[i];
            if (row[i] < x->min_ns)
                x->min_ns = row[i];
            if (row[i] > x->max_ns) {
                x->max_ns = row[i];
                x->max_file = (uint32_t)i;
            }
        }
        x->max_rank = j->nloaded ? j->files[x->max_file].rank : -1;
        x->median_ns = ranks_median(v, j->nloaded);
    }
    free(per);
    free(of);
    free(v);
    hmap_done(&map);
    return c;
fail:
    free(per);
    free(c);
    free(of);
    free(v);
    hmap_done(&map);
    *n = 0;
    return NULL;
}
