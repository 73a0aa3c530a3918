/* The load on several threads (core/load/trace_par.c) gives the trace that one
   thread gives, record for record and string id for string id: every
   fixture and every shared trace, with chunks so small that each holds a
   few events (B/E pairs, memory records and names then cross chunks), and
   on inputs that the several-thread path must hand back to one thread
   (errors, a truncated file, an events array that never closes). */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/load/trace.h"
#include "tests/unit/unit.h"

#define ARR_EQ(a, b, field, n)                                                     \
    do {                                                                           \
        assert_int_equal((a)->n, (b)->n);                                          \
        if ((a)->n)                                                                \
            assert_memory_equal((a)->field, (b)->field, (a)->n * sizeof *(a)->field); \
    } while (0)

static void same_trace(const trace *a, const trace *b)
{
    assert_int_equal(strtab_count(a->strs), strtab_count(b->strs));
    for (uint32_t i = 0; i < strtab_count(a->strs); i++) {
        assert_int_equal(strtab_len(a->strs, i), strtab_len(b->strs, i));
        assert_memory_equal(strtab_str(a->strs, i), strtab_str(b->strs, i), strtab_len(a->strs, i));
    }
    assert_int_equal(a->format, b->format);
    ARR_EQ(a, b, events, nevents);
    assert_int_equal(a->nprocesses, b->nprocesses);
    for (size_t i = 0; i < a->nprocesses; i++) {
        const trace_process *p = &a->processes[i], *q = &b->processes[i];
        assert_true(p->pid == q->pid && p->name == q->name && p->labels == q->labels &&
                    p->sort_index == q->sort_index);
    }
    assert_int_equal(a->ntracks, b->ntracks);
    for (size_t i = 0; i < a->ntracks; i++) {
        const trace_track *p = &a->tracks[i], *q = &b->tracks[i];
        assert_true(p->process == q->process && p->tid == q->tid && p->name == q->name &&
                    p->sort_index == q->sort_index && p->is_gpu == q->is_gpu);
    }
    ARR_EQ(a, b, corrs, ncorrs);
    ARR_EQ(a, b, stacks, nstacks);
    ARR_EQ(a, b, kargs, nkargs); /* the kernels' launch figures (issue 26) */
    ARR_EQ(a, b, flows, nflows); /* the fwdbwd flow ends */
    ARR_EQ(a, b, colls, ncolls); /* the NCCL args */
    ARR_EQ(a, b, shapes, nshapes);
    ARR_EQ(a, b, pyids, npyids);
    ARR_EQ(a, b, mems, nmems);
    if (a->mem_stream || b->mem_stream) {
        assert_non_null(a->mem_stream);
        assert_non_null(b->mem_stream);
        assert_memory_equal(a->mem_stream, b->mem_stream, a->nmems * sizeof *a->mem_stream);
    }
    ARR_EQ(a, b, mem_streams, nmem_streams);
    ARR_EQ(a, b, mem_devices, nmem_devices);
    if (a->nmems)
        assert_memory_equal(a->mem_ts_base, b->mem_ts_base,
                            ((a->nmems + TRACE_MEM_BLOCK - 1) / TRACE_MEM_BLOCK) * sizeof(int64_t));
    ARR_EQ(a, b, mem_wide, nmem_wide);
    ARR_EQ(a, b, mem_totals, nmem_totals);
    assert_int_equal(a->nmem_addrs, b->nmem_addrs);
    assert_true(a->base_ns == b->base_ns && a->has_base == b->has_base);
    assert_memory_equal(a->gpu_total_mem, b->gpu_total_mem, sizeof a->gpu_total_mem);
    assert_memory_equal(a->gpu_compute_major, b->gpu_compute_major, sizeof a->gpu_compute_major);
    assert_true(a->has_rank == b->has_rank && a->rank == b->rank);
    assert_true(a->has_window == b->has_window && a->window_start == b->window_start &&
                a->window_end == b->window_end);
    assert_int_equal(a->events_read, b->events_read);
    assert_int_equal(a->complete_events, b->complete_events);
    assert_memory_equal(a->skipped, b->skipped, sizeof a->skipped);
    assert_int_equal(a->bytes_in, b->bytes_in);
    assert_int_equal(a->str_empty, b->str_empty);
}

/* path loads alike on 1 thread and on 3 with each chunk size (0 ends the
   list: the default, 2 MiB). */
static void check_file(const char *path, const size_t *chunks)
{
    t2p_error e1, e2;
    trace *one = trace_load(path, NULL, &e1);
    for (size_t i = 0; i == 0 || chunks[i - 1]; i++) {
        trace_load_opts lo = { .jobs = 3, .chunk_bytes = chunks[i] };
        trace *par = trace_load(path, &lo, &e2);
        if (!one) {
            /* the same error, named by the one-thread load */
            if (par)
                fail_msg("%s: loads on 3 threads but not on one (%s)", path, e1.reason);
            assert_int_equal(e1.kind, e2.kind);
            assert_string_equal(e1.reason, e2.reason);
            assert_int_equal(e1.offset, e2.offset);
            continue;
        }
        if (!par)
            fail_msg("%s (chunk %zu): %s", path, chunks[i], e2.reason);
        same_trace(one, par);
        trace_free(par);
    }
    trace_free(one);
}

/* a chunk per event, or per few: names, B/E pairs and memory records
   cross chunks (cutting after each event copies the rest of each read
   again: the small inputs only) */
