/* Unit tests of core/analyses/memory.c, memory_scope.c (the allocations inside a
   scope of stacks) and the loader's [memory] records, on hand-made
   traces whose figures are worked out by hand below (times in us in the trace). */
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

#include "core/analyses/memory.h"
#include "core/analyses/memory_scope.h"
#include "core/model/scope.h"
#include "core/model/model.h"
#include "core/analyses/steps.h"
#include "core/load/trace.h"
#include "tests/unit/unit.h"

struct fix {
    char *path;
    trace *tr;
    model *m;
    memory *mem;
};

static void load(struct fix *f, const char *text)
{
    t2p_error err;
    f->m = unit_load(text, &f->tr, &f->path);
    f->mem = memory_build(f->m, &err);
    assert_non_null(f->mem);
}

static void done(struct fix *f)
{
    memory_free(f->mem);
    unit_close(f->m, f->tr, f->path);
}

static const memory_stat *op_stat(const memory *mem, const model *m, const char *name,
                                  uint32_t dev)
{
    return memory_op_stat(mem, unit_op_index(m, name), dev);
}

#define MEM(pid, tid, ts, bytes, addr, more)                                                  \
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":" #pid ",\"tid\":" #tid        \
    ",\"ts\":" #ts ",\"args\":{\"Bytes\":" #bytes ",\"Addr\":" #addr more "}},"
#define CPU ",\"Device Type\":0,\"Device Id\":-1"
#define GPU0 ",\"Device Type\":1,\"Device Id\":0"

/* Thread (1,1):   outer [0,100)
                     a [10,40)
                       a [20,30)       (recursion: a inside a)
                     b [40,60)         (starts where the first a ends)
                     z [70,70)         (zero length: never holds a record)
   Thread (1,2):   c [0,50)

   CPU records (Addr, Bytes at ts):
     ts 5    +100 @1  -> outer
     ts 25   +10  @2  -> inner a
     ts 40   +20  @3  -> b (40 is past the first a: [10,40) is half-open)
     ts 45   -100 @1  -> b; frees the ts-5 block: lifetime 40 us
     ts 70   +7   @4  -> outer (z holds nothing)
     ts 80   -5   @9  -> outer; a block allocated before the window
     ts 150  +1   @5  -> thread (1,1)'s root: after outer
     ts 10   +50  @6 on (1,2) -> c; later freed by (1,1)?  no: stays live
   GPU0 records with totals (Total Allocated, Total Reserved):
     ts 12  +1000 @1 (1000, 2048) -> outer a (outer-level a)
     ts 22  +500  @2 (1500, 2048) -> inner a
     ts 26  -1000 @1 (500, 2048)  -> inner a
     ts 50  +300  @1 (800, 4096)  -> b  (address @1 reused on GPU0)
   Same addresses on CPU and GPU0 never match across devices. */
static const char trace_text[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"z\",\"pid\":1,\"tid\":1,\"ts\":70,\"dur\":0},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":50},"
    MEM(1, 1, 5, 100, 1, CPU)
    MEM(1, 1, 25, 10, 2, CPU)
    MEM(1, 1, 40, 20, 3, CPU)
    MEM(1, 1, 45, -100, 1, CPU)
    MEM(1, 1, 70, 7, 4, CPU)
    MEM(1, 1, 80, -5, 9, CPU)
    MEM(1, 1, 150, 1, 5, CPU)
    MEM(1, 2, 10, 50, 6, CPU)
    MEM(1, 1, 12, 1000, 1, GPU0 ",\"Total Allocated\":1000,\"Total Reserved\":2048")
    MEM(1, 1, 22, 500, 2, GPU0 ",\"Total Allocated\":1500,\"Total Reserved\":2048")
    MEM(1, 1, 26, -1000, 1, GPU0 ",\"Total Allocated\":500,\"Total Reserved\":2048")
    MEM(1, 1, 50, 300, 1, GPU0 ",\"Total Allocated\":800,\"Total Reserved\":4096")
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"not memory\",\"pid\":1,\"tid\":1,\"ts\":1}"
    "]}";

/* The operator rows of trace_text with every stack selected, worked out by
   hand above: memory_build's and memory_scope_build's rows must both be these. */
