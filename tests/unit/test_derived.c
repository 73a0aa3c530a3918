/* core/analyses/derived: every analysis a view asks for is built once per
   model (and selection) and shared, and what it hands out equals a build of
   its own for that model and selection: asking again with an equal mask in
   another buffer gives the same pointer; another mask, another model or a
   scoped model gives that one's figures, never the last one's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/analyses/callers.h"
#include "core/analyses/compare.h"
#include "core/analyses/derived.h"
#include "core/analyses/hta.h"
#include "core/analyses/memory_scope.h"
#include "core/analyses/modules.h"
#include "core/analyses/opshape.h"
#include "core/analyses/pylines.h"
#include "core/analyses/tbtree.h"
#include "core/analyses/timeline.h"
#include "core/load/trace.h"
#include "core/model/select.h"
#include "tests/unit/unit.h"

#define GPU_TRACE TOP_SRCDIR "/data/resnet50_gpu.json.gz"
#define MEM_TRACE TOP_SRCDIR "/tests/fixtures/cnn_memory.json.gz"
#define PY_TRACE TOP_SRCDIR "/tests/fixtures/pystack_train.json.gz"

/* The first operator named name. */
static uint32_t op_named(const model *m, const char *name)
{
    uint32_t op = MODEL_NONE;
    for (size_t o = 0; o < m->nops && op == MODEL_NONE; o++)
        if (strcmp(trace_str(m->tr, m->ops[o].name), name) == 0)
            op = (uint32_t)o;
    assert_int_not_equal(op, MODEL_NONE);
    return op;
}

/* The stacks through the first operator named name (select_nodes' mask). */
static uint8_t *mask_of(const model *m, const char *name)
{
    uint32_t op = op_named(m, name);
    uint8_t *sel = calloc(m->nnodes, 1);
    assert_non_null(sel);
    /* a node is selected when it or an ancestor is a call of op: the
       subtrees of its calls (a parent comes before its children) */
    for (size_t i = 1; i < m->nnodes; i++) {
        const model_node *nd = &m->nodes[i];
        sel[i] = nd->op == op || (nd->parent != MODEL_NONE && sel[nd->parent]);
    }
    return sel;
}

/* a and b count the same kernels the same (rows by name, in order) */
static void same_kernels(const kernels *a, const kernels *b)
{
    assert_int_equal(a->nrows, b->nrows);
    for (size_t i = 0; i < a->nrows; i++) {
        assert_int_equal(a->rows[i].name, b->rows[i].name);
        assert_int_equal(a->rows[i].calls, b->rows[i].calls);
        assert_int_equal(a->rows[i].total_ns, b->rows[i].total_ns);
    }
}

static void same_callers(const callers *a, const callers *b)
{
    assert_int_equal(a->nnodes, b->nnodes);
    for (size_t i = 0; i < a->nnodes; i++) {
        assert_int_equal(a->nodes[i].op, b->nodes[i].op);
        assert_int_equal(a->nodes[i].self_ns, b->nodes[i].self_ns);
        assert_int_equal(a->nodes[i].total_ns, b->nodes[i].total_ns);
    }
}

/* Kernels of a selection: one build per mask, by content. */
static void test_kernels_in(void **state)
{
    (void)state;
    trace *tr = NULL;
    model *m = unit_open(GPU_TRACE, &tr);
    assert_non_null(m);
    derived *d = derived_new(m);
    t2p_error err;
    uint8_t *conv = mask_of(m, "aten::conv2d"), *bn = mask_of(m, "aten::batch_norm");
    const kernels *k1 = derived_kernels_in(d, m, conv, &err);
    assert_non_null(k1);
    assert_true(k1->nrows > 0);
    /* the same mask in another buffer: the same build */
    uint8_t *conv2 = malloc(m->nnodes);
    memcpy(conv2, conv, m->nnodes);
    assert_ptr_equal(derived_kernels_in(d, m, conv2, &err), k1);
    kernels *own = kernels_build_in(m, NULL, NULL, conv, &err);
    same_kernels(k1, own);
    kernels_free(own);
    /* another mask: its own figures, not conv's (k1 is dropped then: what
       it said is kept here) */
    size_t n1 = k1->nrows;
    int64_t t1 = k1->rows[0].total_ns;
    uint32_t name1 = k1->rows[0].name;
    const kernels *k2 = derived_kernels_in(d, m, bn, &err);
    assert_non_null(k2);
    own = kernels_build_in(m, NULL, NULL, bn, &err);
    same_kernels(k2, own);
    kernels_free(own);
    assert_true(k2->nrows != n1 || k2->rows[0].total_ns != t1 || k2->rows[0].name != name1);
    /* no mask: every kernel */
    const kernels *all = derived_kernels_in(d, m, NULL, &err);
    own = kernels_build(m, NULL, NULL, &err);
    same_kernels(all, own);
    kernels_free(own);
    free(conv);
    free(conv2);
    free(bn);
    derived_free(d);
    unit_close(m, tr, NULL);
}

