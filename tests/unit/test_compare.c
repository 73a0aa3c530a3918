/* Unit tests of core/analyses/compare.c and core/analyses/pair.c on two hand-made traces whose
   differences are worked out by hand (times in us in the traces, ns below). */
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

#include "core/analyses/compare.h"
#include "core/analyses/pair.h"
#include "tests/unit/unit.h"

#define X(name, tid, ts, dur) \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid \
    ",\"ts\":" #ts ",\"dur\":" #dur "}"

/* base, track 1: A [0,100] holding B [10,30] and C [40,60]; D [200,210]
   new,  track 1: A [0,120] holding B [10,50]; E [200,230]
         track 2: A [0,10] */
static const char base_json[] = "{\"traceEvents\":[" X("A", 1, 0, 100) "," X("B", 1, 10, 20) ","
                                X("C", 1, 40, 20) "," X("D", 1, 200, 10) "]}";
static const char new_json[] = "{\"traceEvents\":[" X("A", 1, 0, 120) "," X("B", 1, 10, 40) ","
                               X("E", 1, 200, 30) "," X("A", 2, 0, 10) "]}";

struct fix {
    char *paths[2];
    pair_side side[2];
    compare *c;
};

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof *f);
    t2p_error err;
    f->paths[0] = unit_write_tmp(base_json);
    f->paths[1] = unit_write_tmp(new_json);
    const char *paths[2] = { f->paths[0], f->paths[1] };
    pair_load_opts po = { 0 };
    if (pair_load(paths, &po, f->side, &err) < 0)
        return -1;
    f->c = compare_build(f->side[0].m, f->side[1].m, NULL, &err);
    *state = f;
    return f->c ? 0 : -1;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    compare_free(f->c);
    for (int s = 0; s < 2; s++) {
        model_free(f->side[s].m);
        trace_free(f->side[s].tr);
        unlink(f->paths[s]);
        free(f->paths[s]);
    }
    free(f);
    return 0;
}

static const compare_row *row(const compare *c, const char *name)
{
    for (size_t i = 0; i < c->nops; i++)
        if (!strcmp(compare_str(c, c->ops[i].name), name))
            return &c->ops[i];
    return NULL;
}

static void test_compare_ops(void **state)
{
    const compare *c = ((struct fix *)*state)->c;
    assert_int_equal(c->nops, 5);
    const compare_row *a = row(c, "A"), *b = row(c, "B"), *cc = row(c, "C"), *d = row(c, "D"),
                      *e = row(c, "E");
    assert_true(a && b && cc && d && e);
    assert_int_equal(a->status, COMPARE_BOTH);
    assert_true(a->b.calls == 1 && a->n.calls == 2);
    assert_int_equal(a->b.self_ns, 60000);  /* 100 - 20 - 20 */
    assert_int_equal(a->n.self_ns, 90000);  /* 120 - 40, + 10 on track 2 */
    assert_int_equal(a->n.total_ns, 130000);
    compare_fig da = compare_delta(&a->b, &a->n);
    assert_int_equal(da.self_ns, 30000);
    assert_int_equal(da.total_ns, 30000);
    assert_true(da.calls == 1);
    assert_int_equal(b->status, COMPARE_BOTH);
    assert_int_equal(compare_delta(&b->b, &b->n).self_ns, 20000);
    assert_int_equal(cc->status, COMPARE_REMOVED);
    assert_int_equal(cc->new, MODEL_NONE);
    assert_int_equal(cc->b.self_ns, 20000);
    assert_int_equal(cc->n.self_ns, 0);
    assert_int_equal(d->status, COMPARE_REMOVED);
    assert_int_equal(e->status, COMPARE_ADDED);
    assert_int_equal(e->base, MODEL_NONE);
    assert_int_equal(e->n.self_ns, 30000);
    assert_true(compare_delta_pct(&a->b, &a->n) == 50.0);

    /* |Δ self|: A 30, E 30, B 20, C 20, D 10; ties by name */
    uint32_t idx[5];
    compare_sort_rows(c, c->ops, c->nops, COMPARE_SORT_DELTA_SELF, false, idx);
    const char *want[5] = { "A", "E", "B", "C", "D" };
    for (int i = 0; i < 5; i++)
        assert_string_equal(compare_str(c, c->ops[idx[i]].name), want[i]);
    assert_int_equal(compare_sort_parse("delta"), COMPARE_SORT_DELTA_SELF);
    assert_int_equal(compare_sort_parse("nope"), -1);

    /* tracks: (1,1) in both, (1,2) only in new; busy = self time */
    assert_int_equal(c->nthreads, 2);
    int both = c->threads[0].status == COMPARE_BOTH ? 0 : 1;
    assert_int_equal(c->threads[both].status, COMPARE_BOTH);
    assert_true(c->threads[both].b.calls == 4 && c->threads[both].n.calls == 3);
    assert_int_equal(c->threads[both].b.self_ns, 110000);
    assert_int_equal(c->threads[both].n.self_ns, 150000);
    assert_int_equal(c->threads[1 - both].status, COMPARE_ADDED);
    assert_true(c->threads[1 - both].n.calls == 1);
    assert_int_equal(c->threads[1 - both].n.self_ns, 10000);

    assert_int_equal(c->ncats, 1);
    assert_int_equal(c->cats[0].status, COMPARE_BOTH);
    assert_int_equal(c->cats[0].b.self_ns, 110000);
    assert_int_equal(c->cats[0].n.self_ns, 160000);
}

