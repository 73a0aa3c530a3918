/* Unit tests of core/analyses/timeline.c and core/analyses/range.c on a
   hand-made trace whose figures are worked out by hand (times in us in the
   trace, ns below).

   Thread 1: ProfilerStep#1 [0,100) > aten::mm [10,60) > cudaLaunchKernel
   [20,25) (correlation 1); cudaMemcpyAsync [70,72) (correlation 2) in the
   step. GPU 0 stream 7: the kernel [30,50), the memcpy [80,90).
   By the Steps view's roles: thread 1 is Runtime [20,25) and [70,72), CPU
   Exec [10,20) and [25,60), busy with no role (the step alone) the rest of
   [0,100); the stream is Kernel 20, Memcpy 10; the device strip busy 30. */
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

#include "core/analyses/range.h"
#include "core/analyses/steps.h"
#include "core/analyses/steps_roles.h"
#include "core/analyses/timeline.h"
#include "core/load/trace.h"
#include "core/model/model.h"
#include "tests/unit/unit.h"

#define US 1000

static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":50},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":70,\"dur\":2,\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":20,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":7,\"ts\":80,\"dur\":10,\"args\":{\"correlation\":2}}"
    "]}";

struct fx {
    char *path;
    trace *tr;
    model *m;
    timeline *t;
};

static void load(struct fx *f)
{
    t2p_error err;
    f->m = unit_load(TRACE, &f->tr, &f->path);
    f->t = timeline_build(f->m, &err);
    assert_non_null(f->t);
}

static void done(struct fx *f)
{
    timeline_free(f->t);
    unit_close(f->m, f->tr, f->path);
}

static uint32_t ev(const trace *tr, const char *name)
{
    for (size_t e = 0; e < tr->nevents; e++)
        if (strcmp(trace_str(tr, tr->events[e].name), name) == 0)
            return (uint32_t)e;
    fail_msg("no event %s", name);
    return 0;
}

static void test_timeline_rows_and_roles(void **state)
{
    (void)state;
    struct fx f;
    load(&f);
    const timeline *t = f.t;
    /* the strip, the stream, the thread */
    assert_int_equal(t->nrows, 3);
    assert_int_equal(t->rows[0].kind, TIMELINE_UTIL);
    assert_int_equal(t->rows[0].device, 0);
    assert_int_equal(t->rows[1].kind, TIMELINE_STREAM);
    assert_int_equal(t->rows[2].kind, TIMELINE_THREAD);
    int64_t a = 0, b = 100 * US, busy;
    assert_int_equal(timeline_role_ns(t, 2, STEPS_RUNTIME, a, b), 7 * US);
    assert_int_equal(timeline_role_ns(t, 2, STEPS_CPU_OP, a, b), 45 * US);
    assert_int_equal(timeline_role_ns(t, 2, STEPS_KERNEL, a, b), 0);
    assert_int_equal(timeline_role_ns(t, 1, STEPS_KERNEL, a, b), 20 * US);
    assert_int_equal(timeline_role_ns(t, 1, STEPS_MEMCPY, a, b), 10 * US);
    /* a window cutting stretches: [22,40) holds Runtime [22,25), CPU [25,40) */
    assert_int_equal(timeline_role_ns(t, 2, STEPS_RUNTIME, 22 * US, 40 * US), 3 * US);
    assert_int_equal(timeline_role_ns(t, 2, STEPS_CPU_OP, 22 * US, 40 * US), 15 * US);
    /* cells: what filled most of them */
    assert_int_equal(timeline_cell(t, 2, 20 * US, 26 * US, &busy), STEPS_RUNTIME);
    assert_int_equal(busy, 6 * US);
    assert_int_equal(timeline_cell(t, 2, 0, 10 * US, &busy), -1); /* the step alone: no role */
    assert_int_equal(busy, 10 * US);
    assert_int_equal(timeline_cell(t, 1, 30 * US, 50 * US, &busy), STEPS_KERNEL);
    assert_int_equal(timeline_cell(t, 1, 50 * US, 70 * US, &busy), -1); /* idle */
    assert_int_equal(busy, 0);
    assert_int_equal(timeline_cell(t, 1, 40 * US, 80 * US, &busy), -1); /* idle 30 > kernel 10 */
    assert_int_equal(busy, 10 * US);
    /* the strip: the device's busy time */
    assert_int_equal(timeline_cell(t, 0, 0, 100 * US, &busy), -1);
    assert_int_equal(busy, 30 * US);
    assert_int_equal(timeline_cell(t, 0, 30 * US, 50 * US, &busy), 0);
    done(&f);
}

