/* hta_build: the window, the roles of the events, then each analysis
   (hta_breakdown.c, hta_idle.c, hta_launch.c, hta_seq.c). */
#include "config.h"

#include "core/analyses/hta.h"
#include "core/analyses/hta_breakdown.h"
#include "core/analyses/hta_ctx.h"
#include "core/analyses/hta_idle.h"
#include "core/analyses/hta_launch.h"
#include "core/analyses/hta_seq.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/catkind.h"
#include "core/base/vec.h"

void hta_opts_default(hta_opts *o)
{
    *o = (hta_opts){ .kernel_wait_ns = HTA_KERNEL_WAIT_NS,
                     .runtime_cutoff_ns = HTA_RUNTIME_CUTOFF_NS,
                     .delay_cutoff_ns = HTA_DELAY_CUTOFF_NS,
                     .seq_op = HTA_SEQ_OP,
                     .seq_min_len = HTA_SEQ_MIN_LEN,
                     .seq_top = HTA_SEQ_TOP };
}

/* Each event's role: GPU work (kernel, memcpy, memset, other device work),
   a cuda_sync on a track that carries GPU work (HTA reads every event with
   a stream as GPU time: its temporal breakdown counts them), or CPU; and
   each GPU event's launch, from the model's correlation links. */
static int roles(hta_ctx *c)
{
    const trace *tr = c->tr;
    const model *m = c->m;
    uint32_t sync = strtab_find(tr->strs, "cuda_sync", 9);
    c->role = vec_scratch_zero(tr->nevents, 1);
    c->launch = vec_scratch(tr->nevents, sizeof *c->launch);
    if (!c->role || !c->launch)
        return -1;
    for (size_t e = 0; e < tr->nevents; e++) {
        const trace_event *ev = &tr->events[e];
        c->launch[e] = MODEL_NONE;
        if (ev->cat < m->ncatkind && catkind_is_gpu_work((enum catkind)m->catkind[ev->cat]))
            c->role[e] = HTA_EV_WORK;
        else if (ev->cat == sync && sync != STRTAB_NONE &&
                 (tr->tracks[ev->track].is_gpu || m->tracks[ev->track].stream != MODEL_NONE))
            c->role[e] = HTA_EV_SYNC;
    }
    if (m->corr_launch)
        for (size_t i = 0; i < tr->ncorrs; i++)
            if (c->role[tr->corrs[i].event] == HTA_EV_WORK)
                c->launch[tr->corrs[i].event] = m->corr_launch[i];
    return 0;
}

/* HTA's window (Trace._filter_irrelevant_gpu_kernels with
   include_last_profiler_step=False): with two or more distinct
   ProfilerStep#N names, the CPU events that start before the last step's
   start, and the GPU events whose launch is one of them. names: c->names,
   writable, whose spare bit 128 counts each step name once. */
static int window(hta_ctx *c, unsigned char *names, const unsigned char *keep)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    c->in = vec_scratch(tr->nevents, 1);
    if (!c->in)
        return -1;
    /* a scoped model (a step's, a range's) counts its own scope: the mask
       it was built with, the rule analyze's mask follows */
    if (!keep)
        keep = c->m->keep;
    if (keep) {
        h->window = HTA_WINDOW_SCOPE;
        memcpy(c->in, keep, tr->nevents);
    } else {
        uint32_t nsteps = 0;
        int64_t cut = INT64_MIN;
        for (size_t e = 0; e < tr->nevents; e++) {
            const trace_event *ev = &tr->events[e];
            if (c->role[e] != HTA_EV_CPU || !(hta_name_bits(c, ev->name) & HTA_NAME_STEP))
                continue;
            if (ev->ts > cut)
                cut = ev->ts;
            /* distinct names: the bit is cleared once counted, set back below */
            if (!(names[ev->name] & 128)) {
                names[ev->name] |= 128;
                nsteps++;
            }
        }
        for (uint32_t i = 0; i < c->nnames; i++)
            names[i] &= 127;
        h->window_steps = nsteps;
        if (nsteps >= 2) {
            h->window = HTA_WINDOW_NO_LAST_STEP;
            h->window_cut = cut;
            for (size_t e = 0; e < tr->nevents; e++)
                c->in[e] = c->role[e] == HTA_EV_CPU && tr->events[e].ts < cut;
            for (size_t e = 0; e < tr->nevents; e++)
                if (c->role[e] != HTA_EV_CPU) {
                    uint32_t l = c->launch[e];
                    c->in[e] = l != MODEL_NONE && c->in[l];
                    h->gpu_dropped += !c->in[e];
                }
        } else {
            h->window = HTA_WINDOW_ALL;
            memset(c->in, 1, tr->nevents);
        }
    }
    for (size_t e = 0; e < tr->nevents; e++) {
        if (!c->in[e])
            continue;
        if (c->role[e] == HTA_EV_CPU)
            h->cpu_events++;
        else
            h->gpu_events++;
    }
    return 0;
}

