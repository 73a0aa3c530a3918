/* The analyses of one loaded trace, built once; see core/analyses/derived.h. */
#include "config.h"

#include "core/analyses/derived.h"

#include <stdlib.h>
#include <string.h>

#include "core/analyses/callers.h"
#include "core/analyses/compare.h"
#include "core/analyses/hta.h"
#include "core/analyses/memory_scope.h"
#include "core/analyses/modules.h"
#include "core/analyses/opshape.h"
#include "core/analyses/pylines.h"
#include "core/analyses/tbtree.h"
#include "core/analyses/timeline.h"

/* What a scoped model's analyses were built for: the model, and what tells
   a model built later at the same address apart (its window and size). */
struct scoped_key {
    const model *m;
    int64_t start, end;
    size_t nnodes, nops;
    bool no_python;
};

/* One analysis of a model, built on the first ask; a failure is kept too,
   so that every later ask gets the same error without building again. */
struct built {
    void *p;
    t2p_error err;
    bool failed;
};

/* A mask an analysis was asked with (a copy: the asker's is its own), so
   that the next ask with the same mask gets the same analysis. */
struct sel_key {
    uint8_t *bytes; /* NULL: no mask (all) */
    size_t n;
};

/* The analyses of one model: the whole trace's, or the last scoped one's. */
struct slot {
    struct scoped_key key;
    struct built mem, tree, shp, mo, hta;
    const hta_opts *hta_opts;
    kernels *kin;         /* the last selection's */
    struct sel_key kin_sel;
    memory_scoped *min;   /* the last selection's, over mem */
    struct sel_key min_sel;
    callers *c;           /* the last selection's and hidden operators' */
    struct sel_key c_keep, c_hide;
    pylines *pl;          /* the last selection's */
    struct sel_key pl_sel;
};

struct derived {
    const model *whole; /* not owned */
    struct built st;    /* whole's steps */
    bool advised;       /* the memory and GPU recommendations are in st */
    struct built k;     /* whole's GPU summary over its steps */
    struct built tl;    /* whole's timeline */
    struct slot w;      /* whole's */
    struct slot s;      /* the last scoped model's */
    compare_mem *vs;    /* against vs_base's memory */
    const derived *vs_base;
    compare_node *cvs;  /* the callers' pair against cvs_base's */
    size_t ncvs;
    const derived *cvs_base;
};

static void sel_done(struct sel_key *k)
{
    free(k->bytes);
    *k = (struct sel_key){ 0 };
}

static bool sel_same(const struct sel_key *k, const uint8_t *sel, size_t n)
{
    if (!sel || !k->bytes)
        return !sel && !k->bytes;
    return k->n == n && memcmp(k->bytes, sel, n) == 0;
}

/* k made the key (a copy of sel, n bytes) of the analysis about to be
   built from it, the caller's old one freed first, so that no analysis
   outlives its key; false with err set when out of memory. An analysis
   that then fails to build leaves NULL, which no later ask takes for a
   match. */
static bool sel_rekey(struct sel_key *k, const uint8_t *sel, size_t n, const model *m,
                      t2p_error *err)
{
    sel_done(k);
    if (!sel)
        return true;
    if (!(k->bytes = malloc(n ? n : 1))) {
        error_set(err, T2P_ERR_NOMEM, m->tr->path, -1, "out of memory");
        return false;
    }
    memcpy(k->bytes, sel, n);
    k->n = n;
    return true;
}

static void slot_done(struct slot *s)
{
    pylines_free(s->pl);
    sel_done(&s->pl_sel);
    callers_free(s->c);
    sel_done(&s->c_keep);
    sel_done(&s->c_hide);
    memory_scope_free(s->min);
    sel_done(&s->min_sel);
    kernels_free(s->kin);
    sel_done(&s->kin_sel);
    hta_free(s->hta.p);
    modules_free(s->mo.p);
    opshape_free(s->shp.p);
    tbtree_free(s->tree.p);
    memory_free(s->mem.p);
    *s = (struct slot){ 0 };
}

/* Whether b is still to be built (neither built nor failed). */
static bool built_due(const struct built *b)
{
    return !b->p && !b->failed;
}

/* b's build's result p: NULL is a failure, b->err says why. */
static void built_set(struct built *b, void *p)
{
    b->p = p;
    b->failed = !p;
}

/* b's analysis (NULL with *err its failure's), once built or failed. */
static void *built_get(const struct built *b, t2p_error *err)
{
    if (!b->p && b->failed)
        *err = b->err;
    return b->p;
}

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
    free(d->cvs);
    compare_mem_free(d->vs);
    slot_done(&d->s);
    slot_done(&d->w);
    timeline_free(d->tl.p);
    kernels_free(d->k.p);
    steps_free(d->st.p);
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
    if (built_due(&d->st))
        built_set(&d->st, steps_build(d->whole, &d->st.err));
    return built_get(&d->st, err);
}

const kernels *derived_kernels(derived *d, t2p_error *err)
{
    if (built_due(&d->k)) {
        const steps *st = derived_steps(d, err);
        if (!st)
            return NULL;
        built_set(&d->k, kernels_build(d->whole, st, NULL, &d->k.err));
    }
    return built_get(&d->k, err);
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
            kernels_recommend(k, d->st.p);
        if (d->whole->tr->nmems)
            memory_recommend(derived_memory(d, d->whole, &e), d->st.p);
    }
    return d->st.p;
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

/* The analyses of m: whole's, or a scoped model's (those of the scoped
   model asked before dropped when m is another). NULL with err set when m
   is of another trace. */