static void test_timeline_events(void **state)
{
    (void)state;
    struct fx f;
    load(&f);
    const timeline *t = f.t;
    const trace *tr = f.tr;
    /* the innermost event open at a time */
    assert_int_equal(timeline_event_at(t, 2, 22 * US), ev(tr, "cudaLaunchKernel"));
    assert_int_equal(timeline_event_at(t, 2, 25 * US), ev(tr, "aten::mm"));
    assert_int_equal(timeline_event_at(t, 2, 65 * US), ev(tr, "ProfilerStep#1"));
    assert_int_equal(timeline_event_at(t, 2, 100 * US), TIMELINE_NONE);
    assert_int_equal(timeline_event_at(t, 1, 55 * US), TIMELINE_NONE);
    assert_int_equal(timeline_event_at(t, 1, 85 * US), ev(tr, "Memcpy HtoD"));
    /* next and previous starts */
    assert_int_equal(timeline_step_event(t, 2, 0, 1), ev(tr, "aten::mm"));
    assert_int_equal(timeline_step_event(t, 2, 10 * US, 1), ev(tr, "cudaLaunchKernel"));
    assert_int_equal(timeline_step_event(t, 2, 70 * US, 1), TIMELINE_NONE);
    assert_int_equal(timeline_step_event(t, 2, 25 * US, -1), ev(tr, "cudaLaunchKernel"));
    assert_int_equal(timeline_step_event(t, 2, 0, -1), TIMELINE_NONE);
    /* the launch of GPU work */
    assert_int_equal(timeline_launch_of(t, ev(tr, "gemm")), ev(tr, "cudaLaunchKernel"));
    assert_int_equal(timeline_launch_of(t, ev(tr, "Memcpy HtoD")), ev(tr, "cudaMemcpyAsync"));
    assert_int_equal(timeline_launch_of(t, ev(tr, "aten::mm")), TIMELINE_NONE);
    done(&f);
}

static void test_range_parse(void **state)
{
    (void)state;
    range_spec r;
    t2p_error err;
    assert_int_equal(range_parse("1.5ms:2s", &r, &err), 0);
    assert_int_equal(r.start_off, 1500000);
    assert_int_equal(r.end_off, 2000000000);
    assert_true(r.has_end);
    assert_int_equal(range_parse("120ms:", &r, &err), 0);
    assert_int_equal(r.start_off, 120000000);
    assert_false(r.has_end);
    assert_int_equal(range_parse(":7us", &r, &err), 0);
    assert_int_equal(r.start_off, 0);
    assert_int_equal(r.end_off, 7000);
    assert_int_equal(range_parse("0.0000000019s:3ns", &r, &err), 0); /* past a ns: dropped */
    assert_int_equal(r.start_off, 1);
    const char *bad[] = { "1s", "1s:1s", "2s:1s", "1x:2s", "1:2s", "-1s:2s", "s:1s",
                          "1s:2s:3s", "99999999999999999999s:", "1.2.3s:4s" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (range_parse(bad[i], &r, &err) == 0)
            fail_msg("'%s' parsed", bad[i]);
        assert_int_equal(err.kind, T2P_ERR_ARG);
    }
    char b[48];
    assert_string_equal(range_offset_text(1204000000, b, sizeof b), "1.204s");
    assert_string_equal(range_offset_text(10000000, b, sizeof b), "10ms");
    assert_string_equal(range_offset_text(1234567, b, sizeof b), "1234.567us");
    assert_string_equal(range_offset_text(5, b, sizeof b), "5ns");
}

