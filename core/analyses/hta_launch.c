/* HTA's CudaKernelAnalysis.cuda_kernel_launch_stats: each launch call
   (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync,
   MTIA's runFunction) joined to its GPU event by correlation; the launch
   delay is the time from the call's end to the GPU event's start, never
   below 0. The outliers are those of its visualize_cuda_launch_kernel_info. */
#include "config.h"

#include "core/analyses/hta_launch.h"

#include <stdlib.h>
#include <string.h>

static int cmp_launch(const void *pa, const void *pb)
{
    const hta_launch *a = pa, *b = pb;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    if (a->delay_ns != b->delay_ns)
        return a->delay_ns > b->delay_ns ? -1 : 1;
    return a->gpu < b->gpu ? -1 : a->gpu > b->gpu;
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The figures over launches l[0..n-1] (one stream's, or all); v: scratch of n. */
static void delay_stats(const hta *h, const hta_launch *l, size_t n, int64_t *v, hta_delay *d)
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
        v[i] = l[i].delay_ns;
    }
    qsort(v, n, sizeof *v, cmp_i64);
    d->p50_ns = hta_quantile(v, n, 0.5);
    d->p95_ns = hta_quantile(v, n, 0.95);
}

int hta_launch_stats(hta_ctx *c)
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
    h->launches = malloc((n ? n : 1) * sizeof *h->launches);
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!h->launches || !v) {
        free(v);
        return -1;
    }
    for (size_t i = 0; i < c->ndev; i++) {
        uint32_t e = c->dev[i], l = c->launch[e];
        if (l == MODEL_NONE || !(hta_name_bits(c, tr->events[l].name) & HTA_NAME_LAUNCH))
            continue;
        const trace_event *g = &tr->events[e], *k = &tr->events[l];
        int64_t delay = g->ts - (k->ts + k->dur);
        h->launches[h->nlaunches++] = (hta_launch){
            .launch = l, .gpu = e, .stream = c->stream_of[g->track], .cpu_ns = k->dur,
            .gpu_ns = g->dur, .delay_ns = delay > 0 ? delay : 0 };
    }
    qsort(h->launches, h->nlaunches, sizeof *h->launches, cmp_launch);
    for (size_t i = 0; i < h->nlaunches;) {
        size_t j = i;
        while (j < h->nlaunches && h->launches[j].stream == h->launches[i].stream)
            j++;
        hta_stream *s = &h->streams[h->launches[i].stream];
        s->first_launch = i;
        delay_stats(h, h->launches + i, j - i, v, &s->delay);
        i = j;
    }
    /* all streams: the same figures over every launch */
    delay_stats(h, h->launches, h->nlaunches, v, &h->delay);
    free(v);
    return 0;
}
