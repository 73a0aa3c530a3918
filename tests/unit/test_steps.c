/* Unit tests of core/analyses/steps.c on hand-made traces whose split is worked out by
   hand from ../shared/docs/steps.md (times in us in the traces, ns below). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/model/model.h"
#include "core/analyses/steps.h"
#include "core/model/catkind.h"
#include "core/load/trace.h"
#include "tests/unit/unit.h"

#define US 1000

struct fx {
    char *path;
    trace *tr;
    model *m;
    steps *s;
};

static void load(struct fx *f, const char *text)
{
    t2p_error err;
    f->m = unit_load(text, &f->tr, &f->path);
    f->s = steps_build(f->m, &err);
    assert_non_null(f->s);
}

static void done(struct fx *f)
{
    steps_free(f->s);
    unit_close(f->m, f->tr, f->path);
}

/* the eight roles of step i, in us */
static void roles(const steps *s, size_t i, int64_t k, int64_t mc, int64_t ms, int64_t cm,
                  int64_t rt, int64_t dl, int64_t cpu, int64_t other)
{
    const int64_t want[STEPS_NROLES] = { k, mc, ms, cm, rt, dl, cpu, other };
    int64_t sum = 0;
    for (int r = 0; r < STEPS_NROLES; r++) {
        if (s->steps[i].role_ns[r] != want[r] * US)
            fail_msg("step %zu %s: %lld ns, want %lld us", i, steps_role_key(r),
                     (long long)s->steps[i].role_ns[r], (long long)want[r]);
        sum += s->steps[i].role_ns[r];
    }
    assert_int_equal(sum, s->steps[i].end - s->steps[i].start);
}

static uint32_t event_named(const trace *tr, const char *name)
{
    for (size_t e = 0; e < tr->nevents; e++)
        if (strcmp(trace_str(tr, tr->events[e].name), name) == 0)
            return (uint32_t)e;
    fail_msg("no event %s", name);
    return 0;
}

#define GPU_META                                                                        \
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"

/* Overlapping roles. Step [0,1000): op [0,100) holds a launch [10,20); its
   kernel runs [15,60), a memcpy [50,70) (launched by [30,35)) and a
   dataloader call [200,300) holding an op [210,220).
   Kernel [15,60) = 45; Memcpy [60,70) = 10 (50..60 was the kernel's);
   Runtime: [10,15) = 5, [30,35) is the kernel's... no: [30,35) lies in the
   kernel [15,60), so Runtime = 5; DataLoader [200,300) = 100 (the op inside
   adds nothing); CPU Exec: op [0,100) less [10,70) = 40; Other = 800. */
static void test_steps_overlapping_roles(void **state)
{
    (void)state;
    struct fx f;
    load(&f, "{\"traceEvents\":[" GPU_META
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":10,\"args\":{\"correlation\":1}},"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5,\"args\":{\"correlation\":2}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":15,\"dur\":45,\"args\":{\"correlation\":1}},"
             "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":8,\"ts\":50,\"dur\":20,\"args\":{\"correlation\":2}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":100},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::stack\",\"pid\":1,\"tid\":1,\"ts\":210,\"dur\":10}"
             "]}");
    const steps *s = f.s;
    assert_int_equal(s->nsteps, 1);
    assert_false(s->whole_trace);
    assert_true(s->device_windows);
    assert_string_equal(steps_label(s, 0), "7");
    assert_int_equal(s->steps[0].start, 0);
    assert_int_equal(s->steps[0].end, 1000 * US);
    roles(s, 0, 45, 10, 0, 0, 5, 100, 40, 800);
    assert_int_equal(s->steps[0].gpu_busy_ns, 55 * US); /* [15,70) */
    assert_int_equal(s->steps[0].gpu_launched, 2);
    assert_true(s->steps[0].kept);
    assert_int_equal(s->nkept, 1);
    assert_int_equal(s->avg_role_ns[STEPS_DATALOADER], 100 * US);
    /* DataLoader is 10 % of the step: over 5 % */
    bool dl = false;
    for (size_t i = 0; i < s->nrecs; i++)
        dl |= strcmp(s->recs[i].id, "dataloader") == 0;
    assert_true(dl);
    /* overlap: no communication */
    assert_int_equal(s->steps[0].overlap.computation_ns, 45 * US);
    assert_int_equal(s->steps[0].overlap.communication_ns, 0);
    assert_int_equal(s->steps[0].overlap.other_ns, 955 * US);
    /* CPU time: the step event is thread 1's outermost event */
    assert_int_equal(s->steps[0].cpu_ns, 1000 * US);
    done(&f);
}

