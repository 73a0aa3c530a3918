/* HTA's BreakdownAnalysis: the temporal breakdown (get_temporal_breakdown)
   and the kernel-type split with its per-kernel table
   (get_gpu_kernel_breakdown, include_memory_kernels=True). Over the device
   events of the window on every stream: GPU work and cuda_sync, which HTA
   reads as GPU time because they carry a stream. */
#include "config.h"

#include "core/analyses/hta_breakdown.h"
#include "core/base/vec.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct run {
    int64_t start, end;
    unsigned type;
};

/* Merges sorted runs in place into their union (touching runs merge, as
   merge_kernel_intervals does); returns how many remain. */
static size_t merge_runs(struct run *r, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && r[i].start <= r[k - 1].end) {
            if (r[i].end > r[k - 1].end)
                r[k - 1].end = r[i].end;
            continue;
        }
        r[k++] = r[i];
    }
    return k;
}

static int64_t runs_len(const struct run *r, size_t n)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += r[i].end - r[i].start;
    return s;
}

static int cmp_row(const void *pa, const void *pb)
{
    const hta_typerow *a = pa, *b = pb;
    if (a->ns != b->ns)
        return a->ns > b->ns ? -1 : 1;
    return a->mask < b->mask ? -1 : a->mask > b->mask;
}

struct kkey {
    uint32_t name, event;
};

/* a kernel row with its name's text, for sorting by (type name, name) as HTA does */
struct krow {
    const char *s;
    size_t len;
    hta_kernel k;
};

static int cmp_kernel(const void *pa, const void *pb)
{
    const struct krow *a = pa, *b = pb;
    int c = strcmp(hta_ktype_name(a->k.type), hta_ktype_name(b->k.type));
    if (c)
        return c;
    c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
    return c ? c : a->len < b->len ? -1 : a->len > b->len;
}

/* The per-kernel table: every name of type COMPUTATION, COMMUNICATION or
   MEMORY with its count, sum, mean, min, max and sample std. */
static int kernels(const hta_ctx *c)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    size_t n = 0;
    struct kkey *k = vec_scratch(c->ndev, sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < c->ndev; i++) {
        uint32_t e = c->dev[i];
        if (hta_name_type(c, tr->events[e].name) != HTA_OTHER)
            k[n++] = (struct kkey){ tr->events[e].name, e };
    }
    /* by name, stable (each name's events in dev's order: the sum of
       squares adds them in it) */
    hta_sorter *so = c->so;
    if (hta_sorter_reserve(so, n) < 0) {
        free(k);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        so->key[i] = k[i].name;
        so->idx[i] = k[i].event;
    }
    hta_sorter_pass(so, n);
    for (size_t i = 0; i < n; i++)
        k[i] = (struct kkey){ (uint32_t)so->key[i], so->idx[i] };
    size_t nk = 0;
    for (size_t i = 0; i < n; i++)
        nk += i == 0 || k[i].name != k[i - 1].name;
    h->kernels = calloc(nk ? nk : 1, sizeof *h->kernels);
    if (!h->kernels) {
        free(k);
        return -1;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        hta_kernel *r = &h->kernels[h->nkernels++];
        r->name = k[i].name;
        r->type = hta_name_type(c, k[i].name);
        r->min_ns = INT64_MAX;
        r->max_ns = INT64_MIN;
        for (; j < n && k[j].name == k[i].name; j++) {
            int64_t d = tr->events[k[j].event].dur;
            r->sum_ns += d;
            if (d < r->min_ns)
                r->min_ns = d;
            if (d > r->max_ns)
                r->max_ns = d;
        }
        r->count = j - i;
        r->mean_ns = (double)r->sum_ns / (double)r->count;
        double ss = 0;
        for (size_t q = i; q < j; q++) {
            double d = (double)tr->events[k[q].event].dur - r->mean_ns;
            ss += d * d;
        }
        r->std_ns = r->count > 1 ? sqrt(ss / (double)(r->count - 1)) : 0;
        i = j;
    }
    free(k);
    struct krow *kr = malloc((h->nkernels ? h->nkernels : 1) * sizeof *kr);
    if (!kr)
        return -1;
    for (size_t i = 0; i < h->nkernels; i++)
        kr[i] = (struct krow){ trace_str(tr, h->kernels[i].name),
                               strtab_len(tr->strs, h->kernels[i].name), h->kernels[i] };
    qsort(kr, h->nkernels, sizeof *kr, cmp_kernel);
    for (size_t i = 0; i < h->nkernels; i++)
        h->kernels[i] = kr[i].k;
    free(kr);
    return 0;
}

