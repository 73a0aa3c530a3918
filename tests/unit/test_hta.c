/* Unit tests of core/analyses/hta*.c (HTA's GPU analyses) on hand-made
   traces whose figures are worked out by hand from HTA's definitions
   (doc/gpu-hta.md); times in us in the traces, ns below. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/analyses/hta.h"
#include "core/load/trace.h"
#include "core/model/model.h"
#include "tests/unit/unit.h"

#define US 1000

struct fx {
    char *path;
    trace *tr;
    model *m;
    hta *h;
};

static void load(struct fx *f, const char *text, const hta_opts *o)
{
    t2p_error err;
    f->m = unit_load(text, &f->tr, &f->path);
    f->h = hta_build(f->m, NULL, o, &err);
    assert_non_null(f->h);
}

static void done(struct fx *f)
{
    hta_free(f->h);
    unit_close(f->m, f->tr, f->path);
}

#define GPU_META                                                                              \
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
#define CPU(name, cat, ts, dur, corr)                                                         \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
    ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}},"
#define OP(name, ts, dur)                                                                     \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts  \
    ",\"dur\":" #dur "},"
#define KER(name, cat, tid, ts, dur, corr)                                                    \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #tid         \
    ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}},"
#define KER0(name, cat, tid, ts, dur)                                                         \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #tid         \
    ",\"ts\":" #ts ",\"dur\":" #dur "},"
#define END "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}]}"

/* One operator launching six GPU events on streams 7 and 8, and a memcpy
   without a launch. Stream 7: K1 [20,30], K2 [40,50], K3 [70,80],
   K4 nccl [150,160], Memcpy [170,175] (no correlation), K6 [200,201];
   stream 8: nccl [25,45]. */
