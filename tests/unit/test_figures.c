/* Figures that must agree with each other: an op's cum against its stacks,
   the window against the events it must cover, and the device figures of
   ops against those of the tree nodes (under the launch and on the stream).
   Each check recomputes the figure a second way from the per-track nodes. */
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

#include "core/model/model.h"
#include "core/model/scope.h"
#include "core/model/select.h"
#include "core/load/trace.h"
#include "tests/unit/unit.h"

static const char *const traces[] = {
    TOP_SRCDIR "/tests/fixtures/recursion.json",
    TOP_SRCDIR "/tests/fixtures/gpu_edge.json",
    TOP_SRCDIR "/data/alexnet_train.json.gz",
    SHARED_DIR "/traces/mtia_inference_rank0.json.gz",
    SHARED_DIR "/traces/nccl_relative_time.json.gz",
    SHARED_DIR "/traces/sampled_rank0_noflows.json.gz",
    SHARED_DIR "/traces/x_events_only.json.gz",
};

static const model_op *find(const model *m, const char *name, const char *cat)
{
    for (size_t i = 0; i < m->nops; i++)
        if (!strcmp(model_op_name(m, (uint32_t)i), name) &&
            !strcmp(model_op_cat(m, (uint32_t)i), cat))
            return &m->ops[i];
    return NULL;
}

/* tests/fixtures/recursion.json, worked out by hand (us):
   tid 1: sum[0,100] > sum[10,60] > {sum[20,30], mul[40,50]}; add[70,80] under the
          outer sum. Self: 40, 30, 10, 10, 10.
   tid 2: sum[0,20] > sum[5,15] > sum(user_annotation)[6,8]. Self: 10, 8, 2.
   tid 3: overlap_parent[0,100] > child_x[10,50], child_y[40,80] (overlapping).
          Self 30, 40, 40. */
static void test_cum_by_hand(void **state)
{
    (void)state;
    trace *tr;
    model *m = unit_open(traces[0], &tr);
    assert_non_null(m);
    const model_op *sum = find(m, "aten::sum", "cpu_op");
    assert_int_equal(sum->calls, 5);
    assert_int_equal(sum->total_ns, (100 + 50 + 10 + 20 + 10) * 1000);
    /* every self time on tids 1 and 2: all those stacks hold a cpu_op aten::sum */
    assert_int_equal(sum->cum_ns, (40 + 30 + 10 + 10 + 10 + 10 + 8 + 2) * 1000);
    assert_int_equal(find(m, "aten::sum", "user_annotation")->cum_ns, 2000);
    assert_int_equal(find(m, "aten::mul", "cpu_op")->cum_ns, 10000);
    assert_int_equal(find(m, "overlap_parent", "cpu_op")->total_ns, 100000);
    assert_int_equal(find(m, "overlap_parent", "cpu_op")->cum_ns, 110000);
    assert_int_equal(find(m, "child_y", "cpu_op")->cum_ns, 40000);
    unit_close(m, tr, NULL);
}

/* cum against the definition: per node, every distinct op on its path gets
   the node's self time once. */
static void test_cum_vs_stacks(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof traces / sizeof *traces; t++) {
        trace *tr;
        model *m = unit_open(traces[t], &tr);
        if (!m)
            continue;
        int64_t *cum = calloc(m->nops, sizeof *cum);
        size_t *stamp = malloc(m->nops * sizeof *stamp);
        for (size_t o = 0; o < m->nops; o++)
            stamp[o] = SIZE_MAX;
        for (size_t i = 0; i < m->nnodes; i++)
            for (uint32_t n = (uint32_t)i; m->nodes[n].parent != MODEL_NONE;
                 n = m->nodes[n].parent)
                if (stamp[m->nodes[n].op] != i) {
                    stamp[m->nodes[n].op] = i;
                    cum[m->nodes[n].op] += m->nodes[i].self_ns;
                }
        size_t differ = 0;
        for (size_t o = 0; o < m->nops; o++) {
            if (cum[o] != m->ops[o].cum_ns)
                fail_msg("%s: %s: cum %lld, from the stacks %lld", traces[t],
                         model_op_name(m, (uint32_t)o), (long long)m->ops[o].cum_ns,
                         (long long)cum[o]);
            differ += m->ops[o].cum_ns != m->ops[o].total_ns;
        }
        if (t == 0)
            assert_int_equal(differ, 2);
        free(cum);
        free(stamp);
        unit_close(m, tr, NULL);
    }
}