static void op_rows_by_hand(const memory *mem, const model *m)
{
    /* operators on CPU */
    const memory_stat *s = op_stat(mem, m, "outer", 0);
    assert_non_null(s);
    assert_int_equal(s->self_alloc_count, 2);   /* ts5, ts70 */
    assert_int_equal(s->self_alloc_bytes, 107);
    assert_int_equal(s->self_increase_bytes, 102);
    assert_int_equal(s->alloc_count, 4);        /* + a's 10, b's 20 */
    assert_int_equal(s->alloc_bytes, 137);
    assert_int_equal(s->increase_bytes, 32);    /* 107-5 + 10 + 20-100 */
    s = op_stat(mem, m, "a", 0);                    /* both calls: 10 at ts 25, counted once */
    assert_int_equal(s->self_alloc_count, 1);
    assert_int_equal(s->alloc_count, 1);
    assert_int_equal(s->alloc_bytes, 10);
    s = op_stat(mem, m, "b", 0);
    assert_int_equal(s->self_alloc_bytes, 20);
    assert_int_equal(s->self_increase_bytes, -80);
    assert_null(op_stat(mem, m, "z", 0));
    s = op_stat(mem, m, "c", 0);
    assert_int_equal(s->self_alloc_bytes, 50);
    assert_int_equal(s->live_bytes, 50);

    /* operators on GPU0: the outer a holds 1000, the inner 500 - 1000 */
    s = op_stat(mem, m, "a", 1);
    assert_int_equal(s->self_alloc_count, 2);
    assert_int_equal(s->self_alloc_bytes, 1500);
    assert_int_equal(s->self_increase_bytes, 500);
    assert_int_equal(s->alloc_bytes, 1500);
    assert_int_equal(s->increase_bytes, 500);
    s = op_stat(mem, m, "outer", 1);
    assert_int_equal(s->self_alloc_count, 0);
    assert_int_equal(s->alloc_bytes, 1800);
    s = op_stat(mem, m, "b", 1);
    assert_int_equal(s->alloc_count, 1);
    assert_int_equal(s->increase_bytes, 300);
    assert_int_equal(mem->nops, 7); /* CPU outer a b c, GPU0 outer a b */
}