/* Callers by (keep, hide); the tree of TensorBoard shared by the rows by
   shape and the modules. */
static void test_callers_and_tree(void **state)
{
    (void)state;
    trace *tr = NULL;
    model *m = unit_open(GPU_TRACE, &tr);
    derived *d = derived_new(m);
    t2p_error err;
    uint8_t *conv = mask_of(m, "aten::conv2d");
    const callers *c1 = derived_callers(d, m, conv, NULL, &err);
    assert_non_null(c1);
    assert_ptr_equal(derived_callers(d, m, conv, NULL, &err), c1);
    callers *own = callers_build(m, conv, NULL, false, &err);
    same_callers(c1, own);
    callers_free(own);
    /* hiding an operator is another tree (c1 is dropped then: its size
       is kept here) */
    size_t n1 = c1->nnodes;
    uint8_t *hide = calloc(m->nops, 1);
    hide[op_named(m, "aten::convolution")] = 1; /* inside every conv2d stack */
    const callers *c2 = derived_callers(d, m, conv, hide, &err);
    own = callers_build(m, conv, hide, false, &err);
    same_callers(c2, own);
    assert_int_not_equal(c2->nnodes, n1);
    callers_free(own);
    free(hide);
    free(conv);

    const tbtree *t = derived_tbtree(d, m, &err);
    assert_non_null(t);
    const opshape *sh = derived_opshape(d, m, &err);
    const modules *mo = derived_modules(d, m, &err);
    assert_non_null(sh);
    assert_non_null(mo);
    assert_ptr_equal(derived_tbtree(d, m, &err), t); /* built once */
    assert_ptr_equal(derived_opshape(d, m, &err), sh);
    tbtree *t2 = tbtree_build(m, &err);
    opshape *sh2 = opshape_build(t2, m->keep, &err);
    assert_int_equal(sh->nrows, sh2->nrows);
    assert_int_equal(t->n, t2->n);
    opshape_free(sh2);
    tbtree_free(t2);
    derived_free(d);
    unit_close(m, tr, NULL);
}

/* A step's model has its own analyses; the next step's replace them, and
   asking for the whole trace's again gives the first ones. */
static void test_scoped(void **state)
{
    (void)state;
    trace *tr = NULL;
    model *m = unit_open(GPU_TRACE, &tr);
    derived *d = derived_new(m);
    t2p_error err;
    const steps *st = derived_steps(d, &err);
    assert_non_null(st);
    assert_true(st->nsteps >= 2);
    const hta *hw = derived_hta(d, m, NULL, &err);
    assert_non_null(hw);
    for (size_t i = 0; i < 2; i++) {
        model *sm = steps_scope(st, i, i, &m->opts, &err);
        assert_non_null(sm);
        assert_true(derived_covers(d, sm));
        const hta *hs = derived_hta(d, sm, NULL, &err);
        assert_non_null(hs);
        assert_ptr_equal(derived_hta(d, sm, NULL, &err), hs);
        hta *own = hta_build(sm, NULL, NULL, &err);
        assert_int_equal(hs->nstreams, own->nstreams);
        for (size_t s = 0; s < own->nstreams; s++)
            assert_int_equal(hs->streams[s].busy_ns, own->streams[s].busy_ns);
        /* a step is less than the trace */
        assert_true(hs->streams[0].busy_ns < hw->streams[0].busy_ns);
        hta_free(own);
        const kernels *ks = derived_kernels_in(d, sm, NULL, &err);
        kernels *kown = kernels_build(sm, NULL, NULL, &err);
        same_kernels(ks, kown);
        kernels_free(kown);
        model_free(sm);
    }
    assert_ptr_equal(derived_hta(d, m, NULL, &err), hw);
    /* a model of another trace is refused, not served another's figures */
    trace *tr2 = NULL;
    model *other = unit_open(MEM_TRACE, &tr2);
    assert_null(derived_hta(d, other, NULL, &err));
    assert_int_equal(err.kind, T2P_ERR_ARG);
    unit_close(other, tr2, NULL);
    derived_free(d);
    unit_close(m, tr, NULL);
}