/* Kernels that run after their step's host end, an unlinked kernel before
   the first step's GPU work, a step with no GPU work in the middle and one
   at the end (dropped).
     step 1 host [100,200): launch [110,120) -> k1 [250,400)
     orphan kernel [120,140) (no launch): ends before the first step's GPU
       start (250), so step 1 starts at 140
     step 2 host [210,300): launch [220,230) -> k2 [400,500)
     step 3 host [310,320): no GPU work: ends at max(host end, start) = 500
     step 4 host [330,340): launch [331,332) -> k4 [500,510)
     step 5 host [350,360): no GPU work: a tail step, dropped
   Windows: 1 [140,400), 2 [400,500), 3 [500,500), 4 [500,510), 5 [510,510).
   Step 4 launched 1 GPU event, step 3 none: 0 * 0.8 > 1 is false, so step 4
   is kept and only step 5 is dropped. */
static void test_steps_device_windows(void **state)
{
    (void)state;
    struct fx f;
    load(&f, "{\"traceEvents\":[" GPU_META
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":10,\"args\":{\"correlation\":1}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":250,\"dur\":150,\"args\":{\"correlation\":1}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":120,\"dur\":20},"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":210,\"dur\":90},"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":220,\"dur\":10,\"args\":{\"correlation\":2}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":400,\"dur\":100,\"args\":{\"correlation\":2}},"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1,\"tid\":1,\"ts\":310,\"dur\":10},"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#4\",\"pid\":1,\"tid\":1,\"ts\":330,\"dur\":10},"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":331,\"dur\":1,\"args\":{\"correlation\":4}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k4\",\"pid\":0,\"tid\":7,\"ts\":500,\"dur\":10,\"args\":{\"correlation\":4}},"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#5\",\"pid\":1,\"tid\":1,\"ts\":350,\"dur\":10}"
             "]}");
    const steps *s = f.s;
    static const int64_t win[5][2] = { { 140, 400 }, { 400, 500 }, { 500, 500 }, { 500, 510 },
                                       { 510, 510 } };
    assert_int_equal(s->nsteps, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(s->steps[i].start, win[i][0] * US);
        assert_int_equal(s->steps[i].end, win[i][1] * US);
        assert_int_equal(s->steps[i].kept, i < 4);
    }
    assert_int_equal(s->nkept, 4);
    /* step 1 [140,400): kernel [250,400) = 150; its own launch [110,120) is
       outside, but step 2's launch [220,230) lies in it: runtime 10 (step
       4's [331,332) too, but under the kernel, which comes first) */
    roles(s, 0, 150, 0, 0, 0, 10, 0, 0, 100);
    roles(s, 1, 100, 0, 0, 0, 0, 0, 0, 0);
    roles(s, 2, 0, 0, 0, 0, 0, 0, 0, 0);
    /* the average over the 4 kept steps: (260 + 100 + 0 + 10) / 4 */
    assert_int_equal(s->avg_duration_ns, (260 + 100 + 0 + 10) * US / 4);
    assert_int_equal(s->avg_role_ns[STEPS_KERNEL], (150 + 100 + 0 + 10) * US / 4);

    /* scoping: a kernel belongs to the step that launched it, even when it
       runs in the next step's window; the orphan by its start (no window
       holds 120: none) */
    assert_int_equal(s->ev_step[event_named(f.tr, "k1")], 0);
    assert_int_equal(s->ev_step[event_named(f.tr, "k2")], 1);
    assert_int_equal(s->ev_step[event_named(f.tr, "orphan")], STEPS_NONE);
    assert_int_equal(s->ev_step[event_named(f.tr, "ProfilerStep#3")], 2);
    unsigned char *mask = steps_mask(s, 1, 3);
    assert_non_null(mask);
    assert_int_equal(mask[event_named(f.tr, "k2")], 1);
    assert_int_equal(mask[event_named(f.tr, "k1")], 0);
    assert_int_equal(mask[event_named(f.tr, "k4")], 1);
    free(mask);

    size_t a, b;
    t2p_error err;
    assert_int_equal(steps_parse_range(s, "2-4", &a, &b, &err), 0);
    assert_int_equal(a, 1);
    assert_int_equal(b, 3);
    assert_int_equal(steps_parse_range(s, "3", &a, &b, &err), 0);
    assert_int_equal(a, 2);
    assert_int_equal(b, 2);
    assert_int_equal(steps_parse_range(s, "4-2", &a, &b, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_ARG);
    assert_int_equal(steps_parse_range(s, "9", &a, &b, &err), -1);
    assert_int_equal(steps_parse_range(s, "x-", &a, &b, &err), -1);
    done(&f);
}

/* The last step launched under 80 % of the GPU events of the one before:
   the profiler stopped before its kernels ran; it is dropped. Step 1: 5
   kernels, step 2: 3 (5 * 0.8 = 4 > 3). */
static void test_steps_dropped_tail(void **state)
{
    (void)state;
    char text[8192];
    size_t n = (size_t)snprintf(text, sizeof text, "{\"traceEvents\":[" GPU_META
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100}");
    int corr = 1;
    for (int st = 0; st < 2; st++)
        for (int k = 0; k < (st ? 3 : 5); k++, corr++)
            n += (size_t)snprintf(text + n, sizeof text - n,
                ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"args\":{\"correlation\":%d}}"
                ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}}",
                st * 100 + k * 10, corr, st * 100 + k * 10 + 5, corr);
    snprintf(text + n, sizeof text - n, "]}");
    struct fx f;
    load(&f, text);
    const steps *s = f.s;
    assert_int_equal(s->nsteps, 2);
    assert_int_equal(s->steps[0].gpu_launched, 5);
    assert_int_equal(s->steps[1].gpu_launched, 3);
    assert_true(s->steps[0].kept);
    assert_false(s->steps[1].kept);
    assert_int_equal(s->nkept, 1);
    assert_int_equal(s->avg_duration_ns, 100 * US);
    assert_int_equal(s->avg_role_ns[STEPS_KERNEL], 10 * US);
    assert_int_equal(s->avg_gpu_busy_ns, 10 * US);
    done(&f);
}

