/* hta_build: the window, the roles of the events, then each analysis
   (hta_breakdown.c, hta_idle.c, hta_launch.c, hta_seq.c). */
#include "config.h"

#include "core/analyses/hta.h"
#include "core/analyses/hta_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/catkind.h"

void hta_opts_default(hta_opts *o)
{
    *o = (hta_opts){ .kernel_wait_ns = HTA_KERNEL_WAIT_NS,
                     .runtime_cutoff_ns = HTA_RUNTIME_CUTOFF_NS,
                     .delay_cutoff_ns = HTA_DELAY_CUTOFF_NS,
                     .seq_op = HTA_SEQ_OP,
                     .seq_min_len = HTA_SEQ_MIN_LEN,
                     .seq_top = HTA_SEQ_TOP };
}

const char *hta_ktype_name(enum hta_ktype k)
{
    static const char *const n[] = { "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" };
    return k < HTA_NKTYPES ? n[k] : "OTHER";
}

static bool starts(const char *s, size_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && !memcmp(s, p, n);
}

/* Python's re.match(".*P", s): P before the first newline ('.' stops there). */
static bool has(const char *s, size_t len, const char *p)
{
    const char *nl = memchr(s, '\n', len);
    size_t n = nl ? (size_t)(nl - s) : len;
    size_t pl = strlen(p);
    for (size_t i = 0; i + pl <= n; i++)
        if (!memcmp(s + i, p, pl))
            return true;
    return false;
}

/* HTA's patterns (hta/common/types.py), each anchored at the start as
   re.match is; utils.get_kernel_type tries them in this order. */
enum hta_ktype hta_kernel_type(const char *s, size_t len)
{
    if (starts(s, len, "nccl") || starts(s, len, "hip") || starts(s, len, "hccl") ||
        has(s, len, "ncclKernel"))
        return HTA_COMMUNICATION;
    if (starts(s, len, "Memcpy") || starts(s, len, "Memset") || starts(s, len, "dma"))
        return HTA_MEMORY; /* hipMemcpy/hipMemset: communication above, as in HTA */
    static const char *const not_compute_prefix[] = {
        "nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet", "pe_exe",
        "cpum_exe_subgraph", "hccl", "collective_subgraph_execution" };
    for (size_t i = 0; i < sizeof not_compute_prefix / sizeof *not_compute_prefix; i++)
        if (starts(s, len, not_compute_prefix[i]))
            return HTA_OTHER;
    if (has(s, len, "Memcpy") || has(s, len, "Memset") || has(s, len, "dma") ||
        has(s, len, "Sync"))
        return HTA_OTHER;
    if (starts(s, len, "cuda") && has(s + 4, len - 4, "LaunchKernel"))
        return HTA_OTHER;
    return HTA_COMPUTATION;
}

const char *hta_typerow_name(unsigned mask, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < HTA_OTHER; k++) {
        if (!(mask & 1u << k))
            continue;
        int w = snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? " overlapping " : "",
                         hta_ktype_name((enum hta_ktype)k));
        if (w > 0)
            n += (size_t)w;
    }
    return buf;
}

static const char *const launch_names[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
    "runFunction - job_prep_and_submit_for_execution" };
/* TraceSymbolTable.get_runtime_launch_events_mask: the queue's wider list */
static const char *const qlaunch_names[] = {
    "cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel", "hipExtModuleLaunchKernel",
    "hipMemsetAsync", "hipMemcpyAsync", "hipMemcpyWithStream" };

static bool is_step_name(const char *s, size_t len)
{
    return len > 13 && !memcmp(s, "ProfilerStep#", 13) && s[13] >= '0' && s[13] <= '9';
}

unsigned hta_name_bits(hta_ctx *c, uint32_t name)
{
    if (name >= c->nnames)
        return HTA_NAME_DONE | HTA_OTHER << HTA_NAME_TYPE_SHIFT;
    unsigned b = c->names[name];
    if (b & HTA_NAME_DONE)
        return b;
    const char *s = trace_str(c->tr, name);
    size_t len = strtab_len(c->tr->strs, name);
    b = HTA_NAME_DONE | (unsigned)hta_kernel_type(s, len) << HTA_NAME_TYPE_SHIFT;
    if (is_step_name(s, len))
        b |= HTA_NAME_STEP;
    for (size_t i = 0; c->seq_op_len && i + c->seq_op_len <= len; i++)
        if (!memcmp(s + i, c->seq_op, c->seq_op_len)) {
            b |= HTA_NAME_SEQ;
            break;
        }
    for (size_t i = 0; i < sizeof launch_names / sizeof *launch_names; i++)
        if (len == strlen(launch_names[i]) && !memcmp(s, launch_names[i], len))
            b |= HTA_NAME_LAUNCH | HTA_NAME_QLAUNCH;
    for (size_t i = 0; i < sizeof qlaunch_names / sizeof *qlaunch_names; i++)
        if (len == strlen(qlaunch_names[i]) && !memcmp(s, qlaunch_names[i], len))
            b |= HTA_NAME_QLAUNCH;
    c->names[name] = (unsigned char)b;
    return b;
}