static const char *const busy_trace =
    "{\"traceEvents\":[" GPU_META
    OP("aten::op", 0, 300)
    CPU("cudaLaunchKernel", "cuda_runtime", 10, 2, 1)
    CPU("cudaLaunchKernel", "cuda_runtime", 13, 2, 2)
    CPU("cudaLaunchKernel", "cuda_runtime", 16, 1, 6)
    CPU("cudaLaunchKernel", "cuda_runtime", 60, 5, 3)
    CPU("cudaLaunchKernel", "cuda_runtime", 65, 5, 4)
    CPU("cudaLaunchKernel", "cuda_runtime", 190, 20, 5)
    KER("gemm", "kernel", 7, 20, 10, 1)
    KER("gemm", "kernel", 7, 40, 10, 2)
    KER("gemm", "kernel", 7, 70, 10, 3)
    KER("ncclKernel_AllReduce", "kernel", 7, 150, 10, 4)
    KER0("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 7, 170, 5)
    KER("gemm", "kernel", 7, 200, 1, 5)
    KER("ncclKernel_AllReduce", "kernel", 8, 25, 20, 6)
    END;

static const hta_stream *stream(const hta *h, const char *tid)
{
    for (size_t i = 0; i < h->nstreams; i++)
        if (!strcmp(trace_str(h->m->tr, h->m->tr->tracks[h->streams[i].track].tid), tid))
            return &h->streams[i];
    fail_msg("no stream %s", tid);
    return NULL;
}

/* host wait: the launch started after the previous event ended; kernel
   wait: a shorter gap than 30 us otherwise; other: the rest */
static void test_idle_split(void **state)
{
    (void)state;
    struct fx f;
    load(&f, busy_trace, NULL);
    const hta_stream *s = stream(f.h, "7");
    assert_int_equal(s->events, 6);
    assert_int_equal(s->host_wait_ns, 45 * US);   /* K3 20, K6 25 */
    assert_int_equal(s->kernel_wait_ns, 20 * US); /* K2 10, the memcpy 10 */
    assert_int_equal(s->other_wait_ns, 70 * US);  /* K4 70 */
    assert_int_equal(s->no_launch, 1);
    assert_int_equal(s->overlaps, 0);
    assert_int_equal(s->busy_ns, 46 * US); /* stream 7's own union */
    assert_int_equal(f.h->gpu_no_launch, 1);
    assert_int_equal(f.h->window, HTA_WINDOW_ALL);
    done(&f);
}

/* the kernel-wait threshold is an option: at 5 us the 10 us gaps are other */
static void test_idle_threshold(void **state)
{
    (void)state;
    struct fx f;
    hta_opts o;
    hta_opts_default(&o);
    o.kernel_wait_ns = 5 * US;
    load(&f, busy_trace, &o);
    const hta_stream *s = stream(f.h, "7");
    assert_int_equal(s->host_wait_ns, 45 * US);
    assert_int_equal(s->kernel_wait_ns, 0);
    assert_int_equal(s->other_wait_ns, 90 * US);
    done(&f);
}

/* launch delay: GPU start - call end, never below 0 (K6 starts 10 us
   before its call ends); p50/p95 interpolate as pandas' quantile */
static void test_launch_delay(void **state)
{
    (void)state;
    struct fx f;
    load(&f, busy_trace, NULL);
    const hta_delay *d = &f.h->delay;
    assert_int_equal(d->count, 6);              /* the memcpy has no launch */
    assert_int_equal(d->sum_ns, 126 * US);      /* 8 + 25 + 5 + 80 + 0 + 8 */
    assert_int_equal(d->max_ns, 80 * US);
    assert_true(fabs(d->p50_ns - 8 * US) < 1e-6);
    assert_true(fabs(d->p95_ns - 66.25 * US) < 1e-6); /* 25 + 0.75 * (80 - 25) */
    assert_int_equal(d->short_kernel, 1);       /* the 20 us call of a 1 us kernel */
    assert_int_equal(d->runtime_outlier, 0);
    assert_int_equal(d->long_delay, 0);
    /* the clamp: the smallest delay is 0, not -10 us */
    size_t n;
    const hta_launch *l = hta_stream_launches(f.h, (size_t)(stream(f.h, "7") - f.h->streams), &n);
    assert_int_equal(n, 5);
    assert_int_equal(l[0].delay_ns, 80 * US); /* by delay, largest first */
    assert_int_equal(l[n - 1].delay_ns, 0);
    assert_true(hta_launch_outlier(f.h, &l[0]) == false);
    done(&f);

    hta_opts o;
    hta_opts_default(&o);
    o.delay_cutoff_ns = 20 * US;
    o.runtime_cutoff_ns = 4 * US;
    load(&f, busy_trace, &o);
    assert_int_equal(f.h->delay.long_delay, 2);      /* 25 and 80 */
    assert_int_equal(f.h->delay.runtime_outlier, 3); /* the 5 and 20 us calls */
    assert_int_equal(f.h->delay.short_kernel, 0);    /* no call <= 4 us is longer than its GPU event */
    done(&f);
}

/* Launches of one delay: in their GPU events' file order, which is not
   their start order here (B starts first, A is first in the file); each
   record carries its own call's and GPU event's times. */
static const char *const ties_trace =
    "{\"traceEvents\":[" GPU_META
    OP("aten::op", 0, 300)
    CPU("cudaLaunchKernel", "cuda_runtime", 10, 5, 2)
    CPU("cudaLaunchKernel", "cuda_runtime", 20, 5, 4)
    CPU("cudaLaunchKernel", "cuda_runtime", 40, 5, 1)
    CPU("cudaLaunchKernel", "cuda_runtime", 90, 2, 3)
    KER("A", "kernel", 7, 50, 5, 1)
    KER("B", "kernel", 7, 20, 4, 2)
    KER("C", "kernel", 7, 100, 3, 3)
    KER("D", "kernel", 7, 30, 2, 4)
    END;

static void test_launch_order(void **state)
{
    (void)state;
    struct fx f;
    load(&f, ties_trace, NULL);
    size_t n;
    const hta_launch *l = hta_stream_launches(f.h, (size_t)(stream(f.h, "7") - f.h->streams), &n);
    const trace *tr = f.tr;
    assert_int_equal(n, 4);
    const char *want[] = { "C", "A", "B", "D" }; /* 8 us, then the 5 us ones by file order */
    const int64_t delay[] = { 8 * US, 5 * US, 5 * US, 5 * US };
    const int64_t cpu[] = { 2 * US, 5 * US, 5 * US, 5 * US }, gpu[] = { 3 * US, 5 * US, 4 * US, 2 * US };
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(trace_str(tr, tr->events[l[i].gpu].name), want[i]);
        assert_string_equal(trace_str(tr, tr->events[l[i].launch].name), "cudaLaunchKernel");
        assert_int_equal(l[i].delay_ns, delay[i]);
        assert_int_equal(l[i].cpu_ns, cpu[i]);
        assert_int_equal(l[i].gpu_ns, gpu[i]);
        assert_int_equal(tr->events[l[i].gpu].ts - tr->events[l[i].launch].ts - l[i].cpu_ns,
                         l[i].delay_ns);
    }
    assert_true(l[1].gpu < l[2].gpu && l[2].gpu < l[3].gpu);
    done(&f);
}