/* A communication kernel: its External id is that of nccl:all_reduce. It
   takes the Communication role with the collective; a compute kernel
   overlapping it takes Kernel.
     step [0,200): nccl:all_reduce [30,50) ext 7 holds a launch [35,40)
       corr 9 ext 7 -> ncclKernel [60,90) ext 7 (stream 8);
     aten::mm [100,110) ext 8 holds a launch [101,102) corr 10 ext 8 ->
       gemm [70,80) ext 8 (stream 7)
   Kernel [70,80) = 10; Communication [30,50) + [60,70) + [80,90) = 40;
   Runtime [101,102) = 1 ([35,40) is the collective's); CPU Exec:
   aten::mm [100,110) less the runtime = 9; Other 140.
   Overlap: computation = kernels 10, communication = 20 + 30 = 50,
   overlap 10, other 200 + 10 - 10 - 50 = 150. */
static void test_steps_communication_kernel(void **state)
{
    (void)state;
    struct fx f;
    load(&f, "{\"traceEvents\":[" GPU_META
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":200},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"nccl:all_reduce\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":20,\"args\":{\"External id\":7}},"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":35,\"dur\":5,\"args\":{\"correlation\":9,\"External id\":7}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,\"tid\":8,\"ts\":60,\"dur\":30,\"args\":{\"correlation\":9,\"External id\":7}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":10,\"args\":{\"External id\":8}},"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":101,\"dur\":1,\"args\":{\"correlation\":10,\"External id\":8}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":70,\"dur\":10,\"args\":{\"correlation\":10,\"External id\":8}}"
             "]}");
    const steps *s = f.s;
    assert_int_equal(s->nsteps, 1);
    roles(s, 0, 10, 0, 0, 40, 1, 0, 9, 140);
    assert_int_equal(s->steps[0].overlap.computation_ns, 10 * US);
    assert_int_equal(s->steps[0].overlap.communication_ns, 50 * US);
    assert_int_equal(s->steps[0].overlap.overlap_ns, 10 * US);
    assert_int_equal(s->steps[0].overlap.other_ns, 150 * US);
    /* 20 % of the step in communication: over 10 % */
    bool cm = false;
    for (size_t i = 0; i < s->nrecs; i++)
        cm |= strcmp(s->recs[i].id, "communication") == 0;
    assert_true(cm);
    done(&f);
}

/* No ProfilerStep#: one whole-trace step over the CPU operators, early
   Kineto's capitalised categories read like modern ones, and no event
   belongs to a step. */