static void test_memory_figures(void **state)
{
    (void)state;
    struct fix f;
    load(&f, trace_text);
    const trace *tr = f.tr;
    assert_int_equal(tr->nmems, 12);
    assert_int_equal(tr->skipped[TRACE_SKIP_INSTANT], 1);
    assert_int_equal(trace_mem_ts(tr, 0), 5000);
    assert_int_equal(trace_mem_bytes(tr, 3), -100);
    assert_int_equal(trace_mem_stream_of(tr, 8)->device, 0);
    assert_int_equal(trace_mem_stream_of(tr, 0)->device, TRACE_MEM_CPU);
    int64_t a, res;
    assert_int_equal(trace_mem_totals_at(tr, 0, &a, &res), 0);
    assert_int_equal(a, -1);
    assert_int_equal(trace_mem_totals_at(tr, 9, &a, &res), 1);
    assert_int_equal(a, 1500);
    assert_int_equal(res, 2048);
    /* 11 follows from 10 (500 + 300 = 800) but its Total Reserved does not */
    assert_int_equal(trace_mem_totals_at(tr, 11, &a, &res), 1);
    assert_int_equal(a, 800);
    assert_int_equal(res, 4096);
    /* 9 and 10 follow from 8, the CPU's records have none: only 8 and 11 are stored */
    assert_int_equal(tr->nmem_totals, 2);

    const memory *mem = f.mem;
    assert_int_equal(mem->ndevices, 2);
    const memory_device *cpu = &mem->devices[0], *gpu = &mem->devices[1];
    assert_string_equal(cpu->name, "CPU");
    assert_string_equal(gpu->name, "GPU0");

    /* CPU: running sums in time order: 100 (ts5), 150 (ts10 on thread 2),
       160, 180, 80, 87, 82, 83: peak 180 at ts 40, in b */
    assert_false(cpu->has_totals);
    assert_int_equal(cpu->peak_bytes, 180);
    assert_int_equal(cpu->peak_ns, 40000);
    assert_int_equal(f.m->nodes[cpu->peak_node].op, unit_op_index(f.m, "b"));
    assert_int_equal(cpu->reserved_at_peak, -1);
    assert_int_equal(cpu->allocs, 6);
    assert_int_equal(cpu->frees, 2);
    assert_int_equal(cpu->matched, 1);
    assert_int_equal(cpu->lifetime_ns, 40000);
    assert_int_equal(cpu->live_allocs_at_end, 5);            /* @2 @3 @4 @5 @6 */
    assert_int_equal(cpu->live_bytes_at_end, 10 + 20 + 7 + 1 + 50);
    assert_int_equal(cpu->unmatched_frees, 1);
    assert_int_equal(cpu->unmatched_free_bytes, 5);
    assert_int_equal(cpu->unattributed, 1);                  /* ts 150 */

    /* GPU0: the peak is the largest Total Allocated, 1500 at ts 22 in inner a */
    assert_true(gpu->has_totals);
    assert_int_equal(gpu->peak_bytes, 1500);
    assert_int_equal(gpu->peak_ns, 22000);
    assert_int_equal(gpu->reserved_at_peak, 2048);
    assert_int_equal(gpu->matched, 1);                       /* @1 ts12 -> ts26 */
    assert_int_equal(gpu->lifetime_ns, 14000);
    assert_int_equal(gpu->live_allocs_at_end, 2);            /* @2, @1 again */
    assert_int_equal(gpu->live_bytes_at_end, 800);
    assert_int_equal(gpu->unmatched_frees, 0);

    op_rows_by_hand(f.mem, f.m);

    /* nodes: outer > a > a on GPU0 */
    uint32_t outer = MODEL_NONE, a1 = MODEL_NONE, a2 = MODEL_NONE;
    for (size_t i = 0; i < f.m->nnodes; i++) {
        const model_node *nd = &f.m->nodes[i];
        if (nd->op == unit_op_index(f.m, "outer"))
            outer = (uint32_t)i;
        else if (nd->op == unit_op_index(f.m, "a") && nd->depth == 2)
            a1 = (uint32_t)i;
        else if (nd->op == unit_op_index(f.m, "a") && nd->depth == 3)
            a2 = (uint32_t)i;
    }
    assert_true(outer != MODEL_NONE && a1 != MODEL_NONE && a2 != MODEL_NONE);
    const memory_stat *s = memory_node_stat(mem, false, a1, 1);
    assert_int_equal(s->self_alloc_bytes, 1000);
    assert_int_equal(s->alloc_bytes, 1500);
    s = memory_node_stat(mem, false, a2, 1);
    assert_int_equal(s->self_alloc_bytes, 500);
    assert_int_equal(s->increase_bytes, -500);
    s = memory_node_stat(mem, true, f.m->node_merged[outer], 0);
    assert_int_equal(s->alloc_bytes, 137);
    s = memory_node_stat(mem, true, 0, 0); /* the merged root: every CPU record */
    assert_int_equal(s->alloc_count, 6);
    assert_int_equal(s->increase_bytes, 83);

    /* sorting by allocation size, GPU rows first */
    uint32_t idx[64];
    assert_true(mem->nops <= 64);
    size_t n = memory_sort_ops(mem, MEMORY_SORT_ALLOC_SIZE, 1, idx);
    assert_int_equal(n, 3); /* outer 1800, a 1500, b 300 */
    assert_int_equal(mem->ops[idx[0]].op, unit_op_index(f.m, "outer"));
    assert_int_equal(mem->ops[idx[1]].op, unit_op_index(f.m, "a"));
    assert_int_equal(mem->ops[idx[2]].op, unit_op_index(f.m, "b"));
    assert_int_equal(mem->ops[idx[3]].device, 0);
    assert_int_equal(memory_sort_parse("size_increase"), MEMORY_SORT_SIZE_INCREASE);
    assert_int_equal(memory_sort_parse("self"), -1);

    /* the curve over [0,100) in 10 slices: GPU0 levels 1000 (ts12) 1500 (22)
       500 (26) 800 (50) */
    int64_t col[10];
    assert_int_equal(memory_curve(mem, 1, 0, 100000, col, 10), 4);
    int64_t want[10] = { -1, 1000, 1500, 500, 500, 800, 800, 800, 800, 800 };
    for (int i = 0; i < 10; i++)
        assert_int_equal(col[i], want[i]);
    done(&f);
}