double hta_quantile(const int64_t *a, size_t n, double q)
{
    if (n == 0)
        return 0;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo + 1 >= n)
        return (double)a[n - 1];
    double f = pos - (double)lo;
    return (double)a[lo] + (double)(a[lo + 1] - a[lo]) * f;
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
    c->role = calloc(tr->nevents ? tr->nevents : 1, 1);
    c->launch = malloc((tr->nevents ? tr->nevents : 1) * sizeof *c->launch);
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
   start, and the GPU events whose launch is one of them. */
static int window(hta_ctx *c, const unsigned char *keep)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    c->in = malloc(tr->nevents ? tr->nevents : 1);
    if (!c->in)
        return -1;
    if (keep) {
        h->window = HTA_WINDOW_SCOPE;
        memcpy(c->in, keep, tr->nevents);
    } else if (c->m->scoped) {
        /* a scoped model without its mask (the explorer's step scope): its
           window holds the scope's CPU events, and it links only the scope's
           GPU work to launches */
        h->window = HTA_WINDOW_SCOPE;
        for (size_t e = 0; e < tr->nevents; e++)
            c->in[e] = c->role[e] == HTA_EV_CPU
                           ? tr->events[e].ts >= c->m->window_start &&
                                 tr->events[e].ts < c->m->window_end
                           : c->launch[e] != MODEL_NONE;
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
            if (!(c->names[ev->name] & 128)) {
                c->names[ev->name] |= 128;
                nsteps++;
            }
        }
        for (uint32_t i = 0; i < c->nnames; i++)
            c->names[i] &= 127;
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

struct devkey {
    int64_t ts;
    uint32_t track, event;
};

/* device events by (stream, ts, index) */
static int cmp_dev(const void *pa, const void *pb)
{
    const struct devkey *x = pa, *y = pb;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->event < y->event ? -1 : x->event > y->event;
}

/* The streams (tracks with GPU work in the window, in track order) and
   the device events sorted by stream then start. */
static int streams(hta_ctx *c)
{
    const trace *tr = c->tr;
    hta *h = c->h;
    c->stream_of = malloc((tr->ntracks ? tr->ntracks : 1) * sizeof *c->stream_of);
    c->dev = malloc((h->gpu_events ? h->gpu_events : 1) * sizeof *c->dev);
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
    struct devkey *k = malloc((c->ndev ? c->ndev : 1) * sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < c->ndev; i++)
        k[i] = (struct devkey){ tr->events[c->dev[i]].ts, tr->events[c->dev[i]].track, c->dev[i] };
    qsort(k, c->ndev, sizeof *k, cmp_dev);
    for (size_t i = 0; i < c->ndev; i++)
        c->dev[i] = k[i].event;
    free(k);
    return 0;
}

hta *hta_build(const model *m, const unsigned char *keep, const hta_opts *opts, t2p_error *err)
{
    hta_ctx c = { 0 };
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
    if (!(c.names = calloc(c.nnames ? c.nnames : 1, 1)))
        goto nomem;
    if (roles(&c) < 0 || window(&c, keep) < 0 || streams(&c) < 0 || hta_breakdown(&c) < 0 ||
        hta_idle(&c) < 0 || hta_launch_stats(&c) < 0 || hta_queue(&c) < 0 ||
        hta_sequences(&c) < 0)
        goto nomem;
    for (size_t s = 0; s < h->nstreams; s++)
        h->streams_without_launches += h->streams[s].delay.count == 0;
    free(c.names);
    free(c.role);
    free(c.in);
    free(c.launch);
    free(c.stream_of);
    free(c.dev);
    return h;
nomem:
    free(c.names);
    free(c.role);
    free(c.in);
    free(c.launch);
    free(c.stream_of);
    free(c.dev);
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
