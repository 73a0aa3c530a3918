/* Unit tests of core/analyses/kernels.c: TensorBoard's Kernel view and GPU
   summary on a hand-made trace whose figures are worked out by hand below
   (times in us in the trace, ns in the asserts). */
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

#include "core/analyses/kernels.h"
#include "core/analyses/steps.h"
#include "core/analyses/tensorcore.h"
#include "core/load/trace.h"
#include "core/model/model.h"
#include "core/model/scope.h"
#include "tests/unit/unit.h"

struct fx {
    char *path;
    trace *tr;
    model *m;
    steps *st;
    kernels *k;
};

static void open_fx(struct fx *f, const char *text, const unsigned char *keep)
{
    t2p_error err;
    f->m = unit_load(text, &f->tr, &f->path);
    f->st = steps_build(f->m, &err);
    assert_non_null(f->st);
    f->k = kernels_build(f->m, f->st, keep, &err);
    assert_non_null(f->k);
}

static void close_fx(struct fx *f)
{
    kernels_free(f->k);
    steps_free(f->st);
    unit_close(f->m, f->tr, f->path);
}

static const kernels_row *row(const kernels *k, const char *name)
{
    for (size_t i = 0; i < k->nrows; i++)
        if (!strcmp(trace_str(k->m->tr, k->rows[i].name), name))
            return &k->rows[i];
    return NULL;
}

static const kernels_row *oprow(const kernels *k, const char *op, const char *name)
{
    for (size_t i = 0; i < k->nby_op; i++) {
        const kernels_row *r = &k->by_op[i];
        if (strcmp(trace_str(k->m->tr, r->name), name))
            continue;
        if (op ? r->op != MODEL_NONE && !strcmp(model_op_name(k->m, r->op), op)
               : r->op == MODEL_NONE)
            return r;
    }
    return NULL;
}

static const kernels_gpu *gpu(const kernels *k, int dev)
{
    for (size_t i = 0; i < k->ngpus; i++)
        if (k->gpus[i].device == dev)
            return &k->gpus[i];
    return NULL;
}

#define K(name, ts, dur, extra)                                                              \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts \
    ",\"dur\":" #dur ",\"args\":{" extra "}},"
#define OP(name, ts, dur)                                                                    \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
    ",\"dur\":" #dur "},"
#define LAUNCH(ts, corr)                                                                     \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"         \
    "\"tid\":1,\"ts\":" #ts ",\"dur\":5,\"args\":{\"correlation\":" #corr "}},"

/* CPU (1,1): ProfilerStep#1 [0,300]
     aten::mm [10,100]: launches corr 1 and 2
     aten::add [110,150]: launches corr 3
   GPU (0,7):
     volta_h884gemm [30,130) bps 0.5 occ 50 grid [1,1,1] block [128,1,1]  (corr 1)
     volta_h884gemm [80,180) bps 0.8 occ -5 grid [1,1,1] block [64,1,1]   (corr 2)
     add_kernel     [200,210) bps "abc" occ null                            (corr 3)
     orphan         [220,250) bps 2 occ 30, no correlation
     nodev          [260,270) corr 4 (no launch has it), no device
     zero           at 100, dur 0, device 1, bps 3 occ 40 */
static const char *TRACE =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
    "\"ts\":0,\"dur\":300},"
    OP("aten::mm", 10, 90) LAUNCH(20, 1) LAUNCH(40, 2)
    OP("aten::add", 110, 40) LAUNCH(120, 3)
    K("volta_h884gemm", 30, 100, "\"correlation\":1,\"device\":0,\"blocks per SM\":0.5,"
      "\"est. achieved occupancy %\":50,\"grid\":[1,1,1],\"block\":[128,1,1]")
    K("volta_h884gemm", 80, 100, "\"correlation\":2,\"device\":0,\"blocks per SM\":0.8,"
      "\"est. achieved occupancy %\":-5,\"grid\":[1,1,1],\"block\":[64,1,1]")
    K("add_kernel", 200, 10, "\"correlation\":3,\"device\":0,\"blocks per SM\":\"abc\","
      "\"est. achieved occupancy %\":null")
    K("orphan", 220, 30, "\"device\":0,\"blocks per SM\":2,\"est. achieved occupancy %\":30")
    K("nodev", 260, 10, "\"correlation\":4")
    "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"zero\",\"pid\":0,\"tid\":8,\"ts\":100,\"dur\":0,"
    "\"args\":{\"device\":1,\"blocks per SM\":3,\"est. achieved occupancy %\":40}}"
    "]}";