static void test_steps_no_steps(void **state)
{
    (void)state;
    struct fx f;
    load(&f, "{\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
             "{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":3,\"args\":{\"correlation\":1}},"
             "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"add_kernel\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":20,\"dur\":40,\"args\":{\"correlation\":1}},"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"label\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}"
             "]}");
    const steps *s = f.s;
    assert_true(s->whole_trace);
    assert_int_equal(s->nsteps, 1);
    assert_string_equal(steps_label(s, 0), "");
    assert_int_equal(steps_find(s, "0"), -1);
    /* [10,40) from the operator, then moved to the device side: ends at the
       kernel's end */
    assert_int_equal(s->steps[0].start, 10 * US);
    assert_int_equal(s->steps[0].end, 60 * US);
    /* Kernel [20,60) = 40; Runtime [12,15) = 3; CPU Exec: the annotation and
       the operator over [10,60) less those = 7; Other 0 */
    roles(s, 0, 40, 0, 0, 0, 3, 0, 7, 0);
    for (size_t e = 0; e < f.tr->nevents; e++)
        assert_int_equal(s->ev_step[e], STEPS_NONE);
    /* the GPU attribution reads the early spellings too */
    const model_op *o = unit_find_op(f.m, "aten::add");
    assert_non_null(o);
    assert_int_equal(o->dev_self_ns, 40 * US);
    assert_string_equal(model_op_cat(f.m, (uint32_t)(o - f.m->ops)), "cpu_op");
    done(&f);
}

/* A CPU-only trace: the host windows stay, no tail is dropped, no GPU
   recommendation. Two threads: CPU time sums both threads' outermost events
   in the window. */
static void test_steps_cpu_only(void **state)
{
    (void)state;
    struct fx f;
    load(&f, "{\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":50},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"autograd::engine\",\"pid\":1,\"tid\":2,\"ts\":50,\"dur\":100},"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":20}"
             "]}");
    const steps *s = f.s;
    assert_int_equal(s->nsteps, 2);
    assert_false(s->device_windows);
    assert_int_equal(s->nkept, 2);
    /* step 1 [0,100): CPU Exec [10,100) = 90 (the second thread's call from 50) */
    roles(s, 0, 0, 0, 0, 0, 0, 0, 90, 10);
    roles(s, 1, 0, 0, 0, 0, 0, 0, 20, 0);
    assert_int_equal(s->steps[0].cpu_ns, (100 + 50) * US);
    assert_int_equal(s->steps[1].cpu_ns, (20 + 20) * US);
    assert_int_equal(s->steps[0].gpu_busy_ns, 0);
    for (size_t i = 0; i < s->nrecs; i++)
        assert_string_not_equal(s->recs[i].id, "gpu_util");
    /* top operators of step 1 by self time: ProfilerStep's own 50, then
       autograd::engine 100 (started in step 1), aten::mm 50 */
    uint32_t ops[3];
    int64_t ns[3];
    size_t n = steps_top_ops(s, 0, ops, ns, 3);
    assert_int_equal(n, 3);
    assert_string_equal(model_op_name(f.m, ops[0]), "autograd::engine");
    assert_int_equal(ns[0], 100 * US);
    assert_int_equal(ns[1], 50 * US);
    assert_int_equal(ns[2], 50 * US);
    done(&f);
}

/* A scope: the model of one step counts its events alone, but they nest in
   the whole trace. A Python frame "train" [0,300) on thread 1 spans both
   steps (it starts before step 1, so belongs to none); step 2's op
   aten::mm [150,170) holds a launch whose kernel runs [400,450), after the
   step; an op on thread 1 between the steps [140,145) belongs to none.
     step 1 host [10,140), step 2 host [150,290) */
