/* Per stream: HTA's idle time breakdown (_analyze_idle_time_for_stream)
   and queue length (TraceCounters' queue length series, summarised as its
   describe()). */
#include "config.h"

#include "core/analyses/hta_idle.h"
#include "core/base/vec.h"

#include <stdlib.h>
#include <string.h>


/* The GPU work of each stream (kernels, memcpy, memset: not cuda_sync,
   which HTA's idle time leaves out), by start: each gap from the previous
   event's end to an event's start is host wait when the event's launch
   started after that end (the CPU had not queued it yet), else kernel wait
   when shorter than kernel_wait_ns, else other. A gap below 0 (the event
   started before the previous one ended: overlapping events on one stream)
   counts 0 and is reported as an overlap: HTA would subtract it. */
int hta_idle(const hta_ctx *c)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    uint32_t cur = MODEL_NONE;
    int64_t prev_end = 0, busy_end = INT64_MIN, busy_start = 0;
    bool have_prev = false;
    hta_stream *s = NULL;

    for (size_t i = 0; i <= c->ndev; i++) {
        uint32_t e = i < c->ndev ? c->dev[i] : MODEL_NONE;
        if (e != MODEL_NONE && c->stream_of[tr->events[e].track] == MODEL_NONE)
            continue; /* cuda_sync on a track without GPU work */
        uint32_t st = e != MODEL_NONE ? c->stream_of[tr->events[e].track] : MODEL_NONE;
        if (st != cur) {
            if (s && busy_end != INT64_MIN)
                s->busy_ns += busy_end - busy_start;
            if (st == MODEL_NONE)
                break;
            cur = st;
            s = &h->streams[st];
            have_prev = false;
            busy_end = INT64_MIN;
        }
        if (e == MODEL_NONE)
            break;
        if (c->role[e] != HTA_EV_WORK)
            continue;
        const trace_event *ev = &tr->events[e];
        int64_t end = ev->ts + ev->dur;
        s->events++;
        if (busy_end == INT64_MIN || ev->ts > busy_end) {
            if (busy_end != INT64_MIN)
                s->busy_ns += busy_end - busy_start;
            busy_start = ev->ts;
            busy_end = end;
        } else if (end > busy_end) {
            busy_end = end;
        }
        uint32_t l = c->launch[e];
        s->no_launch += l == MODEL_NONE;
        if (have_prev) {
            int64_t gap = ev->ts - prev_end;
            if (gap < 0) {
                s->overlaps++;
                s->overlap_ns += -gap;
                gap = 0;
            }
            if (l != MODEL_NONE && tr->events[l].ts > prev_end)
                s->host_wait_ns += gap;
            else if (ev->ts - prev_end < h->opts.kernel_wait_ns)
                s->kernel_wait_ns += gap;
            else
                s->other_wait_ns += gap;
        }
        prev_end = end;
        have_prev = true;
    }
    return 0;
}

/* The running queue length of one stream over its 2n changes in time
   order, launches first at one instant: a, the launch calls' starts, and
   g, the GPU events' starts, each ascending. Its sum, min and max; with
   hist, each length counted at hist[len - base]. */
struct qrun {
    int64_t sum, min, max;
};

static void qwalk(const int64_t *a, const int64_t *g, size_t n, struct qrun *r, uint64_t *hist,
                  int64_t base)
{
    int64_t len = 0;
    size_t i = 0, j = 0;
    *r = (struct qrun){ 0, INT64_MAX, INT64_MIN };
    while (i < n || j < n) {
        if (i < n && (j == n || a[i] <= g[j])) {
            len++;
            i++;
        } else {
            len--;
            j++;
        }
        r->sum += len;
        if (len < r->min)
            r->min = len;
        if (len > r->max)
            r->max = len;
        if (hist)
            hist[len - base]++;
    }
}

/* The k-th smallest (from 0) of the lengths counted in hist (from base). */
static int64_t qnth(const uint64_t *hist, int64_t base, uint64_t k)
{
    size_t i = 0;
    for (uint64_t seen = hist[0]; seen <= k; seen += hist[++i])
        ;
    return base + (int64_t)i;
}

/* +1 at each launch call's start (the wider launch list, joined to its GPU
   event by correlation) on the stream of that GPU event, -1 at the GPU
   event's start; the running sum at each change, summarised over the
   changes (count, mean, min, max, median), not weighted by time. A
   stream's GPU events are in dev in start order, so only its launches are
   sorted, and the changes are merged, not sorted: the lengths are small
   integers, counted to find the median. (A sort of all 2n changes by
   stream, time and kind, and of each stream's lengths, held 96 bytes a
   launch: 117 MB on the 10x bench trace, beside the steps.) */
int hta_queue(const hta_ctx *c)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    hta_sorter *so = c->so;
    int64_t *a = vec_scratch(c->ndev, sizeof *a), *g = vec_scratch(c->ndev, sizeof *g);
    uint64_t *hist = NULL;
    size_t cap_hist = 0;
    int rc = -1;
    if (!a || !g || hta_sorter_reserve(so, c->ndev) < 0)
        goto out;
    for (size_t i = 0; i < c->ndev;) {
        /* dev is by track, then start: a stream's events lie together */
        uint32_t k = tr->events[c->dev[i]].track;
        size_t n = 0;
        for (; i < c->ndev && tr->events[c->dev[i]].track == k; i++) {
            uint32_t e = c->dev[i], l = c->launch[e];
            if (l == MODEL_NONE || !(hta_name_bits(c, tr->events[l].name) & HTA_NAME_QLAUNCH))
                continue;
            a[n] = tr->events[l].ts;
            g[n++] = tr->events[e].ts;
        }
        if (!n)
            continue;
        hta_sort_i64(so, a, n);
        struct qrun r;
        qwalk(a, g, n, &r, NULL, 0);
        size_t span = (size_t)(r.max - r.min) + 1; /* at most 2n + 1 */
        if (span > cap_hist) {
            uint64_t *nh = realloc(hist, span * sizeof *hist);
            if (!nh)
                goto out;
            hist = nh;
            cap_hist = span;
        }
        memset(hist, 0, span * sizeof *hist);
        qwalk(a, g, n, &r, hist, r.min);
        hta_stream *s = &h->streams[c->stream_of[k]];
        uint64_t m = 2 * (uint64_t)n;
        s->qcount = m;
        s->qmean = (double)r.sum / (double)m;
        s->qmin = r.min;
        s->qmax = r.max;
        double f;
        size_t lo = hta_quantile_at(m, 0.5, &f);
        s->qp50 = hta_quantile_lerp(qnth(hist, r.min, lo),
                                    qnth(hist, r.min, lo + 1 < m ? lo + 1 : lo), f);
    }
    rc = 0;
out:
    free(a);
    free(g);
    free(hist);
    return rc;
}
