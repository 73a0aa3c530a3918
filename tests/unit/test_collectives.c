/* Unit tests of core/analyses/collectives.c: NCCL calls of a rank from
   hand-made traces, and calls matched across synthetic ranks whose arrival
   skews are set by hand (times in us in the traces, ns below), so every
   wait, last rank and transfer is known in advance. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/analyses/collectives.h"
#include "core/analyses/ranks.h"
#include "core/load/trace.h"
#include "tests/unit/unit.h"

static char dir[64];

static void test_kernel_names(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
        "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        "void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
        "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)",
    };
    static const char *const no[] = { "nccl:all_reduce", "record_param_comms",
                                      "my_ncclKernel_AllReduce", "c10d::allreduce_",
                                      "ampere_sgemm_128x64_tn", "" };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_true(collectives_is_nccl_kernel(yes[i], strlen(yes[i])));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_false(collectives_is_nccl_kernel(no[i], strlen(no[i])));
    assert_int_equal(collectives_dtype_size("Float", 5), 4);
    assert_int_equal(collectives_dtype_size("BFloat16", 8), 2);
    assert_int_equal(collectives_dtype_size("Long", 4), 8);
    assert_int_equal(collectives_dtype_size("Nope", 4), 0);
}

/* A rank's trace: two allreduce kernels of group "0" with metadata on the
   kernel (PyTorch >= 2.3) arriving at a0 and a1 us, ending at 500 and 900. */
static void put_rank(int rank, int a0, int a1)
{
    char name[64], text[2048];
    snprintf(name, sizeof name, "rank-%d.json", rank);
    snprintf(text, sizeof text,
             "{\"distributedInfo\":{\"rank\":%d,\"world_size\":3},\"traceEvents\":["
             "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"step\",\"pid\":9,\"tid\":1,\"ts\":0,\"dur\":1000},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)\","
             "\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":%d,\"args\":{\"Collective name\":\"allreduce\","
             "\"Process Group Name\":\"0\",\"In msg nelems\":1024,\"dtype\":\"Float\"}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)\","
             "\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":%d,\"args\":{\"Collective name\":\"allreduce\","
             "\"Process Group Name\":\"0\",\"In msg nelems\":10,\"dtype\":\"BFloat16\"}}]}",
             rank, a0, 500 - a0, a1, 900 - a1);
    unit_dir_put(dir, name, text);
}

/* Three ranks through the whole job: arrivals 100/130/110 us, then
   600/610/700 us. Call 0: rank 1 last, waits 30/0/20 us, transfer 500 - 130
   = 370 us. Call 1: rank 2 last, waits 100/90/0 us, transfer 200 us. */
static void test_job_skews(void **state)
{
    (void)state;
    unit_dir_make(dir, "/tmp/t2p-colls-XXXXXX");
    put_rank(0, 100, 600);
    put_rank(1, 130, 610);
    put_rank(2, 110, 700);
    const char *args[] = { dir };
    t2p_error err;
    ranks_job *j = ranks_open(args, 1, &err);
    assert_non_null(j);
    ranks_load_opts o = { .jobs = 1 };
    assert_int_equal(ranks_load(j, &o, &err), 0);
    const collectives *c = j->colls;
    assert_non_null(c);
    assert_int_equal(c->ncalls, 2);
    assert_int_equal(c->npgs, 1);
    assert_int_equal(c->by_order, 2);
    const coll_match *m = &c->calls[0];
    assert_string_equal(strtab_str(c->strs, m->name), "allreduce");
    assert_string_equal(strtab_str(c->strs, m->pg), "0");
    assert_int_equal(m->n, 3);
    assert_int_equal(m->bytes, 4096);
    assert_int_equal(m->last_rank, 1);
    assert_int_equal(m->transfer_ns, 370000);
    assert_int_equal(m->max_wait_ns, 30000);
    assert_int_equal(c->entries[m->first + 0].wait_ns, 30000);
    assert_int_equal(c->entries[m->first + 1].wait_ns, 0);
    assert_int_equal(c->entries[m->first + 2].wait_ns, 20000);
    m = &c->calls[1];
    assert_int_equal(m->bytes, 20);
    assert_int_equal(m->last_rank, 2);
    assert_int_equal(m->transfer_ns, 200000);
    assert_int_equal(m->sum_wait_ns, 190000);
    /* per rank: 30 + 100, 0 + 90, 20 + 0 us */
    assert_int_equal(c->wait_ns[0], 130000);
    assert_int_equal(c->wait_ns[1], 90000);
    assert_int_equal(c->wait_ns[2], 20000);
    assert_int_equal(c->count[0], 2);
    ranks_free(j);
    unit_dir_remove(dir);
}

