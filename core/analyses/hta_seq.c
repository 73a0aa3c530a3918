/* HTA's CudaKernelAnalysis.get_frequent_cuda_kernel_sequences: the calls of
   operators whose name contains opts.seq_op, at the smallest call depth
   among them, that launched at least seq_min_len GPU events; each call's
   pattern is its name and the names of the GPU events it launched (through
   anything under it on its thread) in start order. Patterns are counted
   with their GPU and CPU time, most frequent first, then by their text
   ("op|kernel|kernel...").

   HTA's call graph also ties the autograd thread to the main one
   (CallGraph._connect_stacks): when exactly one CPU thread has a
   "ProfilerStep#..." event (the main one) and exactly one other has an
   "autograd::..." event (the backward one), each top-level call of the
   backward thread that lies within a main-thread "## backward ##..." event
   (else within a "ProfilerStep#..." event; the first in file order that
   holds it) hangs under it. So a step's pattern holds the kernels launched
   by the backward calls of that step, and a call on the backward thread
   stands deeper. By time and thread alone: HTA does not read the fwdbwd
   flows for this (its add_fwd_bwd_links matches nothing once the parser
   has encoded the categories and dropped the events without a duration). */
#include "config.h"

#include "core/analyses/hta_seq.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/vec.h"

/* A launched GPU event, keyed by its launch's (track, start). */
struct lk {
    uint32_t track;
    uint32_t gpu;
    int64_t ts, end;
};

struct gk {
    int64_t ts;
    uint32_t gpu, name;
};

static int cmp_gk(const void *pa, const void *pb)
{
    const struct gk *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->gpu < b->gpu ? -1 : a->gpu > b->gpu;
}

/* One call's pattern: names[first .. first + len) in the pool. */
struct occ {
    size_t first, len;
    int64_t gpu_ns, cpu_ns;
};

struct cmp_env {
    const trace *tr;
    const uint32_t *pool;
};

/* Byte i of the text "name0|name1|..." of a pattern; -1 past its end. */
static int pat_byte(const struct cmp_env *env, const uint32_t *p, size_t n, size_t *el,
                    size_t *off)
{
    while (*el < n) {
        size_t len = strtab_len(env->tr->strs, p[*el]);
        if (*off < len)
            return (unsigned char)trace_str(env->tr, p[*el])[(*off)++];
        if (*off == len && *el + 1 < n) {
            (*el)++;
            *off = 0;
            return '|';
        }
        (*el)++;
        *off = 0;
    }
    return -1;
}

static int cmp_text(const struct cmp_env *env, const uint32_t *a, size_t na, const uint32_t *b,
                    size_t nb)
{
    size_t ea = 0, oa = 0, eb = 0, ob = 0;
    for (;;) {
        int x = pat_byte(env, a, na, &ea, &oa), y = pat_byte(env, b, nb, &eb, &ob);
        if (x != y)
            return x < y ? -1 : 1;
        if (x < 0)
            return 0;
    }
}

/* a stable merge sort whose comparison reads an environment (qsort has none) */
typedef int (*cmp_fn)(const struct cmp_env *, const void *, const void *);

static void msort(void *base, void *tmp, size_t n, size_t sz, cmp_fn cmp,
                  const struct cmp_env *env)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    char *a = base, *t = tmp;
    msort(a, t, h, sz, cmp, env);
    msort(a + h * sz, t, n - h, sz, cmp, env);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (cmp(env, a + j * sz, a + i * sz) < 0)
            memcpy(t + k++ * sz, a + j++ * sz, sz);
        else
            memcpy(t + k++ * sz, a + i++ * sz, sz);
    }
    while (i < h)
        memcpy(t + k++ * sz, a + i++ * sz, sz);
    while (j < n)
        memcpy(t + k++ * sz, a + j++ * sz, sz);
    memcpy(a, t, n * sz);
}

static int cmp_occ(const struct cmp_env *env, const void *pa, const void *pb)
{
    const struct occ *a = pa, *b = pb;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    for (size_t i = 0; i < a->len; i++)
        if (env->pool[a->first + i] != env->pool[b->first + i])
            return env->pool[a->first + i] < env->pool[b->first + i] ? -1 : 1;
    return 0;
}