/* select_cum: the whole trace gives the model's cum; a selection, the cum
   of the kept stacks only. */
static void test_select_cum(void **state)
{
    (void)state;
    t2p_error err;
    for (size_t t = 0; t < sizeof traces / sizeof *traces; t++) {
        trace *tr;
        model *m = unit_open(traces[t], &tr);
        if (!m)
            continue;
        int64_t *cum = malloc((m->nops + 1) * sizeof *cum);
        assert_int_equal(select_cum(m, NULL, cum, &err), 0);
        for (size_t o = 0; o < m->nops; o++)
            assert_int_equal(cum[o], m->ops[o].cum_ns);
        if (t == 0) {
            /* recursion.json, stacks through aten::mul: [sum, sum, mul], 10 us */
            select_spec s;
            select_init(&s);
            s.focus_re = "^aten::mul$";
            uint8_t *keep = select_nodes(m, &s, &err);
            assert_int_equal(select_cum(m, keep, cum, &err), 0);
            for (size_t o = 0; o < m->nops; o++) {
                const char *n = model_op_name(m, (uint32_t)o), *c = model_op_cat(m, (uint32_t)o);
                bool on = !strcmp(c, "cpu_op") && (!strcmp(n, "aten::sum") || !strcmp(n, "aten::mul"));
                assert_int_equal(cum[o], on ? 10000 : 0);
            }
            free(keep);
        }
        free(cum);
        unit_close(m, tr, NULL);
    }
}

/* A step that starts before the Trace span and one that ends after it: the
   window covers them (and still the whole span). */
static void test_window_covers_events(void **state)
{
    (void)state;
    char *path;
    trace *tr;
    model *m = unit_load(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\",\"ts\":100,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":2,\"ts\":1000,\"dur\":500},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10}"
        "]}", &tr, &path);
    assert_int_equal(m->window_ns, (1500 - 40) * 1000);
    for (size_t k = 0; k < m->ntracks; k++)
        if (m->tracks[k].events) {
            assert_true(m->tracks[k].first_ns >= m->window_start);
            assert_true(m->tracks[k].last_ns <= m->window_end);
        }
    unit_close(m, tr, path);

    /* the span alone when it covers everything */
    m = unit_load(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\",\"ts\":0,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10}"
        "]}", &tr, &path);
    assert_int_equal(m->window_ns, 1000000);
    unit_close(m, tr, path);
}

/* triton_example: ProfilerStep#1 runs 13 s past the profiler's 355 ms span. */
static void test_window_triton(void **state)
{
    (void)state;
    trace *tr;
    model *m = unit_open(SHARED_DIR "/traces/triton_example.json.gz", &tr);
    if (!m)
        skip();
    const model_op *step = find(m, "ProfilerStep*", "user_annotation");
    assert_non_null(step);
    assert_true(m->window_ns > step->total_ns);
    for (size_t k = 0; k < m->ntracks; k++)
        if (m->tracks[k].events) {
            assert_true(m->tracks[k].first_ns >= m->window_start);
            assert_true(m->tracks[k].last_ns <= m->window_end);
        }
    unit_close(m, tr, NULL);
}

/* Device figures: each op's against its nodes', in the per-track and the
   merged trees. For a GPU op (a kernel): its nodes under launches and on its
   streams show dev_self 0 and its GPU time as dev_total, as its op does; the
   leaf figures (dev_events, dev_leaf_ns) count each of its events once. For
   any other op: dev_self sums over its nodes; dev_total is the sum over its
   outermost nodes (no ancestor of the same op), each GPU event once. */
