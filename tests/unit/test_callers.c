/* core/callers against a top-down computation on the same model: every
   inverted node's figures are recomputed by scanning the per-track nodes for
   the stacks whose innermost frames match its path. */
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

#include "core/analyses/callers.h"
#include "core/model/model.h"
#include "core/model/select.h"
#include "core/load/trace.h"
#include "tests/unit/unit.h"

static uint32_t find_op(const model *m, const char *name, const char *cat)
{
    for (uint32_t i = 0; i < m->nops; i++)
        if (!strcmp(model_op_name(m, i), name) && !strcmp(model_op_cat(m, i), cat))
            return i;
    fail_msg("no op %s [%s]", name, cat);
    return MODEL_NONE;
}

/* The child of inverted node v for op, or MODEL_NONE. */
static uint32_t kid(const callers *c, uint32_t v, uint32_t op)
{
    for (uint32_t k = c->nodes[v].first_child; k != MODEL_NONE; k = c->nodes[k].next_sibling)
        if (c->nodes[k].op == op)
            return k;
    return MODEL_NONE;
}

/* tests/fixtures/recursion.json (us): tid 1 sum > sum > {sum, mul}, add under
   the outer sum; tid 2 sum > sum > sum(user_annotation). */
static void test_by_hand(void **state)
{
    (void)state;
    trace *tr;
    t2p_error err;
    model *m = unit_open(TOP_SRCDIR "/tests/fixtures/recursion.json", &tr);
    callers *c = callers_build(m, NULL, NULL, false, &err);
    assert_non_null(c);
    assert_int_equal(c->nroots, 1);
    assert_int_equal(c->nodes[0].total_ns, m->busy_ns);
    uint32_t sum = find_op(m, "aten::sum", "cpu_op");
    uint32_t x = kid(c, 0, sum);
    assert_true(x != MODEL_NONE);
    /* sum's self time: 40 + 30 + 10 on tid 1, 10 + 8 on tid 2 */
    assert_int_equal(c->nodes[x].total_ns, 98000);
    assert_int_equal(c->nodes[x].calls, 5);
    /* called by nothing (outermost): 40 + 10; called by sum: 30 + 10 + 8 */
    assert_int_equal(c->nodes[x].self_ns, 50000);
    uint32_t y = kid(c, x, sum);
    assert_int_equal(c->nodes[y].total_ns, 48000);
    assert_int_equal(c->nodes[y].self_ns, 38000);      /* [sum, sum]: 30 + 8 */
    assert_int_equal(c->nodes[kid(c, y, sum)].total_ns, 10000); /* [sum, sum, sum] */
    /* mul: called by sum, called by sum */
    uint32_t mul = kid(c, 0, find_op(m, "aten::mul", "cpu_op"));
    assert_int_equal(c->nodes[mul].total_ns, 10000);
    assert_int_equal(c->nodes[mul].self_ns, 0);
    assert_int_equal(c->nodes[kid(c, mul, sum)].total_ns, 10000);
    assert_int_equal(c->nodes[kid(c, kid(c, mul, sum), sum)].self_ns, 10000);
    /* the root's children by self time, largest first */
    assert_int_equal(c->nodes[0].first_child, x);
    callers_free(c);

    /* per track: tid 2's root holds its 20 us */
    c = callers_build(m, NULL, NULL, true, &err);
    assert_int_equal(c->nroots, m->ntracks);
    for (uint32_t k = 0; k < m->ntracks; k++) {
        assert_int_equal(c->nodes[k].track, k);
        assert_int_equal(c->nodes[k].total_ns, m->tracks[k].self_ns);
    }
    callers_free(c);
    callers_free(NULL);
    unit_close(m, tr, NULL);
}

/* Every inverted node against the stacks: its path, innermost first, is a
   suffix of each stack it counts. */