static int cmp_seq(const struct cmp_env *env, const void *pa, const void *pb)
{
    const hta_seq *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return cmp_text(env, env->pool + a->first, a->len, env->pool + b->first, b->len);
}

/* A top-level call of the backward thread tied to a main-thread event. */
struct blink {
    int64_t ats, aend;  /* the main-thread event's span */
    uint32_t adepth;    /* its model depth */
    uint32_t t;         /* the backward call */
};

static int cmp_blink_a(const void *pa, const void *pb)
{
    const struct blink *a = pa, *b = pb;
    if (a->ats != b->ats)
        return a->ats < b->ats ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* Sorts idx[0..n) by the start of an event, ties by the event's index: the
   event being idx[i] itself, or with bl, bl[idx[i]].t. Two stable radix
   passes (index, then start) through the sorter so, instead of qsort, whose
   comparator would need the trace in a file-level variable (C11 has no
   qsort_r) that two hta_build calls on two threads would race on. -1 when
   out of memory. */
static int sort_by_start(hta_sorter *so, const trace *tr, uint32_t *idx, size_t n,
                         const struct blink *bl)
{
    if (hta_sorter_reserve(so, n) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        so->idx[i] = idx[i];
        so->key[i] = bl ? bl[idx[i]].t : idx[i];
    }
    hta_sorter_pass(so, n);
    for (size_t i = 0; i < n; i++)
        so->key[i] = hta_key_i64(tr->events[bl ? bl[so->idx[i]].t : so->idx[i]].ts);
    hta_sorter_pass(so, n);
    memcpy(idx, so->idx, n * sizeof *idx);
    return 0;
}

enum { NB_DONE = 1, NB_STEP = 2, NB_AUTOGRAD = 4, NB_BWD_ANN = 8 };

static bool has_prefix(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && !memcmp(s, p, k);
}

static unsigned name_kind(const trace *tr, unsigned char *nb, uint32_t name)
{
    if (!(nb[name] & NB_DONE)) {
        const char *s = trace_str(tr, name);
        size_t n = strtab_len(tr->strs, name);
        unsigned k = NB_DONE;
        if (has_prefix(s, n, "ProfilerStep#"))
            k |= NB_STEP;
        if (has_prefix(s, n, "## backward ##"))
            k |= NB_BWD_ANN;
        for (size_t i = 0; i + 10 <= n && !(k & NB_AUTOGRAD); i++)
            if (!memcmp(s + i, "autograd::", 10))
                k |= NB_AUTOGRAD;
        nb[name] = (unsigned char)k;
    }
    return nb[name];
}

static uint32_t ev_depth(const model *m, uint32_t e)
{
    if (!m->ev_node)
        return 0;
    /* an event the model left out (a Python frame under --no-python, an
       event outside a scoped model's steps) has no node */
    return m->ev_node[e] == MODEL_NONE ? MODEL_NONE : m->nodes[m->ev_node[e]].depth;
}

/* The ties of the backward thread's top-level calls (see the top): into
   *out (sorted by the main-thread event's start), their count in *nout,
   and the backward track in *bwd (MODEL_NONE: no ties). 0, or -1 when out
   of memory; *main_track: the main thread's track. */
static int link_backward(const hta_ctx *c, struct blink **out, size_t *nout, uint32_t *bwd,
                         uint32_t *main_track)
{
    const trace *tr = c->tr;
    const model *m = c->m;
    unsigned char *nb = calloc(strtab_count(tr->strs) + 1, 1);
    unsigned char *tk = calloc(tr->ntracks + 1, 1);
    uint32_t *top = NULL, *par = NULL;
    struct blink *bl = NULL;
    size_t ntop = 0, npar = 0, nbl = 0;
    uint32_t main_t = MODEL_NONE, bwd_t = MODEL_NONE;
    unsigned nmain = 0, nbwd = 0;
    int rc = -1;
    *out = NULL;
    *nout = 0;
    *bwd = MODEL_NONE;
    *main_track = MODEL_NONE;
    if (!nb || !tk)
        goto out;
    for (size_t e = 0; e < tr->nevents; e++)
        if (c->in[e] && c->role[e] == HTA_EV_CPU && !tr->tracks[tr->events[e].track].is_gpu)
            tk[tr->events[e].track] |= (unsigned char)name_kind(tr, nb, tr->events[e].name);
    /* HTA's labels: "main" with a step, else "bwd" with an autograd name */
    for (uint32_t k = 0; k < tr->ntracks; k++) {
        if (tk[k] & NB_STEP) {
            nmain++;
            main_t = k;
        } else if (tk[k] & NB_AUTOGRAD) {
            nbwd++;
            bwd_t = k;
        }
    }
    if (nmain != 1 || nbwd != 1) {
        rc = 0;
        goto out;
    }
    bool ann = false;
    for (size_t e = 0; e < tr->nevents; e++)
        if (c->in[e] && tr->events[e].track == main_t && c->role[e] == HTA_EV_CPU &&
            (name_kind(tr, nb, tr->events[e].name) & NB_BWD_ANN))
            ann = true;
    unsigned want = ann ? NB_BWD_ANN : NB_STEP;
    /* counted first: a few of the events (a per-event array each was the
       peak of analyze's memory when this runs beside the steps) */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            top = vec_scratch(ntop, sizeof *top);
            par = vec_scratch(npar, sizeof *par);
            if (!top || !par)
                goto out;
            ntop = npar = 0;
        }
        for (size_t e = 0; e < tr->nevents; e++) {
            if (!c->in[e] || c->role[e] != HTA_EV_CPU)
                continue;
            uint32_t k = tr->events[e].track;
            if (k == main_t && (name_kind(tr, nb, tr->events[e].name) & want)) {
                if (pass)
                    par[npar] = (uint32_t)e;
                npar++;
            } else if (k == bwd_t && ev_depth(m, (uint32_t)e) == 1) {
                if (pass)
                    top[ntop] = (uint32_t)e;
                ntop++;
            }
        }
    }
    if (sort_by_start(c->so, tr, top, ntop, NULL) < 0)
        goto out;
    bl = vec_scratch(ntop, sizeof *bl);
    if (!bl)
        goto out;
    /* each parent in file order takes the calls it holds not yet taken */
    unsigned char *taken = calloc(ntop + 1, 1);
    if (!taken)
        goto out;
    for (size_t i = 0; i < npar; i++) {
        const trace_event *a = &tr->events[par[i]];
        size_t lo = 0, hi = ntop;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (tr->events[top[mid]].ts < a->ts)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t j = lo; j < ntop && tr->events[top[j]].ts <= a->ts + a->dur; j++) {
            const trace_event *t = &tr->events[top[j]];
            if (taken[j] || t->ts + t->dur > a->ts + a->dur)
                continue;
            taken[j] = 1;
            bl[nbl++] = (struct blink){ a->ts, a->ts + a->dur, ev_depth(m, par[i]), top[j] };
        }
    }
    free(taken);
    qsort(bl, nbl, sizeof *bl, cmp_blink_a);
    *out = bl;
    *nout = nbl;
    *bwd = nbl ? bwd_t : MODEL_NONE;
    *main_track = nbl ? main_t : MODEL_NONE;
    bl = NULL;
    rc = 0;
