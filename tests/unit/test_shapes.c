/* TensorBoard's operators by input shape and module view: the shape text
   (Python's str(), checked against what python3 prints for the same JSON),
   the plugin's tree rules and the module hierarchy, on small traces whose
   figures are worked out by hand in the comments. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/analyses/modules.h"
#include "core/analyses/opshape.h"
#include "core/analyses/tbtree.h"
#include "core/load/pyrepr.h"
#include "tests/unit/unit.h"

static void test_float_repr(void **state)
{
    (void)state;
    /* expected: python3 -c 'print(repr(x))' */
    static const struct { double x; const char *s; } cases[] = {
        {0.1, "0.1"}, {1e-05, "1e-05"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"},
        {1.5, "1.5"}, {0.0001, "0.0001"}, {123456789.123, "123456789.123"},
        {1.0 / 3, "0.3333333333333333"}, {-2.5e-300, "-2.5e-300"}, {5e-324, "5e-324"},
        {1.7976931348623157e308, "1.7976931348623157e+308"}, {100.0, "100.0"}, {0.0, "0.0"},
        {-0.0, "-0.0"}, {2.5e-5, "2.5e-05"}, {12345678901234567.0, "1.2345678901234568e+16"},
    };
    char buf[40];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pyrepr_float(cases[i].x, buf);
        assert_string_equal(buf, cases[i].s);
    }
}

struct loaded {
    char *path;
    trace *tr;
    model *m;
    tbtree *t;
};

static void load(struct loaded *l, const char *json)
{
    t2p_error err;
    l->path = unit_write_tmp(json);
    l->tr = trace_load(l->path, NULL, &err);
    assert_non_null(l->tr);
    l->m = model_build(l->tr, NULL, &err);
    assert_non_null(l->m);
    l->t = tbtree_build(l->m, &err);
    assert_non_null(l->t);
}

static void unload(struct loaded *l)
{
    tbtree_free(l->t);
    model_free(l->m);
    trace_free(l->tr);
    unlink(l->path);
    free(l->path);
}

/* The shape text of event e ("[]" when it has none). */
static const char *shape_of(const trace *tr, size_t e)
{
    for (size_t i = 0; i < tr->nshapes; i++)
        if (tr->shapes[i].event == e)
            return trace_str(tr, tr->shapes[i].shape);
    return "[]";
}

static void test_shape_text(void **state)
{
    (void)state;
    /* expected: python3 -c 'print(str(json.loads(TEXT)))' for each args value */
    struct loaded l;
    load(&l, "{\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,"
             "\"args\":{\"Input Dims\":[[2, [3, 4]], [], []]}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,"
             "\"args\":{\"Input Dims\":[\"it's\", \"say \\\"hi\\\"\", \"a\\\\b\", \"t\\tn\\n\"]}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,"
             "\"args\":{\"Input Dims\":{\"k\": [1, null], \"z\": true}}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":1,"
             "\"args\":{\"Input Dims\":[-0, 1.0, 1E+2, 10000000000000000000000]}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":8,\"dur\":1,"
             "\"args\":{\"Input Dims\":\"top\"}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1,"
             "\"args\":{\"Input Dims\":[[\"\\u00e9\\u007f\"]]}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"g\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":1,"
             "\"args\":{\"Input dims\":[[7]]}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"h\",\"pid\":1,\"tid\":1,\"ts\":14,\"dur\":1,"
             "\"args\":{\"Input Dims\":null,\"Input dims\":[[1, 1]]}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"i\",\"pid\":1,\"tid\":1,\"ts\":16,\"dur\":1,"
             "\"args\":{\"Input dims\":null}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"j\",\"pid\":1,\"tid\":1,\"ts\":18,\"dur\":1,"
             "\"args\":{\"Input Dims\":[], \"Input type\":[[\"float\"]]}},"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":1}"
             "]}");
    const trace *tr = l.tr;
    assert_int_equal(tr->nevents, 11);
    assert_string_equal(shape_of(tr, 0), "[[2, [3, 4]], [], []]");
    assert_string_equal(shape_of(tr, 1), "[\"it's\", 'say \"hi\"', 'a\\\\b', 't\\tn\\n']");
    assert_string_equal(shape_of(tr, 2), "{'k': [1, None], 'z': True}");
    assert_string_equal(shape_of(tr, 3), "[0, 1.0, 100.0, 10000000000000000000000]");
    assert_string_equal(shape_of(tr, 4), "top");
    assert_string_equal(shape_of(tr, 5), "[['\xc3\xa9\\x7f']]");
    assert_string_equal(shape_of(tr, 6), "[[7]]");
    assert_string_equal(shape_of(tr, 7), "[[1, 1]]");
    assert_string_equal(shape_of(tr, 8), "None");
    assert_string_equal(shape_of(tr, 9), "[]");
    assert_string_equal(shape_of(tr, 10), "[]");
    /* "[]" written and "[]" by absence are one row */
    opshape *s = opshape_build(l.t, NULL, &(t2p_error){ 0 });
    assert_non_null(s);
    assert_int_equal(s->nrows, 11);
    opshape_free(s);
    unload(&l);
}