/* Memory under a selection; the callers of a pair. */
static void test_memory_in_and_pair(void **state)
{
    (void)state;
    trace *tr = NULL;
    model *m = unit_open(MEM_TRACE, &tr);
    assert_non_null(m);
    derived *d = derived_new(m);
    t2p_error err;
    uint8_t *conv = mask_of(m, "aten::conv2d");
    const memory_scoped *ms = derived_memory_in(d, m, conv, &err);
    assert_non_null(ms);
    assert_ptr_equal(derived_memory_in(d, m, conv, &err), ms);
    memory_scoped *own = memory_scope_build(derived_memory(d, m, &err), conv, &err);
    assert_int_equal(ms->view.nops, own->view.nops);
    uint64_t a = 0, b = 0;
    for (size_t o = 0; o < own->view.nops; o++) {
        a += ms->view.ops[o].st.alloc_count;
        b += own->view.ops[o].st.alloc_count;
    }
    assert_int_equal(a, b);
    assert_true(a > 0);
    memory_scope_free(own);
    /* no mask: every allocation, the whole memory's rows (not conv's) */
    const memory *mem = derived_memory(d, m, &err);
    const memory_scoped *every = derived_memory_in(d, m, NULL, &err);
    assert_non_null(every);
    uint64_t e = 0, w = 0;
    for (size_t o = 0; o < mem->nops; o++) {
        e += every->view.ops[o].st.alloc_count;
        w += mem->ops[o].st.alloc_count;
    }
    assert_int_equal(e, w);
    assert_true(e > a);
    free(conv);

    /* the trace against itself: every paired node is in both */
    trace *tr2 = NULL;
    model *m2 = unit_open(MEM_TRACE, &tr2);
    derived *d2 = derived_new(m2);
    compare *c = compare_build(m, m2, NULL, &err);
    assert_non_null(c);
    size_t n;
    const compare_node *p = derived_callers_vs(d2, d, c, &n, &err);
    assert_non_null(p);
    size_t n2;
    assert_ptr_equal(derived_callers_vs(d2, d, c, &n2, &err), p);
    assert_int_equal(n, n2);
    const callers *cb = derived_callers(d, m, NULL, NULL, &err);
    assert_int_equal(n, cb->nnodes);
    compare_free(c);
    derived_free(d2);
    unit_close(m2, tr2, NULL);
    derived_free(d);
    unit_close(m, tr, NULL);
}

/* Python source lines by selection; the timeline once. */
static void test_pylines_and_timeline(void **state)
{
    (void)state;
    trace *tr = NULL;
    model *m = unit_open(PY_TRACE, &tr);
    assert_non_null(m);
    derived *d = derived_new(m);
    t2p_error err;
    const pylines *all = derived_pylines(d, m, NULL, &err);
    assert_non_null(all);
    assert_ptr_equal(derived_pylines(d, m, NULL, &err), all);
    size_t nall = pylines_count(all);
    assert_true(nall > 0);
    uint8_t *sel = calloc(m->nnodes, 1); /* no stack: no line */
    const pylines *none = derived_pylines(d, m, sel, &err);
    assert_non_null(none);
    int64_t t = 0;
    for (size_t i = 0; i < pylines_count(none); i++)
        t += pylines_get(none, i)->self_ns;
    assert_int_equal(t, 0);
    pylines *own = pylines_build(m, NULL, &err);
    const pylines *again = derived_pylines(d, m, NULL, &err);
    assert_int_equal(pylines_count(again), pylines_count(own));
    for (size_t i = 0; i < pylines_count(own); i++)
        assert_int_equal(pylines_get(again, i)->total_ns, pylines_get(own, i)->total_ns);
    pylines_free(own);
    free(sel);
    const timeline *tl = derived_timeline(d, &err);
    assert_non_null(tl);
    assert_ptr_equal(derived_timeline(d, &err), tl);
    assert_true(tl->nrows > 0);
    derived_free(d);
    unit_close(m, tr, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_in),
        cmocka_unit_test(test_callers_and_tree),
        cmocka_unit_test(test_scoped),
        cmocka_unit_test(test_memory_in_and_pair),
        cmocka_unit_test(test_pylines_and_timeline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