out:
    free(nb);
    free(tk);
    free(top);
    free(par);
    free(bl);
    return rc;
}

/* The tie of backward-thread event e: the index into bl of the top-level
   call that holds it, or SIZE_MAX. bt: bl's calls sorted by start. */
static size_t tie_of(const trace *tr, const struct blink *bl, const uint32_t *bt, size_t n,
                     uint32_t e)
{
    const trace_event *ev = &tr->events[e];
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tr->events[bl[bt[mid]].t].ts <= ev->ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return SIZE_MAX;
    size_t i = bt[lo - 1];
    const trace_event *t = &tr->events[bl[i].t];
    return ev->ts + ev->dur <= t->ts + t->dur ? i : SIZE_MAX;
}

/* The launches on track k within [ts, end] (nested in it: a launch that
   starts at its end and lasts is the next call's): their GPU events
   appended to gk (at most cap), their GPU time added to *gpu_ns. */
static size_t add_launched(const trace *tr, const struct lk *lk, size_t nlk, uint32_t k,
                           int64_t ts, int64_t end, struct gk *gk, size_t ng, size_t cap,
                           int64_t *gpu_ns)
{
    size_t lo = 0, hi = nlk;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lk[mid].track < k || (lk[mid].track == k && lk[mid].ts < ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < nlk && lk[i].track == k && lk[i].ts <= end && ng < cap; i++) {
        if (lk[i].end > end)
            continue;
        const trace_event *g = &tr->events[lk[i].gpu];
        gk[ng++] = (struct gk){ g->ts, lk[i].gpu, g->name };
        *gpu_ns += g->dur;
    }
    return ng;
}

