/* TensorBoard's backward regrouping (see tbtree_bwd.h). Linear passes and
   sorts over the backward roots and the flows; nothing when a trace has no
   fwdbwd flow. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/analyses/tbtree_bwd.h"
#include "core/base/hmap.h"
#include "core/base/vec.h"

#define NONE UINT32_MAX

static bool starts(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && !memcmp(s, p, k);
}

#define BWD_PREFIX "autograd::engine::evaluate_function:"
#define BWD_ACCUMULATE "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"

/* A forward-backward association: the plugin's create_association_events
   keyed by the flow ends' timestamps alone. */
struct fb {
    int64_t fwd, bwd;
    size_t order; /* the forward ts's first insertion (dict order) */
};

/* qsort's context (C11 has none): per thread, as ranks_load's and pair's
   workers build models and their analyses on threads of their own */
static _Thread_local const trace_flow *sort_fl;

static int cmp_flow_id(const void *a, const void *b)
{
    const trace_flow *x = &sort_fl[*(const uint32_t *)a], *y = &sort_fl[*(const uint32_t *)b];
    if (x->id_str != y->id_str)
        return x->id_str < y->id_str ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int cmp_fb_fwd(const void *a, const void *b)
{
    const struct fb *x = a, *y = b;
    if (x->fwd != y->fwd)
        return x->fwd < y->fwd ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_fb_order(const void *a, const void *b)
{
    const struct fb *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The associations: {forward ts: backward ts}, one per forward ts (the last
   id's), in the dict's order. *n their count; NULL (n 0) when none or out
   of memory (*nomem). */
static struct fb *associations(const trace *tr, size_t *n, bool *nomem)
{
    *n = 0;
    uint32_t *ix = malloc((tr->nflows ? tr->nflows : 1) * sizeof *ix);
    struct fb *v = malloc((tr->nflows ? tr->nflows : 1) * sizeof *v);
    if (!ix || !v) {
        *nomem = true;
        free(ix);
        free(v);
        return NULL;
    }
    for (size_t i = 0; i < tr->nflows; i++)
        ix[i] = (uint32_t)i;
    sort_fl = tr->flows;
    qsort(ix, tr->nflows, sizeof *ix, cmp_flow_id);
    size_t m = 0;
    for (size_t i = 0; i < tr->nflows;) {
        const trace_flow *f0 = &tr->flows[ix[i]];
        size_t j = i;
        bool has_s = false, has_f = false;
        int64_t s_ts = 0, f_ts = 0;
        size_t first_s = 0;
        for (; j < tr->nflows && tr->flows[ix[j]].id == f0->id &&
               tr->flows[ix[j]].id_str == f0->id_str;
             j++) {
            const trace_flow *f = &tr->flows[ix[j]];
            if (f->ph == 's') {
                if (!has_s)
                    first_s = ix[j];
                has_s = true;
                s_ts = f->ts;
            } else if (f->ph == 'f') {
                has_f = true;
                f_ts = f->ts;
            }
        }
        if (has_s && has_f)
            v[m++] = (struct fb){ s_ts, f_ts, first_s };
        i = j;
    }
    free(ix);
    /* one per forward ts: the value of the id iterated last, the position
       of the first */
    qsort(v, m, sizeof *v, cmp_fb_fwd);
    size_t k = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && v[j].fwd == v[i].fwd)
            j++;
        v[k++] = (struct fb){ v[i].fwd, v[j - 1].bwd, v[i].order };
        i = j;
    }
    qsort(v, k, sizeof *v, cmp_fb_order);
    *n = k;
    return v;
}

static bool name_starts(const trace *tr, uint32_t e, const char *p)
{
    uint32_t nm = tr->events[e].name;
    return starts(trace_str(tr, nm), strtab_len(tr->strs, nm), p);
}

/* A BackwardNode the plugin made for a module call. */
struct bnode {
    int64_t start, end; /* its span: the module's, then its children's (fill_stats) */
    uint32_t parent;    /* bnode index, NONE at the top */
    bool top, has_children;
    int64_t cstart, cend_of_last; /* children sorted by (start, -end): the first start, the last end */
    int64_t last_start, last_end;
};

struct regroup {
    const trace *tr;
    const tbtree_bwd_node *c;
    struct bnode *bn;
    size_t nbn, capbn;
    uint32_t *att_bn, *att_grp; /* attachments: (bnode, group) */
    size_t natt, capatt;
    const struct fb *fwd;       /* sorted by forward ts */
    size_t nfwd;
    const uint32_t *fwd_grp;    /* per association: its group, NONE */
};

static void bn_child(struct bnode *b, int64_t s, int64_t e)
{
    /* the children sorted by (start, -end): first and last */
    if (!b->has_children || s < b->cstart)
        b->cstart = s;
    if (!b->has_children || s > b->last_start || (s == b->last_start && e < b->last_end)) {
        b->last_start = s;
        b->last_end = e;
    }
    b->has_children = true;
}

/* _build_backward_module: node k under BackwardNode cur (NONE at a top module) */
static int build_bmodule(struct regroup *g, uint32_t k, uint32_t cur)
{
    const tbtree_bwd_node *c = g->c;
    const trace_event *ev = &g->tr->events[c[k].event];
    if (c[k].module) {
        if (vec_grow_heap((void **)&g->bn, &g->capbn, g->nbn, sizeof *g->bn) < 0)
            return -1;
        uint32_t b = (uint32_t)g->nbn++;
        g->bn[b] = (struct bnode){ .start = ev->ts, .end = ev->ts + ev->dur, .parent = cur,
                                   .top = cur == NONE };
        cur = b;
    }
    for (uint32_t ch = c[k].first_child; ch != NONE; ch = c[ch].next_sibling) {
        if (!c[ch].live)
            continue;
        if (c[ch].is_operator && cur != NONE) {
            int64_t ts = g->tr->events[c[ch].event].ts;
            size_t lo = 0, hi = g->nfwd;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (g->fwd[mid].fwd < ts)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < g->nfwd && g->fwd[lo].fwd == ts && g->fwd_grp[lo] != NONE) {
                if (vec_grow_heap((void **)&g->att_bn, &g->capatt, g->natt, sizeof *g->att_bn) < 0)
                    return -1;
                size_t cap2 = g->capatt;
                uint32_t *na = realloc(g->att_grp, cap2 * sizeof *na);
                if (!na)
                    return -1;
                g->att_grp = na;
                g->att_bn[g->natt] = cur;
                g->att_grp[g->natt++] = g->fwd_grp[lo];
            }
        }
        if (build_bmodule(g, ch, cur) < 0)
            return -1;
    }
    return 0;
}

int tbtree_bwd_regroup(const trace *tr, const tbtree_bwd_node *c, size_t nc, const uint32_t *ord,
                       uint32_t *copies, uint64_t *roots, uint64_t *dropped)
{
    for (size_t i = 0; i < nc; i++)
        copies[i] = 1;
    *roots = *dropped = 0;
    if (!tr->nflows)
        return 0;
    bool nomem = false;
    size_t nfb = 0;
    struct fb *fb = associations(tr, &nfb, &nomem);
    if (nomem)
        return -1;
    int rc = -1;
    uint32_t *mods = NULL, *bw = NULL, *bwpar = NULL, *grp_of = NULL, *key_grp = NULL;
    uint32_t *fwd_grp = NULL, *stk = NULL, *gfirst = NULL;
    unsigned char *isbw = NULL;
    struct fb *byfwd = NULL;
    size_t nmods = 0, nbw = 0, ngrp = 0;
    hmap ts2p = { 0 }, pars = { 0 };
    struct regroup g = { .tr = tr, .c = c };
    if (!nfb) {
        rc = 0;
        goto out;
    }
    /* the main thread: the last with a step; else the longest but the backward one */
    uint32_t ngroups = 0;
    for (size_t i = 0; i < nc; i++)
        if (c[i].group + 1 > ngroups)
            ngroups = c[i].group + 1;
    uint32_t main_g = NONE, bwd_g = NONE;
    for (size_t i = 0; i < nc; i++)
        if (c[i].step && (main_g == NONE || c[i].group > main_g))
            main_g = c[i].group;
    if (main_g == NONE) {
        int64_t *first = calloc(ngroups + 1, sizeof *first), *last = calloc(ngroups + 1, sizeof *last);
        unsigned char *seen = calloc(ngroups + 1, 1);
        if (!first || !last || !seen) {
            free(first);
            free(last);
            free(seen);
            goto out;
        }
        for (size_t i = 0; i < nc; i++) {
            const tbtree_bwd_node *x = &c[ord[i]];
            if (!x->live || x->parent != NONE)
                continue;
            const trace_event *ev = &tr->events[x->event];
            if (!seen[x->group])
                first[x->group] = ev->ts;
            seen[x->group] = 1;
            last[x->group] = ev->ts + ev->dur;
            if (bwd_g == NONE && name_starts(tr, x->event, BWD_PREFIX))
                bwd_g = x->group; /* the first thread (in order) with a backward root */
        }
        int64_t best = 0;
        for (uint32_t k = 0; k < ngroups; k++)
            if (seen[k] && (ngroups == 1 || k != bwd_g) &&
                (main_g == NONE || last[k] - first[k] > best)) {
                main_g = k;
                best = last[k] - first[k];
            }
        free(first);
        free(last);
        free(seen);
    }
    /* _get_modules: the modules and backward roots at the top or under steps */
    mods = malloc(nc * sizeof *mods);
    bw = malloc(nc * sizeof *bw);
    bwpar = malloc(nc * sizeof *bwpar);
    stk = malloc(nc * sizeof *stk);
    if (!mods || !bw || !bwpar || !stk || hmap_init(&pars, 64) < 0)
        goto out;
    for (size_t i = 0; i < nc; i++) {
        uint32_t r = ord[i];
        if (!c[r].live || c[r].parent != NONE)
            continue;
        size_t sp = 0;
        stk[sp++] = r;
        /* a step's children in order: pushed in reverse onto the stack */
        while (sp) {
            uint32_t k = stk[--sp];
            uint32_t p = c[k].parent;
            if (c[k].module) {
                mods[nmods++] = k;
            } else if (c[k].step) {
                size_t base = sp;
                for (uint32_t ch = c[k].first_child; ch != NONE; ch = c[ch].next_sibling)
                    if (c[ch].live)
                        stk[sp++] = ch;
                for (size_t a = base, b = sp; a + 1 < b; a++, b--) {
                    uint32_t tmp = stk[a];
                    stk[a] = stk[b - 1];
                    stk[b - 1] = tmp;
                }
            } else if (name_starts(tr, c[k].event, BWD_PREFIX)) {
                /* its parent: the thread's root (by group) or the step */
                uint64_t pkey = p == NONE ? (uint64_t)1 << 40 | c[k].group : p;
                uint32_t pr = hmap_get(&pars, pkey);
                if (pr == UINT32_MAX) {
                    pr = (uint32_t)pars.n;
                    if (hmap_put(&pars, pkey, pr) < 0)
                        goto out;
                }
                bwpar[nbw] = pr;
                bw[nbw++] = k;
            }
        }
    }
    if (!nmods || !nbw) {
        rc = 0;
        goto out;
    }
    *roots = nbw;
    /* flattened by parent (first appearance), then in order */
    uint32_t *tmp = malloc(nbw * sizeof *tmp);
    if (!tmp) {
        free(tmp);
        goto out;
    }
    {
        size_t np = pars.n, *cnt = calloc(np + 1, sizeof *cnt);
        if (!cnt) {
            free(tmp);
            goto out;
        }
        for (size_t i = 0; i < nbw; i++)
            cnt[bwpar[i] + 1]++;
        for (size_t i = 1; i <= np; i++)
            cnt[i] += cnt[i - 1];
        for (size_t i = 0; i < nbw; i++)
            tmp[cnt[bwpar[i]]++] = bw[i];
        memcpy(bw, tmp, nbw * sizeof *bw);
        free(cnt);
        free(tmp);
    }
    isbw = calloc(nc, 1);
    if (!isbw)
        goto out;
    for (size_t i = 0; i < nbw; i++) {
        isbw[bw[i]] = 1;
        copies[bw[i]] = 0;
    }
    /* ts -> parent over the backward subtrees (the first seen), preorder */
    if (hmap_init(&ts2p, 256) < 0)
        goto out;
    for (size_t i = 0; i < nbw; i++) {
        size_t sp = 0;
        stk[sp++] = bw[i];
        while (sp) {
            uint32_t k = stk[--sp];
            size_t base = sp;
            for (uint32_t ch = c[k].first_child; ch != NONE; ch = c[ch].next_sibling) {
                if (!c[ch].live)
                    continue;
                uint64_t key = (uint64_t)tr->events[c[ch].event].ts;
                if (hmap_get(&ts2p, key) == UINT32_MAX && hmap_put(&ts2p, key, k) < 0)
                    goto out;
                stk[sp++] = ch;
            }
            for (size_t a = base, b = sp; a + 1 < b; a++, b--) {
                uint32_t x = stk[a];
                stk[a] = stk[b - 1];
                stk[b - 1] = x;
            }
        }
    }
    /* groups: a root and the AccumulateGrad roots after it */
    grp_of = malloc(nbw * sizeof *grp_of);
    gfirst = malloc(nbw * sizeof *gfirst);
    key_grp = malloc(nc * sizeof *key_grp);
    if (!grp_of || !gfirst || !key_grp)
        goto out;
    for (size_t i = 0; i < nc; i++)
        key_grp[i] = NONE;
    for (size_t i = 0; i < nbw; i++) {
        uint32_t nm = tr->events[c[bw[i]].event].name;
        bool acc = strtab_len(tr->strs, nm) == strlen(BWD_ACCUMULATE) &&
                   !memcmp(trace_str(tr, nm), BWD_ACCUMULATE, strlen(BWD_ACCUMULATE));
        if (!acc || !ngrp) {
            gfirst[ngrp] = (uint32_t)i;
            key_grp[bw[i]] = (uint32_t)ngrp++;
        }
        grp_of[i] = (uint32_t)ngrp - 1;
    }
    /* _get_backward_roots: each association's group, popped once */
    unsigned char *popped = calloc(ngrp + 1, 1);
    fwd_grp = malloc(nfb * sizeof *fwd_grp);
    byfwd = malloc(nfb * sizeof *byfwd);
    if (!popped || !fwd_grp || !byfwd) {
        free(popped);
        goto out;
    }
    memcpy(byfwd, fb, nfb * sizeof *fb);
    qsort(byfwd, nfb, sizeof *byfwd, cmp_fb_fwd);
    for (size_t i = 0; i < nfb; i++) {
        uint32_t p = hmap_get(&ts2p, (uint64_t)fb[i].bwd);
        for (size_t guard = 0; p != UINT32_MAX && !name_starts(tr, c[p].event, BWD_PREFIX) &&
                               guard < nc; guard++) {
            uint32_t q = hmap_get(&ts2p, (uint64_t)tr->events[c[p].event].ts);
            p = q == p ? UINT32_MAX : q;
        }
        uint32_t gi = p == UINT32_MAX ? NONE : key_grp[p];
        /* the plugin pops the group; a second pop of one would stop it (KeyError) */
        if (gi != NONE && popped[gi])
            gi = NONE;
        if (gi != NONE)
            popped[gi] = 1;
        /* into byfwd's order: find this forward ts there */
        size_t lo = 0, hi = nfb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (byfwd[mid].fwd < fb[i].fwd)
                lo = mid + 1;
            else
                hi = mid;
        }
        fwd_grp[lo] = gi;
    }
    free(popped);
    /* _build_backward_module over the modules */
    g.fwd = byfwd;
    g.nfwd = nfb;
    g.fwd_grp = fwd_grp;
    for (size_t i = 0; i < nmods; i++)
        if (build_bmodule(&g, mods[i], NONE) < 0)
            goto out;
    /* the nodes' spans: their children's (BackwardNode.fill_stats), children first */
    for (size_t a = 0; a < g.natt; a++) {
        struct bnode *b = &g.bn[g.att_bn[a]];
        uint32_t gi = g.att_grp[a];
        for (size_t i = gfirst[gi]; i < nbw && grp_of[i] == gi; i++) {
            const trace_event *ev = &tr->events[c[bw[i]].event];
            bn_child(b, ev->ts, ev->ts + ev->dur);
        }
    }
    for (size_t i = g.nbn; i-- > 0;) {
        struct bnode *b = &g.bn[i];
        if (b->has_children) {
            b->start = b->cstart;
            b->end = b->last_end;
        }
        if (b->parent != NONE)
            bn_child(&g.bn[b->parent], b->start, b->end);
    }
    /* _insert_backward_modules: a top node outside the main thread's span is left out */
    int64_t rs = 0, re = 0;
    bool any = false;
    for (size_t i = 0; i < nc; i++) {
        const tbtree_bwd_node *x = &c[ord[i]];
        if (x->group != main_g || !x->live || x->parent != NONE)
            continue;
        const trace_event *ev = &tr->events[x->event];
        if (!any)
            rs = ev->ts;
        re = ev->ts + ev->dur;
        any = true;
    }
    for (size_t a = 0; a < g.natt; a++) {
        uint32_t b = g.att_bn[a];
        while (g.bn[b].parent != NONE)
            b = g.bn[b].parent;
        if (!any || g.bn[b].end < rs || g.bn[b].start > re)
            continue;
        uint32_t gi = g.att_grp[a];
        for (size_t i = gfirst[gi]; i < nbw && grp_of[i] == gi; i++)
            copies[bw[i]]++;
    }
    for (size_t i = 0; i < nbw; i++)
        if (!copies[bw[i]])
            (*dropped)++;
    /* their subtrees go with them: parents come first in ord */
    for (size_t i = 0; i < nc; i++) {
        uint32_t k = ord[i];
        if (!isbw[k] && c[k].parent != NONE)
            copies[k] = copies[c[k].parent];
    }
    rc = 0;
out:
    free(fb);
    free(mods);
    free(bw);
    free(bwpar);
    free(stk);
    free(grp_of);
    free(gfirst);
    free(key_grp);
    free(fwd_grp);
    free(byfwd);
    free(isbw);
    free(g.bn);
    free(g.att_bn);
    free(g.att_grp);
    hmap_done(&ts2p);
    hmap_done(&pars);
    return rc;
}

