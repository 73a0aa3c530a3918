/* Per stream: HTA's idle time breakdown (_analyze_idle_time_for_stream)
   and queue length (TraceCounters' queue length series, summarised as its
   describe()). */
#include "config.h"

#include "core/analyses/hta_idle.h"
#include "core/base/vec.h"

#include <stdlib.h>


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

struct qchange {
    int64_t ts;
    uint32_t stream;
    int delta; /* +1 launch, -1 GPU start */
};

/* +1 at each launch call's start (the wider launch list, joined to its GPU
   event by correlation) on the stream of that GPU event, -1 at the GPU
   event's start; the running sum at each change, summarised over the
   changes (count, mean, min, max, median), not weighted by time. */
int hta_queue(const hta_ctx *c)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    size_t n = 0;
    struct qchange *q = vec_scratch(2 * c->ndev, sizeof *q);
    int64_t *v = vec_scratch(2 * c->ndev, sizeof *v);
    hta_sorter *so = c->so;
    if (!q || !v) {
        free(q);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < c->ndev; i++) {
        uint32_t e = c->dev[i], l = c->launch[e];
        if (l == MODEL_NONE || !(hta_name_bits(c, tr->events[l].name) & HTA_NAME_QLAUNCH))
            continue;
        uint32_t st = c->stream_of[tr->events[e].track];
        q[n++] = (struct qchange){ tr->events[l].ts, st, 1 };
        q[n++] = (struct qchange){ tr->events[e].ts, st, -1 };
    }
    /* by (stream, time, launches first at one instant): stable sorts by
       each, the last first (changes equal in all three are alike) */
    if (hta_sorter_reserve(so, n) < 0) {
        free(q);
        free(v);
        return -1;
    }
    hta_sorter_identity(so, n);
    for (size_t i = 0; i < n; i++)
        so->key[i] = q[so->idx[i]].delta < 0;
    hta_sorter_pass(so, n);
    for (size_t i = 0; i < n; i++)
        so->key[i] = hta_key_i64(q[so->idx[i]].ts);
    hta_sorter_pass(so, n);
    for (size_t i = 0; i < n; i++)
        so->key[i] = q[so->idx[i]].stream;
    hta_sorter_pass(so, n);
    /* read in that order through so->idx (no sorted copy: the peak
       memory of analyze is when this runs beside the steps) */
    const uint32_t *at = so->idx;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t len = 0, sum = 0;
        for (; j < n && q[at[j]].stream == q[at[i]].stream; j++) {
            len += q[at[j]].delta;
            v[j - i] = len;
            sum += len;
        }
        hta_stream *s = &h->streams[q[at[i]].stream];
        size_t m = j - i;
        hta_sort_i64(so, v, m);
        s->qcount = m;
        s->qmean = (double)sum / (double)m;
        s->qmin = v[0];
        s->qmax = v[m - 1];
        s->qp50 = hta_quantile(v, m, 0.5);
        i = j;
    }
    free(q);
    free(v);
    return 0;
}