/* queue length: +1 at each launch, -1 at its GPU event's start, over
   the changes (not time-weighted) */
static void test_queue(void **state)
{
    (void)state;
    struct fx f;
    load(&f, busy_trace, NULL);
    const hta_stream *s = stream(f.h, "7");
    /* 1 2 1 0 1 2 1 0 1 0 */
    assert_int_equal(s->qcount, 10);
    assert_true(fabs(s->qmean - 0.9) < 1e-9);
    assert_int_equal(s->qmin, 0);
    assert_int_equal(s->qmax, 2);
    assert_true(fabs(s->qp50 - 1) < 1e-9);
    done(&f);
}

/* a launch and a GPU start at one instant: the launch counts first */
static void test_queue_ties(void **state)
{
    (void)state;
    struct fx f;
    load(&f,
         "{\"traceEvents\":[" GPU_META
         CPU("cudaLaunchKernel", "cuda_runtime", 5, 5, 1)
         CPU("cudaLaunchKernel", "cuda_runtime", 10, 5, 2)
         KER("k", "kernel", 7, 10, 5, 1)
         KER("k", "kernel", 7, 30, 5, 2)
         END, NULL);
    const hta_stream *s = stream(f.h, "7");
    assert_int_equal(s->qcount, 4);
    assert_int_equal(s->qmax, 2); /* 1 2 1 0: kernel first would give 1 0 1 0 */
    assert_true(fabs(s->qmean - 1.0) < 1e-9);
    done(&f);
}

/* the temporal breakdown and the kernel-type split by the set of types
   running at each instant */
static void test_breakdown(void **state)
{
    (void)state;
    struct fx f;
    load(&f, busy_trace, NULL);
    const hta *h = f.h;
    assert_int_equal(h->kernel_ns, 181 * US); /* 20 .. 201 */
    assert_int_equal(h->idle_ns, 125 * US);   /* 181 - the union 56 */
    assert_int_equal(h->compute_ns, 31 * US);
    assert_int_equal(h->non_compute_ns, 25 * US);
    unsigned comp = 1u << HTA_COMPUTATION, comm = 1u << HTA_COMMUNICATION,
             mem = 1u << HTA_MEMORY;
    int64_t want[8] = { 0 };
    want[comp] = 21 * US;
    want[comm] = 20 * US;
    want[comp | comm] = 10 * US;
    want[mem] = 5 * US;
    assert_int_equal(h->ntypes, 4);
    assert_int_equal(h->types_ns, 56 * US);
    for (size_t i = 0; i < h->ntypes; i++)
        assert_int_equal(h->types[i].ns, want[h->types[i].mask]);
    assert_int_equal(h->types[0].mask, comp); /* largest first */
    char buf[128];
    assert_string_equal(hta_typerow_name(comp | comm, buf, sizeof buf),
                        "COMPUTATION overlapping COMMUNICATION");
    /* the per-kernel table: gemm 4 calls of 10, 10, 10, 1 us */
    const hta_kernel *g = NULL;
    for (size_t i = 0; i < h->nkernels; i++)
        if (!strcmp(trace_str(f.tr, h->kernels[i].name), "gemm"))
            g = &h->kernels[i];
    assert_non_null(g);
    assert_int_equal(g->count, 4);
    assert_int_equal(g->sum_ns, 31 * US);
    assert_int_equal(g->min_ns, 1 * US);
    assert_int_equal(g->max_ns, 10 * US);
    assert_true(fabs(g->mean_ns - 7750) < 1e-6);
    assert_true(fabs(g->std_ns - 4500) < 1e-6); /* sample std of 10, 10, 10, 1 us */
    assert_int_equal(h->nkernels, 3);           /* gemm, nccl, the memcpy */
    assert_int_equal(h->kernels[0].type, HTA_COMMUNICATION); /* by type name first */
    done(&f);
}