/* Early Kineto: no cat, no Addr, no totals; tid written as a string on the
   operators and as a number on the memory records: the same track. */
static void test_memory_early_kineto(void **state)
{
    (void)state;
    struct fix f;
    load(&f, "{\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::empty\",\"pid\":7,"
             "\"tid\":\"7\",\"ts\":10,\"dur\":5},"
             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":7,\"tid\":7,\"ts\":12,"
             "\"args\":{\"Device Type\":1,\"Device Id\":3,\"Bytes\":64}},"
             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":7,\"tid\":7,\"ts\":20,"
             "\"args\":{\"Device Type\":1,\"Device Id\":3,\"Bytes\":-64}},"
             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":7,\"tid\":7,\"ts\":21,"
             "\"args\":{\"Device Type\":5,\"Device Id\":0,\"Bytes\":8}}"
             "]}");
    assert_int_equal(f.tr->nmems, 2);
    assert_int_equal(f.tr->nmem_totals, 0);
    assert_int_equal(f.mem->ndevices, 1);
    const memory_device *v = &f.mem->devices[0];
    assert_string_equal(v->name, "GPU3");
    assert_false(v->has_addr);
    assert_int_equal(v->peak_bytes, 64);
    assert_int_equal(v->live_bytes_at_end, 0); /* allocated - freed */
    const memory_stat *s = op_stat(f.mem, f.m, "aten::empty", 0);
    assert_int_equal(s->self_alloc_bytes, 64);
    assert_int_equal(s->self_increase_bytes, 64);
    assert_int_equal(v->unattributed, 1);
    done(&f);
}

/* deviceProperties (after traceEvents: key order is not fixed) gives each
   GPU's memory; a peak above 90 % of it gets TensorBoard's recommendation. */
static void test_memory_device_properties(void **state)
{
    (void)state;
    struct fix f;
    load(&f, "{\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
             "\"tid\":1,\"ts\":0,\"dur\":100},"
             MEM(1, 1, 10, 1500, 1, GPU0 ",\"Total Allocated\":1500,\"Total Reserved\":1600")
             "{\"ph\":\"i\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":1}],"
             "\"deviceProperties\":[{\"id\":0,\"name\":\"G\",\"totalGlobalMem\":1600},"
             "{\"id\":1,\"totalGlobalMem\":\"oops\"},{\"id\":99,\"totalGlobalMem\":5}]}");
    assert_int_equal(f.tr->gpu_total_mem[0], 1600);
    assert_int_equal(f.tr->gpu_total_mem[1], 0);
    assert_int_equal(f.mem->ndevices, 1);
    const memory_device *v = &f.mem->devices[0];
    assert_int_equal(v->peak_bytes, 1500);
    t2p_error err;
    steps *st = steps_build(f.m, &err);
    assert_non_null(st);
    assert_int_equal(steps_at(st, v->peak_ns, true), 0);
    assert_true(steps_recommend_memory(st, v->device, v->peak_bytes, f.tr->gpu_total_mem[0]));
    assert_string_equal(st->recs[st->nrecs - 1].id, "memory");
    steps_free(st);
    done(&f);
}

/* What the compact records keep aside: a ts seconds from its block's first,
   5 GB in one record; out of time order in the file, totals predicted across. */