#define EV(cat, name, ts, dur, extra) \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
    ",\"dur\":" #dur ",\"args\":{" extra "}},"
#define KER(name, ts, dur, corr) \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":2,\"tid\":7,\"ts\":" #ts \
    ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}},"

static const opshape_row *row(const opshape *s, const trace *tr, const char *name)
{
    for (size_t i = 0; i < s->nrows; i++)
        if (!strcmp(trace_str(tr, s->rows[i].name), name))
            return &s->rows[i];
    return NULL;
}

static void test_tree_rules(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "{\"traceEvents\":["
             EV("user_annotation", "ProfilerStep#1", 0, 1000, "")
             /* aten::sum whose only child is aten::sum: one call of 100 us; it
                takes the child's launch (5 us, 30 us of GPU) and loses its own */
             EV("cpu_op", "aten::sum", 10, 100, "\"External id\":1,\"Input Dims\":[[4]]")
             EV("cpu_op", "aten::sum", 12, 88, "\"External id\":2,\"Input Dims\":[[4]]")
             EV("cuda_runtime", "cudaLaunchKernel", 20, 5, "\"External id\":2,\"correlation\":11")
             EV("cuda_runtime", "cudaLaunchKernel", 102, 2, "\"External id\":1,\"correlation\":12")
             /* not eligible by name, but its child aten::mm is */
             EV("cpu_op", "my::op", 300, 100, "\"External id\":3")
             EV("cpu_op", "aten::mm", 310, 40, "\"External id\":4")
             /* launches a tensor-core kernel (20 us) and another (5 us): 80 % */
             EV("cpu_op", "my::gemm", 400, 50, "\"External id\":5")
             EV("cuda_runtime", "cudaLaunchKernel", 410, 2, "\"External id\":5,\"correlation\":13")
             EV("cuda_runtime", "cudaLaunchKernel", 420, 1, "\"External id\":5,\"correlation\":14")
             /* not operators: Optimizer.*, DataParallel.forward; its child is */
             EV("cpu_op", "Optimizer.zero_grad#SGD.zero_grad", 500, 20, "\"External id\":6")
             EV("cpu_op", "DataParallel.forward", 530, 30, "\"External id\":7")
             EV("cpu_op", "aten::add", 535, 10, "\"External id\":8")
             /* a user annotation is no node: relu hangs from the step */
             EV("user_annotation", "region", 600, 100, "")
             EV("cpu_op", "aten::relu", 610, 10, "\"External id\":9")
             /* b starts inside a and ends after it: left out */
             EV("cpu_op", "aten::a", 800, 50, "\"External id\":10")
             EV("cpu_op", "aten::b", 840, 30, "\"External id\":11")
             KER("reduce", 200, 30, 11)
             KER("lost", 240, 7, 12)
             KER("volta_h884gemm_64x64", 500, 20, 13)
             KER("elementwise", 530, 5, 14)
             "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":2000}"
             "]}");
    const trace *tr = l.tr;
    assert_int_equal(l.t->dropped, 1);
    assert_int_equal(l.t->absorbed, 1);
    opshape *s = opshape_build(l.t, NULL, &(t2p_error){ 0 });
    assert_non_null(s);
    const opshape_row *r = row(s, tr, "aten::sum");
    assert_non_null(r);
    assert_int_equal(r->calls, 1);
    assert_int_equal(r->total_ns, 100000);
    assert_int_equal(r->self_ns, 95000); /* 100 - the child's 5 us launch */
    assert_int_equal(r->dev_self_ns, 30000);
    assert_int_equal(r->dev_total_ns, 30000);
    assert_false(r->tc_eligible);
    assert_true(row(s, tr, "my::op")->tc_eligible);
    assert_int_equal(row(s, tr, "my::op")->self_ns, 60000);
    assert_true(row(s, tr, "aten::mm")->tc_eligible);
    r = row(s, tr, "my::gemm");
    assert_true(r->tc_eligible);
    assert_int_equal(r->self_ns, 47000);
    assert_int_equal(r->dev_self_ns, 25000);
    assert_int_equal(r->tc_self_ns, 20000);
    assert_true(opshape_tc_self_pct(r) > 79.999 && opshape_tc_self_pct(r) < 80.001);
    assert_null(row(s, tr, "Optimizer.zero_grad#SGD.zero_grad"));
    assert_null(row(s, tr, "DataParallel.forward"));
    assert_null(row(s, tr, "ProfilerStep#1"));
    assert_null(row(s, tr, "region"));
    assert_null(row(s, tr, "aten::b"));
    assert_non_null(row(s, tr, "aten::add"));
    assert_int_equal(row(s, tr, "aten::relu")->calls, 1);
    assert_int_equal(row(s, tr, "aten::a")->self_ns, 50000);
    /* the scope: only the events keep marks count */
    unsigned char *keep = calloc(tr->nevents, 1);
    keep[5] = 1; /* my::op */
    opshape *k = opshape_build(l.t, keep, &(t2p_error){ 0 });
    assert_int_equal(k->nrows, 1);
    assert_int_equal(k->rows[0].calls, 1);
    opshape_free(k);
    free(keep);
    opshape_free(s);
    unload(&l);
}