static void test_steps_scope(void **state)
{
    (void)state;
    struct fx f;
    load(&f, "{\"traceEvents\":[" GPU_META
             "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"train\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":300},"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":130},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":30},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::zero_\",\"pid\":1,\"tid\":1,\"ts\":140,\"dur\":5},"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":140},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":20},"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":155,\"dur\":5,\"args\":{\"correlation\":1}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":400,\"dur\":50,\"args\":{\"correlation\":1}}"
             "]}");
    const steps *s = f.s;
    assert_int_equal(s->nsteps, 2);
    assert_int_equal(s->ev_step[event_named(f.tr, "train")], STEPS_NONE);
    assert_int_equal(s->ev_step[event_named(f.tr, "aten::zero_")], STEPS_NONE);
    assert_int_equal(s->ev_step[event_named(f.tr, "gemm")], 1);

    t2p_error err;
    model *m = steps_scope(s, 1, 1, NULL, &err);
    assert_non_null(m);
    assert_true(model_is_scoped(m));
    /* the scope as data: the step, its host window, the mask it was built with */
    assert_int_equal(m->scope.kind, MODEL_SCOPE_STEPS);
    assert_int_equal(m->scope.first, 1);
    assert_int_equal(m->scope.last, 1);
    assert_int_equal(m->scope.start, f.tr->events[event_named(f.tr, "ProfilerStep#2")].ts);
    assert_int_equal(m->scope.end - m->scope.start, 140 * US);
    assert_non_null(m->keep);
    assert_false(m->keep[event_named(f.tr, "aten::zero_")]);
    assert_true(m->keep[event_named(f.tr, "gemm")]);
    /* which step holds a time: host windows; between them, none */
    assert_int_equal(steps_at(s, m->scope.start, true), 1);
    assert_int_equal(steps_at(s, m->scope.end, true), STEPS_NONE);
    assert_int_equal(steps_at(s, f.tr->events[event_named(f.tr, "aten::zero_")].ts, true),
                     STEPS_NONE);
    assert_int_equal(steps_at(s, f.tr->events[event_named(f.tr, "ProfilerStep#1")].ts + 1, true),
                     0);
    assert_int_equal(steps_at(NULL, 0, true), STEPS_NONE);
    /* counted: ProfilerStep#2, aten::mm (once), the launch, the kernel */
    assert_int_equal(m->complete_events, 4);
    const model_op *mm = unit_find_op(m, "aten::mm");
    assert_non_null(mm);
    assert_int_equal(mm->calls, 1);
    assert_int_equal(mm->self_ns, 15 * US);
    assert_int_equal(mm->dev_self_ns, 50 * US);
    /* the caller outside the scope: on the stack, with no calls or time */
    const model_op *train = unit_find_op(m, "train");
    assert_non_null(train);
    assert_int_equal(train->calls, 0);
    assert_int_equal(train->self_ns, 0);
    assert_int_equal(train->min_ns, 0);
    assert_int_equal(train->dev_total_ns, 50 * US);
    assert_null(unit_find_op(m, "aten::zero_"));
    /* ProfilerStep#2's self: 140 less its child's 20 */
    const model_op *ps = unit_find_op(m, "ProfilerStep*");
    assert_non_null(ps);
    assert_int_equal(ps->self_ns, 120 * US);
    assert_int_equal(m->busy_ns, (120 + 15 + 5 + 50) * US);
    assert_int_equal(m->gpu_events, 1);
    assert_int_equal(m->gpu_unattributed_events, 0);
    /* the window: what the scope's events cover */
    assert_int_equal(m->window_start, 150 * US);
    assert_int_equal(m->window_end, 450 * US);
    /* steps need the whole trace */
    assert_null(steps_build(m, &err));
    assert_int_equal(err.kind, T2P_ERR_ARG);
    model_free(m);
    done(&f);
}

/* The same node figures in a and b (the GPU and merged trees too). */
static void same_nodes(const model_node *a, const model_node *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const model_node *x = &a[i], *y = &b[i];
        if (x->op != y->op || x->parent != y->parent || x->first_child != y->first_child ||
            x->next_sibling != y->next_sibling || x->track != y->track || x->depth != y->depth ||
            x->gpu != y->gpu || x->group != y->group || x->stream != y->stream ||
            x->calls != y->calls || x->self_ns != y->self_ns || x->total_ns != y->total_ns ||
            x->dev_events != y->dev_events || x->dev_leaf_ns != y->dev_leaf_ns ||
            x->dev_self_ns != y->dev_self_ns || x->dev_total_ns != y->dev_total_ns)
            fail_msg("node %zu differs", i);
    }
}

/* model_regroup (convert's step labels from the model it built) against a
   second build with the groups from the start: the same model, node for
   node, on traces with steps, GPU work and Python call stacks. */
