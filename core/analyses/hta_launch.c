/* HTA's CudaKernelAnalysis.cuda_kernel_launch_stats: each launch call
   (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync,
   MTIA's runFunction) joined to its GPU event by correlation; the launch
   delay is the time from the call's end to the GPU event's start, never
   below 0. The outliers are those of its visualize_cuda_launch_kernel_info. */
#include "config.h"

#include "core/analyses/hta_launch.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/vec.h"

/* The figures over launches l[0..n-1] (one stream's, or all); v: their
   delays in ascending order (the quantiles). */
static void delay_stats(const hta *h, const hta_launch *l, size_t n, const int64_t *v,
                        hta_delay *d)
{
    memset(d, 0, sizeof *d);
    d->count = n;
    for (size_t i = 0; i < n; i++) {
        d->sum_ns += l[i].delay_ns;
        if (l[i].delay_ns > d->max_ns)
            d->max_ns = l[i].delay_ns;
        d->long_delay += l[i].delay_ns > h->opts.delay_cutoff_ns;
        d->runtime_outlier += l[i].cpu_ns > h->opts.runtime_cutoff_ns;
        d->short_kernel += l[i].cpu_ns <= h->opts.runtime_cutoff_ns && l[i].gpu_ns < l[i].cpu_ns;
    }
    d->p50_ns = hta_quantile(v, n, 0.5);
    d->p95_ns = hta_quantile(v, n, 0.95);
}

/* Each launch's record is written once, in its final place: the sorts run
   over compact keys (its GPU event, delay and stream, gathered in the
   device events' order), not over the records. Moving 40-byte records
   into place afterwards (radix_permute) followed each cycle one cache
   miss at a time: a fifth of this pass with a million launches. */
int hta_launch_stats(const hta_ctx *c)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    size_t n = 0;
    for (size_t i = 0; i < c->ndev; i++) {
        uint32_t e = c->dev[i];
        h->gpu_no_launch += c->role[e] == HTA_EV_WORK && c->launch[e] == MODEL_NONE;
        n += c->launch[e] != MODEL_NONE &&
             (hta_name_bits(c, tr->events[c->launch[e]].name) & HTA_NAME_LAUNCH);
    }
    h->launches = vec_scratch(n, sizeof *h->launches);
    int64_t *v = vec_scratch(n, sizeof *v);          /* delays, then each stream's */
    uint32_t *ge = vec_scratch(n, sizeof *ge);       /* each launch's GPU event */
    uint32_t *gs = vec_scratch(n, sizeof *gs);       /* and its stream */
    hta_sorter *so = c->so;
    int rc = -1;
    if (!h->launches || !v || !ge || !gs || hta_sorter_reserve(so, n) < 0)
        goto out;
    size_t nl = 0;
    for (size_t i = 0; i < c->ndev; i++) {
        uint32_t e = c->dev[i], l = c->launch[e];
        if (l == MODEL_NONE || !(hta_name_bits(c, tr->events[l].name) & HTA_NAME_LAUNCH))
            continue;
        const trace_event *g = &tr->events[e], *k = &tr->events[l];
        int64_t delay = g->ts - (k->ts + k->dur);
        ge[nl] = e;
        gs[nl] = c->stream_of[g->track];
        v[nl++] = delay > 0 ? delay : 0;
    }
    /* by (stream, delay descending, GPU event): stable sorts by each, the
       last first */
    hta_sorter_identity(so, nl);
    for (size_t i = 0; i < nl; i++)
        so->key[i] = ge[i];
    hta_sorter_pass(so, nl);
    for (size_t i = 0; i < nl; i++)
        so->key[i] = ~hta_key_i64(v[so->idx[i]]);
    hta_sorter_pass(so, nl);
    for (size_t i = 0; i < nl; i++)
        so->key[i] = gs[so->idx[i]];
    hta_sorter_pass(so, nl);
    hta_launch *L = h->launches;
    for (size_t i = 0; i < nl; i++) {
        uint32_t j = so->idx[i], e = ge[j], l = c->launch[e];
        L[i] = (hta_launch){ .launch = l, .gpu = e, .stream = gs[j],
                             .cpu_ns = tr->events[l].dur, .gpu_ns = tr->events[e].dur,
                             .delay_ns = v[j] };
    }
    h->nlaunches = nl;
    for (size_t i = 0; i < nl;) {
        size_t j = i;
        while (j < nl && L[j].stream == L[i].stream)
            j++;
        hta_stream *s = &h->streams[L[i].stream];
        s->first_launch = i;
        /* a stream's launches are by delay, descending: reversed, ascending */
        for (size_t q = i; q < j; q++)
            v[q - i] = L[i + j - 1 - q].delay_ns;
        delay_stats(h, L + i, j - i, v, &s->delay);
        i = j;
    }
    /* all streams: the same figures over every launch */
    for (size_t i = 0; i < nl; i++)
        v[i] = L[i].delay_ns;
    hta_sort_i64(so, v, nl);
    delay_stats(h, L, nl, v, &h->delay);
    rc = 0;
out:
    free(v);
    free(ge);
    free(gs);
    return rc;
}