/* The rule: by its start; GPU work by its launch's. [22,75): the launch
   [20,25) is out, so is its kernel [30,50) though it ran inside; the
   memcpy launch [70,72) is in, so is its memcpy [80,90) though it ran
   after; mm [10,60) and the step [0,100) are out. */
static void test_range_mask(void **state)
{
    (void)state;
    struct fx f;
    load(&f);
    t2p_error err;
    range_spec rs;
    time_range r;
    assert_int_equal(range_parse("22us:75us", &rs, &err), 0);
    assert_int_equal(range_resolve(f.m, &rs, &r, &err), 0);
    size_t kept;
    unsigned char *k = range_mask(f.m, &r, &kept);
    assert_non_null(k);
    assert_int_equal(kept, 2);
    assert_true(k[ev(f.tr, "cudaMemcpyAsync")]);
    assert_true(k[ev(f.tr, "Memcpy HtoD")]);
    assert_false(k[ev(f.tr, "gemm")]);
    assert_false(k[ev(f.tr, "cudaLaunchKernel")]);
    free(k);
    /* the scoped model: the memcpy's device time under its launch's caller */
    model *m = range_scope(f.m, &r, NULL, NULL, &err);
    assert_non_null(m);
    assert_int_equal(m->gpu_ns, 10 * US);
    assert_int_equal(m->gpu_unattributed_events, 0);
    assert_string_equal(m->scope_note, "range 22.000\xe2\x80\x93" "75.000 us");
    /* the scope as data: the range and the mask that range_mask gives */
    assert_int_equal(m->scope.kind, MODEL_SCOPE_RANGE);
    assert_int_equal(m->scope.start, r.start);
    assert_int_equal(m->scope.end, r.end);
    assert_int_equal(m->scope.off_start, 22 * US);
    assert_int_equal(m->scope.off_end, 75 * US);
    assert_non_null(m->keep);
    assert_true(m->keep[ev(f.tr, "Memcpy HtoD")]);
    assert_false(m->keep[ev(f.tr, "gemm")]);
    assert_null(f.m->keep);
    assert_int_equal(f.m->scope.kind, MODEL_SCOPE_NONE);
    model_free(m);
    /* past the end: refused; an END past it stops there */
    assert_int_equal(range_parse("1s:", &rs, &err), 0);
    assert_int_equal(range_resolve(f.m, &rs, &r, &err), -1);
    assert_int_equal(range_parse("50us:1s", &rs, &err), 0);
    assert_int_equal(range_resolve(f.m, &rs, &r, &err), 0);
    assert_int_equal(r.end, f.m->window_end);
    done(&f);
}

/* A collective's kernel (its External id is the nccl:all_reduce's:
   Communication by TensorBoard's rule), a DataLoader call, a kernel of
   another operator, and ProfilerStep# on the GPU row too. */