static struct slot *slot_of(derived *d, const model *m, t2p_error *err)
{
    if (m == d->whole)
        return &d->w;
    if (!derived_covers(d, m)) {
        error_set(err, T2P_ERR_ARG, m ? m->tr->path : NULL, -1,
                  "figures asked of a model of another trace");
        return NULL;
    }
    struct scoped_key k = key_of(m);
    if (!same_key(&k, &d->s.key)) {
        slot_done(&d->s);
        d->s.key = k;
    }
    return &d->s;
}

const memory *derived_memory(derived *d, const model *m, t2p_error *err)
{
    struct slot *s = slot_of(d, m, err);
    if (!s)
        return NULL;
    if (built_due(&s->mem))
        built_set(&s->mem, memory_build(m, &s->mem.err));
    return built_get(&s->mem, err);
}

const memory_scoped *derived_memory_in(derived *d, const model *m, const uint8_t *sel,
                                       t2p_error *err)
{
    const memory *mem = derived_memory(d, m, err);
    if (!mem)
        return NULL;
    struct slot *s = slot_of(d, m, err);
    if (s->min && sel_same(&s->min_sel, sel, m->nnodes))
        return s->min;
    memory_scope_free(s->min);
    s->min = sel_rekey(&s->min_sel, sel, m->nnodes, m, err)
                 ? memory_scope_build(mem, s->min_sel.bytes, err)
                 : NULL;
    return s->min;
}

const tbtree *derived_tbtree(derived *d, const model *m, t2p_error *err)
{
    struct slot *s = slot_of(d, m, err);
    if (!s)
        return NULL;
    if (built_due(&s->tree))
        built_set(&s->tree, tbtree_build(m, &s->tree.err));
    return built_get(&s->tree, err);
}

const opshape *derived_opshape(derived *d, const model *m, t2p_error *err)
{
    const tbtree *t = derived_tbtree(d, m, err);
    if (!t)
        return NULL;
    struct slot *s = slot_of(d, m, err);
    if (built_due(&s->shp))
        built_set(&s->shp, opshape_build(t, m->keep, &s->shp.err));
    return built_get(&s->shp, err);
}

const modules *derived_modules(derived *d, const model *m, t2p_error *err)
{
    const tbtree *t = derived_tbtree(d, m, err);
    if (!t)
        return NULL;
    struct slot *s = slot_of(d, m, err);
    if (built_due(&s->mo))
        built_set(&s->mo, modules_build(t, NULL, &s->mo.err));
    return built_get(&s->mo, err);
}

const hta *derived_hta(derived *d, const model *m, const hta_opts *opts, t2p_error *err)
{
    struct slot *s = slot_of(d, m, err);
    if (!s)
        return NULL;
    if (s->hta_opts != opts) {
        hta_free(s->hta.p);
        s->hta = (struct built){ 0 };
        s->hta_opts = opts;
    }
    if (built_due(&s->hta))
        built_set(&s->hta, hta_build(m, NULL, opts, &s->hta.err));
    return built_get(&s->hta, err);
}

const kernels *derived_kernels_in(derived *d, const model *m, const uint8_t *sel, t2p_error *err)
{
    struct slot *s = slot_of(d, m, err);
    if (!s)
        return NULL;
    if (s->kin && sel_same(&s->kin_sel, sel, m->nnodes))
        return s->kin;
    kernels_free(s->kin);
    s->kin = sel_rekey(&s->kin_sel, sel, m->nnodes, m, err)
                 ? kernels_build_in(m, NULL, NULL, s->kin_sel.bytes, err)
                 : NULL;
    return s->kin;
}

const callers *derived_callers(derived *d, const model *m, const uint8_t *keep,
                               const uint8_t *hide, t2p_error *err)
{
    struct slot *s = slot_of(d, m, err);
    if (!s)
        return NULL;
    if (s->c && sel_same(&s->c_keep, keep, m->nnodes) && sel_same(&s->c_hide, hide, m->nops))
        return s->c;
    callers_free(s->c);
    s->c = sel_rekey(&s->c_keep, keep, m->nnodes, m, err) &&
                   sel_rekey(&s->c_hide, hide, m->nops, m, err)
               ? callers_build(m, s->c_keep.bytes, s->c_hide.bytes, false, err)
               : NULL;
    return s->c;
}

const pylines *derived_pylines(derived *d, const model *m, const uint8_t *sel, t2p_error *err)
{
    struct slot *s = slot_of(d, m, err);
    if (!s)
        return NULL;
    if (s->pl && sel_same(&s->pl_sel, sel, m->nnodes))
        return s->pl;
    pylines_free(s->pl);
    s->pl = sel_rekey(&s->pl_sel, sel, m->nnodes, m, err) ? pylines_build(m, s->pl_sel.bytes, err)
                                                          : NULL;
    return s->pl;
}

const timeline *derived_timeline(derived *d, t2p_error *err)
{
    if (built_due(&d->tl))
        built_set(&d->tl, timeline_build(d->whole, &d->tl.err));
    return built_get(&d->tl, err);
}

const compare_node *derived_callers_vs(derived *d, derived *base, const compare *c, size_t *n,
                                       t2p_error *err)
{
    if (d->cvs && d->cvs_base == base) {
        *n = d->ncvs;
        return d->cvs;
    }
    const callers *cb = derived_callers(base, c->base, NULL, NULL, err);
    const callers *cn = cb ? derived_callers(d, c->new, NULL, NULL, err) : NULL;
    if (!cn)
        return NULL;
    free(d->cvs);
    d->cvs_base = NULL;
    if (!(d->cvs = compare_pair_trees(c, cb->nodes, cb->nnodes, cn->nodes, cn->nnodes,
                                      &d->ncvs))) {
        error_set(err, T2P_ERR_NOMEM, d->whole->tr->path, -1, "out of memory");
        return NULL;
    }
    d->cvs_base = base;
    *n = d->ncvs;
    return d->cvs;
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