static void check_device(const char *what, const model *m, const model_node *nodes, size_t n)
{
    size_t nops = m->nops;
    int64_t *leaf = calloc(nops, sizeof *leaf), *dself = calloc(nops, sizeof *dself);
    int64_t *dtot = calloc(nops, sizeof *dtot), *launch_tot = calloc(nops, sizeof *launch_tot);
    int64_t *stream_tot = calloc(nops, sizeof *stream_tot);
    uint64_t *events = calloc(nops, sizeof *events), *stream_calls = calloc(nops, sizeof *stream_calls);
    int64_t leaf_all = 0;
    for (size_t i = 0; i < n; i++) {
        const model_node *nd = &nodes[i];
        if (nd->parent == MODEL_NONE)
            continue;
        uint32_t op = nd->op;
        leaf[op] += nd->dev_leaf_ns;
        leaf_all += nd->dev_leaf_ns;
        events[op] += nd->dev_events;
        dself[op] += nd->dev_self_ns;
        if (nd->gpu)
            launch_tot[op] += nd->dev_total_ns;
        else if (m->ops[op].gpu) {
            stream_tot[op] += nd->dev_total_ns;
            stream_calls[op] += nd->calls;
        }
        bool outer = true;
        for (uint32_t a = nd->parent; a != MODEL_NONE && nodes[a].parent != MODEL_NONE;
             a = nodes[a].parent)
            if (nodes[a].op == op)
                outer = false;
        if (outer)
            dtot[op] += nd->dev_total_ns;
    }
    assert_int_equal(leaf_all, m->gpu_ns);
    for (size_t o = 0; o < nops; o++) {
        const model_op *op = &m->ops[o];
        const char *name = model_op_name(m, (uint32_t)o);
        if (dself[o] != op->dev_self_ns)
            fail_msg("%s: %s: dev_self %lld, its nodes %lld", what, name,
                     (long long)op->dev_self_ns, (long long)dself[o]);
        if (!op->gpu) {
            if (dtot[o] != op->dev_total_ns)
                fail_msg("%s: %s: dev_total %lld, its outermost nodes %lld", what, name,
                         (long long)op->dev_total_ns, (long long)dtot[o]);
            assert_int_equal(leaf[o], 0);
            continue;
        }
        /* a kernel: the same figures in Ops, under its launches, on its streams */
        assert_int_equal(op->dev_self_ns, 0);
        if (leaf[o] != op->dev_total_ns || events[o] != op->calls)
            fail_msg("%s: %s: dev_total %lld in %llu events, its leaves %lld in %llu", what,
                     name, (long long)op->dev_total_ns, (unsigned long long)op->calls,
                     (long long)leaf[o], (unsigned long long)events[o]);
        if (stream_tot[o] != op->dev_total_ns || stream_calls[o] != op->calls)
            fail_msg("%s: %s: dev_total %lld, on its streams %lld", what, name,
                     (long long)op->dev_total_ns, (long long)stream_tot[o]);
        /* under launches: all of it but what had no launch, which stays on the stream */
        assert_true(launch_tot[o] <= op->dev_total_ns);
        assert_int_equal(op->total_ns, op->dev_total_ns);
    }
    free(leaf);
    free(dself);
    free(dtot);
    free(launch_tot);
    free(stream_tot);
    free(events);
    free(stream_calls);
}

static void test_device_ops_vs_tree(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof traces / sizeof *traces; t++) {
        trace *tr;
        model *m = unit_open(traces[t], &tr);
        if (!m)
            continue;
        char what[600];
        snprintf(what, sizeof what, "%s (per track)", traces[t]);
        check_device(what, m, m->nodes, m->nnodes);
        snprintf(what, sizeof what, "%s (merged)", traces[t]);
        check_device(what, m, m->mnodes, m->nmnodes);
        /* attributed GPU time sits under launches, the rest on its streams */
        int64_t under = 0;
        for (size_t i = 0; i < m->nnodes; i++)
            if (m->nodes[i].gpu)
                under += m->nodes[i].dev_leaf_ns;
        assert_int_equal(under, m->gpu_ns - m->gpu_unattributed_ns);
        unit_close(m, tr, NULL);
    }
}