static void test_kernel_types(void **state)
{
    (void)state;
#define T(s) hta_kernel_type(s, strlen(s))
    assert_int_equal(T("ncclKernel_AllReduce_RING"), HTA_COMMUNICATION);
    assert_int_equal(T("void foo<ncclKernel_x>"), HTA_COMMUNICATION);
    assert_int_equal(T("hipMemcpy"), HTA_COMMUNICATION); /* ^hip first: HTA's order */
    assert_int_equal(T("Memcpy DtoD (Device -> Device)"), HTA_MEMORY);
    assert_int_equal(T("Memset (Device)"), HTA_MEMORY);
    assert_int_equal(T("dma_in"), HTA_MEMORY);
    assert_int_equal(T("cudaLaunchKernel"), HTA_OTHER);
    assert_int_equal(T("Stream Sync"), HTA_OTHER);
    assert_int_equal(T("Event Sync"), HTA_OTHER);
    assert_int_equal(T("x_dma_y"), HTA_OTHER);
    assert_int_equal(T("sm80_xmma_gemm"), HTA_COMPUTATION);
    assert_int_equal(T("a\nSync"), HTA_COMPUTATION); /* '.' stops at a newline */
    assert_int_equal(T(""), HTA_COMPUTATION);
#undef T
}

/* HTA's window: with two ProfilerStep#N the last one's CPU events and the
   GPU work they launched are left out; a keep mask replaces it */
static void test_window(void **state)
{
    (void)state;
    struct fx f;
    const char *text =
        "{\"traceEvents\":[" GPU_META
        CPU("ProfilerStep#1", "user_annotation", 0, 100, -1)
        CPU("ProfilerStep#2", "user_annotation", 100, 100, -1)
        CPU("cudaLaunchKernel", "cuda_runtime", 10, 5, 1)
        CPU("cudaLaunchKernel", "cuda_runtime", 110, 5, 2)
        KER("k", "kernel", 7, 20, 10, 1)
        KER("k", "kernel", 7, 120, 10, 2)
        END;
    load(&f, text, NULL);
    assert_int_equal(f.h->window, HTA_WINDOW_NO_LAST_STEP);
    assert_int_equal(f.h->window_steps, 2);
    assert_int_equal(f.h->window_cut, 100 * US);
    assert_int_equal(f.h->gpu_events, 1);
    assert_int_equal(f.h->gpu_dropped, 1);
    assert_int_equal(f.h->kernel_ns, 10 * US);
    assert_int_equal(f.h->delay.count, 1);
    char buf[300];
    assert_non_null(strstr(hta_window_text(f.h, buf, sizeof buf), "2 steps less the last"));
    /* a scope: every event kept, the mask is the window */
    unsigned char *keep = malloc(f.tr->nevents);
    memset(keep, 1, f.tr->nevents);
    t2p_error err;
    hta *h = hta_build(f.m, keep, NULL, &err);
    assert_non_null(h);
    assert_int_equal(h->window, HTA_WINDOW_SCOPE);
    assert_int_equal(h->gpu_events, 2);
    assert_int_equal(h->kernel_ns, 110 * US);
    hta_free(h);
    /* a model of the first step alone (as the explorer's step scope builds
       it), without its mask: its window and its links make the scope */
    for (size_t e = 0; e < f.tr->nevents; e++)
        keep[e] = f.tr->events[e].ts < 100 * US;
    model_opts mo = { .keep = keep };
    model *sm = model_build(f.tr, &mo, &err);
    assert_non_null(sm);
    h = hta_build(sm, NULL, NULL, &err);
    assert_non_null(h);
    assert_int_equal(h->window, HTA_WINDOW_SCOPE);
    assert_int_equal(h->gpu_events, 1);
    assert_int_equal(h->kernel_ns, 10 * US);
    hta_free(h);
    model_free(sm);
    free(keep);
    done(&f);
}

