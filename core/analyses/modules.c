/* The nn.Module view (see modules.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/modules.h"
#include "core/base/hmap.h"
#include "core/base/strtab.h"
#include "core/base/vec.h"
#include "core/model/catkind.h"

#define PREFIX "nn.Module: "

/* a distinct module subtree: (name, module id, children's signatures) */
struct sig {
    uint32_t stats;
    uint32_t child0, nchild; /* into the pool of child signatures */
};

/* qsort's context (C11 has none): per thread, as ranks_load's and pair's
   workers build models and their analyses on threads of their own */
static _Thread_local const modules *cmp_mo;
static _Thread_local const trace *cmp_tr;
static _Thread_local const struct sig *cmp_sigs;

/* pyids entries by their event's start, then file order */
static int cmp_py_ts(const void *pa, const void *pb)
{
    const trace_pyid *x = &cmp_tr->pyids[*(const uint32_t *)pa];
    const trace_pyid *y = &cmp_tr->pyids[*(const uint32_t *)pb];
    int64_t a = cmp_tr->events[x->event].ts, b = cmp_tr->events[y->event].ts;
    if (a != b)
        return a < b ? -1 : 1;
    return x->event < y->event ? -1 : x->event > y->event;
}

static int cmp_stats(uint32_t a, uint32_t b)
{
    size_t la, lb;
    const char *x = modules_name(cmp_mo, cmp_tr, a, &la), *y = modules_name(cmp_mo, cmp_tr, b, &lb);
    int c = memcmp(x, y, la < lb ? la : lb);
    if (c || la != lb)
        return c ? c : la < lb ? -1 : 1;
    int64_t i = cmp_mo->stats[a].module_id, j = cmp_mo->stats[b].module_id;
    return i < j ? -1 : i > j;
}

static int cmp_sig(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    int c = cmp_stats(cmp_sigs[a].stats, cmp_sigs[b].stats);
    return c ? c : a < b ? -1 : a > b;
}

static _Thread_local const uint32_t *cmp_rank;

static int cmp_by_rank(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    uint32_t x = cmp_rank[a], y = cmp_rank[b];
    if (x != y)
        return x < y ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The order in which TensorBoard's module_op._build_module_hierarchy first
   reaches each module call, which orders a module's children (its
   module_parent_map is filled in that order): the Python ids in the order
   its loop over the calls by start time (byts: pyids entries) first names
   them, as a call's id then its parent id; then, from each id no call names
   as its parent (a leaf) in that order, the walk up through the parent ids,
   which stops at a (call, module below it) pair seen before. Per pyids
   entry: its rank, UINT32_MAX for a call not reached. NULL when out of
   memory (*nomem set). Linear: each (call, module) pair is walked once. */
static uint32_t *first_reach(const trace *tr, const uint32_t *byts, const hmap *byid, bool *nomem)
{
    size_t np = tr->npyids;
    const trace_pyid *pys = tr->pyids;
    uint32_t *rank = malloc((np ? np : 1) * sizeof *rank);
    int64_t *ids = malloc((2 * np + 1) * sizeof *ids);
    uint8_t *haskid = calloc(2 * np + 1, 1);
    hmap slot = { 0 }, seen = { 0 };
    size_t nslots = 0;
    uint32_t next = 0;
    *nomem = true;
    if (!rank || !ids || !haskid || hmap_init(&slot, 256) < 0 || hmap_init(&seen, 256) < 0)
        goto fail;
    for (size_t i = 0; i < np; i++)
        rank[i] = UINT32_MAX;
    for (size_t j = 0; j < np; j++) {
        const trace_pyid *p = &pys[byts[j]];
        /* the plugin's python events: the calls that carry an id */
        if (!(p->has & TRACE_PY_ID) || hmap_get(byid, (uint64_t)p->id) == UINT32_MAX)
            continue;
        int64_t two[2] = { p->id, p->parent };
        for (int k = 0; k < ((p->has & TRACE_PY_PARENT) ? 2 : 1); k++) {
            uint32_t s = hmap_get(&slot, (uint64_t)two[k]);
            if (s == UINT32_MAX) {
                s = (uint32_t)nslots;
                ids[nslots++] = two[k];
                if (hmap_put(&slot, (uint64_t)two[k], s) < 0)
                    goto fail;
            }
            if (k == 1)
                haskid[s] = 1;
        }
    }
    for (size_t s = 0; s < nslots; s++) {
        if (haskid[s])
            continue;
        uint32_t e = hmap_get(byid, (uint64_t)ids[s]), cur = UINT32_MAX;
        while (e != UINT32_MAX) {
            if (pys[e].has & TRACE_PY_MODULE) {
                cur = e;
                if (rank[e] == UINT32_MAX)
                    rank[e] = next++;
            }
            uint64_t key = (uint64_t)e << 32 | cur;
            if (hmap_get(&seen, key) != UINT32_MAX)
                break;
            if (hmap_put(&seen, key, 0) < 0)
                goto fail;
            e = (pys[e].has & TRACE_PY_PARENT) ? hmap_get(byid, (uint64_t)pys[e].parent)
                                                : UINT32_MAX;
        }
    }
    /* a call never reached (no leaf below it: a cycle of ids) after the rest */
    for (size_t i = 0; i < np; i++)
        if (rank[i] == UINT32_MAX)
            rank[i] = next + (uint32_t)i;
    *nomem = false;
    free(ids);
    free(haskid);
    hmap_done(&slot);
    hmap_done(&seen);
    return rank;
fail:
    free(rank);
    free(ids);
    free(haskid);
    hmap_done(&slot);
    hmap_done(&seen);
    return NULL;
}