static uint32_t op_id(const model *m, const char *name, const char *cat)
{
    const model_op *o = find(m, name, cat);
    assert_non_null(o);
    return (uint32_t)(o - m->ops);
}

/* scope_restrict (what analyze counts under convert's selection): the
   figures of a scope narrowed to a keep mask are those of the same
   selection said as an entry, and, for the stacks of one thread of
   tests/fixtures/recursion.json, the hand-worked ones above. */
static void test_scope_restrict(void **state)
{
    (void)state;
    trace *tr;
    t2p_error err;
    model *m = unit_open(traces[0], &tr);
    assert_non_null(m);
    uint32_t sum = op_id(m, "aten::sum", "cpu_op");
    scope *by_entry = scope_new(m), *by_keep = scope_new(m);
    assert_non_null(by_entry);
    assert_non_null(by_keep);
    assert_int_equal(scope_push(by_entry, SCOPE_OP, sum), 0);
    select_spec sp;
    select_init(&sp);
    sp.focus_op = sum;
    uint8_t *keep = select_nodes(m, &sp, &err);
    assert_non_null(keep);
    scope_restrict(by_keep, keep);
    const scope_fig *a = scope_ops(by_entry), *b = scope_ops(by_keep);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t o = 0; o < m->nops; o++) {
        assert_int_equal(a[o].calls, b[o].calls);
        assert_int_equal(a[o].self_ns, b[o].self_ns);
        assert_int_equal(a[o].total_ns, b[o].total_ns);
        assert_int_equal(a[o].cum_ns, b[o].cum_ns);
    }
    assert_int_equal(scope_busy(by_keep), scope_busy(by_entry));
    /* tid 3 alone: overlap_parent 30, child_x 40, child_y 40 us of self */
    uint32_t par = op_id(m, "overlap_parent", "cpu_op");
    uint32_t track = MODEL_NONE;
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].op == par)
            track = m->nodes[i].track;
    assert_int_not_equal(track, MODEL_NONE);
    for (size_t i = 0; i < m->nnodes; i++)
        keep[i] = m->nodes[i].parent != MODEL_NONE && m->nodes[i].track == track;
    scope_restrict(by_keep, keep);
    b = scope_ops(by_keep);
    assert_non_null(b);
    assert_int_equal(b[par].self_ns, 30000);
    assert_int_equal(b[op_id(m, "child_x", "cpu_op")].self_ns, 40000);
    assert_int_equal(b[op_id(m, "child_y", "cpu_op")].self_ns, 40000);
    assert_int_equal(b[sum].self_ns, 0);
    assert_int_equal(scope_busy(by_keep), 110000);
    /* the ops on the scope's stacks alone, by self: the children, then the parent */
    uint32_t order[64];
    assert_true(m->nops <= 64);
    size_t n = scope_sort_ops(by_keep, MODEL_SORT_SELF, false, order);
    assert_int_equal(n, 3);
    assert_string_equal(model_op_name(m, order[0]), "child_x");
    assert_string_equal(model_op_name(m, order[1]), "child_y");
    assert_int_equal(order[2], par);
    free(keep);
    scope_free(by_entry);
    scope_free(by_keep);
    unit_close(m, tr, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cum_by_hand),
        cmocka_unit_test(test_cum_vs_stacks),
        cmocka_unit_test(test_select_cum),
        cmocka_unit_test(test_window_covers_events),
        cmocka_unit_test(test_window_triton),
        cmocka_unit_test(test_device_ops_vs_tree),
        cmocka_unit_test(test_scope_restrict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