/* The plugin sorts its events by start time: the thread whose first node
   starts first comes first, and takes a runtime call whose External id
   operators of two threads carry, whatever the file order. */
static void test_time_order(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "{\"traceEvents\":["
             EV("cpu_op", "aten::main", 9000, 20, "\"External id\":5")
             EV("cuda_runtime", "cudaLaunchKernel", 9005, 4, "\"External id\":5,\"correlation\":1")
             KER("k", 9100, 6, 1)
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::early\",\"pid\":1,\"tid\":3,"
             "\"ts\":50,\"dur\":30,\"args\":{\"External id\":5}},"
             "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10000}"
             "]}");
    opshape *s = opshape_build(l.t, NULL, &(t2p_error){ 0 });
    assert_non_null(s);
    /* aten::early (thread 3, written last, starts first) takes the launch */
    assert_int_equal(row(s, l.tr, "aten::early")->dev_self_ns, 6000);
    assert_int_equal(row(s, l.tr, "aten::early")->self_ns, 26000);
    assert_int_equal(row(s, l.tr, "aten::main")->dev_self_ns, 0);
    assert_int_equal(row(s, l.tr, "aten::main")->self_ns, 20000);
    opshape_free(s);
    unload(&l);
}

#define PY(name, ts, dur, id, parent, extra) \
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" \
    #ts ",\"dur\":" #dur ",\"args\":{\"Python id\":" #id ",\"Python parent id\":" #parent extra "}},"

static void test_modules(void **state)
{
    (void)state;
    struct loaded l;
    /* Net (module 10) -> _call_impl (plain frame) -> Linear (11) twice;
       aten::add right under Net. Net: 100 us, self 100 - 25 - 20 - 10 =
       45 us, 1 operator. Linear: 2 calls, 45 us, self 45 - 23 - 18 = 4 us. */
    load(&l, "{\"traceEvents\":["
             PY("nn.Module: Net", 0, 100, 1, 0, ",\"Python module id\":10")
             PY("_call_impl", 1, 98, 2, 1, "")
             PY("nn.Module: Linear", 5, 25, 3, 2, ",\"Python module id\":11")
             EV("cpu_op", "aten::linear", 6, 23, "\"External id\":1")
             PY("nn.Module: Linear", 40, 20, 4, 2, ",\"Python module id\":11")
             EV("cpu_op", "aten::linear", 41, 18, "\"External id\":2")
             EV("cpu_op", "aten::add", 70, 10, "\"External id\":3")
             /* a second root, with no module above it */
             PY("nn.Module: Aux", 200, 10, 5, 0, ",\"Python module id\":12")
             "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":500}"
             "]}");
    const trace *tr = l.tr;
    modules *mo = modules_build(l.t, NULL, &(t2p_error){ 0 });
    assert_non_null(mo);
    assert_int_equal(mo->nentries, 4); /* Aux; Net, Linear, Linear */
    size_t n;
    const modules_entry *e = mo->entries;
    assert_memory_equal(modules_name(mo, tr, e[0].stats, &n), "Aux", 3);
    assert_int_equal(e[0].depth, 0);
    assert_memory_equal(modules_name(mo, tr, e[1].stats, &n), "Net", 3);
    assert_int_equal(e[1].nchildren, 2);
    const modules_stats *net = &mo->stats[e[1].stats];
    assert_int_equal(net->module_id, 10);
    assert_int_equal(net->occurrences, 1);
    assert_int_equal(net->operators, 1);
    assert_int_equal(net->host_total_ns, 100000);
    assert_int_equal(net->host_self_ns, 45000);
    assert_int_equal(e[2].depth, 1);
    assert_int_equal(e[2].stats, e[3].stats);
    const modules_stats *lin = &mo->stats[e[2].stats];
    assert_int_equal(lin->occurrences, 2);
    assert_int_equal(lin->operators, 2);
    assert_int_equal(lin->host_total_ns, 45000);
    assert_int_equal(lin->host_self_ns, 4000);
    assert_true(modules_avg_ns(lin) == 22500.0);
    modules_free(mo);
    unload(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_repr),
        cmocka_unit_test(test_shape_text),
        cmocka_unit_test(test_tree_rules),
        cmocka_unit_test(test_time_order),
        cmocka_unit_test(test_modules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