static const size_t small_chunks[] = { 1, 4096, 0 };
static const size_t big_chunks[] = { 65536, 0 };

static void check_dir(const char *dir, const char *suffix, const size_t *chunks)
{
    DIR *d = opendir(dir);
    if (!d) {
        print_message("%s: not there, skipped\n", dir);
        return;
    }
    struct dirent *de;
    char path[4096];
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name), k = strlen(suffix);
        if (n < k || strcmp(de->d_name + n - k, suffix) != 0 || strstr(de->d_name, ".expected.") ||
            strstr(de->d_name, ".tb_memory."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        check_file(path, chunks);
    }
    closedir(d);
}

static void test_fixtures(void **state)
{
    (void)state;
    check_dir(TOP_SRCDIR "/tests/fixtures", ".json", small_chunks);
    check_dir(TOP_SRCDIR "/tests/fixtures", ".json.gz", small_chunks);
}

static void test_shared(void **state)
{
    (void)state;
    check_dir(SHARED_DIR "/traces", ".json", big_chunks);
    check_dir(SHARED_DIR "/traces", ".json.gz", big_chunks);
}

#define FLOWS_TEXT                                                                             \
    "{\"traceEvents\":["                                                                      \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::t\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5}," \
    "{\"ph\":\"s\",\"id\":4,\"pid\":1,\"tid\":1,\"ts\":10.5,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\"}," \
    "{\"ph\":\"f\",\"id\":4,\"pid\":1,\"tid\":2,\"ts\":30,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"bp\":\"e\"}," \
    "{\"ph\":\"s\",\"id\":\"x7\",\"pid\":1,\"tid\":1,\"ts\":11,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\"}," \
    "{\"ph\":\"f\",\"id\":9,\"pid\":1,\"tid\":1,\"ts\":12,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}," \
    "{\"ph\":\"f\",\"pid\":1,\"tid\":1,\"ts\":12,\"cat\":\"fwdbwd\",\"name\":\"no id\"}," \
    "{\"ph\":\"t\",\"id\":4,\"pid\":1,\"tid\":1,\"ts\":13,\"cat\":\"fwdbwd\",\"name\":\"step\"}," \
    "{\"ph\":\"f\",\"id\":5,\"pid\":1,\"tid\":1,\"ts\":\"x\",\"cat\":\"fwdbwd\",\"name\":\"bad ts\"}," \
    "{\"ph\":\"f\",\"id\":5,\"pid\":1,\"tid\":1,\"ts\":14,\"cat\":\"fwdbwd\",\"bp\":\"n\"}]}"

/* Hand-written inputs: the events array anywhere in the object, a '},{'
   inside a string and in nested args, B/E pairs and text after the array,
   and the inputs that only one thread may judge. */
static void test_cases(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "{\"a\":{\"traceEvents\":1},\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a},{b\",\"pid\":1,"
        "\"tid\":1,\"ts\":1,\"dur\":5},{\"ph\":\"B\",\"name\":\"n\",\"pid\":1,\"tid\":2,\"ts\":2},"
        "7,[1,{\"x\":2}],{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,"
        "\"args\":{\"l\":[{\"a\":1},{\"b\":2}]}},{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":9}],"
        "\"deviceProperties\":[{\"id\":0,\"totalGlobalMem\":5},{\"id\":1,\"totalGlobalMem\":6}],"
        "\"baseTimeNanoseconds\":100}",
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5} , {\"ph\":\"X\","
        "\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}]",
        /* a bare array without its ']': loads, on one thread */
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5},{\"ph\":\"X\","
        "\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}",
        "{\"traceEvents\":[]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5},"
        "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},{\"ph\":",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5},"
        "{\"ph\":\"X\",\"name\":\"b\" \"pid\":1}]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5}]} x",
        "{\"trace\\u0045vents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5}]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5}],"
        "\"traceEvents\":[{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5}]}",
        "{\"nodes\":[{\"a\":1},{\"b\":2}]}",
        FLOWS_TEXT,
    };
    char path[] = "/tmp/t2p-par-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(cases[i], f);
        fclose(f);
        check_file(path, small_chunks);
    }
    unlink(path);
}

/* The fwdbwd flow ends are kept as written (id, phase, time, track, bp):
   not the other categories, not an end without an id or a time, not a step
   ('t'); every flow still counts as skipped. */
static void test_flows(void **state)
{
    (void)state;
    char *path = unit_write_tmp(FLOWS_TEXT);
    t2p_error err;
    trace *t = trace_load(path, NULL, &err);
    assert_non_null(t);
    assert_int_equal(t->nflows, 4);
    assert_int_equal(t->skipped[TRACE_SKIP_FLOW], 8);
    const trace_flow *f = t->flows;
    assert_true(f[0].ph == 's' && f[0].id == 4 && !f[0].id_str && f[0].ts == 10500 &&
                !f[0].bp_enclosing && f[0].track == t->events[0].track);
    assert_true(f[1].ph == 'f' && f[1].id == 4 && f[1].ts == 30000 && f[1].bp_enclosing &&
                f[1].track != f[0].track);
    assert_true(f[2].ph == 's' && f[2].id_str && strcmp(trace_str(t, (uint32_t)f[2].id), "x7") == 0);
    /* no "bp" is no enclosing binding; "bp":"n" neither */
    assert_true(f[3].ph == 'f' && f[3].id == 5 && f[3].ts == 14000 && !f[3].bp_enclosing);
    trace_free(t);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_flows),
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