/* bad input: kernels without correlation, events overlapping on a stream,
   a stream without launches: figures stay defined, nothing negative, and
   what was left out is counted */
static void test_bad_input(void **state)
{
    (void)state;
    struct fx f;
    load(&f,
         "{\"traceEvents\":[" GPU_META
         KER0("ka", "kernel", 7, 0, 10)
         KER0("kb", "kernel", 7, 5, 10)
         KER0("kc", "kernel", 7, 60, 10)
         END, NULL);
    const hta_stream *s = stream(f.h, "7");
    assert_int_equal(s->overlaps, 1);
    assert_int_equal(s->overlap_ns, 5 * US);
    assert_int_equal(s->host_wait_ns, 0);
    assert_int_equal(s->kernel_wait_ns, 0);     /* the overlap counts 0 */
    assert_int_equal(s->other_wait_ns, 45 * US); /* 15 .. 60 */
    assert_int_equal(s->no_launch, 3);
    assert_int_equal(s->delay.count, 0);
    assert_int_equal(s->qcount, 0);
    assert_int_equal(f.h->gpu_no_launch, 3);
    assert_int_equal(f.h->streams_without_launches, 1);
    assert_int_equal(f.h->delay.count, 0);
    assert_true(f.h->delay.p50_ns == 0 && f.h->delay.p95_ns == 0);
    assert_int_equal(f.h->idle_ns, 45 * US); /* 70 - the union 25 */
    done(&f);

    /* no GPU events at all: every figure 0, no stream */
    load(&f, "{\"traceEvents\":[" OP("aten::mm", 0, 10) END, NULL);
    assert_int_equal(f.h->nstreams, 0);
    assert_int_equal(f.h->gpu_events, 0);
    assert_int_equal(f.h->kernel_ns, 0);
    assert_int_equal(f.h->ntypes, 0);
    assert_int_equal(f.h->nseqs, 0);
    done(&f);
}

/* frequent sequences: the operator's call and the GPU events it launched,
   in GPU start order */
static void test_sequences(void **state)
{
    (void)state;
    struct fx f;
    hta_opts o;
    hta_opts_default(&o);
    o.seq_op = "aten::op";
    load(&f, busy_trace, &o);
    assert_int_equal(f.h->seq_roots, 1);
    assert_int_equal(f.h->nseqs, 1);
    const hta_seq *q = &f.h->seqs[0];
    assert_string_equal(trace_str(f.tr, q->op), "aten::op");
    assert_int_equal(q->len, 6); /* not the memcpy: no launch */
    assert_int_equal(q->count, 1);
    assert_int_equal(q->gpu_ns, 61 * US);
    assert_int_equal(q->cpu_ns, 300 * US);
    const char *want[] = { "gemm", "ncclKernel_AllReduce", "gemm", "gemm",
                           "ncclKernel_AllReduce", "gemm" };
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(trace_str(f.tr, f.h->seq_names[q->first + i]), want[i]);
    done(&f);
    /* fewer GPU events than seq_min_len: none */
    o.seq_min_len = 7;
    load(&f, busy_trace, &o);
    assert_int_equal(f.h->nseqs, 0);
    assert_int_equal(f.h->seq_roots, 1);
    done(&f);
}