/* The streams (tracks with GPU work in the window, in track order) and
   the device events sorted by stream then start. */
static int streams(hta_ctx *c)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    c->stream_of = malloc((tr->ntracks ? tr->ntracks : 1) * sizeof *c->stream_of);
    c->dev = vec_scratch(h->gpu_events, sizeof *c->dev);
    if (!c->stream_of || !c->dev)
        return -1;
    for (size_t k = 0; k < tr->ntracks; k++)
        c->stream_of[k] = MODEL_NONE;
    for (size_t e = 0; e < tr->nevents; e++)
        if (c->in[e] && c->role[e] != HTA_EV_CPU) {
            c->dev[c->ndev++] = (uint32_t)e;
            /* a stream is a track with GPU work: cuda_sync alone makes none */
            if (c->role[e] == HTA_EV_WORK)
                c->stream_of[tr->events[e].track] = 0;
        }
    size_t n = 0;
    for (size_t k = 0; k < tr->ntracks; k++)
        n += c->stream_of[k] == 0;
    h->streams = calloc(n ? n : 1, sizeof *h->streams);
    if (!h->streams)
        return -1;
    for (size_t k = 0; k < tr->ntracks; k++)
        if (c->stream_of[k] == 0) {
            c->stream_of[k] = (uint32_t)h->nstreams;
            h->streams[h->nstreams++].track = (uint32_t)k;
        }
    /* by (track, start, index): dev is in index order, and each sort is
       stable, so start, then track */
    hta_sorter *so = c->so;
    if (hta_sorter_reserve(so, c->ndev) < 0)
        return -1;
    for (size_t i = 0; i < c->ndev; i++) {
        so->idx[i] = c->dev[i];
        so->key[i] = hta_key_i64(tr->events[c->dev[i]].ts);
    }
    hta_sorter_pass(so, c->ndev);
    for (size_t i = 0; i < c->ndev; i++)
        so->key[i] = tr->events[so->idx[i]].track;
    hta_sorter_pass(so, c->ndev);
    memcpy(c->dev, so->idx, c->ndev * sizeof *c->dev);
    return 0;
}

/* From this many GPU events in the window on, with --jobs 2 and up, the
   launch statistics and the kernel sequences run on a thread of their own
   beside the breakdown, idle time and queue length: each half only reads
   the context (const: the names classified before, by
   hta_names_classify) and writes its own figures. */
#define HTA_SPLIT_MIN 4096

struct hta_half {
    hta_ctx c;     /* the caller's, with a sorter of its own */
    hta_sorter so; /* that sorter */
    int rc;
};

static void *half_main(void *arg)
{
    struct hta_half *x = arg;
    x->rc = hta_launch_stats(&x->c) < 0 || hta_sequences(&x->c) < 0 ? -1 : 0;
    return NULL;
}

/* The analyses after the streams: on one thread, or two (see HTA_SPLIT_MIN). */
static int analyses(const hta_ctx *c)
{
    struct hta_half x = { .c = *c, .rc = 0 };
    pthread_t th;
    bool two = false;
    x.c.so = &x.so; /* its own, empty: each analysis reserves */
    if (c->m->opts.jobs > 1 && c->ndev >= HTA_SPLIT_MIN)
        two = pthread_create(&th, NULL, half_main, &x) == 0;
    int rc = hta_breakdown(c) < 0 || hta_idle(c) < 0 || hta_queue(c) < 0 ? -1 : 0;
    if (two) {
        pthread_join(th, NULL);
        hta_sorter_done(&x.so);
        rc = rc < 0 || x.rc < 0 ? -1 : 0;
    } else if (rc == 0) {
        rc = hta_launch_stats(c) < 0 || hta_sequences(c) < 0 ? -1 : 0;
    }
    return rc;
}

