/* Unit tests of the compare mode's Steps and Memory views (ui/views/
   view_cmp_steps.c, view_cmp_memory.c) and of what they read
   (core/analyses/compare_derived.c, derived.c), driven without a terminal
   on two hand-made traces whose figures are worked out by hand below. */
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
#include "core/analyses/compare_derived.h"
#include "core/analyses/derived.h"
#include "tests/unit/unit.h"
#include "ui/screen.h"
#include "ui/view.h"
#include "ui/view_key.h"
#include "ui/view_table.h"
#include "ui/keys.h"

#define X(name, ts, dur) \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1" \
    ",\"ts\":" #ts ",\"dur\":" #dur "}"
#define MEM(ts, bytes, addr, total) \
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
    ",\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Bytes\":" #bytes ",\"Addr\":" #addr \
    ",\"Total Allocated\":" #total "}}"

/* base: steps of 100 us, A 40 us in the first and 20 us in the second;
         A allocates 100 B at 20 us and frees it at 30 us.
   new:  steps of 150 us, A 90 us and 40 us; A allocates 300 B at 20 us
         (never freed), B (in step 2) allocates 50 B.
   So the average step: base 100 us, new 150 us (Δ +50 us); CPU Exec (A,
   B): base (40 + 20) / 2 = 30 us, new (90 + 40 + 10) / 2 = 70 us; Other
   the rest: base 70 us, new 80 us.
   Memory, A on CPU: 100 B -> 300 B (Δ +200 B); B: only in new, 50 B;
   the CPU peak 100 B -> 350 B. */
static const char base_json[] =
    "{\"traceEvents\":[" X("ProfilerStep#1", 0, 100) "," X("A", 10, 40) "," MEM(20, 100, 1, 100)
    "," MEM(30, -100, 1, 0) "," X("ProfilerStep#2", 100, 100) "," X("A", 110, 20) "]}";
static const char new_json[] =
    "{\"traceEvents\":[" X("ProfilerStep#1", 0, 150) "," X("A", 10, 90) "," MEM(20, 300, 1, 300)
    "," X("ProfilerStep#2", 150, 150) "," X("A", 160, 40) "," X("B", 250, 10) ","
    MEM(255, 50, 2, 350) "]}";

struct fix {
    char *path[2];
    trace *tr[2];
    model *m[2];
    compare *c;
    view *v;
};

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof *f);
    t2p_error err;
    const char *json[2] = { base_json, new_json };
    for (int s = 0; s < 2; s++) {
        f->path[s] = unit_write_tmp(json[s]);
        if (!(f->tr[s] = trace_load(f->path[s], NULL, &err)) ||
            !(f->m[s] = model_build(f->tr[s], NULL, &err)))
            return -1;
    }
    if (!(f->c = compare_build(f->m[0], f->m[1], NULL, &err)))
        return -1;
    view_opts vo = { .tab = VIEW_OPS, .sort = MODEL_SORT_SELF, .cmp = f->c };
    if (!(f->v = view_table_new(f->m[1], &vo)))
        return -1;
    view_resize(f->v, 120, 30);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    view_free(f->v);
    compare_free(f->c);
    for (int s = 0; s < 2; s++) {
        model_free(f->m[s]);
        trace_free(f->tr[s]);
        unlink(f->path[s]);
        free(f->path[s]);
    }
    free(f);
    return 0;
}

/* The screen line of the body row whose text starts with name (after the
   cursor mark and the status mark), or NULL. */
static const char *body_row(view *v, const char *name, char *buf, size_t size)
{
    for (int y = 0; y < view_height(v); y++) {
        enum view_style st;
        view_screen_line(v, y, buf, size, &st);
        const char *p = buf;
        while (*p == ' ' || *p == '+' || *p == '-' || (unsigned char)*p >= 0x80)
            p++;
        if (!strncmp(p, name, strlen(name)) && p[strlen(name)] == ' ')
            return buf;
    }
    return NULL;
}

static void test_compare_steps_figures(void **state)
{
    struct fix *f = *state;
    t2p_error err;
    derived *b = derived_new(f->m[0]), *n = derived_new(f->m[1]);
    assert_non_null(b);
    assert_non_null(n);
    compare_steps cs;
    compare_steps_fill(derived_steps(b, &err), derived_steps(n, &err), &cs);
    assert_int_equal(cs.b_steps, 2);
    assert_int_equal(cs.n_steps, 2);
    assert_int_equal(cs.b[COMPARE_STEPS_DUR], 100000);
    assert_int_equal(cs.n[COMPARE_STEPS_DUR], 150000);
    assert_int_equal(cs.b[STEPS_CPU_OP], 30000);
    assert_int_equal(cs.n[STEPS_CPU_OP], 70000);
    assert_int_equal(cs.b[STEPS_OTHER], 70000);
    assert_int_equal(cs.n[STEPS_OTHER], 80000);
    /* the same pointer every time: built once */
    assert_ptr_equal(derived_steps(b, &err), derived_steps(b, &err));
    derived_free(b);
    derived_free(n);
}