int hta_breakdown(const hta_ctx *c)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    size_t n = c->ndev;
    struct run *r = vec_scratch(n, sizeof *r);
    struct run *t = vec_scratch(n, sizeof *t);
    hta_sorter *so = c->so;
    int rc = -1;
    if (!r || !t || hta_sorter_reserve(so, n) < 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        const trace_event *ev = &tr->events[c->dev[i]];
        r[i] = (struct run){ ev->ts, ev->ts + ev->dur, hta_name_type(c, ev->name) };
    }
    /* by start (the unions below do not depend on the order of runs that
       start together) */
    for (size_t i = 0; i < n; i++) {
        so->idx[i] = (uint32_t)i;
        so->key[i] = hta_key_i64(r[i].start);
    }
    hta_sorter_pass(so, n);
    for (size_t i = 0; i < n; i++)
        t[i] = r[so->idx[i]];
    memcpy(r, t, n * sizeof *r);

    /* temporal: the span of all device events, their union, COMPUTATION's union */
    if (n) {
        int64_t first = r[0].start, last = INT64_MIN;
        for (size_t i = 0; i < n; i++)
            if (r[i].end > last)
                last = r[i].end;
        size_t nc = 0;
        for (size_t i = 0; i < n; i++)
            if (r[i].type == HTA_COMPUTATION)
                t[nc++] = r[i];
        h->compute_ns = runs_len(t, merge_runs(t, nc));
        memcpy(t, r, n * sizeof *t);
        int64_t busy = runs_len(t, merge_runs(t, n));
        h->kernel_ns = last - first;
        h->idle_ns = h->kernel_ns - busy;
        h->non_compute_ns = h->kernel_ns - h->compute_ns - h->idle_ns;
    }

    /* kernel types: each type's union, then the time each set of types
       runs. Each union's runs are in order and apart, so its edges (start,
       end, start, ...) are too: the edges of all types are merged, not
       sorted (no 2n sort keys beside the steps). At one instant the order
       is no figure's: only the set of types running after the instant's
       last edge lasts. */
    size_t off[HTA_OTHER + 1] = { 0 };
    for (unsigned k = 0; k < HTA_OTHER; k++) {
        size_t nt = off[k];
        for (size_t i = 0; i < n; i++)
            if (r[i].type == k)
                t[nt++] = r[i];
        off[k + 1] = off[k] + merge_runs(t + off[k], nt - off[k]);
    }
    int64_t row[8] = { 0 };
    int active[HTA_OTHER] = { 0 };
    size_t at[HTA_OTHER]; /* each type's next edge: run at[k] / 2, its end when odd */
    for (unsigned k = 0; k < HTA_OTHER; k++)
        at[k] = 2 * off[k];
    int64_t now = 0;
    bool first = true;
    for (;;) {
        /* the earliest next edge; at a tie the lowest type */
        unsigned best = HTA_OTHER;
        int64_t when = 0;
        for (unsigned k = 0; k < HTA_OTHER; k++) {
            if (at[k] == 2 * off[k + 1])
                continue;
            const struct run *x = &t[at[k] / 2];
            int64_t w = at[k] & 1 ? x->end : x->start;
            if (best == HTA_OTHER || w < when) {
                best = k;
                when = w;
            }
        }
        if (best == HTA_OTHER)
            break;
        if (!first) {
            unsigned mask = 0;
            for (unsigned k = 0; k < HTA_OTHER; k++)
                if (active[k] > 0)
                    mask |= 1u << k;
            row[mask] += when - now;
        }
        active[best] += at[best] & 1 ? -1 : 1;
        at[best]++;
        now = when;
        first = false;
    }
    for (unsigned mask = 1; mask < 8; mask++)
        if (row[mask] > 0) {
            h->types[h->ntypes++] = (hta_typerow){ mask, row[mask] };
            h->types_ns += row[mask];
        }
    qsort(h->types, h->ntypes, sizeof *h->types, cmp_row);
    rc = kernels(c);
out:
    free(r);
    free(t);
    return rc;
}