hta *hta_build(const model *m, const unsigned char *keep, const hta_opts *opts, t2p_error *err)
{
    hta_ctx c = { 0 };
    hta_sorter so = { 0 };
    unsigned char *names = NULL; /* c.names, which only this pass writes */
    hta *h = calloc(1, sizeof *h);
    if (!h)
        goto nomem;
    h->m = m;
    if (opts)
        h->opts = *opts;
    else
        hta_opts_default(&h->opts);
    c.h = h;
    c.m = m;
    c.tr = m->tr;
    c.seq_op = h->opts.seq_op ? h->opts.seq_op : "";
    c.seq_op_len = strlen(c.seq_op);
    c.nnames = strtab_count(m->tr->strs);
    if (!(names = calloc(c.nnames ? c.nnames : 1, 1)))
        goto nomem;
    /* every event's name classified now: the analyses then only read
       c.names, on two threads */
    c.names = names;
    hta_names_classify(&c, names);
    c.so = &so;
    /* the sorts' scratch once the window's GPU events are counted: none
       sorts more than those, and each reuses it */
    if (roles(&c) < 0 || window(&c, names, keep) < 0 ||
        hta_sorter_init(&so, h->gpu_events) < 0 || streams(&c) < 0 ||
        analyses(&c) < 0)
        goto nomem;
    for (size_t s = 0; s < h->nstreams; s++)
        h->streams_without_launches += h->streams[s].delay.count == 0;
    free(names);
    free(c.role);
    free(c.in);
    free(c.launch);
    free(c.stream_of);
    free(c.dev);
    hta_sorter_done(&so);
    return h;
nomem:
    free(names);
    free(c.role);
    free(c.in);
    free(c.launch);
    free(c.stream_of);
    free(c.dev);
    hta_sorter_done(&so);
    hta_free(h);
    error_set(err, T2P_ERR_NOMEM, m->tr->path, -1, "out of memory (GPU analyses)");
    return NULL;
}

void hta_free(hta *h)
{
    if (!h)
        return;
    free(h->kernels);
    free(h->streams);
    free(h->launches);
    free(h->seqs);
    free(h->seq_names);
    free(h);
}

const hta_launch *hta_stream_launches(const hta *h, size_t stream, size_t *n)
{
    const hta_stream *s = &h->streams[stream];
    *n = (size_t)s->delay.count;
    return h->launches + s->first_launch;
}

bool hta_launch_outlier(const hta *h, const hta_launch *l)
{
    return l->delay_ns > h->opts.delay_cutoff_ns || l->cpu_ns > h->opts.runtime_cutoff_ns;
}

const char *hta_stream_device(const hta *h, size_t stream)
{
    const trace *tr = h->m->tr;
    const trace_track *k = &tr->tracks[h->streams[stream].track];
    return trace_str(tr, tr->processes[k->process].pid);
}

const char *hta_stream_label(const hta *h, size_t stream, char *buf, size_t size)
{
    const trace *tr = h->m->tr;
    char t[256];
    snprintf(buf, size, "%s %s", hta_stream_device(h, stream),
             trace_track_label(tr, h->streams[stream].track, t, sizeof t));
    return buf;
}

const char *hta_window_text(const hta *h, char *buf, size_t size)
{
    switch (h->window) {
    case HTA_WINDOW_SCOPE:
        snprintf(buf, size, "the scope's events");
        break;
    case HTA_WINDOW_NO_LAST_STEP:
        snprintf(buf, size,
                 "HTA's: %u steps less the last (the CPU events that start before it, %.3f ms "
                 "into the trace, and the GPU work they launched; %llu GPU events left out)",
                 (unsigned)h->window_steps, (double)(h->window_cut - h->m->window_start) / 1e6,
                 (unsigned long long)h->gpu_dropped);
        break;
    default:
        snprintf(buf, size, "the whole trace (%s)",
                 h->window_steps ? "one ProfilerStep#" : "no ProfilerStep#");
        break;
    }
    return buf;
}