/* Kernels without metadata take it from the record_param_comms with their
   External id; a CPU-only trace gives its outermost record_param_comms. */
static void test_of_trace(void **state)
{
    (void)state;
    unit_dir_make(dir, "/tmp/t2p-colls-XXXXXX");
    unit_dir_put(dir, "k.json",
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":9,\"tid\":1,"
        "\"ts\":10,\"dur\":5,\"args\":{\"External id\":77,\"Collective name\":\"allgather\","
        "\"Process Group Name\":\"tp\",\"In msg nelems\":8,\"dtype\":\"Long\",\"Seq\":4}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllGather_RING_LL_Sum_int8_t(a)\","
        "\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":3,\"args\":{\"External id\":77}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_SendRecv_RING_SIMPLE(a)\","
        "\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":3,\"args\":{\"External id\":78}}]}");
    unit_dir_put(dir, "cpu.json",
        "{\"baseTimeNanoseconds\":1000000000,\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":9,\"tid\":1,"
        "\"ts\":10,\"dur\":8,\"args\":{\"Collective name\":\"all_to_all\"}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":9,\"tid\":1,"
        "\"ts\":12,\"dur\":2},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":9,\"tid\":1,"
        "\"ts\":40,\"dur\":2},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":9,\"tid\":1,"
        "\"ts\":60,\"dur\":2,\"args\":{\"Collective name\":\"wait\"}}]}");
    char path[320];
    t2p_error err;
    snprintf(path, sizeof path, "%s/k.json", dir);
    trace *tr = trace_load(path, NULL, &err);
    assert_non_null(tr);
    strtab *names = strtab_new();
    coll_call *v;
    size_t n;
    assert_int_equal(collectives_of_trace(tr, INT64_MIN, INT64_MAX, names, &v, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(strtab_str(names, v[0].name), "allgather");
    assert_string_equal(strtab_str(names, v[0].pg), "tp");
    assert_int_equal(v[0].seq, 4);
    assert_int_equal(v[0].bytes, 64);
    assert_int_equal(v[0].arrival_ns, 20000);
    assert_int_equal(v[0].end_ns, 23000);
    /* no metadata at all: the kernel's own name, no group, no size */
    assert_string_equal(strtab_str(names, v[1].name), "SendRecv");
    assert_string_equal(strtab_str(names, v[1].pg), "");
    assert_int_equal(v[1].seq, -1);
    assert_int_equal(v[1].bytes, -1);
    /* the window: only the second */
    free(v);
    assert_int_equal(collectives_of_trace(tr, 25000, 40000, names, &v, &n), 0);
    assert_int_equal(n, 1);
    free(v);
    trace_free(tr);

    snprintf(path, sizeof path, "%s/cpu.json", dir);
    assert_non_null(tr = trace_load(path, NULL, &err));
    assert_int_equal(collectives_of_trace(tr, INT64_MIN, INT64_MAX, names, &v, &n), 0);
    assert_int_equal(n, 2); /* the nested one is the same call; a wait is none */
    assert_string_equal(strtab_str(names, v[0].name), "all_to_all");
    assert_int_equal(v[0].arrival_ns, 1000000000 + 10000);
    assert_int_equal(v[0].end_ns, 1000000000 + 18000);
    assert_string_equal(strtab_str(names, v[1].name), "record_param_comms");
    free(v);
    trace_free(tr);
    strtab_free(names);
    unit_dir_remove(dir);
}

/* Calls given straight to collectives_match. */
struct rank_calls {
    strtab *names;
    coll_call v[8];
    size_t n;
};

static void add(struct rank_calls *r, const char *pg, int64_t seq, int64_t arrival, int64_t end)
{
    coll_call *c = &r->v[r->n++];
    c->name = strtab_intern(r->names, "allreduce", 9);
    c->pg = strtab_intern(r->names, pg, strlen(pg));
    c->seq = seq;
    c->bytes = 8;
    c->arrival_ns = arrival;
    c->end_ns = end;
}

/* By sequence number: a rank that missed a call (the profiler started
   late) does not shift the others; a sequence number given twice by one
   rank is dropped, not matched with itself. */
static void test_match_seq(void **state)
{
    (void)state;
    struct rank_calls a = { .names = strtab_new() }, b = { .names = strtab_new() };
    add(&a, "0", 1, 100, 150);
    add(&a, "0", 2, 200, 260);
    add(&a, "0", 3, 300, 340);
    add(&b, "0", 2, 230, 260); /* b has no 1 */
    add(&b, "0", 3, 290, 345);
    add(&b, "0", 3, 295, 345); /* twice */
    coll_rank_in in[] = { { 0, a.names, a.v, a.n }, { 5, b.names, b.v, b.n } };
    collectives *c = collectives_match(in, 2);
    assert_non_null(c);
    assert_int_equal(c->ncalls, 3);
    assert_int_equal(c->by_seq, 3);
    assert_int_equal(c->dup, 1);
    /* by first arrival: seq 1, 2, 3 */
    assert_int_equal(c->calls[0].seq, 1);
    assert_int_equal(c->calls[0].n, 1);
    assert_int_equal(c->calls[0].max_wait_ns, 0);
    assert_int_equal(c->calls[1].seq, 2);
    assert_int_equal(c->calls[1].last_rank, 5);
    assert_int_equal(c->calls[1].max_wait_ns, 30);
    assert_int_equal(c->calls[1].transfer_ns, 30);
    assert_int_equal(c->calls[2].seq, 3);
    assert_int_equal(c->calls[2].last_rank, 0);
    assert_int_equal(c->calls[2].max_wait_ns, 10);
    assert_int_equal(c->calls[2].transfer_ns, 45);
    assert_int_equal(c->wait_ns[0], 30);
    assert_int_equal(c->wait_ns[1], 10);
    collectives_free(c);
    strtab_free(a.names);
    strtab_free(b.names);
}

/* By order: each process group's calls are counted apart, so calls of two
   groups interleaved differently on each rank still match. A tie in
   arrival names the lowest rank. */
static void test_match_order(void **state)
{
    (void)state;
    struct rank_calls a = { .names = strtab_new() }, b = { .names = strtab_new() };
    add(&a, "dp", -1, 100, 200);
    add(&a, "tp", -1, 110, 120);
    add(&a, "dp", -1, 300, 400);
    add(&b, "tp", -1, 90, 120);
    add(&b, "dp", -1, 150, 210);
    add(&b, "dp", -1, 300, 390);
    coll_rank_in in[] = { { 3, a.names, a.v, a.n }, { 4, b.names, b.v, b.n } };
    collectives *c = collectives_match(in, 2);
    assert_non_null(c);
    assert_int_equal(c->ncalls, 3);
    assert_int_equal(c->npgs, 2);
    assert_int_equal(c->by_order, 3);
    /* first arrivals: tp#0 at 90, dp#0 at 100, dp#1 at 300 */
    assert_string_equal(strtab_str(c->strs, c->calls[0].pg), "tp");
    assert_int_equal(c->calls[0].last_rank, 3);
    assert_int_equal(c->calls[0].max_wait_ns, 20);
    assert_string_equal(strtab_str(c->strs, c->calls[1].pg), "dp");
    assert_int_equal(c->calls[1].index, 0);
    assert_int_equal(c->calls[1].last_rank, 4);
    assert_int_equal(c->calls[1].max_wait_ns, 50);
    assert_int_equal(c->calls[1].transfer_ns, 60);
    assert_int_equal(c->calls[2].index, 1);
    assert_int_equal(c->calls[2].last_rank, 3); /* a tie: the lower rank */
    assert_int_equal(c->calls[2].max_wait_ns, 0);
    assert_int_equal(c->wait_ns[0], 0 + 50 + 0);
    assert_int_equal(c->wait_ns[1], 20 + 0 + 0);
    collectives_free(c);
    strtab_free(a.names);
    strtab_free(b.names);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_names),
        cmocka_unit_test(test_job_skews),
        cmocka_unit_test(test_of_trace),
        cmocka_unit_test(test_match_seq),
        cmocka_unit_test(test_match_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