static const compare_node *child(const compare *c, uint32_t parent, const char *name)
{
    for (uint32_t k = c->nodes[parent].first_child; k != MODEL_NONE; k = c->nodes[k].next_sibling)
        if (!strcmp(compare_str(c, c->ops[c->nodes[k].row].name), name))
            return &c->nodes[k];
    return NULL;
}

static void test_compare_tree(void **state)
{
    const compare *c = ((struct fix *)*state)->c;
    /* root, A, A/B, A/C, D, E */
    assert_int_equal(c->nnodes, 6);
    const compare_node *a = child(c, 0, "A");
    assert_non_null(a);
    assert_int_equal(a->status, COMPARE_BOTH);
    assert_int_equal(a->depth, 1);
    assert_true(a->b.calls == 1 && a->n.calls == 2); /* tracks merged */
    assert_int_equal(a->n.total_ns, 130000);
    uint32_t ai = (uint32_t)(a - c->nodes);
    const compare_node *ab = child(c, ai, "B"), *ac = child(c, ai, "C");
    assert_true(ab && ac);
    assert_int_equal(ab->status, COMPARE_BOTH);
    assert_int_equal(ab->depth, 2);
    assert_int_equal(ac->status, COMPARE_REMOVED);
    assert_int_equal(ac->n.self_ns, 0);
    assert_int_equal(child(c, 0, "D")->status, COMPARE_REMOVED);
    assert_int_equal(child(c, 0, "E")->status, COMPARE_ADDED);
    assert_null(child(c, 0, "B"));
    /* every model node maps to a compare node with its figures */
    const model *bm = c->base;
    for (size_t i = 0; i < bm->nmnodes; i++) {
        const compare_node *n = &c->nodes[c->base_node[i]];
        assert_int_equal(n->base, i);
        assert_int_equal(n->b.self_ns, bm->mnodes[i].self_ns);
        assert_int_equal(n->b.total_ns, bm->mnodes[i].total_ns);
    }
}

static void test_compare_per_step(void **state)
{
    const struct fix *f = *state;
    t2p_error err;
    compare_opts o = { .base_div = 4, .new_div = 3 };
    compare *c = compare_build(f->side[0].m, f->side[1].m, &o, &err);
    assert_non_null(c);
    const compare_row *a = row(c, "A");
    assert_true(a->b.calls == 0.25);
    assert_int_equal(a->b.self_ns, 15000);
    assert_int_equal(a->n.self_ns, 30000);
    assert_int_equal(a->n.total_ns, 43333); /* 130000 / 3 rounded */
    compare_free(c);
}

/* pair_load_opts.steps: each side's steps come built by its loading thread,
   of its own model, with the figures a separate steps_build gives */
static void test_pair_steps(void **state)
{
    (void)state;
#define PS(n, ts) \
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" #n \
    "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":100}"
    static const char two[] = "{\"traceEvents\":[" PS(1, 0) "," PS(2, 100) "," X("A", 1, 10, 30) "]}";
    static const char three[] = "{\"traceEvents\":[" PS(1, 0) "," PS(2, 100) "," PS(3, 200) ","
                                X("A", 1, 10, 50) "]}";
#undef PS
    char *p0 = unit_write_tmp(two), *p1 = unit_write_tmp(three);
    const char *paths[2] = { p0, p1 };
    pair_side side[2];
    pair_load_opts po = { .steps = true };
    t2p_error err;
    assert_int_equal(pair_load(paths, &po, side, &err), 0);
    for (int s = 0; s < 2; s++) {
        assert_non_null(side[s].st);
        assert_ptr_equal(side[s].st->m, side[s].m);
        steps *again = steps_build(side[s].m, &err);
        assert_non_null(again);
        assert_int_equal(side[s].st->nsteps, again->nsteps);
        assert_int_equal(side[s].st->nkept, again->nkept);
        assert_int_equal(side[s].st->avg_duration_ns, again->avg_duration_ns);
        steps_free(again);
    }
    assert_int_equal(side[0].st->nsteps, 2);
    assert_int_equal(side[1].st->nsteps, 3);
    for (int s = 0; s < 2; s++) {
        steps_free(side[s].st);
        model_free(side[s].m);
        trace_free(side[s].tr);
    }
    /* without the option no steps are built */
    po.steps = false;
    assert_int_equal(pair_load(paths, &po, side, &err), 0);
    assert_null(side[0].st);
    assert_null(side[1].st);
    for (int s = 0; s < 2; s++) {
        model_free(side[s].m);
        trace_free(side[s].tr);
    }
    unlink(p0);
    unlink(p1);
    free(p0);
    free(p1);
}

static void test_pair_missing(void **state)
{
    (void)state;
    char *ok = unit_write_tmp(base_json);
    const char *paths[2] = { ok, "/nonexistent/t2p-missing.json" };
    pair_side side[2];
    pair_load_opts po = { 0 };
    t2p_error err;
    assert_int_equal(pair_load(paths, &po, side, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_IO);
    assert_non_null(strstr(err.file, "t2p-missing"));
    assert_null(side[0].tr);
    assert_null(side[1].m);
    unlink(ok);
    free(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_ops),
        cmocka_unit_test(test_compare_tree),
        cmocka_unit_test(test_compare_per_step),
    };
    const struct CMUnitTest solo[] = {
        cmocka_unit_test(test_pair_steps),
        cmocka_unit_test(test_pair_missing),
    };
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    return rc | cmocka_run_group_tests(solo, NULL, NULL);
}
