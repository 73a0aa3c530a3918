/* Allocation failure in core/: every allocation the loader and the model make
   fails in turn, and each time trace_load or model_build must return NULL
   with T2P_ERR_NOMEM and a reason, never crash, and free what it had (the
   sanitizer build checks leaks). yajl's allocations go through the loader's
   allocator, so they fail here too.

   The test binary is linked with -Wl,--wrap=malloc,... (see Makefile.am):
   the calls from libt2pcore.a and from this file reach the __wrap_ functions
   below; zlib's and libc's own allocations are not counted. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/analyses/compare.h"
#include "core/analyses/memory.h"
#include "core/model/model.h"
#include "core/pprof/pprof.h"
#include "core/analyses/steps.h"
#include "core/load/trace.h"
#include "tests/unit/nomem_wrap.h"

/* A trace that reaches every growth path: enough distinct names and tracks
   to grow the string table, the hash maps and the arrays past their first
   size, B/E pairs, flows, metadata, correlations, GPU work, steps, and a
   name long enough to cross the loader's read chunks. */
static char path[64];

static void write_trace(void)
{
    snprintf(path, sizeof path, "/tmp/t2p-nomem-%ld.json", (long)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"traceEvents\":[\n", f);
    fputs("{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},\n", f);
    fputs("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 \"}},\n", f);
    fputs("{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":1,\"ts\":0,\"dur\":99999999},\n", f);
    for (int i = 0; i < 3000; i++) {
        int tid = i % 40;
        long ts = (long)(i / 40) * 100;
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":%d,\"ts\":%ld,\"dur\":90},\n",
                i / 40, tid, ts);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_%d\",\"pid\":1,\"tid\":%d,\"ts\":%ld,\"dur\":50},\n",
                i, tid, ts + 1);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":%d,\"ts\":%ld,\"dur\":5,\"args\":{\"correlation\":%d}},\n",
                tid, ts + 2, i);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel_%d\",\"pid\":0,\"tid\":7,\"ts\":%ld,\"dur\":3,\"args\":{\"correlation\":%d}},\n",
                i % 700, ts + 10, i);
        if (i % 3 == 0) /* memory: allocs and frees on CPU and two GPUs */
            fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":%d,\"ts\":%ld,"
                       "\"args\":{\"Device Type\":%d,\"Device Id\":%d,\"Bytes\":%d,\"Addr\":%d%s}},\n",
                    tid, ts + 3, i % 2, i % 4 == 0 ? 0 : 1 - 2 * (i % 2 == 0), i % 9 ? 64 : -64,
                    i % 50, i > 1500 ? ",\"Total Allocated\":100,\"Total Reserved\":200" : "");
        if (i % 10 == 0) {
            fprintf(f, "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"f\",\"id\":%d,\"pid\":1,\"tid\":%d,\"ts\":%ld},\n", i, tid, ts + 2);
            fprintf(f, "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"f\",\"id\":%d,\"pid\":0,\"tid\":7,\"ts\":%ld},\n", i, ts + 10);
            fprintf(f, "{\"ph\":\"B\",\"name\":\"b_%d\",\"pid\":2,\"tid\":%d,\"ts\":%ld},\n", i, tid, ts + 20);
            fprintf(f, "{\"ph\":\"E\",\"pid\":2,\"tid\":%d,\"ts\":%ld},\n", tid, ts + 30);
            fprintf(f, "{\"ph\":\"B\",\"name\":\"unmatched\",\"pid\":3,\"tid\":%d,\"ts\":%ld},\n", tid, ts);
        }
    }
    fputs("{\"ph\":\"X\",\"name\":\"", f);
    for (int i = 0; i < 20000; i++)
        fputc('n', f);
    fputs("\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}\n]}\n", f);
    assert_int_equal(fclose(f), 0);
}