modules *modules_build(const tbtree *t, const unsigned char *keep, t2p_error *err)
{
    const model *m = t->m;
    const trace *tr = m->tr;
    modules *mo = calloc(1, sizeof *mo);
    hmap byid = { 0 }, bykey = { 0 }, modids = { 0 };
    strtab *sigtab = NULL;
    uint32_t *up = NULL, *sigof = NULL, *pool = NULL, *order = NULL, *stk = NULL, *kids = NULL;
    uint32_t *first = NULL, *next = NULL, *byts = NULL, *rank = NULL;
    bool err_nomem = false;
    struct sig *sigs = NULL;
    size_t nsigs = 0, capsigs = 0, npool = 0, cappool = 0, capstats = 0, capent = 0, nmod = 0;
    char *key = NULL;
    size_t capkey = 0;
    if (!mo || hmap_init(&byid, 256) < 0 || hmap_init(&bykey, 64) < 0 ||
        hmap_init(&modids, 64) < 0 || !(sigtab = strtab_new()))
        goto nomem;
    size_t np = tr->npyids;
    const trace_pyid *pys = tr->pyids;

    /* stats per (name, module id) of the module calls in the tree */
    for (size_t i = 0, p = 0; i < t->n; i++) {
        const tbtree_node *n = &t->nodes[i];
        if (n->kind != TBTREE_MODULE || (keep && !keep[n->event]))
            continue;
        /* its ids: binary search (nodes are not in event order) */
        size_t lo = 0, hi = np;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (pys[mid].event < n->event)
                lo = mid + 1;
            else
                hi = mid;
        }
        p = lo;
        int64_t modid = pys[p].module;
        uint32_t dense = hmap_get(&modids, (uint64_t)modid);
        if (dense == UINT32_MAX) {
            dense = (uint32_t)nmod++;
            if (hmap_put(&modids, (uint64_t)modid, dense) < 0)
                goto nomem;
        }
        uint64_t k = (uint64_t)tr->events[n->event].name << 32 | dense;
        uint32_t s = hmap_get(&bykey, k);
        if (s == UINT32_MAX) {
            if (vec_grow_heap((void **)&mo->stats, &capstats, mo->nstats, sizeof *mo->stats) < 0)
                goto nomem;
            s = (uint32_t)mo->nstats++;
            mo->stats[s] = (modules_stats){ .name = tr->events[n->event].name, .module_id = modid };
            if (hmap_put(&bykey, k, s) < 0)
                goto nomem;
        }
        modules_stats *st = &mo->stats[s];
        st->occurrences++;
        st->operators += n->operators;
        st->host_total_ns += n->total_ns;
        st->host_self_ns += n->self_ns;
        st->dev_total_ns += n->dev_total_ns;
        st->dev_self_ns += n->dev_self_ns;
    }

    /* the Python calls by id: the last event with an id stands for it, by
       start time as the plugin sorted its events (then file order) */
    up = malloc((np ? np : 1) * sizeof *up);
    if (!up)
        goto nomem;
    for (size_t i = 0; i < np; i++)
        up[i] = (uint32_t)i;
    cmp_tr = tr;
    qsort(up, np, sizeof *up, cmp_py_ts);
    if (!(byts = malloc((np ? np : 1) * sizeof *byts)))
        goto nomem;
    memcpy(byts, up, np * sizeof *byts);
    for (size_t j = 0; j < np; j++) {
        size_t i = up[j];
        if ((pys[i].has & TRACE_PY_ID) &&
            catkind_of(trace_str(tr, tr->events[pys[i].event].cat),
                       strtab_len(tr->strs, tr->events[pys[i].event].cat)) == CATKIND_PYTHON_FUNCTION &&
            hmap_put(&byid, (uint64_t)pys[i].id, (uint32_t)i) < 0)
            goto nomem;
    }
    /* up[i]: the nearest module call strictly above call i, MODULES_NONE;
       filled along each walk, so every call is walked once */
    stk = malloc((np ? np : 1) * sizeof *stk);
    if (!stk)
        goto nomem;
    const uint32_t UNSET = MODULES_NONE - 1;
    for (size_t i = 0; i < np; i++)
        up[i] = UNSET;
    for (size_t i = 0; i < np; i++) {
        size_t ns = 0;
        uint32_t k = (uint32_t)i;
        uint32_t found = MODULES_NONE;
        while (up[k] == UNSET) {
            up[k] = MODULES_NONE - 2; /* on the walk: a cycle ends it */
            stk[ns++] = k;
            uint32_t p = (pys[k].has & TRACE_PY_PARENT) ? hmap_get(&byid, (uint64_t)pys[k].parent)
                                                        : UINT32_MAX;
            if (p == UINT32_MAX) {
                found = MODULES_NONE;
                break;
            }
            if (pys[p].has & TRACE_PY_MODULE) {
                found = p;
                break;
            }
            if (up[p] != UNSET) {
                found = up[p] == MODULES_NONE - 2 ? MODULES_NONE : up[p];
                break;
            }
            k = p;
        }
        if (!ns)
            continue;
        /* the calls on the walk share the module found above the last one */
        for (size_t j = 0; j < ns; j++)
            up[stk[j]] = found;
    }

    if (!(rank = first_reach(tr, byts, &byid, &err_nomem)) && err_nomem)
        goto nomem;

    /* each module call (the one standing for its id) with its module children */
    first = malloc((np ? np : 1) * sizeof *first);
    next = malloc((np ? np : 1) * sizeof *next);
    sigof = malloc((np ? np : 1) * sizeof *sigof);
    if (!first || !next || !sigof)
        goto nomem;
    for (size_t i = 0; i < np; i++)
        first[i] = next[i] = sigof[i] = MODULES_NONE;
    /* the module calls in TensorBoard's order (first_reach), each prepended
       to its parent's list from the last: children in that order */
    size_t nroots = 0, nmc = 0;
    for (size_t i = 0; i < np; i++) {
        bool is_mod = (pys[i].has & TRACE_PY_ID) && (pys[i].has & TRACE_PY_MODULE) &&
                      hmap_get(&byid, (uint64_t)pys[i].id) == i;
        if (is_mod)
            sigof[nmc++] = (uint32_t)i; /* scratch until the signatures */
    }
    cmp_rank = rank;
    qsort(sigof, nmc, sizeof *sigof, cmp_by_rank);
    for (size_t j = nmc; j-- > 0;) {
        uint32_t i = sigof[j];
        if (up[i] != MODULES_NONE) {
            next[i] = first[up[i]];
            first[up[i]] = i;
        }
    }
    for (size_t j = 0; j < nmc; j++)
        if (up[sigof[j]] == MODULES_NONE)
            stk[nroots++] = sigof[j];
    for (size_t i = 0; i < np; i++)
        sigof[i] = MODULES_NONE;
    /* signatures bottom-up: iterative post-order from each root */
    order = malloc((np ? np : 1) * sizeof *order);
    kids = malloc((np ? np : 1) * sizeof *kids);
    if (!order || !kids)
        goto nomem;
    cmp_mo = mo;
    cmp_tr = tr;
    for (size_t r = 0; r < nroots; r++) {
        size_t top = 0;
        order[top++] = stk[r];
        /* preorder into kids, then walk it backwards: children first */
        size_t nk = 0;
        while (top) {
            uint32_t k = order[--top];
            kids[nk++] = k;
            for (uint32_t c = first[k]; c != MODULES_NONE; c = next[c])
                order[top++] = c;
        }
        for (size_t j = nk; j-- > 0;) {
            uint32_t k = kids[j];
            const trace_event *ev = &tr->events[pys[k].event];
            uint32_t dense = hmap_get(&modids, (uint64_t)pys[k].module);
            if (dense == UINT32_MAX) {
                dense = (uint32_t)nmod++;
                if (hmap_put(&modids, (uint64_t)pys[k].module, dense) < 0)
                    goto nomem;
            }
            uint64_t sk = (uint64_t)ev->name << 32 | dense;
            uint32_t s = hmap_get(&bykey, sk);
            if (s == UINT32_MAX) { /* a module with no call in the scope */
                if (vec_grow_heap((void **)&mo->stats, &capstats, mo->nstats, sizeof *mo->stats) < 0)
                    goto nomem;
                s = (uint32_t)mo->nstats++;
                mo->stats[s] = (modules_stats){ .name = ev->name, .module_id = pys[k].module };
                if (hmap_put(&bykey, sk, s) < 0)
                    goto nomem;
            }
            /* its children's signatures, in their order: TensorBoard's Module
               equals another with the same children in the same order */
            size_t c0 = npool;
            for (uint32_t c = first[k]; c != MODULES_NONE; c = next[c]) {
                if (vec_grow_heap((void **)&pool, &cappool, npool, sizeof *pool) < 0)
                    goto nomem;
                pool[npool++] = sigof[c];
            }
            size_t need = 32 + (npool - c0) * 11;
            if (vec_grow_heap((void **)&key, &capkey, need, 1) < 0)
                goto nomem;
            size_t kl = (size_t)snprintf(key, need, "%u:", s);
            for (size_t q = c0; q < npool; q++)
                kl += (size_t)snprintf(key + kl, need - kl, "%u,", pool[q]);
            uint32_t before = strtab_count(sigtab);
            uint32_t id = strtab_intern(sigtab, key, kl);
            if (id == STRTAB_NONE)
                goto nomem;
            if (id >= before) { /* new */
                if (vec_grow_heap((void **)&sigs, &capsigs, nsigs, sizeof *sigs) < 0)
                    goto nomem;
                sigs[nsigs++] = (struct sig){ s, (uint32_t)c0, (uint32_t)(npool - c0) };
            } else {
                npool = c0; /* known: its children are stored already */
            }
            sigof[k] = id;
        }
    }
    /* the distinct roots, sorted */
    size_t nr = 0;
    for (size_t r = 0; r < nroots; r++)
        order[nr++] = sigof[stk[r]];
    cmp_sigs = sigs;
    qsort(order, nr, sizeof *order, cmp_sig);
    {
        size_t w = 0;
        for (size_t r = 0; r < nr; r++)
            if (!w || order[w - 1] != order[r])
                order[w++] = order[r];
        nr = w;
    }
    /* expand into entries, preorder: a stack of (signature, parent entry) */
    size_t top = 0;
    uint32_t *sstk = kids, *pstk = first; /* reused: at most one entry per module call */
    for (size_t r = nr; r-- > 0;) {
        sstk[top] = order[r];
        pstk[top++] = MODULES_NONE;
    }
    uint32_t *lastkid = next, lastroot = MODULES_NONE;
    while (top) {
        top--;
        uint32_t sg = sstk[top], par = pstk[top];
        if (vec_grow_heap((void **)&mo->entries, &capent, mo->nentries, sizeof *mo->entries) < 0)
            goto nomem;
        uint32_t e = (uint32_t)mo->nentries++;
        mo->entries[e] = (modules_entry){ sigs[sg].stats,
                                          par == MODULES_NONE ? 0 : mo->entries[par].depth + 1, par,
                                          MODULES_NONE, sigs[sg].nchild };
        lastkid[e] = MODULES_NONE;
        if (par != MODULES_NONE) {
            if (lastkid[par] != MODULES_NONE)
                mo->entries[lastkid[par]].next_sibling = e;
            lastkid[par] = e;
        } else {
            /* roots are siblings too */
            if (lastroot != MODULES_NONE)
                mo->entries[lastroot].next_sibling = e;
            lastroot = e;
        }
        for (uint32_t q = sigs[sg].nchild; q-- > 0;) {
            if (top >= np)
                break; /* cannot happen: entries never outnumber module calls per root */
            sstk[top] = pool[sigs[sg].child0 + q];
            pstk[top++] = e;
        }
    }
    goto done;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory");
    modules_free(mo);
    mo = NULL;
done:
    hmap_done(&byid);
    hmap_done(&bykey);
    hmap_done(&modids);
    strtab_free(sigtab);
    free(up);
    free(sigof);
    free(pool);
    free(order);
    free(stk);
    free(kids);
    free(first);
    free(next);
    free(sigs);
    free(key);
    free(byts);
    free(rank);
    return mo;
}

void modules_free(modules *mo)
{
    if (!mo)
        return;
    free(mo->stats);
    free(mo->entries);
    free(mo);
}

const char *modules_name(const modules *mo, const trace *tr, uint32_t stats, size_t *len)
{
    uint32_t id = mo->stats[stats].name;
    const char *s = trace_str(tr, id);
    size_t n = strtab_len(tr->strs, id);
    size_t k = sizeof PREFIX - 1;
    if (n >= k && !memcmp(s, PREFIX, k))
        s += k, n -= k;
    *len = n;
    return s;
}

double modules_avg_ns(const modules_stats *s)
{
    if (!s->occurrences)
        return 0;
    if (s->dev_total_ns > 0)
        return (double)s->dev_total_ns / (double)s->occurrences;
    return (double)s->host_total_ns / (double)s->occurrences;
}
