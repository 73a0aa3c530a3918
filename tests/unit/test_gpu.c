/* Unit tests of core/analyses/gpu.c: GPU attribution on hand-made traces whose device
   figures are worked out by hand (all times in us in the traces, ns below). */
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
#include "core/load/trace.h"
#include "tests/unit/unit.h"

#define DEV(m, name, self, total)                                   \
    do {                                                            \
        const model_op *o_ = unit_find_op(m, name);                      \
        assert_non_null(o_);                                        \
        assert_int_equal(o_->dev_self_ns, (int64_t)(self) * 1000);  \
        assert_int_equal(o_->dev_total_ns, (int64_t)(total) * 1000); \
    } while (0)


/* CPU thread (1,1):
     outer [0,100]
       inner [10,60]
         cudaLaunchKernel [20,25]  corr 1    -> kA [100,108]
         cudaMemcpyAsync  [30,35]  corr "2"  -> Memcpy [110,114]
       cudaGraphLaunch    [70,80]  corr 3    -> gA [120,130], gB [130,150], gC [160,190]
     cudaLaunchKernel     [200,205] corr 4 (no parent: launches itself) -> kD [210,217]
   CPU thread (1,2): other [0,50] holds a second launch carrying corr 1, later in the
     file: the first launch wins, other gets nothing.
   Stream (0,7): also orphan [300,350] corr 99 (no launch). */
static void test_gpu_attribution(void **state)
{
    (void)state;
    trace *tr;
    char *path;
    model *m = unit_load(
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":1,\"args\":{\"labels\":\"CPU\"}},"
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 \"}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kA\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":8,\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":50},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5,\"args\":{\"correlation\":\"2\"}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,\"ts\":70,\"dur\":10,\"args\":{\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":5,\"args\":{\"correlation\":4}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"other\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":50},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":5,\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy\",\"pid\":0,\"tid\":7,\"ts\":110,\"dur\":4,\"args\":{\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gA\",\"pid\":0,\"tid\":7,\"ts\":120,\"dur\":10,\"args\":{\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gB\",\"pid\":0,\"tid\":7,\"ts\":130,\"dur\":20,\"args\":{\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gC\",\"pid\":0,\"tid\":7,\"ts\":160,\"dur\":30,\"args\":{\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kD\",\"pid\":0,\"tid\":7,\"ts\":210,\"dur\":7,\"args\":{\"correlation\":4}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":50,\"args\":{\"correlation\":99}}"
        "]}",
        &tr, &path);

    /* self: what each op launched directly; total: once per GPU event, every op on
       the launch's stack, the launch, and the GPU event's own op */
    DEV(m, "inner", 8 + 4, 8 + 4);
    DEV(m, "outer", 10 + 20 + 30, 12 + 60);
    DEV(m, "cudaLaunchKernel", 7, 8 + 7);
    DEV(m, "cudaMemcpyAsync", 0, 4);
    DEV(m, "cudaGraphLaunch", 0, 60);
    DEV(m, "other", 0, 0);
    DEV(m, "kA", 0, 8);
    DEV(m, "Memcpy", 0, 4);
    DEV(m, "gA", 0, 10);
    DEV(m, "gB", 0, 20);
    DEV(m, "gC", 0, 30);
    DEV(m, "kD", 0, 7);
    DEV(m, "orphan", 0, 50);
    assert_true(unit_find_op(m, "kA")->gpu);
    assert_false(unit_find_op(m, "outer")->gpu);

    assert_int_equal(m->gpu_events, 7);
    assert_int_equal(m->gpu_ns, (8 + 4 + 10 + 20 + 30 + 7 + 50) * 1000);
    assert_int_equal(m->gpu_unattributed_events, 1);
    assert_int_equal(m->gpu_unattributed_ns, 50000);

    /* one stream; gA and gB touch; the largest gap is kD's end to orphan's start */
    assert_int_equal(m->nstreams, 1);
    assert_int_equal(m->streams[0].gpu_events, 7);
    assert_int_equal(m->streams[0].busy_ns, 129000);
    assert_int_equal(m->streams[0].max_gap_ns, 83000);
    assert_string_equal(trace_str(tr, tr->tracks[m->streams[0].track].tid), "7");
    unit_close(m, tr, path);
}

/* No correlation ids anywhere: the kernels load, count as GPU work without a
   launch, and no CPU op gets device time. */
static void test_gpu_no_correlation(void **state)
{
    (void)state;
    trace *tr;
    char *path;
    model *m = unit_load(
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":2}"
        "]}",
        &tr, &path);
    DEV(m, "op", 0, 0);
    DEV(m, "cudaLaunchKernel", 0, 0);
    DEV(m, "k", 0, 30);
    DEV(m, "Memset", 0, 2);
    assert_int_equal(m->gpu_events, 2);
    assert_int_equal(m->gpu_ns, 32000);
    assert_int_equal(m->gpu_unattributed_events, 2);
    assert_int_equal(m->gpu_unattributed_ns, 32000);
    assert_int_equal(m->nstreams, 1);
    assert_int_equal(m->streams[0].busy_ns, 32000);
    assert_int_equal(m->streams[0].max_gap_ns, 10000);
    unit_close(m, tr, path);
}

/* No GPU at all (legacy CPU trace): zero device time, no streams. */
static void test_gpu_none(void **state)
{
    (void)state;
    trace *tr;
    char *path;
    model *m = unit_load(
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":\"CPU functions\",\"tid\":1,\"ts\":0,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"b\",\"pid\":\"CPU functions\",\"tid\":1,\"ts\":2,\"dur\":3}]",
        &tr, &path);
    DEV(m, "a", 0, 0);
    DEV(m, "b", 0, 0);
    assert_int_equal(m->gpu_events, 0);
    assert_int_equal(m->gpu_ns, 0);
    assert_int_equal(m->gpu_unattributed_events, 0);
    assert_int_equal(m->nstreams, 0);
    unit_close(m, tr, path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_attribution),
        cmocka_unit_test(test_gpu_no_correlation),
        cmocka_unit_test(test_gpu_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
