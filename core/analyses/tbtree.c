/* TensorBoard's operator tree (see tbtree.h for the rules and why they are
   not the model's). O(n log n): one sort of the candidate nodes, then
   linear passes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/analyses/tbtree.h"
#include "core/analyses/tc_allowlist.h"
#include "core/base/hmap.h"
#include "core/model/catkind.h"

/* A candidate node while building. */
struct cand {
    uint32_t event;
    uint32_t group;  /* the rank of its tid, in order of first appearance */
    uint32_t parent, first_child, last_child, next_sibling;
    uint32_t rt_src; /* the candidate whose runtime calls it has (remove_dup_nodes) */
    uint8_t kind;
    bool op_type, is_operator, dropped, absorbed, tc_eligible;
    uint32_t operators;
    int64_t rt_host, rt_dev, rt_tc;     /* its own runtime calls (by External id) */
    int64_t child_dur, child_dev, child_tc, op_child_dev;
    bool child_elig;
    uint32_t post;
    uint32_t copies; /* how many times the plugin's tree holds it (regroup_backward) */
    bool bwd;        /* a backward root the plugin took out to regroup */
    int64_t self_ns, dev_self, dev_total, tc_self, tc_total;
};

static const char *const comm_names[] = {
    "nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter",
    "gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter",
};

static bool starts(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && !memcmp(s, p, k);
}

static bool ends(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && !memcmp(s + n - k, p, k);
}

static bool is_name(const char *s, size_t n, const char *p)
{
    return strlen(p) == n && !memcmp(s, p, n);
}

static enum catkind kind_of(const model *m, uint32_t cat)
{
    if (cat < m->ncatkind)
        return (enum catkind)m->catkind[cat];
    const trace *tr = m->tr;
    return catkind_of(trace_str(tr, cat), strtab_len(tr->strs, cat));
}

/* Whether event e is a node, and of what kind (the plugin's
   create_trace_event and create_operator_node). */
static bool classify(const model *m, uint32_t e, bool module, struct cand *c)
{
    const trace *tr = m->tr;
    const trace_event *ev = &tr->events[e];
    enum catkind k = kind_of(m, ev->cat);
    const char *name = trace_str(tr, ev->name);
    size_t n = strtab_len(tr->strs, ev->name);
    bool ann = k == CATKIND_USER_ANNOTATION || k == CATKIND_GPU_ANNOTATION;
    /* an event without category reads as cpu_op to the model (the legacy
       profiler); the plugin had no type for it */
    bool op = k == CATKIND_CPU_OP && strtab_len(tr->strs, ev->cat) > 0;
    c->op_type = false;
    if (k == CATKIND_PYTHON_FUNCTION) {
        if (!module)
            return false;
        c->kind = TBTREE_MODULE;
        return true;
    }
    if (!op && !ann && k != CATKIND_PYTHON)
        return false;
    if ((op || ann) && starts(name, n, "ProfilerStep#")) {
        c->kind = TBTREE_STEP;
        return true;
    }
    c->op_type = op;
    if ((starts(name, n, "enumerate(DataLoader)#") && ends(name, n, ".__next__")) ||
        starts(name, n, "enumerate(DataPipe)#")) {
        c->kind = TBTREE_DATALOADER;
        return true;
    }
    if (starts(name, n, "Optimizer.step")) {
        c->kind = TBTREE_OPTIMIZER;
        return true;
    }
    if (ann) {
        bool comm = false;
        for (size_t i = 0; i < sizeof comm_names / sizeof comm_names[0]; i++)
            comm = comm || is_name(name, n, comm_names[i]);
        if (!comm)
            return false;
    }
    c->kind = TBTREE_OP;
    c->is_operator = op && !is_name(name, n, "DataParallel.forward") &&
                     !is_name(name, n, "DistributedDataParallel.forward") &&
                     !starts(name, n, "Optimizer.");
    return true;
}

static const trace_event *sort_ev;
static const struct cand *sort_c;

/* by thread, then (start, -end), then file order (Python's stable sort) */
static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = &sort_c[*(const uint32_t *)a], *y = &sort_c[*(const uint32_t *)b];
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    const trace_event *ex = &sort_ev[x->event], *ey = &sort_ev[y->event];
    if (ex->ts != ey->ts)
        return ex->ts < ey->ts ? -1 : 1;
    int64_t ax = ex->ts + ex->dur, ay = ey->ts + ey->dur;
    if (ax != ay)
        return ax > ay ? -1 : 1;
    return x->event < y->event ? -1 : x->event > y->event;
}