static void test_steps_regroup(void **state)
{
    (void)state;
    const char *paths[] = { TOP_SRCDIR "/data/resnet50_gpu.json.gz",
                            TOP_SRCDIR "/tests/fixtures/mlp_nested.json.gz",
                            TOP_SRCDIR "/tests/fixtures/gpu_edge.json" };
    for (size_t p = 0; p < sizeof paths / sizeof *paths; p++) {
        t2p_error err;
        trace *tr = trace_load(paths[p], NULL, &err);
        assert_non_null(tr);
        model_opts wo = { .keep_nesting = true, .jobs = 2 };
        model *whole = model_build(tr, &wo, &err);
        assert_non_null(whole);
        steps *s = steps_build(whole, &err);
        assert_non_null(s);
        model_opts go = { .group = s->ev_step };
        model *want = model_build(tr, &go, &err);
        assert_non_null(want);
        model *got = model_regroup(whole, s->ev_step, &err);
        assert_non_null(got);
        if (p == 0)
            assert_true(want->nnodes > whole->nnodes); /* the steps split the nodes */
        assert_int_equal(got->nnodes, want->nnodes);
        same_nodes(got->nodes, want->nodes, want->nnodes);
        assert_int_equal(got->nmnodes, want->nmnodes);
        same_nodes(got->mnodes, want->mnodes, want->nmnodes);
        assert_memory_equal(got->ev_node, want->ev_node, tr->nevents * sizeof *got->ev_node);
        assert_memory_equal(got->node_merged, want->node_merged,
                            want->nnodes * sizeof *got->node_merged);
        assert_int_equal(got->node_stack != NULL, want->node_stack != NULL);
        if (want->node_stack)
            assert_memory_equal(got->node_stack, want->node_stack,
                                want->nnodes * sizeof *got->node_stack);
        assert_int_equal(got->nops, want->nops);
        assert_memory_equal(got->ops, want->ops, want->nops * sizeof *got->ops);
        assert_int_equal(got->ncats, want->ncats);
        assert_memory_equal(got->cats, want->cats, want->ncats * sizeof *got->cats);
        assert_memory_equal(got->tracks, want->tracks, want->ntracks * sizeof *got->tracks);
        assert_int_equal(got->gpu_events, want->gpu_events);
        assert_int_equal(got->gpu_unattributed_ns, want->gpu_unattributed_ns);
        assert_int_equal(got->busy_ns, want->busy_ns);
        assert_int_equal(got->window_ns, want->window_ns);
        model_free(got);
        model_free(want);
        /* no nesting kept: no regrouping */
        model *plain = model_build(tr, NULL, &err);
        assert_non_null(plain);
        assert_null(model_regroup(plain, s->ev_step, &err));
        model_free(plain);
        steps_free(s);
        model_free(whole);
        trace_free(tr);
    }
}

/* A recommendation with a figure: peak memory above 90 % of the device's. */
static void test_steps_memory_recommendation(void **state)
{
    (void)state;
    struct fx f;
    load(&f, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}]}");
    assert_false(steps_recommend_memory(f.s, 0, 90, 100));
    assert_true(steps_recommend_memory(f.s, 0, 91, 100));
    assert_string_equal(f.s->recs[f.s->nrecs - 1].id, "memory");
    assert_non_null(strstr(f.s->recs[f.s->nrecs - 1].text, "91.0%"));
    done(&f);
}

/* "Is this a step": one rule (catkind_is_step) for steps_build and
   steps_count. A ProfilerStep# on a gpu_user_annotation is a step for both;
   one in another category (a kernel) or a name without the # is none. */
static void test_steps_count_rule(void **state)
{
    (void)state;
    assert_true(catkind_step_name("ProfilerStep#3", 14));
    assert_false(catkind_step_name("ProfilerStep*", 13));
    assert_false(catkind_step_name("ProfilerStep#3", 12)); /* the length counts */
    assert_true(catkind_is_step(CATKIND_GPU_ANNOTATION, "ProfilerStep#3", 14));
    assert_false(catkind_is_step(CATKIND_KERNEL, "ProfilerStep#3", 14));
    struct fx f;
    load(&f, "{\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
             "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ProfilerStep#9\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStepX\",\"pid\":1,\"tid\":1,\"ts\":210,\"dur\":5}"
             "]}");
    assert_int_equal(f.s->nsteps, 2);
    assert_int_equal(steps_count(f.m), f.s->nsteps);
    done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_overlapping_roles),
        cmocka_unit_test(test_steps_device_windows),
        cmocka_unit_test(test_steps_dropped_tail),
        cmocka_unit_test(test_steps_communication_kernel),
        cmocka_unit_test(test_steps_no_steps),
        cmocka_unit_test(test_steps_count_rule),
        cmocka_unit_test(test_steps_cpu_only),
        cmocka_unit_test(test_steps_scope),
        cmocka_unit_test(test_steps_regroup),
        cmocka_unit_test(test_steps_memory_recommendation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