static void check_against_stacks(const model *m, const uint8_t *keep, const callers *c,
                                 const char *what)
{
    uint32_t *path = malloc(4096 * sizeof *path);
    for (size_t v = 0; v < c->nnodes; v++) {
        size_t d = 0;
        uint32_t u = (uint32_t)v;
        for (; c->nodes[u].parent != MODEL_NONE; u = c->nodes[u].parent)
            path[d++] = c->nodes[u].op; /* path[0] is v's op, path[d-1] the root's child */
        uint32_t root = u;
        int64_t total = 0, self = 0, dev = 0, dev_self = 0;
        uint64_t calls = 0, events = 0;
        for (size_t i = 0; i < m->nnodes; i++) {
            const model_node *nd = &m->nodes[i];
            if (nd->parent == MODEL_NONE || (keep && !keep[i]))
                continue;
            if (c->per_track && nd->track != c->nodes[root].track)
                continue;
            /* innermost d frames, innermost first, must read path[d-1], ..., path[0] */
            uint32_t n = (uint32_t)i;
            size_t k = d;
            while (k > 0 && m->nodes[n].parent != MODEL_NONE && m->nodes[n].op == path[k - 1]) {
                n = m->nodes[n].parent;
                k--;
            }
            if (k > 0)
                continue;
            total += nd->self_ns;
            calls += nd->calls;
            dev += nd->dev_leaf_ns;
            events += nd->dev_events;
            if (m->nodes[n].parent == MODEL_NONE) {
                self += nd->self_ns;
                dev_self += nd->dev_leaf_ns;
            }
        }
        const model_node *cv = &c->nodes[v];
        if (cv->total_ns != total || cv->calls != calls || cv->dev_total_ns != dev ||
            cv->dev_events != events || (d > 0 && (cv->self_ns != self || cv->dev_self_ns != dev_self)))
            fail_msg("%s: inverted node %zu (depth %zu): total %lld calls %llu dev %lld self %lld; "
                     "from the stacks %lld %llu %lld %lld", what, v, d, (long long)cv->total_ns,
                     (unsigned long long)cv->calls, (long long)cv->dev_total_ns,
                     (long long)cv->self_ns, (long long)total, (unsigned long long)calls,
                     (long long)dev, (long long)self);
        assert_int_equal(cv->depth, d);
        /* children: total = self + theirs; ordered by total, largest first */
        int64_t kids = 0, kdev = 0, prev = INT64_MAX;
        for (uint32_t k = cv->first_child; k != MODEL_NONE; k = c->nodes[k].next_sibling) {
            assert_int_equal(c->nodes[k].parent, v);
            assert_true(k > v);
            assert_true(c->nodes[k].total_ns <= prev);
            prev = c->nodes[k].total_ns;
            kids += c->nodes[k].total_ns;
            kdev += c->nodes[k].dev_total_ns;
        }
        assert_int_equal(cv->self_ns + kids, cv->total_ns);
        assert_int_equal(cv->dev_self_ns + kdev, cv->dev_total_ns);
    }
    free(path);
}

static void test_vs_stacks_small(void **state)
{
    (void)state;
    static const char *const paths[] = {
        TOP_SRCDIR "/tests/fixtures/recursion.json",
        TOP_SRCDIR "/tests/fixtures/gpu_edge.json",
        TOP_SRCDIR "/tests/fixtures/cnn_train.json.gz",
        SHARED_DIR "/traces/amd_mi250_train.json.gz",
    };
    for (size_t t = 0; t < sizeof paths / sizeof *paths; t++) {
        trace *tr;
        t2p_error err;
        model *m = unit_open(paths[t], &tr);
        if (!m)
            continue;
        for (int per = 0; per < 2; per++) {
            callers *c = callers_build(m, NULL, NULL, per, &err);
            assert_non_null(c);
            check_against_stacks(m, NULL, c, paths[t]);
            callers_free(c);
        }
        /* within a scope: the stacks through one op */
        select_spec s;
        select_init(&s);
        for (uint32_t o = 0; o < m->nops; o++) /* the op with the most calls */
            if (s.focus_op == MODEL_NONE || m->ops[o].calls > m->ops[s.focus_op].calls)
                s.focus_op = o;
        uint8_t *keep = select_nodes(m, &s, &err);
        assert_non_null(keep);
        callers *c = callers_build(m, keep, NULL, false, &err);
        check_against_stacks(m, keep, c, paths[t]);
        int64_t kept = 0;
        for (size_t i = 0; i < m->nnodes; i++)
            if (keep[i])
                kept += m->nodes[i].self_ns;
        assert_int_equal(c->nodes[0].total_ns, kept);
        callers_free(c);
        free(keep);
        unit_close(m, tr, NULL);
    }
}

/* Big traces: the first two levels against the ops and their direct
   callers, which the scan by node computes without paths. */