#define EV(name, cat, tid, ts, dur, corr)                                                     \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid         \
    ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}},"

/* Three steps on thread 1 (the last left out by HTA's window), the autograd
   thread 2: its top-level calls within a step (or, when the main thread has
   one, within a "## backward ##" event) hang under it, so the step's
   pattern holds their kernels; a call that straddles two steps stays out. */
static const char *const bwd_trace =
    "{\"traceEvents\":[" GPU_META
    EV("ProfilerStep#1", "user_annotation", 1, 0, 100, 0)
    EV("ProfilerStep#2", "user_annotation", 1, 100, 100, 0)
    EV("ProfilerStep#3", "user_annotation", 1, 200, 100, 0)
    EV("aten::mm", "cpu_op", 1, 10, 10, 0)
    EV("cudaLaunchKernel", "cuda_runtime", 1, 12, 2, 1)
    EV("aten::mm", "cpu_op", 1, 110, 10, 0)
    EV("cudaLaunchKernel", "cuda_runtime", 1, 112, 2, 2)
    EV("autograd::engine::evaluate_function: MmBackward0", "cpu_op", 2, 50, 30, 0)
    EV("MmBackward0", "cpu_op", 2, 51, 28, 0)
    EV("cudaLaunchKernel", "cuda_runtime", 2, 60, 2, 3)
    EV("autograd::engine::evaluate_function: MmBackward0", "cpu_op", 2, 90, 20, 0)
    EV("cudaLaunchKernel", "cuda_runtime", 2, 95, 2, 4)
    KER("fk", "kernel", 7, 30, 5, 1)
    KER("bk", "kernel", 7, 70, 7, 3)
    KER("fk", "kernel", 7, 130, 5, 2)
    KER("bk", "kernel", 7, 135, 3, 4)
    END;

static void test_sequences_backward(void **state)
{
    (void)state;
    struct fx f;
    hta_opts o;
    hta_opts_default(&o);
    o.seq_op = "ProfilerStep";
    o.seq_min_len = 1;
    load(&f, bwd_trace, &o);
    assert_int_equal(f.h->seq_roots, 2);
    assert_int_equal(f.h->nseqs, 2);
    /* by count, then text: "ProfilerStep#1|fk|bk" before "ProfilerStep#2|fk" */
    const hta_seq *q = &f.h->seqs[0];
    assert_string_equal(trace_str(f.tr, q->op), "ProfilerStep#1");
    assert_int_equal(q->len, 2);
    assert_string_equal(trace_str(f.tr, f.h->seq_names[q->first]), "fk");
    assert_string_equal(trace_str(f.tr, f.h->seq_names[q->first + 1]), "bk");
    assert_int_equal(q->gpu_ns, 12 * US);
    assert_int_equal(q->cpu_ns, 100 * US);
    q = &f.h->seqs[1];
    assert_string_equal(trace_str(f.tr, q->op), "ProfilerStep#2");
    assert_int_equal(q->len, 1); /* not the straddling call's kernel */
    assert_int_equal(q->gpu_ns, 5 * US);
    /* a call of the autograd thread tied to a step stands below it */
    o.seq_op = "MmBackward0";
    hta_free(f.h);
    t2p_error err;
    f.h = hta_build(f.m, NULL, &o, &err);
    assert_non_null(f.h);
    assert_int_equal(f.h->seq_roots, 1); /* the straddling call alone: tied to no step, the shallowest */
    done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_split),   cmocka_unit_test(test_idle_threshold),
        cmocka_unit_test(test_launch_delay),
        cmocka_unit_test(test_launch_order),
        cmocka_unit_test(test_queue),
        cmocka_unit_test(test_queue_ties),   cmocka_unit_test(test_breakdown),
        cmocka_unit_test(test_kernel_types), cmocka_unit_test(test_window),
        cmocka_unit_test(test_bad_input),    cmocka_unit_test(test_sequences),
        cmocka_unit_test(test_sequences_backward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