static void test_memory_wide(void **state)
{
    (void)state;
    struct fix f;
    load(&f, "{\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"big\",\"pid\":1,\"tid\":1,"
             "\"ts\":0,\"dur\":5},"
             MEM(1, 1, 1, 5000000000, 1, GPU0 ",\"Total Allocated\":5000000000")
             MEM(1, 1, 10000000, -5000000000, 1, GPU0 ",\"Total Allocated\":0")
             MEM(1, 1, 2, 8, 2, GPU0 ",\"Total Allocated\":8")
             "{\"ph\":\"i\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":1}]}");
    const trace *tr = f.tr;
    assert_int_equal(tr->nmems, 3);
    assert_int_equal(trace_mem_ts(tr, 0), 1000);
    assert_int_equal(trace_mem_ts(tr, 1), INT64_C(10000000000));
    assert_int_equal(trace_mem_ts(tr, 2), 2000);
    assert_int_equal(trace_mem_bytes(tr, 0), INT64_C(5000000000));
    assert_int_equal(trace_mem_bytes(tr, 1), -INT64_C(5000000000));
    assert_int_equal(trace_mem_bytes(tr, 2), 8);
    assert_int_equal(tr->nmem_wide, 3);
    assert_int_equal(tr->nmem_totals, 1); /* 0 and 8 follow from 5 GB */
    const memory_device *v = &f.mem->devices[0];
    assert_non_null(f.mem->by_time);
    assert_int_equal(v->peak_bytes, INT64_C(5000000000));
    assert_int_equal(v->peak_ns, 1000);
    assert_int_equal(v->matched, 1);
    assert_int_equal(v->lifetime_ns, INT64_C(10000000000) - 1000);
    assert_int_equal(v->live_bytes_at_end, 8);
    assert_int_equal(op_stat(f.mem, f.m, "big", 0)->self_alloc_bytes, INT64_C(5000000008));
    done(&f);
}

/* memory_node_scoped (the Tree's memory columns) against a second
   computation: each selected node's own figures added to it and to every
   ancestor by walking up, per tree, per device, with no selection (then it
   is memory_node_stat's) and with the stacks ending at "a" nodes only. */
static void check_scoped(const struct fix *f, bool merged, uint32_t dev, const uint8_t *sel)
{
    const model *m = f->m;
    size_t n = merged ? m->nmnodes : m->nnodes;
    const model_node *nodes = merged ? m->mnodes : m->nodes;
    memory_stat *got = calloc(n, sizeof *got), *want = calloc(n, sizeof *want);
    assert_non_null(got);
    assert_non_null(want);
    assert_int_equal(memory_node_scoped(f->mem, merged, dev, sel, got), 0);
    for (size_t w = 0; w < n; w++) {
        const memory_stat *x = memory_node_stat(f->mem, merged, (uint32_t)w, dev);
        if (!x || (sel && !sel[w]))
            continue;
        want[w].self_alloc_count = x->self_alloc_count;
        want[w].self_alloc_bytes = x->self_alloc_bytes;
        want[w].self_increase_bytes = x->self_increase_bytes;
        for (uint32_t p = (uint32_t)w; p != MODEL_NONE; p = nodes[p].parent) {
            want[p].alloc_count += x->self_alloc_count;
            want[p].alloc_bytes += x->self_alloc_bytes;
            want[p].increase_bytes += x->self_increase_bytes;
        }
    }
    for (size_t u = 0; u < n; u++) {
        assert_int_equal(got[u].alloc_count, want[u].alloc_count);
        assert_int_equal(got[u].alloc_bytes, want[u].alloc_bytes);
        assert_int_equal(got[u].increase_bytes, want[u].increase_bytes);
        assert_int_equal(got[u].self_alloc_count, want[u].self_alloc_count);
        assert_int_equal(got[u].self_alloc_bytes, want[u].self_alloc_bytes);
        assert_int_equal(got[u].self_increase_bytes, want[u].self_increase_bytes);
        const memory_stat *x = memory_node_stat(f->mem, merged, (uint32_t)u, dev);
        if (!sel && x) { /* no selection: the per-node figures themselves */
            assert_int_equal(got[u].alloc_bytes, x->alloc_bytes);
            assert_int_equal(got[u].alloc_count, x->alloc_count);
            assert_int_equal(got[u].increase_bytes, x->increase_bytes);
        }
    }
    free(got);
    free(want);
}