static void test_vs_ops_large(void **state)
{
    (void)state;
    static const char *const paths[] = {
        TOP_SRCDIR "/data/alexnet_train.json.gz",
        SHARED_DIR "/traces/nccl_relative_time.json.gz",
        SHARED_DIR "/traces/sampled_rank0_noflows.json.gz",
    };
    for (size_t t = 0; t < sizeof paths / sizeof *paths; t++) {
        trace *tr;
        t2p_error err;
        model *m = unit_open(paths[t], &tr);
        if (!m)
            continue;
        callers *c = callers_build(m, NULL, NULL, false, &err);
        assert_non_null(c);
        assert_int_equal(c->nodes[0].total_ns, m->busy_ns);
        size_t nroot = 0;
        for (uint32_t x = c->nodes[0].first_child; x != MODEL_NONE; x = c->nodes[x].next_sibling) {
            const model_op *o = &m->ops[c->nodes[x].op];
            nroot++;
            assert_int_equal(c->nodes[x].total_ns, o->self_ns);
            assert_int_equal(c->nodes[x].calls, o->calls);
            if (o->gpu)
                assert_int_equal(c->nodes[x].dev_total_ns, o->dev_total_ns);
            /* each direct caller: the self time of op x's nodes under it */
            for (uint32_t y = c->nodes[x].first_child; y != MODEL_NONE;
                 y = c->nodes[y].next_sibling) {
                int64_t want = 0;
                for (size_t i = 0; i < m->nnodes; i++) {
                    const model_node *nd = &m->nodes[i];
                    if (nd->parent != MODEL_NONE && nd->op == c->nodes[x].op &&
                        m->nodes[nd->parent].op == c->nodes[y].op)
                        want += nd->self_ns;
                }
                assert_int_equal(c->nodes[y].total_ns, want);
            }
        }
        /* every op that ends a stack with something in it is a root's child */
        size_t want_roots = 0;
        for (size_t o = 0; o < m->nops; o++)
            want_roots += m->ops[o].calls > 0 || m->ops[o].self_ns > 0 || m->ops[o].dev_total_ns > 0;
        assert_int_equal(nroot, want_roots);
        callers_free(c);
        unit_close(m, tr, NULL);
    }
}

/* hide (p in the explorer): tests/fixtures/pyfunc_frames.json with its
   Python frames (python_function) left out of every stack, by hand (us):
   the stacks that end at an operator keep their operator callers only;
   those that end at a frame (module 170, forward 150 + 20, features 90,
   helper 110 + 30, the built-in sum 10: 580 in all) count on the root
   alone, which still holds all 1100. */
static void test_hide_python(void **state)
{
    (void)state;
    trace *tr;
    t2p_error err;
    model *m = unit_open(TOP_SRCDIR "/tests/fixtures/pyfunc_frames.json", &tr);
    assert_non_null(m);
    uint8_t *hide = calloc(m->nops, 1);
    assert_non_null(hide);
    for (uint32_t i = 0; i < m->nops; i++)
        hide[i] = !strcmp(model_op_cat(m, i), "python_function");
    callers *c = callers_build(m, NULL, hide, false, &err);
    assert_non_null(c);
    assert_int_equal(c->nodes[0].total_ns, 1100 * 1000);
    static const struct { const char *name; int64_t top_us; } want[] = {
        { "aten::convolution", 200 }, { "aten::conv2d", 90 }, { "aten::mm", 80 },
        { "aten::relu", 60 }, { "aten::add", 60 }, { "aten::sum", 30 } };
    int64_t sum = 0;
    size_t n = 0;
    for (uint32_t k = c->nodes[0].first_child; k != MODEL_NONE; k = c->nodes[k].next_sibling) {
        assert_false(hide[c->nodes[k].op]);
        sum += c->nodes[k].total_ns;
        n++;
    }
    assert_int_equal(n, 6);
    assert_int_equal(sum, 520 * 1000);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        uint32_t k = kid(c, 0, find_op(m, want[i].name, "cpu_op"));
        assert_int_not_equal(k, MODEL_NONE);
        assert_int_equal(c->nodes[k].total_ns, want[i].top_us * 1000);
    }
    /* conv2d's callers were frames only: its time starts at it */
    uint32_t conv = kid(c, 0, find_op(m, "aten::conv2d", "cpu_op"));
    assert_int_equal(c->nodes[conv].first_child, MODEL_NONE);
    assert_int_equal(c->nodes[conv].self_ns, 90 * 1000);
    /* convolution's one caller is conv2d, the frames above it gone */
    uint32_t cv = kid(c, 0, find_op(m, "aten::convolution", "cpu_op"));
    uint32_t up = c->nodes[cv].first_child;
    assert_int_equal(c->nodes[up].op, find_op(m, "aten::conv2d", "cpu_op"));
    assert_int_equal(c->nodes[up].next_sibling, MODEL_NONE);
    assert_int_equal(c->nodes[up].total_ns, 200 * 1000);
    assert_int_equal(c->nodes[up].first_child, MODEL_NONE);
    callers_free(c);
    /* without hide the frames are callers and tops as any operator */
    c = callers_build(m, NULL, NULL, false, &err);
    assert_non_null(c);
    uint32_t fwd = kid(c, 0, find_op(m, "model.py(10): forward", "python_function"));
    assert_int_not_equal(fwd, MODEL_NONE);
    assert_int_equal(c->nodes[fwd].total_ns, 170 * 1000);
    callers_free(c);
    free(hide);
    unit_close(m, tr, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_hide_python),
        cmocka_unit_test(test_vs_stacks_small),
        cmocka_unit_test(test_vs_ops_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