static void test_rows(void **state)
{
    (void)state;
    struct fx f;
    open_fx(&f, TRACE, NULL);
    const kernels *k = f.k;
    assert_int_equal(k->kernel_events, 6);
    assert_int_equal(k->nrows, 5);
    /* weighted by duration: (0.5*100 + 0.8*100) / 200, (50*100 - 5*100) / 200 */
    const kernels_row *r = row(k, "volta_h884gemm");
    assert_non_null(r);
    assert_int_equal(r->calls, 2);
    assert_int_equal(r->total_ns, 200000);
    assert_int_equal(r->min_ns, 100000);
    assert_int_equal(r->max_ns, 100000);
    assert_true(r->mean_ns == 100000.0);
    assert_true(r->blocks_per_sm > 0.65 - 1e-9 && r->blocks_per_sm < 0.65 + 1e-9);
    assert_true(r->occupancy_pct > 22.5 - 1e-9 && r->occupancy_pct < 22.5 + 1e-9);
    assert_true(r->tensor_cores);
    assert_int_equal(r->no_blocks_per_sm, 0);
    /* the table is ordered by total: the largest first */
    assert_ptr_equal(r, &k->rows[0]);
    /* a string and a null count 0, and say so */
    r = row(k, "add_kernel");
    assert_non_null(r);
    assert_true(r->blocks_per_sm == 0 && r->occupancy_pct == 0);
    assert_int_equal(r->no_blocks_per_sm, 1);
    assert_int_equal(r->no_occupancy, 1);
    assert_false(r->tensor_cores);
    /* no duration: the means are 0, not a division by zero; capitalised category */
    r = row(k, "zero");
    assert_non_null(r);
    assert_int_equal(r->calls, 1);
    assert_true(r->blocks_per_sm == 0 && r->occupancy_pct == 0 && r->mean_ns == 0);
    close_fx(&f);
}

static void test_by_op(void **state)
{
    (void)state;
    struct fx f;
    open_fx(&f, TRACE, NULL);
    const kernels *k = f.k;
    const kernels_row *r = oprow(k, "aten::mm", "volta_h884gemm");
    assert_non_null(r);
    assert_int_equal(r->calls, 2);
    /* the grid agrees, the block does not, registers were never given */
    assert_true(r->agree & TRACE_KARG_GRID);
    assert_int_equal(r->grid[0], 1);
    assert_false(r->agree & TRACE_KARG_BLOCK);
    assert_false(r->agree & TRACE_KARG_REGS);
    assert_non_null(oprow(k, "aten::add", "add_kernel"));
    /* no correlation, or one no launch has: a row of their own */
    assert_non_null(oprow(k, NULL, "orphan"));
    assert_non_null(oprow(k, NULL, "nodev"));
    assert_int_equal(k->no_launch, 3); /* orphan, nodev, zero */
    assert_int_equal(k->no_device, 1);
    assert_int_equal(k->negative_occupancy, 1);
    uint32_t *l = malloc((k->nby_op ? k->nby_op : 1) * sizeof *l);
    assert_non_null(l);
    assert_int_equal(kernels_launcher_ids(k, r->name, l), 1);
    assert_ptr_equal(&k->by_op[l[0]], r);
    free(l);
    close_fx(&f);
}

static void test_gpus(void **state)
{
    (void)state;
    struct fx f;
    open_fx(&f, TRACE, NULL);
    const kernels *k = f.k;
    /* the span is the kept step's window */
    assert_int_equal(f.st->nsteps, 1);
    assert_int_equal(k->span_start, f.st->steps[0].start);
    assert_int_equal(k->span_end, f.st->steps[0].end);
    double span = (double)(k->span_end - k->span_start) / 1000; /* us */
    assert_true(k->span_start <= 30000 && k->span_end >= 250000);
    assert_int_equal(k->ngpus, 2);
    const kernels_gpu *g = gpu(k, 0);
    assert_non_null(g);
    assert_int_equal(g->kernels, 4);
    /* union [30,180) + [200,210) + [220,250) = 190 us */
    assert_true(g->has_utilization);
    assert_true(g->utilization_pct > 190 / span * 100 - 1e-9 &&
                g->utilization_pct < 190 / span * 100 + 1e-9);
    /* min(sum, 1): [30,80) 0.5, [80,130) 1 (1.3 capped), [130,180) 0.8, [220,250) 1
       (2 capped); add_kernel's "abc" is no figure: 25 + 50 + 40 + 30 = 145 */
    assert_true(g->has_sm_efficiency);
    assert_true(g->sm_efficiency_pct > 145 / span * 100 - 1e-9 &&
                g->sm_efficiency_pct < 145 / span * 100 + 1e-9);
    /* occupancy >= 0 only: (50*100 + 30*30) / 130 */
    assert_true(g->has_occupancy);
    assert_true(g->occupancy_pct > 5900.0 / 130 - 1e-9 && g->occupancy_pct < 5900.0 / 130 + 1e-9);
    /* tensor cores over the kernels operators launched: 200 of 210 */
    assert_true(g->has_tc);
    assert_true(g->tc_kernel_pct > 20000.0 / 210 - 1e-9 && g->tc_kernel_pct < 20000.0 / 210 + 1e-9);
    /* a kernel of no length: nothing to average, figures null */
    g = gpu(k, 1);
    assert_non_null(g);
    assert_false(g->has_sm_efficiency);
    assert_false(g->has_occupancy);
    assert_true(g->utilization_pct == 0);
    /* all kernels: 200 tensor-core us of 250 */
    assert_true(k->tc_used_pct > 80 - 1e-9 && k->tc_used_pct < 80 + 1e-9);
    /* aten::mm (eligible by name, bottom) 200 of the operators' 210 */
    assert_true(k->tc_eligible_pct > 20000.0 / 210 - 1e-9 &&
                k->tc_eligible_pct < 20000.0 / 210 + 1e-9);
    close_fx(&f);
}

