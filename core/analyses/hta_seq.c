/* HTA's CudaKernelAnalysis.get_frequent_cuda_kernel_sequences: the calls of
   operators whose name contains opts.seq_op, at the smallest call depth
   among them, that launched at least seq_min_len GPU events; each call's
   pattern is its name and the names of the GPU events it launched (through
   anything under it on its thread) in start order. Patterns are counted
   with their GPU and CPU time, most frequent first, then by their text
   ("op|kernel|kernel..."). */
#include "config.h"

#include "core/analyses/hta_int.h"

#include <stdlib.h>
#include <string.h>

/* A launched GPU event, keyed by its launch's (track, start). */
struct lk {
    uint32_t track;
    uint32_t gpu;
    int64_t ts;
};

static int cmp_lk(const void *pa, const void *pb)
{
    const struct lk *a = pa, *b = pb;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

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

/* An event's depth in the model's per-track tree: 0 without the nesting,
   and for an event a scoped model left out (no node: a step's model keeps
   the events outside the step out of its trees). */
static uint32_t ev_depth(const model *m, size_t e)
{
    if (!m->ev_node || m->ev_node[e] == MODEL_NONE)
        return 0;
    return m->nodes[m->ev_node[e]].depth;
}

int hta_sequences(hta_ctx *c)
{
    const trace *tr = c->tr;
    const model *m = c->m;
    hta *h = c->h;
    struct lk *lk = NULL;
    struct gk *gk = NULL;
    struct occ *oc = NULL, *otmp = NULL;
    hta_seq *stmp = NULL;
    size_t nlk = 0, noc = 0, npool = 0, nroots = 0;
    uint32_t min_depth = UINT32_MAX;
    int rc = -1;

    if (!c->seq_op_len)
        return 0;
    /* the candidates' smallest depth */
    for (size_t e = 0; e < tr->nevents; e++)
        if (c->in[e] && c->role[e] == HTA_EV_CPU &&
            (hta_name_bits(c, tr->events[e].name) & HTA_NAME_SEQ)) {
            uint32_t d = ev_depth(m, e);
            if (d < min_depth)
                min_depth = d;
            nroots++;
        }
    if (!nroots)
        return 0;
    lk = malloc((c->ndev ? c->ndev : 1) * sizeof *lk);
    gk = malloc((c->ndev ? c->ndev : 1) * sizeof *gk);
    oc = malloc(nroots * sizeof *oc);
    h->seq_names = malloc((c->ndev + nroots) * sizeof *h->seq_names);
    if (!lk || !gk || !oc || !h->seq_names)
        goto out;
    for (size_t i = 0; i < c->ndev; i++) {
        uint32_t e = c->dev[i], l = c->launch[e];
        if (l != MODEL_NONE)
            lk[nlk++] = (struct lk){ tr->events[l].track, e, tr->events[l].ts };
    }
    qsort(lk, nlk, sizeof *lk, cmp_lk);
    for (size_t e = 0; e < tr->nevents; e++) {
        const trace_event *ev = &tr->events[e];
        if (!c->in[e] || c->role[e] != HTA_EV_CPU ||
            !(hta_name_bits(c, ev->name) & HTA_NAME_SEQ) ||
            ev_depth(m, e) != min_depth)
            continue;
        h->seq_roots++;
        /* the launches on its thread within [ts, ts + dur] */
        size_t lo = 0, hi = nlk;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (lk[mid].track < ev->track || (lk[mid].track == ev->track && lk[mid].ts < ev->ts))
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t ng = 0;
        int64_t gpu_ns = 0;
        for (size_t i = lo; i < nlk && lk[i].track == ev->track && lk[i].ts <= ev->ts + ev->dur;
             i++) {
            const trace_event *g = &tr->events[lk[i].gpu];
            gk[ng++] = (struct gk){ g->ts, lk[i].gpu, g->name };
            gpu_ns += g->dur;
        }
        if (ng < h->opts.seq_min_len)
            continue;
        qsort(gk, ng, sizeof *gk, cmp_gk);
        oc[noc] = (struct occ){ npool, ng + 1, gpu_ns, ev->dur };
        h->seq_names[npool++] = ev->name;
        for (size_t i = 0; i < ng; i++)
            h->seq_names[npool++] = gk[i].name;
        noc++;
    }
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
    free(lk);
    free(gk);
    free(oc);
    free(otmp);
    free(stmp);
    return rc;
}