int hta_sequences(const hta_ctx *c)
{
    const trace *tr = c->tr;
    const model *m = c->m;
    hta *h = c->h;
    struct lk *lk = NULL;
    struct gk *gk = NULL;
    struct occ *oc = NULL, *otmp = NULL;
    hta_seq *stmp = NULL;
    struct blink *bl = NULL;
    uint32_t *bt = NULL;
    size_t nlk = 0, noc = 0, npool = 0, nroots = 0, nbl = 0;
    uint32_t min_depth = UINT32_MAX, bwd = MODEL_NONE, main_t = MODEL_NONE;
    int rc = -1;

    if (!c->seq_op_len)
        return 0;
    if (link_backward(c, &bl, &nbl, &bwd, &main_t) < 0)
        goto out;
    bt = vec_scratch(nbl, sizeof *bt);
    if (!bt)
        goto out;
    for (size_t i = 0; i < nbl; i++)
        bt[i] = (uint32_t)i;
    if (sort_by_start(c->so, tr, bt, nbl, bl) < 0)
        goto out;
    /* the candidates' smallest depth (a backward-thread call stands under
       its tie); depth[i]: the i-th event, in file order, that passes the
       filter below (the loop over the calls below walks them alike) */
    size_t ncand = 0;
    for (size_t e = 0; e < tr->nevents; e++)
        ncand += c->in[e] && c->role[e] == HTA_EV_CPU &&
                 (hta_name_bits(c, tr->events[e].name) & HTA_NAME_SEQ);
    uint32_t *depth = vec_scratch(ncand, sizeof *depth);
    if (!depth)
        goto out;
    size_t di = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        if (!c->in[e] || c->role[e] != HTA_EV_CPU ||
            !(hta_name_bits(c, tr->events[e].name) & HTA_NAME_SEQ))
            continue;
        uint32_t d = ev_depth(m, (uint32_t)e);
        depth[di++] = d;
        if (d == MODEL_NONE)
            continue; /* no node: not a candidate */
        if (tr->events[e].track == bwd) {
            size_t i = tie_of(tr, bl, bt, nbl, (uint32_t)e);
            if (i != SIZE_MAX && bl[i].adepth != MODEL_NONE)
                d += bl[i].adepth;
        }
        depth[di - 1] = d;
        if (d < min_depth)
            min_depth = d;
        nroots++;
    }
    if (!nroots) {
        free(depth);
        rc = 0;
        goto out;
    }
    lk = vec_scratch(c->ndev, sizeof *lk);
    gk = vec_scratch(c->ndev, sizeof *gk);
    oc = vec_scratch(nroots, sizeof *oc);
    /* a GPU event counts under one call as a rule, but calls that overlap
       (partly, on one thread) share some: the pool grows */
    size_t cap_names = c->ndev + nroots;
    h->seq_names = malloc(cap_names * sizeof *h->seq_names);
    if (!lk || !gk || !oc || !h->seq_names) {
        free(depth);
        goto out;
    }
    /* by (launch track, launch start): stable sorts by each, the last
       first (launches alike in both keep dev's order, as qsort's merge sort
       kept it), over keys gathered in dev's order; each record is then
       written in its place (moving them there afterwards cost a cache
       miss each, one after another) */
    {
        hta_sorter *so = c->so;
        uint32_t *ge = vec_scratch(c->ndev, sizeof *ge), *tk = vec_scratch(c->ndev, sizeof *tk);
        if (!ge || !tk || hta_sorter_reserve(so, c->ndev) < 0) {
            free(ge);
            free(tk);
            free(depth);
            goto out;
        }
        for (size_t i = 0; i < c->ndev; i++) {
            uint32_t e = c->dev[i], l = c->launch[e];
            if (l != MODEL_NONE) {
                so->key[nlk] = hta_key_i64(tr->events[l].ts);
                tk[nlk] = tr->events[l].track;
                ge[nlk++] = e;
            }
        }
        hta_sorter_identity(so, nlk);
        hta_sorter_pass(so, nlk);
        for (size_t i = 0; i < nlk; i++)
            so->key[i] = tk[so->idx[i]];
        hta_sorter_pass(so, nlk);
        for (size_t i = 0; i < nlk; i++) {
            uint32_t e = ge[so->idx[i]];
            const trace_event *l = &tr->events[c->launch[e]];
            lk[i] = (struct lk){ l->track, e, l->ts, l->ts + l->dur };
        }
        free(ge);
        free(tk);
    }
    di = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        const trace_event *ev = &tr->events[e];
        if (!c->in[e] || c->role[e] != HTA_EV_CPU ||
            !(hta_name_bits(c, ev->name) & HTA_NAME_SEQ) || depth[di++] != min_depth)
            continue;
        h->seq_roots++;
        /* the launches on its thread within [ts, ts + dur] */
        int64_t gpu_ns = 0;
        size_t ng = add_launched(tr, lk, nlk, ev->track, ev->ts, ev->ts + ev->dur, gk, 0,
                                 c->ndev, &gpu_ns);
        /* and those of the backward calls tied under it */
        if (ev->track == main_t) {
            size_t lo = 0, hi = nbl;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (bl[mid].ats < ev->ts)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t i = lo; i < nbl && bl[i].ats <= ev->ts + ev->dur; i++) {
                const trace_event *t = &tr->events[bl[i].t];
                if (bl[i].aend <= ev->ts + ev->dur)
                    ng = add_launched(tr, lk, nlk, bwd, t->ts, t->ts + t->dur, gk, ng, c->ndev,
                                      &gpu_ns);
            }
        }
        if (ng < h->opts.seq_min_len)
            continue;
        qsort(gk, ng, sizeof *gk, cmp_gk);
        /* room for ng + 1 more names */
        if (vec_grow_heap((void **)&h->seq_names, &cap_names, npool + ng,
                          sizeof *h->seq_names) < 0) {
            free(depth);
            goto out;
        }
        oc[noc] = (struct occ){ npool, ng + 1, gpu_ns, ev->dur };
        h->seq_names[npool++] = ev->name;
        for (size_t i = 0; i < ng; i++)
            h->seq_names[npool++] = gk[i].name;
        noc++;
    }
    free(depth);
    h->nseq_names = npool;
    struct cmp_env env = { tr, h->seq_names };
    otmp = malloc((noc ? noc : 1) * sizeof *otmp);
    if (!otmp)
        goto out;
    msort(oc, otmp, noc, sizeof *oc, cmp_occ, &env);
    size_t ns = 0;
    for (size_t i = 0; i < noc; i++)
        ns += i == 0 || cmp_occ(&env, &oc[i], &oc[i - 1]) != 0;
    h->seqs = calloc(ns ? ns : 1, sizeof *h->seqs);
    stmp = malloc((ns ? ns : 1) * sizeof *stmp);
    if (!h->seqs || !stmp)
        goto out;
    for (size_t i = 0; i < noc;) {
        size_t j = i;
        hta_seq *s = &h->seqs[h->nseqs++];
        s->op = h->seq_names[oc[i].first];
        s->first = oc[i].first + 1;
        s->len = oc[i].len - 1;
        for (; j < noc && cmp_occ(&env, &oc[j], &oc[i]) == 0; j++) {
            s->count++;
            s->gpu_ns += oc[j].gpu_ns;
            s->cpu_ns += oc[j].cpu_ns;
        }
        i = j;
    }
    /* sort on the whole text: the op name stands before its kernels */
    for (size_t i = 0; i < h->nseqs; i++) {
        h->seqs[i].first--;
        h->seqs[i].len++;
    }
    msort(h->seqs, stmp, h->nseqs, sizeof *h->seqs, cmp_seq, &env);
    for (size_t i = 0; i < h->nseqs; i++) {
        h->seqs[i].first++;
        h->seqs[i].len--;
    }
    h->nseqs_all = h->nseqs;
    if (h->opts.seq_top && h->nseqs > h->opts.seq_top)
        h->nseqs = h->opts.seq_top;
    rc = 0;
out:
    free(bl);
    free(bt);
    free(lk);
    free(gk);
    free(oc);
    free(otmp);
    free(stmp);
    return rc;
}