static void test_keep(void **state)
{
    (void)state;
    /* a scope: only the events the mask keeps count */
    t2p_error err;
    char *path = unit_write_tmp(TRACE);
    trace *tr = trace_load(path, NULL, &err);
    assert_non_null(tr);
    unsigned char *keep = calloc(tr->nevents, 1);
    for (size_t e = 0; e < tr->nevents; e++)
        keep[e] = strcmp(trace_str(tr, tr->events[e].name), "orphan") != 0;
    trace_free(tr);
    unlink(path);
    free(path);
    struct fx f;
    open_fx(&f, TRACE, keep);
    assert_null(row(f.k, "orphan"));
    assert_int_equal(f.k->kernel_events, 5);
    assert_int_equal(gpu(f.k, 0)->kernels, 3);
    close_fx(&f);
    free(keep);
}

/* The AMP recommendation: compute capability 8, no tensor-core kernel, and
   an eligible operator (aten::conv2d, its child aten::convolution eligible
   too: the bottom one counts) launched 30 of the operators' 40 us. */
static void test_recommend(void **state)
{
    (void)state;
    struct fx f;
    open_fx(&f,
            "{\"deviceProperties\":[{\"id\":0,\"computeMajor\":8,\"totalGlobalMem\":1000}],"
            "\"traceEvents\":["
            "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
            "\"tid\":1,\"ts\":0,\"dur\":1000},"
            OP("aten::conv2d", 10, 90) OP("aten::convolution", 15, 80) LAUNCH(20, 1)
            OP("aten::relu", 110, 40) LAUNCH(120, 2)
            K("implicit_sgemm", 30, 30, "\"correlation\":1,\"device\":0")
            K("relu_kernel", 200, 10, "\"correlation\":2,\"device\":0")
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::x\",\"pid\":1,\"tid\":1,\"ts\":900,"
            "\"dur\":1}]}",
            NULL);
    assert_true(f.k->tc_eligible_pct > 75 - 1e-9 && f.k->tc_eligible_pct < 75 + 1e-9);
    kernels_recommend(f.k, f.st);
    bool amp = false, low = false;
    for (size_t i = 0; i < f.st->nrecs; i++) {
        amp |= !strcmp(f.st->recs[i].id, "amp");
        low |= !strcmp(f.st->recs[i].id, "gpu_low_util");
        if (!strcmp(f.st->recs[i].id, "amp"))
            assert_non_null(strstr(f.st->recs[i].text, "75%"));
    }
    assert_true(amp);
    assert_true(low); /* 40 us of kernels in a step of about 1 ms */
    close_fx(&f);
}

/* One step [0,1000) whose aten::mm launches one 30 us gemm with kargs (its
   blocks per SM and occupancy): the two cases below differ only there. */
#define SM_TRACE(kargs)                                                                       \
    "{\"traceEvents\":["                                                                      \
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"        \
    "\"tid\":1,\"ts\":0,\"dur\":1000},"                                                         \
    OP("aten::mm", 10, 90) LAUNCH(20, 1)                                                      \
    K("gemm", 30, 30, "\"correlation\":1,\"device\":0," kargs)                                \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::x\",\"pid\":1,\"tid\":1,"              \
    "\"ts\":900,\"dur\":1}]}"

/* Our SM efficiency and occupancy advice (the plugin had none): one kernel
   of 30 us in a 1 ms step with 0.2 blocks per SM and 10 % occupancy:
   utilization 3 %, SM efficiency 0.6 % (a fifth of it: under half), and
   occupancy under 25 %; a full kernel (2 blocks per SM, 60 %) gets neither. */