static void test_memory_node_scoped(void **state)
{
    (void)state;
    struct fix f;
    load(&f, trace_text);
    const model *m = f.m;
    uint32_t a = unit_op_index(m, "a");
    for (int merged = 0; merged < 2; merged++) {
        size_t n = merged ? m->nmnodes : m->nnodes;
        const model_node *nodes = merged ? m->mnodes : m->nodes;
        uint8_t *sel = calloc(n, 1);
        assert_non_null(sel);
        for (size_t u = 0; u < n; u++)
            sel[u] = nodes[u].op == a;
        for (uint32_t d = 0; d < f.mem->ndevices; d++) {
            check_scoped(&f, merged, d, NULL);
            check_scoped(&f, merged, d, sel);
        }
        free(sel);
    }
    /* by hand: GPU0 under the "a" stacks: 1000 (outer a), 500 and -1000
       (inner a) on thread (1,1)'s root, b's +300 left out */
    memory_stat *out = calloc(m->nnodes, sizeof *out);
    uint8_t *sel = calloc(m->nnodes, 1);
    assert_non_null(out);
    assert_non_null(sel);
    for (size_t u = 0; u < m->nnodes; u++)
        sel[u] = m->nodes[u].op == a;
    assert_int_equal(memory_node_scoped(f.mem, false, 1, sel, out), 0);
    const memory_stat *root = &out[m->tracks[0].root];
    assert_int_equal(root->alloc_bytes, 1500);
    assert_int_equal(root->alloc_count, 2);
    assert_int_equal(root->increase_bytes, 500);
    assert_int_equal(memory_node_scoped(f.mem, false, 7, NULL, out), -1);
    free(out);
    free(sel);
    done(&f);
}

/* Bytes whose sums could overflow: the loader keeps records while their
   |Bytes| add up to at most 2^62, so every figure built from them is exact.
   2^62 - 10 and 10 reach the bound exactly and are kept; 1, INT64_MIN and a
   free of 1 byte would pass it and are refused, counted as bad_bytes. */
static void test_memory_bytes_bound(void **state)
{
    (void)state;
    struct fix f;
    load(&f, "{\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
             MEM(1, 1, 1, 4611686018427387894, 1, CPU)
             MEM(1, 1, 2, 10, 2, CPU)
             MEM(1, 1, 3, 1, 3, CPU)
             MEM(1, 1, 4, -9223372036854775808, 4, CPU)
             MEM(1, 1, 5, -1, 1, CPU)
             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":1}]}");
    assert_int_equal(f.tr->nmems, 2);
    assert_int_equal(f.tr->skipped[TRACE_SKIP_BAD_BYTES], 3);
    assert_string_equal(trace_skip_name(TRACE_SKIP_BAD_BYTES), "bad_bytes");
    const memory_device *v = &f.mem->devices[0];
    assert_int_equal(v->alloc_bytes, INT64_C(1) << 62);
    assert_int_equal(v->peak_bytes, INT64_C(1) << 62);
    assert_int_equal(v->live_bytes_at_end, INT64_C(1) << 62);
    assert_int_equal(op_stat(f.mem, f.m, "op", 0)->alloc_bytes, INT64_C(1) << 62);
    done(&f);
}

static void test_memory_none(void **state)
{
    (void)state;
    struct fix f;
    load(&f, "[{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]");
    assert_int_equal(f.mem->ndevices, 0);
    assert_int_equal(f.mem->nops, 0);
    assert_null(memory_op_stat(f.mem, 0, 0));
    int64_t col[3];
    assert_int_equal(memory_curve(f.mem, 0, 0, 10, col, 3), 0);
    done(&f);
}

/* The mask of --focus name (scope_keep), owned by the caller. */
static uint8_t *focus(const model *m, const char *name)
{
    scope *s = scope_new(m);
    assert_non_null(s);
    assert_int_equal(scope_push_arg(s, "focus", name), 0);
    uint8_t *keep = scope_keep(s);
    assert_non_null(keep);
    scope_free(s);
    return keep;
}

/* memory_scope_build (the allocations inside a scope of stacks), every stack
   selected: the hand rows above, and every allocation. */