/* by start time, then file order */
static int cmp_ts(const void *a, const void *b)
{
    const struct cand *x = &sort_c[*(const uint32_t *)a], *y = &sort_c[*(const uint32_t *)b];
    const trace_event *ex = &sort_ev[x->event], *ey = &sort_ev[y->event];
    if (ex->ts != ey->ts)
        return ex->ts < ey->ts ? -1 : 1;
    return x->event < y->event ? -1 : x->event > y->event;
}

static void add_child(struct cand *c, uint32_t p, uint32_t k)
{
    c[k].parent = p;
    if (c[p].first_child == MODEL_NONE)
        c[p].first_child = k;
    else
        c[c[p].last_child].next_sibling = k;
    c[p].last_child = k;
}

/* remove_dup_nodes on candidate k (not absorbed): while its only child is
   an operator of its name (both of operator category), take the child's
   children and runtime calls in its place. */
static void absorb(struct cand *c, const trace *tr, uint32_t k, uint64_t *absorbed)
{
    for (;;) {
        uint32_t ch = c[k].first_child;
        if (ch == MODEL_NONE || c[ch].next_sibling != MODEL_NONE)
            return;
        if (!c[k].op_type || !c[ch].op_type ||
            tr->events[c[k].event].name != tr->events[ch == MODEL_NONE ? 0 : c[ch].event].name)
            return;
        c[ch].absorbed = true;
        (*absorbed)++;
        c[k].first_child = c[ch].first_child;
        c[k].last_child = c[ch].last_child;
        c[k].rt_src = c[ch].rt_src;
        for (uint32_t g = c[k].first_child; g != MODEL_NONE; g = c[g].next_sibling)
            c[g].parent = k;
    }
}

/* ---- the plugin's backward regrouping (op_tree.py, build_tree) ---- */

#define BWD_PREFIX "autograd::engine::evaluate_function:"
#define BWD_ACCUMULATE "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"

/* A forward-backward association: the plugin's create_association_events
   keyed by the flow ends' timestamps alone. */
struct fb {
    int64_t fwd, bwd;
    size_t order; /* the forward ts's first insertion (dict order) */
};

static const trace_flow *sort_fl;

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
    uint32_t parent;    /* bnode index, MODEL_NONE at the top */
    bool top, has_children;
    int64_t cstart, cend_of_last; /* children sorted by (start, -end): the first start, the last end */
    int64_t last_start, last_end;
};

struct regroup {
    const trace *tr;
    struct cand *c;
    struct bnode *bn;
    size_t nbn, capbn;
    uint32_t *att_bn, *att_grp; /* attachments: (bnode, group) */
    size_t natt, capatt;
    const struct fb *fwd;       /* sorted by forward ts */
    size_t nfwd;
    const uint32_t *fwd_grp;    /* per association: its group, MODEL_NONE */
};