static const char COMM[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"nccl:all_reduce\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20,\"args\":{\"External id\":5}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":2,\"args\":{\"correlation\":1,\"External id\":5}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":10,\"args\":{\"External id\":6}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":52,\"dur\":2,\"args\":{\"correlation\":2,\"External id\":6}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":0,\"tid\":7,\"ts\":15,\"dur\":60},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":20,\"args\":{\"correlation\":1,\"External id\":5}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":55,\"dur\":10,\"args\":{\"correlation\":2,\"External id\":6}}"
    "]}";

/* steps_roles (the timeline's roles, without the steps) against
   steps_build's own classification, event for event, and its ProfilerStep#
   events against the steps' */
static void same_roles(const model *m)
{
    t2p_error err;
    steps *s = steps_build(m, &err);
    assert_non_null(s);
    steps_roles r;
    assert_int_equal(steps_roles_init(&r, m, &err), 0);
    for (size_t e = 0; e < m->tr->nevents; e++)
        if (steps_roles_of(&r, (uint32_t)e) != steps_ev_role(s, e))
            fail_msg("%s: event %zu (%s): role %d, the steps say %d", m->tr->path, e,
                     trace_str(m->tr, m->tr->events[e].name), steps_roles_of(&r, (uint32_t)e),
                     steps_ev_role(s, e));
    assert_int_equal(r.nsteps, s->whole_trace ? 0 : s->nsteps);
    for (size_t i = 0; i < r.nsteps; i++)
        assert_int_equal(r.step_ev[i], s->steps[i].event);
    steps_roles_done(&r);
    steps_free(s);
}

static void test_steps_roles(void **state)
{
    (void)state;
    t2p_error err;
    char *path = unit_write_tmp(COMM);
    trace *tr = trace_load(path, NULL, &err);
    assert_non_null(tr);
    model *m = model_build(tr, NULL, &err);
    assert_non_null(m);
    same_roles(m);
    steps_roles r;
    assert_int_equal(steps_roles_init(&r, m, &err), 0);
    assert_int_equal(steps_roles_of(&r, ev(tr, "ncclKernel_AllReduce")), STEPS_COMMUNICATION);
    assert_int_equal(steps_roles_of(&r, ev(tr, "gemm")), STEPS_KERNEL);
    assert_int_equal(steps_roles_of(&r, ev(tr, "nccl:all_reduce")), STEPS_COMMUNICATION);
    assert_int_equal(steps_roles_of(&r, ev(tr, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")),
                     STEPS_DATALOADER);
    assert_int_equal(steps_roles_of(&r, ev(tr, "ProfilerStep#7")), -1);
    assert_int_equal(r.nsteps, 2); /* the CPU's and the GPU row's */
    steps_roles_done(&r);
    /* the stream: Communication 20 us, Kernel 10 */
    timeline *t = timeline_build(m, &err);
    assert_non_null(t);
    assert_int_equal(t->rows[1].kind, TIMELINE_STREAM);
    assert_int_equal(timeline_role_ns(t, 1, STEPS_COMMUNICATION, 0, 100 * US), 20 * US);
    assert_int_equal(timeline_role_ns(t, 1, STEPS_KERNEL, 0, 100 * US), 10 * US);
    assert_int_equal(t->nmarks, 2);
    assert_string_equal(timeline_mark_label(t, 0), "7");
    /* the marks: the CPU's [0, 100 us), the GPU row's [15, 75 us); the
       latest-starting one holding a time is its step, as steps_at says */
    assert_int_equal(timeline_mark_at(t, 10 * US), 0);
    assert_int_equal(timeline_mark_at(t, 50 * US), 1);
    assert_int_equal(timeline_mark_at(t, 80 * US), 0);
    assert_true(timeline_mark_at(t, 100 * US) == SIZE_MAX);
    assert_true(timeline_mark_at(t, -1) == SIZE_MAX);
    timeline_free(t);
    model_free(m);
    trace_free(tr);
    unlink(path);
    free(path);

    const char *paths[] = { TOP_SRCDIR "/data/resnet50_gpu.json.gz",
                            TOP_SRCDIR "/tests/fixtures/mlp_nested.json.gz",
                            TOP_SRCDIR "/tests/fixtures/gpu_edge.json",
                            TOP_SRCDIR "/tests/fixtures/nccl_job/rank-0.json.gz",
                            TOP_SRCDIR "/tests/fixtures/lstm_train.json.gz",
                            TOP_SRCDIR "/tests/fixtures/threads_fork.json.gz" };
    for (size_t p = 0; p < sizeof paths / sizeof *paths; p++) {
        tr = trace_load(paths[p], NULL, &err);
        assert_non_null(tr);
        m = model_build(tr, NULL, &err);
        assert_non_null(m);
        same_roles(m);
        model_free(m);
        trace_free(tr);
    }
}

/* The timeline from the model's kept order on two threads against the
   timeline sorting each track itself on one: the same stretches, row for
   row, and the same event at every time asked */
static void test_timeline_paths(void **state)
{
    (void)state;
    const char *paths[] = { TOP_SRCDIR "/data/resnet50_gpu.json.gz",
                            TOP_SRCDIR "/tests/fixtures/gpu_edge.json",
                            TOP_SRCDIR "/tests/fixtures/nccl_job/rank-1.json.gz",
                            TOP_SRCDIR "/tests/fixtures/threads_fork.json.gz",
                            TOP_SRCDIR "/tests/fixtures/recursion.json" };
    for (size_t p = 0; p < sizeof paths / sizeof *paths; p++) {
        t2p_error err;
        trace *tr = trace_load(paths[p], NULL, &err);
        assert_non_null(tr);
        model_opts ko = { .keep_nesting = true, .jobs = 2 };
        model *a = model_build(tr, NULL, &err), *b = model_build(tr, &ko, &err);
        assert_non_null(a);
        assert_non_null(b);
        timeline *x = timeline_build(a, &err), *y = timeline_build(b, &err);
        assert_non_null(x);
        assert_non_null(y);
        assert_false(x->sorted);
        assert_true(y->sorted);
        assert_int_equal(x->nrows, y->nrows);
        for (size_t i = 0; i < x->nrows; i++) {
            assert_int_equal(x->rows[i].kind, y->rows[i].kind);
            assert_int_equal(x->rows[i].track, y->rows[i].track);
            for (int q = 0; q < STEPS_NROLES; q++) {
                const timeline_runs *u = &x->rows[i].runs[q], *v = &y->rows[i].runs[q];
                assert_int_equal(u->n, v->n);
                if (u->n) /* the stretches and the end entry */
                    assert_memory_equal(u->r, v->r, (u->n + 1) * sizeof *u->r);
            }
            int64_t w = x->end - x->start + 1;
            for (int k = 0; k <= 997; k++) {
                int64_t at = x->start - w / 100 + (int64_t)((double)w * 1.02 * k / 997);
                assert_int_equal(timeline_event_at(x, i, at), timeline_event_at(y, i, at));
            }
        }
        /* the ruler's marks are the steps' host windows: the footer and
           Enter name the step steps_build would, without building it */
        steps *st = steps_build(a, &err);
        assert_non_null(st);
        if (!st->whole_trace) {
            assert_int_equal(x->nmarks, st->nsteps);
            for (size_t i = 0; i < x->nmarks; i++) {
                assert_int_equal(x->marks[i].event, st->steps[i].event);
                assert_int_equal(x->marks[i].start, st->steps[i].host_start);
                assert_int_equal(x->marks[i].end, st->steps[i].host_end);
            }
        } else {
            assert_int_equal(x->nmarks, 0);
        }
        int64_t w = x->end - x->start + 1;
        for (int k = 0; k <= 997; k++) {
            int64_t at = x->start - w / 100 + (int64_t)((double)w * 1.02 * k / 997);
            uint32_t j = steps_at(st, at, true);
            size_t i = timeline_mark_at(x, at);
            assert_true(j == STEPS_NONE ? i == SIZE_MAX : i == j);
        }
        steps_free(st);
        timeline_free(x);
        timeline_free(y);
        model_free(a);
        model_free(b);
        trace_free(tr);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeline_rows_and_roles),
        cmocka_unit_test(test_timeline_events),
        cmocka_unit_test(test_steps_roles),
        cmocka_unit_test(test_timeline_paths),
        cmocka_unit_test(test_range_parse),
        cmocka_unit_test(test_range_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