static void test_recommend_sm(void **state)
{
    (void)state;
    for (int full = 0; full < 2; full++) {
        struct fx f;
        open_fx(&f,
                full ? SM_TRACE("\"blocks per SM\":2,\"est. achieved occupancy %\":60")
                     : SM_TRACE("\"blocks per SM\":0.2,\"est. achieved occupancy %\":10"),
                NULL);
        kernels_recommend(f.k, f.st);
        bool sm = false, occ = false;
        for (size_t i = 0; i < f.st->nrecs; i++) {
            if (!strcmp(f.st->recs[i].id, "gpu_low_sm_efficiency")) {
                sm = true;
                assert_non_null(strstr(f.st->recs[i].text, "20% of its SMs"));
            }
            if (!strcmp(f.st->recs[i].id, "gpu_low_occupancy")) {
                occ = true;
                assert_non_null(strstr(f.st->recs[i].text, "10.0%"));
            }
        }
        assert_true(sm == !full);
        assert_true(occ == !full);
        close_fx(&f);
    }
}

/* kernels_build_in over a scope's mask (scope_keep): filter NULL or
   focus NULL for none. The caller frees. */
static kernels *scoped(struct fx *f, const char *focus, const char *filter)
{
    t2p_error err;
    scope *s = scope_new(f->m);
    assert_non_null(s);
    if (focus)
        assert_int_equal(scope_push_arg(s, "focus", focus), 0);
    if (filter)
        scope_set_filter(s, filter);
    uint8_t *keep = scope_keep(s);
    assert_non_null(keep);
    kernels *k = kernels_build_in(f->m, f->st, NULL, keep, &err);
    assert_non_null(k);
    free(keep);
    scope_free(s);
    return k;
}

static void test_scoped(void **state)
{
    (void)state;
    struct fx f;
    t2p_error err;
    open_fx(&f, TRACE, NULL);
    /* no mask: every kernel, with test_rows' hand figures (not a second
       kernels_build, which is this same call) */
    kernels *k = kernels_build_in(f.m, f.st, NULL, NULL, &err);
    assert_non_null(k);
    assert_int_equal(k->kernel_events, 6);
    assert_int_equal(k->kernel_ns, 100000 + 100000 + 10000 + 30000 + 10000 + 0);
    assert_int_equal(k->nrows, 5);
    /* by operator: aten::mm's gemms, aten::add's add_kernel, and orphan,
       nodev, zero each on a row without an operator */
    assert_int_equal(k->nby_op, 5);
    assert_int_equal(oprow(k, "aten::mm", "volta_h884gemm")->calls, 2);
    assert_int_equal(oprow(k, "aten::add", "add_kernel")->total_ns, 10000);
    assert_int_equal(oprow(k, NULL, "orphan")->total_ns, 30000);
    /* the kernel as a model op: what a focus on it names */
    const kernels_row *r = row(k, "volta_h884gemm");
    assert_int_not_equal(r->kop, MODEL_NONE);
    assert_string_equal(model_op_name(f.m, r->kop), "volta_h884gemm");
    kernels_free(k);
    /* --focus aten::mm: the two gemms it launched (corr 1 and 2) */
    k = scoped(&f, "aten::mm", NULL);
    assert_int_equal(k->kernel_events, 2);
    assert_int_equal(k->kernel_ns, 200000);
    assert_int_equal(k->nrows, 1);
    assert_non_null(oprow(k, "aten::mm", "volta_h884gemm"));
    kernels_free(k);
    /* --filter add: the stack through aten::add (and add_kernel's own name) */
    k = scoped(&f, NULL, "add");
    assert_int_equal(k->kernel_events, 1);
    assert_int_equal(k->kernel_ns, 10000);
    assert_non_null(row(k, "add_kernel"));
    kernels_free(k);
    /* --focus orphan: a kernel without a launch is on its stream's stack */
    k = scoped(&f, "orphan", NULL);
    assert_int_equal(k->kernel_events, 1);
    assert_int_equal(k->kernel_ns, 30000);
    assert_int_equal(k->no_launch, 1);
    kernels_free(k);
    /* the whole scope (an empty one): every kernel */
    k = scoped(&f, NULL, NULL);
    assert_int_equal(k->kernel_events, 6);
    kernels_free(k);
    close_fx(&f);
}

static void test_allowlists(void **state)
{
    (void)state;
    assert_true(tensorcore_kernel("volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", 44));
    assert_true(tensorcore_kernel("sm80_xmma_gemm_f16f16", 21));
    /* a substring of an entry is not the entry */
    assert_false(tensorcore_kernel("xmma_gem", 8));
    assert_false(tensorcore_kernel("sm80_xmma_fprop_implicit_gemm_tf32", 34));
    assert_true(tensorcore_op("aten::mm", 8));
    assert_false(tensorcore_op("aten::mm_", 9));
    assert_false(tensorcore_op("aten::m", 7));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),     cmocka_unit_test(test_by_op),
        cmocka_unit_test(test_gpus),     cmocka_unit_test(test_keep),
        cmocka_unit_test(test_recommend), cmocka_unit_test(test_recommend_sm),
        cmocka_unit_test(test_allowlists), cmocka_unit_test(test_scoped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