static int rg_grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 64;
    void *np = realloc(*p, ncap * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

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

/* _build_backward_module: node k under BackwardNode cur (MODEL_NONE at a top module) */
static int build_bmodule(struct regroup *g, uint32_t k, uint32_t cur)
{
    struct cand *c = g->c;
    const trace_event *ev = &g->tr->events[c[k].event];
    if (c[k].kind == TBTREE_MODULE) {
        if (rg_grow((void **)&g->bn, &g->capbn, g->nbn, sizeof *g->bn) < 0)
            return -1;
        uint32_t b = (uint32_t)g->nbn++;
        g->bn[b] = (struct bnode){ .start = ev->ts, .end = ev->ts + ev->dur, .parent = cur,
                                   .top = cur == MODEL_NONE };
        cur = b;
    }
    for (uint32_t ch = c[k].first_child; ch != MODEL_NONE; ch = c[ch].next_sibling) {
        if (c[ch].dropped || c[ch].absorbed)
            continue;
        if (c[ch].is_operator && cur != MODEL_NONE) {
            int64_t ts = g->tr->events[c[ch].event].ts;
            size_t lo = 0, hi = g->nfwd;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (g->fwd[mid].fwd < ts)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < g->nfwd && g->fwd[lo].fwd == ts && g->fwd_grp[lo] != MODEL_NONE) {
                if (rg_grow((void **)&g->att_bn, &g->capatt, g->natt, sizeof *g->att_bn) < 0)
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

/* The plugin's regrouping when a trace has nn.Module calls and forward-
   backward flows (op_tree.py: _get_modules, _get_backward_roots,
   _build_backward_module, _insert_backward_modules): it takes every
   backward root ("autograd::engine::evaluate_function: ...", at the top of
   a thread or right under a step) out of its place; a root (with the
   AccumulateGrad roots after it) comes back under the module ".backward"
   node of each module operator whose start is a flow's forward ts and
   whose backward ts starts a node inside it; the others are gone. Sets each
   candidate's copies (0: gone, 2: placed twice); t's counts. -1 when out
   of memory. Not replicated: the order the moved nodes take in the
   operator list, and a ".backward" node that the plugin's insertion walk
   misses inside a node it descended into (it only checks the thread's
   span here). */
static int regroup_backward(const trace *tr, struct cand *c, size_t nc, const uint32_t *ord,
                            tbtree *t)
{
    for (size_t i = 0; i < nc; i++)
        c[i].copies = 1;
    if (!tr->nflows)
        return 0;
    bool nomem = false;
    size_t nfb = 0;
    struct fb *fb = associations(tr, &nfb, &nomem);
    if (nomem)
        return -1;
    int rc = -1;
    uint32_t *mods = NULL, *bw = NULL, *bwpar = NULL, *grp_of = NULL, *key_grp = NULL;
    uint32_t *fwd_grp = NULL, *stk = NULL, *gfirst = NULL, *bw_ix = NULL;
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
    uint32_t main_g = MODEL_NONE, bwd_g = MODEL_NONE;
    for (size_t i = 0; i < nc; i++)
        if (c[i].kind == TBTREE_STEP && (main_g == MODEL_NONE || c[i].group > main_g))
            main_g = c[i].group;
    if (main_g == MODEL_NONE) {
        int64_t *first = calloc(ngroups + 1, sizeof *first), *last = calloc(ngroups + 1, sizeof *last);
        unsigned char *seen = calloc(ngroups + 1, 1);
        if (!first || !last || !seen) {
            free(first);
            free(last);
            free(seen);
            goto out;
        }
        for (size_t i = 0; i < nc; i++) {
            const struct cand *x = &c[ord[i]];
            if (x->dropped || x->absorbed || x->parent != MODEL_NONE)
                continue;
            const trace_event *ev = &tr->events[x->event];
            if (!seen[x->group])
                first[x->group] = ev->ts;
            seen[x->group] = 1;
            last[x->group] = ev->ts + ev->dur;
            if (bwd_g == MODEL_NONE && name_starts(tr, x->event, BWD_PREFIX))
                bwd_g = x->group; /* the first thread (in order) with a backward root */
        }
        int64_t best = 0;
        for (uint32_t k = 0; k < ngroups; k++)
            if (seen[k] && (ngroups == 1 || k != bwd_g) &&
                (main_g == MODEL_NONE || last[k] - first[k] > best)) {
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
        if (c[r].dropped || c[r].absorbed || c[r].parent != MODEL_NONE)
            continue;
        size_t sp = 0;
        stk[sp++] = r;
        /* a step's children in order: pushed in reverse onto the stack */
        while (sp) {
            uint32_t k = stk[--sp];
            uint32_t p = c[k].parent;
            if (c[k].kind == TBTREE_MODULE) {
                mods[nmods++] = k;
            } else if (c[k].kind == TBTREE_STEP) {
                size_t base = sp;
                for (uint32_t ch = c[k].first_child; ch != MODEL_NONE; ch = c[ch].next_sibling)
                    if (!c[ch].dropped && !c[ch].absorbed)
                        stk[sp++] = ch;
                for (size_t a = base, b = sp; a + 1 < b; a++, b--) {
                    uint32_t tmp = stk[a];
                    stk[a] = stk[b - 1];
                    stk[b - 1] = tmp;
                }
            } else if (name_starts(tr, c[k].event, BWD_PREFIX)) {
                /* its parent: the thread's root (by group) or the step */
                uint64_t pkey = p == MODEL_NONE ? (uint64_t)1 << 40 | c[k].group : p;
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
    t->backward_roots = nbw;
    /* flattened by parent (first appearance), then in order */
    bw_ix = malloc(nbw * sizeof *bw_ix);
    uint32_t *tmp = malloc(nbw * sizeof *tmp);
    if (!bw_ix || !tmp) {
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
    for (size_t i = 0; i < nbw; i++) {
        c[bw[i]].bwd = true;
        c[bw[i]].copies = 0;
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
            for (uint32_t ch = c[k].first_child; ch != MODEL_NONE; ch = c[ch].next_sibling) {
                if (c[ch].dropped || c[ch].absorbed)
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
        key_grp[i] = MODEL_NONE;
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
        uint32_t gi = p == UINT32_MAX ? MODEL_NONE : key_grp[p];
        /* the plugin pops the group; a second pop of one would stop it (KeyError) */
        if (gi != MODEL_NONE && popped[gi])
            gi = MODEL_NONE;
        if (gi != MODEL_NONE)
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
        if (build_bmodule(&g, mods[i], MODEL_NONE) < 0)
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
        if (b->parent != MODEL_NONE)
            bn_child(&g.bn[b->parent], b->start, b->end);
    }
    /* _insert_backward_modules: a top node outside the main thread's span is left out */
    int64_t rs = 0, re = 0;
    bool any = false;
    for (size_t i = 0; i < nc; i++) {
        const struct cand *x = &c[ord[i]];
        if (x->group != main_g || x->dropped || x->absorbed || x->parent != MODEL_NONE)
            continue;
        const trace_event *ev = &tr->events[x->event];
        if (!any)
            rs = ev->ts;
        re = ev->ts + ev->dur;
        any = true;
    }
    for (size_t a = 0; a < g.natt; a++) {
        uint32_t b = g.att_bn[a];
        while (g.bn[b].parent != MODEL_NONE)
            b = g.bn[b].parent;
        if (!any || g.bn[b].end < rs || g.bn[b].start > re)
            continue;
        uint32_t gi = g.att_grp[a];
        for (size_t i = gfirst[gi]; i < nbw && grp_of[i] == gi; i++)
            c[bw[i]].copies++;
    }
    for (size_t i = 0; i < nbw; i++)
        if (!c[bw[i]].copies)
            t->backward_dropped++;
    /* their subtrees go with them: parents come first in ord */
    for (size_t i = 0; i < nc; i++) {
        struct cand *x = &c[ord[i]];
        if (!x->bwd && x->parent != MODEL_NONE)
            x->copies = c[x->parent].copies;
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
    free(bw_ix);
    free(g.bn);
    free(g.att_bn);
    free(g.att_grp);
    hmap_done(&ts2p);
    hmap_done(&pars);
    return rc;
}

tbtree *tbtree_build(const model *m, t2p_error *err)
{
    const trace *tr = m->tr;
    tbtree *t = calloc(1, sizeof *t);
    struct cand *c = NULL;
    uint32_t *ord = NULL, *stack = NULL, *newidx = NULL;
    hmap groups = { 0 }, byext = { 0 }, tcname = { 0 };
    if (!t || hmap_init(&groups, 64) < 0 || hmap_init(&byext, 1024) < 0 ||
        hmap_init(&tcname, 256) < 0)
        goto nomem;
    t->m = m;

    /* the candidates, in file order */
    size_t nc = 0, cap = 0, py = 0;
    uint32_t ngroups = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        while (py < tr->npyids && tr->pyids[py].event < e)
            py++;
        bool module = py < tr->npyids && tr->pyids[py].event == e &&
                      (tr->pyids[py].has & TRACE_PY_MODULE);
        struct cand x = { 0 };
        if (!classify(m, (uint32_t)e, module, &x))
            continue;
        if (nc == cap) {
            size_t ncap = cap ? cap * 2 : 1024;
            struct cand *nv = realloc(c, ncap * sizeof *nv);
            if (!nv)
                goto nomem;
            c = nv;
            cap = ncap;
        }
        x.event = (uint32_t)e;
        x.parent = x.first_child = x.last_child = x.next_sibling = MODEL_NONE;
        x.rt_src = (uint32_t)nc;
        c[nc++] = x;
    }

    /* The plugin reads the events sorted by start time (a stable sort):
       its threads come in the order of their first node by time, and a
       runtime call goes to the first node with its External id, by thread
       then by time; an nn.Module call has none (the plugin drops its id),
       like an event without one. */
    ord = malloc((nc ? nc : 1) * sizeof *ord);
    stack = malloc((nc ? nc : 1) * sizeof *stack);
    if (!ord || !stack)
        goto nomem;
    for (size_t i = 0; i < nc; i++)
        ord[i] = (uint32_t)i;
    sort_ev = tr->events;
    sort_c = c;
    qsort(ord, nc, sizeof *ord, cmp_ts);
    for (size_t i = 0; i < nc; i++) {
        struct cand *x = &c[ord[i]];
        uint32_t tid = tr->tracks[tr->events[x->event].track].tid;
        uint32_t g = hmap_get(&groups, tid);
        if (g == UINT32_MAX) {
            g = ngroups++;
            if (hmap_put(&groups, tid, g) < 0)
                goto nomem;
        }
        x->group = g;
        uint64_t key = x->kind == TBTREE_MODULE ? 0 : tr->events[x->event].ext;
        uint32_t have = hmap_get(&byext, key);
        if ((have == UINT32_MAX || c[have].group > g) && hmap_put(&byext, key, ord[i]) < 0)
            goto nomem;
    }

    /* runtime calls and the GPU work they launched */
    for (size_t e = 0; e < tr->nevents; e++) {
        const trace_event *ev = &tr->events[e];
        if (kind_of(m, ev->cat) != CATKIND_RUNTIME)
            continue;
        uint32_t o = hmap_get(&byext, ev->ext);
        if (o != UINT32_MAX)
            c[o].rt_host += ev->dur;
    }
    for (size_t i = 0; m->corr_launch && i < tr->ncorrs; i++) {
        uint32_t r = m->corr_launch[i];
        if (r == MODEL_NONE || kind_of(m, tr->events[r].cat) != CATKIND_RUNTIME)
            continue;
        const trace_event *g = &tr->events[tr->corrs[i].event];
        enum catkind gk = kind_of(m, g->cat);
        if (gk != CATKIND_KERNEL && gk != CATKIND_MEMCPY && gk != CATKIND_MEMSET)
            continue;
        uint32_t o = hmap_get(&byext, tr->events[r].ext);
        if (o == UINT32_MAX)
            continue;
        c[o].rt_dev += g->dur;
        /* per kernel name once: millions of launches share a few hundred names */
        uint32_t tc = hmap_get(&tcname, g->name);
        if (tc == UINT32_MAX) {
            tc = tc_kernel_uses(trace_str(tr, g->name), strtab_len(tr->strs, g->name));
            if (hmap_put(&tcname, g->name, tc) < 0)
                goto nomem;
        }
        if (tc)
            c[o].rt_tc += g->dur;
    }

    /* nesting per thread */
    for (size_t i = 0; i < nc; i++)
        ord[i] = (uint32_t)i;
    qsort(ord, nc, sizeof *ord, cmp_cand);
    size_t sp = 0;
    for (size_t i = 0; i < nc; i++) {
        uint32_t k = ord[i];
        if (i && c[ord[i - 1]].group != c[k].group)
            sp = 0;
        const trace_event *ev = &tr->events[c[k].event];
        int64_t end = ev->ts + ev->dur;
        while (sp) {
            const trace_event *tv = &tr->events[c[stack[sp - 1]].event];
            if (ev->ts < tv->ts + tv->dur)
                break;
            sp--;
        }
        if (sp) {
            const trace_event *tv = &tr->events[c[stack[sp - 1]].event];
            if (end > tv->ts + tv->dur) {
                c[k].dropped = true;
                t->dropped++;
                continue;
            }
            add_child(c, stack[sp - 1], k);
        }
        stack[sp++] = k;
    }
    for (size_t i = 0; i < nc; i++)
        if (!c[ord[i]].dropped && !c[ord[i]].absorbed)
            absorb(c, tr, ord[i], &t->absorbed);

    /* figures, children before parents (later in the sorted order) */
    for (size_t i = nc; i-- > 0;) {
        struct cand *x = &c[ord[i]];
        if (x->dropped || x->absorbed)
            continue;
        const trace_event *ev = &tr->events[x->event];
        const struct cand *s = &c[x->rt_src];
        x->self_ns = ev->dur - x->child_dur - s->rt_host;
        x->dev_total = x->child_dev + s->rt_dev;
        x->dev_self = s->rt_dev + (x->kind == TBTREE_MODULE ? x->op_child_dev : 0);
        x->tc_self = s->rt_tc;
        x->tc_total = x->child_tc + s->rt_tc;
        x->tc_eligible = tc_op_eligible(trace_str(tr, ev->name), strtab_len(tr->strs, ev->name)) ||
                         (x->op_type && x->kind != TBTREE_STEP && (x->child_elig || s->rt_tc > 0));
        if (x->parent != MODEL_NONE) {
            struct cand *p = &c[x->parent];
            p->child_dur += ev->dur;
            p->child_dev += x->dev_total;
            p->child_tc += x->tc_total;
            p->child_elig = p->child_elig || x->tc_eligible;
            if (x->is_operator) {
                p->operators++;
                p->op_child_dev += x->dev_total;
            }
        }
    }

    /* the plugin's operator list order: per thread, children before
       their parent (get_operator_and_kernels) */
    uint32_t rank = 0;
    for (size_t i = 0; i < nc; i++) {
        uint32_t r = ord[i];
        if (c[r].dropped || c[r].absorbed || c[r].parent != MODEL_NONE)
            continue;
        /* iterative post-order from root r */
        size_t top = 0;
        stack[top++] = r;
        uint32_t k = r;
        while (c[k].first_child != MODEL_NONE) {
            k = c[k].first_child;
            stack[top++] = k;
        }
        while (top) {
            k = stack[--top];
            c[k].post = rank++;
            if (top && c[k].next_sibling != MODEL_NONE) {
                k = c[k].next_sibling;
                stack[top++] = k;
                while (c[k].first_child != MODEL_NONE) {
                    k = c[k].first_child;
                    stack[top++] = k;
                }
            }
        }
    }

    /* what the plugin regroups when modules and flows meet (see tbtree.h) */
    if (regroup_backward(tr, c, nc, ord, t) < 0)
        goto nomem;

    /* the nodes left, in the sorted order */
    newidx = malloc((nc ? nc : 1) * sizeof *newidx);
    t->nodes = malloc((nc ? nc : 1) * sizeof *t->nodes);
    if (!newidx || !t->nodes)
        goto nomem;
    for (size_t i = 0; i < nc; i++) {
        const struct cand *x = &c[ord[i]];
        newidx[ord[i]] = x->dropped || x->absorbed ? MODEL_NONE : (uint32_t)t->n++;
    }
    for (size_t i = 0; i < nc; i++) {
        const struct cand *x = &c[ord[i]];
        if (x->dropped || x->absorbed)
            continue;
        const trace_event *ev = &tr->events[x->event];
        t->nodes[newidx[ord[i]]] = (tbtree_node){
            .event = x->event,
            .parent = x->parent == MODEL_NONE ? MODEL_NONE : newidx[x->parent],
            .first_child = x->first_child == MODEL_NONE ? MODEL_NONE : newidx[x->first_child],
            .next_sibling = x->next_sibling == MODEL_NONE ? MODEL_NONE : newidx[x->next_sibling],
            .kind = x->kind, .op_type = x->op_type, .is_operator = x->is_operator,
            .tc_eligible = x->tc_eligible, .operators = x->operators, .post = x->post,
            .self_ns = x->self_ns, .total_ns = ev->dur,
            .dev_self_ns = x->dev_self, .dev_total_ns = x->dev_total,
            .tc_self_ns = x->tc_self, .tc_total_ns = x->tc_total, .copies = x->copies,
        };
    }
    free(c);
    free(ord);
    free(stack);
    free(newidx);
    hmap_done(&groups);
    hmap_done(&byext);
    hmap_done(&tcname);
    return t;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory");
    free(c);
    free(ord);
    free(stack);
    free(newidx);
    hmap_done(&groups);
    hmap_done(&byext);
    hmap_done(&tcname);
    tbtree_free(t);
    return NULL;
}

void tbtree_free(tbtree *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t);
}