static void test_compare_memory_figures(void **state)
{
    struct fix *f = *state;
    t2p_error err;
    derived *b = derived_new(f->m[0]), *n = derived_new(f->m[1]);
    const compare_mem *cm = derived_memory_vs(n, b, &err);
    assert_non_null(cm);
    assert_ptr_equal(cm, derived_memory_vs(n, b, &err));
    assert_int_equal(cm->ndevs, 1);
    assert_string_equal(cm->devs[0].name, "CPU");
    assert_int_equal(cm->devs[0].b_peak, 100);
    assert_int_equal(cm->devs[0].n_peak, 350);
    assert_int_equal(cm->devs[0].b_allocs, 1);
    assert_int_equal(cm->devs[0].n_allocs, 2);
    const compare_mem_row *a = NULL, *bb = NULL;
    for (size_t i = 0; i < cm->nrows; i++) {
        if (!strcmp(cm->rows[i].name, "A"))
            a = &cm->rows[i];
        if (!strcmp(cm->rows[i].name, "B"))
            bb = &cm->rows[i];
    }
    assert_non_null(a);
    assert_non_null(bb);
    assert_int_equal(a->status, COMPARE_BOTH);
    assert_int_equal(a->b.alloc_bytes, 100);
    assert_int_equal(a->n.alloc_bytes, 300);
    assert_int_equal(a->b.increase_bytes, 0);
    assert_int_equal(a->n.increase_bytes, 300);
    assert_int_equal(bb->status, COMPARE_ADDED);
    assert_int_equal(bb->b.alloc_bytes, 0);
    assert_int_equal(bb->n.alloc_bytes, 50);
    /* largest |Δ size| first: ProfilerStep* (+250 B) before A (+200 B) before B */
    assert_string_equal(cm->rows[0].name, "ProfilerStep*");
    assert_true(a < bb);
    derived_free(b);
    derived_free(n);
}

/* The views: the Steps tab shows both averages and the delta, the Memory
   tab both traces' allocations per operator; their hints offer no key
   they refuse. */
static void test_cmp_views(void **state)
{
    struct fix *f = *state;
    view *v = f->v;
    char buf[1024];
    view_key(v, '5');
    assert_int_equal(view_current(v), VIEW_STEPS);
    const char *r = body_row(v, "Step duration", buf, sizeof buf);
    assert_non_null(r);
    assert_non_null(strstr(r, "0.100"));
    assert_non_null(strstr(r, "0.150"));
    assert_non_null(strstr(r, "+0.050"));
    assert_non_null(strstr(r, "+50.0"));
    r = body_row(v, "CPU Exec", buf, sizeof buf);
    assert_non_null(r);
    assert_non_null(strstr(r, "0.030"));
    assert_non_null(strstr(r, "0.070"));
    assert_non_null(strstr(r, "+0.040"));
    view_key(v, VK_ENTER);
    assert_non_null(strstr(view_status(v), "both traces"));

    view_key(v, '8');
    assert_int_equal(view_current(v), VIEW_MEMORY);
    r = body_row(v, "A", buf, sizeof buf);
    assert_non_null(r);
    assert_non_null(strstr(r, "100 B"));
    assert_non_null(strstr(r, "300 B"));
    assert_non_null(strstr(r, "+200 B"));
    r = body_row(v, "B", buf, sizeof buf);
    assert_non_null(r);
    assert_non_null(strstr(r, "+50 B"));
    r = body_row(v, "CPU:", buf, sizeof buf);
    assert_non_null(r);
    assert_non_null(strstr(r, "peak 100 B -> 350 B (+250 B)"));
    /* the filter narrows the operator rows */
    size_t all = view_nrows(v);
    view_key(v, '\\');
    view_key(v, 'B');
    view_key(v, VK_ENTER);
    assert_true(view_nrows(v) < all);
    assert_null(body_row(v, "A", buf, sizeof buf));
    assert_non_null(body_row(v, "B", buf, sizeof buf));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_steps_figures),
        cmocka_unit_test(test_compare_memory_figures),
        cmocka_unit_test(test_cmp_views),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