static void test_every_allocation_fails_cleanly(void **state)
{
    (void)state;
    write_trace();
    long k;
    long failures = 0;
    for (k = 0;; k++) {
        t2p_error err;
        model *m = NULL;
        memory *mem = NULL;
        calls = 0;
        fail_at = k;
        armed = true;
        trace *t = trace_load(path, NULL, &err);
        if (t)
            m = model_build(t, NULL, &err);
        if (m)
            mem = memory_build(m, &err);
        armed = false;
        bool failed = calls > k;
        if (!failed) {
            /* the k-th allocation was never reached: everything succeeded */
            assert_non_null(t);
            assert_non_null(m);
            assert_non_null(mem);
            assert_true(mem->ndevices >= 2);
            memory_free(mem);
            model_free(m);
            trace_free(t);
            break;
        }
        failures++;
        if (t && m && mem) {
            fail_msg("allocation %ld failed but trace_load, model_build and memory_build all "
                     "succeeded", k);
        }
        if (err.kind != T2P_ERR_NOMEM)
            fail_msg("allocation %ld failed: error kind %d (%s), not out of memory", k,
                     (int)err.kind, err.reason);
        assert_true(err.reason[0] != '\0');
        assert_non_null(strstr(err.reason, "out of memory"));
        memory_free(mem);
        model_free(m);
        trace_free(t);
    }
    unlink(path);
    /* the loop must have gone through a real number of allocations */
    assert_true(failures > 50);
    printf("# %ld allocation failures, each one a clean T2P_ERR_NOMEM\n", failures);
}

/* compare_build and the diff profile over two models of the trace above:
   every allocation they make fails in turn, each a clean T2P_ERR_NOMEM */
static void test_compare_allocations_fail_cleanly(void **state)
{
    (void)state;
    write_trace();
    t2p_error err;
    trace *t = trace_load(path, NULL, &err);
    assert_non_null(t);
    model *m = model_build(t, NULL, &err);
    assert_non_null(m);
    char out[96];
    snprintf(out, sizeof out, "/tmp/t2p-nomem-%ld.pb.gz", (long)getpid());
    long failures = 0;
    for (int what = 0; what < 2; what++) {
        for (long k = 0;; k++) {
            calls = 0;
            fail_at = k;
            armed = true;
            compare *c = NULL;
            int rc = -1;
            if (what == 0)
                c = compare_build(m, m, NULL, &err);
            else
                rc = pprof_write_diff(m, NULL, m, NULL, out, NULL, &err);
            armed = false;
            bool ok = what == 0 ? c != NULL : rc == 0;
            compare_free(c);
            if (calls <= k) {
                assert_true(ok);
                break;
            }
            if (ok)
                fail_msg("allocation %ld failed but %s succeeded", k,
                         what ? "pprof_write_diff" : "compare_build");
            failures++;
            /* the temp file's name is a malloc too: ENOMEM from open_temp */
            if (!strstr(err.reason, "out of memory") && !strstr(err.reason, "allocate memory"))
                fail_msg("allocation %ld failed: %s", k, err.reason);
        }
    }
    unlink(out);
    unlink(path);
    model_free(m);
    trace_free(t);
    assert_true(failures > 20);
    printf("# compare and diff profile: %ld allocation failures, each a clean error\n", failures);
}

/* steps_build, a step's model and the grouped model: every allocation they
   make fails in turn, each a clean T2P_ERR_NOMEM (NULL and a reason) */
static void test_steps_allocations_fail_cleanly(void **state)
{
    (void)state;
    write_trace();
    t2p_error err;
    trace *t = trace_load(path, NULL, &err);
    assert_non_null(t);
    model *m = model_build(t, NULL, &err);
    assert_non_null(m);
    steps *whole = steps_build(m, &err);
    assert_non_null(whole);
    assert_true(whole->nsteps > 10);
    long failures = 0;
    for (int what = 0; what < 3; what++) {
        for (long k = 0;; k++) {
            calls = 0;
            fail_at = k;
            armed = true;
            steps *s = NULL;
            model *sm = NULL;
            if (what == 0)
                s = steps_build(m, &err);
            else if (what == 1)
                sm = steps_scope(whole, 2, 4, NULL, &err);
            else
                sm = steps_grouped(whole, NULL, &err);
            armed = false;
            bool ok = s || sm;
            steps_free(s);
            model_free(sm);
            if (calls <= k) {
                assert_true(ok);
                break;
            }
            if (ok)
                fail_msg("allocation %ld failed but %s succeeded", k,
                         what == 0 ? "steps_build" : what == 1 ? "steps_scope" : "steps_grouped");
            failures++;
            if (err.kind != T2P_ERR_NOMEM || !strstr(err.reason, "out of memory"))
                fail_msg("allocation %ld failed: %s", k, err.reason);
        }
    }
    steps_free(whole);
    model_free(m);
    trace_free(t);
    unlink(path);
    assert_true(failures > 20);
    printf("# steps, a step's model, the grouped model: %ld allocation failures, each a clean "
           "error\n", failures);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_fails_cleanly),
        cmocka_unit_test(test_compare_allocations_fail_cleanly),
        cmocka_unit_test(test_steps_allocations_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
