/* The analyses of one loaded trace, built once; see core/analyses/derived.h. */
#include "config.h"

#include "core/analyses/derived.h"

#include <stdlib.h>
#include <string.h>

/* What a scoped model's memory was built for: the model, and what tells a
   model built later at the same address apart (its window and size). */
struct scoped_key {
    const model *m;
    int64_t start, end;
    size_t nnodes, nops;
    bool no_python;
};

struct derived {
    const model *whole; /* not owned */
    steps *st;
    t2p_error st_err;
    bool st_failed;
    bool advised;       /* the memory and GPU recommendations are in st */
    kernels *k;
    t2p_error k_err;
    bool k_failed;
    memory *mem;        /* whole's */
    t2p_error mem_err;
    bool mem_failed;
    memory *smem;       /* the last scoped model's */
    struct scoped_key skey;
    compare_mem *vs;    /* against vs_base's memory */
    const derived *vs_base;
};

derived *derived_new(const model *whole)
{
    derived *d = calloc(1, sizeof *d);
    if (d)
        d->whole = whole;
    return d;
}

void derived_free(derived *d)
{
    if (!d)
        return;
    compare_mem_free(d->vs);
    memory_free(d->smem);
    memory_free(d->mem);
    kernels_free(d->k);
    steps_free(d->st);
    free(d);
}

const model *derived_whole(const derived *d)
{
    return d->whole;
}

bool derived_covers(const derived *d, const model *m)
{
    return m == d->whole ||
           (m && m->tr == d->whole->tr && model_is_scoped(m) && !model_is_scoped(d->whole));
}

const steps *derived_steps(derived *d, t2p_error *err)
{
    if (!d->st && !d->st_failed && !(d->st = steps_build(d->whole, &d->st_err)))
        d->st_failed = true;
    if (!d->st)
        *err = d->st_err;
    return d->st;
}

const kernels *derived_kernels(derived *d, t2p_error *err)
{
    if (!d->k && !d->k_failed) {
        const steps *st = derived_steps(d, err);
        if (!st)
            return NULL;
        if (!(d->k = kernels_build(d->whole, st, NULL, &d->k_err)))
            d->k_failed = true;
    }
    if (!d->k)
        *err = d->k_err;
    return d->k;
}

const steps *derived_steps_advised(derived *d, t2p_error *err)
{
    if (!derived_steps(d, err))
        return NULL;
    if (!d->advised) {
        d->advised = true;
        /* each recommendation is added once, whichever front asks first;
           a figure that cannot be built leaves its recommendation out, as
           the fronts did */
        t2p_error e;
        const kernels *k = derived_kernels(d, &e);
        if (k)
            kernels_recommend(k, d->st);
        if (d->whole->tr->nmems)
            memory_recommend(derived_memory(d, d->whole, &e), d->st);
    }
    return d->st;
}

static struct scoped_key key_of(const model *m)
{
    return (struct scoped_key){ .m = m, .start = m->scope.start, .end = m->scope.end,
                                .nnodes = m->nnodes, .nops = m->nops,
                                .no_python = m->opts.no_python };
}

static bool same_key(const struct scoped_key *a, const struct scoped_key *b)
{
    return a->m == b->m && a->start == b->start && a->end == b->end && a->nnodes == b->nnodes &&
           a->nops == b->nops && a->no_python == b->no_python;
}

const memory *derived_memory(derived *d, const model *m, t2p_error *err)
{
    if (m == d->whole) {
        if (!d->mem && !d->mem_failed && !(d->mem = memory_build(m, &d->mem_err)))
            d->mem_failed = true;
        if (!d->mem)
            *err = d->mem_err;
        return d->mem;
    }
    if (!derived_covers(d, m)) {
        error_set(err, T2P_ERR_ARG, m ? m->tr->path : NULL, -1,
                  "memory figures asked of a model of another trace");
        return NULL;
    }
    struct scoped_key k = key_of(m);
    if (d->smem && same_key(&k, &d->skey))
        return d->smem;
    memory_free(d->smem);
    d->smem = memory_build(m, err);
    d->skey = k;
    if (!d->smem)
        d->skey = (struct scoped_key){ 0 };
    return d->smem;
}

const compare_mem *derived_memory_vs(derived *d, derived *base, t2p_error *err)
{
    if (d->vs && d->vs_base == base)
        return d->vs;
    const memory *b = derived_memory(base, base->whole, err);
    const memory *n = b ? derived_memory(d, d->whole, err) : NULL;
    if (!n)
        return NULL;
    compare_mem_free(d->vs);
    d->vs = compare_mem_build(b, n, err);
    d->vs_base = d->vs ? base : NULL;
    return d->vs;
}

struct derived_set {
    derived **v;
    size_t n;
};

derived *derived_set_of(derived_set **set, const model *m)
{
    if (!m)
        return NULL;
    if (!*set && !(*set = calloc(1, sizeof **set)))
        return NULL;
    derived_set *s = *set;
    /* a scoped model: the whole model of its trace, else one of its own */
    for (size_t i = 0; model_is_scoped(m) && i < s->n; i++)
        if (!model_is_scoped(s->v[i]->whole) && s->v[i]->whole->tr == m->tr)
            return s->v[i];
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i]->whole == m)
            return s->v[i];
    derived **nv = realloc(s->v, (s->n + 1) * sizeof *nv);
    if (!nv)
        return NULL;
    s->v = nv;
    if (!(s->v[s->n] = derived_new(m)))
        return NULL;
    return s->v[s->n++];
}

void derived_set_free(derived_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        derived_free(set->v[i]);
    free(set->v);
    free(set);
}