static void test_memory_scope_all(void **state)
{
    (void)state;
    struct fix f;
    t2p_error err;
    load(&f, trace_text);
    memory_scoped *ms = memory_scope_build(f.mem, NULL, &err);
    assert_non_null(ms);
    op_rows_by_hand(&ms->view, f.m);
    /* CPU: allocations 100, 10, 20, 7, 1, 50 (the root's too); GPU0 1000, 500, 300 */
    assert_int_equal(ms->devs[0].allocs, 6);
    assert_int_equal(ms->devs[0].alloc_bytes, 188);
    assert_int_equal(ms->devs[0].increase_bytes, 83);
    assert_int_equal(ms->devs[1].allocs, 3);
    assert_int_equal(ms->devs[1].alloc_bytes, 1800);
    assert_int_equal(ms->devs[1].increase_bytes, 800);
    memory_scope_free(ms);
    /* an empty scope's mask selects every stack but the roots: the same rows */
    scope *s = scope_new(f.m);
    uint8_t *keep = scope_keep(s);
    ms = memory_scope_build(f.mem, keep, &err);
    assert_non_null(ms);
    op_rows_by_hand(&ms->view, f.m);
    assert_int_equal(ms->devs[0].allocs, 5); /* the record at the root is in no stack */
    memory_scope_free(ms);
    free(keep);
    scope_free(s);
    done(&f);
}

static void test_memory_scope_focus(void **state)
{
    (void)state;
    struct fix f;
    t2p_error err;
    load(&f, trace_text);
    /* --focus a: the records of both a's */
    uint8_t *keep = focus(f.m, "a");
    memory_scoped *ms = memory_scope_build(f.mem, keep, &err);
    assert_non_null(ms);
    assert_int_equal(ms->devs[0].allocs, 1);
    assert_int_equal(ms->devs[0].alloc_bytes, 10);
    assert_int_equal(ms->devs[0].increase_bytes, 10);
    assert_int_equal(ms->devs[0].live_allocs, 1);
    assert_int_equal(ms->devs[0].live_bytes, 10);
    assert_int_equal(ms->devs[1].allocs, 2);
    assert_int_equal(ms->devs[1].alloc_bytes, 1500);
    assert_int_equal(ms->devs[1].increase_bytes, 500);
    assert_int_equal(ms->devs[1].live_allocs, 1);
    assert_int_equal(ms->devs[1].live_bytes, 500);
    /* a on GPU0: its own records, each once though a recurs */
    const memory_stat *st = memory_op_stat(&ms->view, unit_op_index(f.m, "a"), 1);
    assert_non_null(st);
    assert_int_equal(st->alloc_count, 2);
    assert_int_equal(st->alloc_bytes, 1500);
    assert_int_equal(st->increase_bytes, 500);
    assert_int_equal(st->self_alloc_count, 2);
    /* outer holds them with children, none of its own in the scope */
    st = memory_op_stat(&ms->view, unit_op_index(f.m, "outer"), 1);
    assert_non_null(st);
    assert_int_equal(st->alloc_bytes, 1500);
    assert_int_equal(st->self_alloc_count, 0);
    /* b and c: outside */
    assert_null(memory_op_stat(&ms->view, unit_op_index(f.m, "b"), 1));
    assert_null(memory_op_stat(&ms->view, unit_op_index(f.m, "c"), 0));
    memory_scope_free(ms);
    free(keep);
    /* --focus b: its allocation and the free of outer's block */
    keep = focus(f.m, "b");
    ms = memory_scope_build(f.mem, keep, &err);
    assert_non_null(ms);
    assert_int_equal(ms->devs[0].allocs, 1);
    assert_int_equal(ms->devs[0].alloc_bytes, 20);
    assert_int_equal(ms->devs[0].increase_bytes, -80);
    assert_int_equal(ms->devs[1].alloc_bytes, 300);
    memory_scope_free(ms);
    free(keep);
    done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_figures),
        cmocka_unit_test(test_memory_early_kineto),
        cmocka_unit_test(test_memory_device_properties),
        cmocka_unit_test(test_memory_wide),
        cmocka_unit_test(test_memory_node_scoped),
        cmocka_unit_test(test_memory_none),
        cmocka_unit_test(test_memory_bytes_bound),
        cmocka_unit_test(test_memory_scope_all),
        cmocka_unit_test(test_memory_scope_focus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
