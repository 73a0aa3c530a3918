/* Unit tests of the Kernels view and the view chooser (ui/views/view_kernels.c,
   ui/views/view_chooser.c), driven by keys without a terminal. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/load/trace.h"
#include "core/model/model.h"
#include "tests/unit/unit.h"
#include "tests/unit/unit_view.h"
#include "ui/view_impl.h"

/* aten::mm launches kA twice (10 + 30 us), aten::add launches kA once (60 us)
   and kB once (5 us); kC has no launch (20 us). */
static const char *TRACE =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":2,\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":50},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":61,\"dur\":2,\"args\":{\"correlation\":3}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":65,\"dur\":2,\"args\":{\"correlation\":4}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kA\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":10,\"args\":{\"correlation\":1,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kA\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":30,\"args\":{\"correlation\":2,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kA\",\"pid\":0,\"tid\":7,\"ts\":70,\"dur\":60,\"args\":{\"correlation\":3,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kB\",\"pid\":0,\"tid\":7,\"ts\":130,\"dur\":5,\"args\":{\"correlation\":4,\"device\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kC\",\"pid\":0,\"tid\":7,\"ts\":140,\"dur\":20,\"args\":{\"device\":0}}"
    "]}";

static const char *row_name(view *v, size_t i)
{
    static char out[256];
    char buf[256];
    size_t len;
    const char *n = view_row_name(v, i, buf, sizeof buf, &len);
    snprintf(out, sizeof out, "%.*s", (int)len, n);
    return out;
}

/* Kernels is past the ninth view: Tab reaches it */
static void go_kernels(view *v)
{
    for (int i = 0; i < VIEW_NTABS && view_current(v) != VIEW_KERNELS; i++)
        view_key(v, VK_TAB);
}

static void test_kernels_view(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(TRACE, NULL);
    view *v = f->v;
    go_kernels(v);
    assert_int_equal(view_current(v), VIEW_KERNELS);
    /* by total: kA 100 us, kC 20, kB 5 */
    assert_int_equal(view_nrows(v), 3);
    assert_string_equal(row_name(v, 0), "kA");
    assert_string_equal(row_name(v, 1), "kC");
    assert_string_equal(row_name(v, 2), "kB");
    /* the tab line names the sort: the view lists its keys (#27) */
    assert_true(view_sorts(v));
    assert_string_equal(view_sort_name(v), "total");
    /* > : by calls (kA 3, then kB and kC 1, by name) */
    view_key(v, '>');
    assert_string_equal(view_sort_name(v), "calls");
    assert_string_equal(row_name(v, 0), "kA");
    assert_string_equal(row_name(v, 1), "kB");
    /* r reverses it */
    view_key(v, 'r');
    assert_string_equal(row_name(v, 2), "kA");
    /* < back to total; every key of the cycle comes back round */
    view_key(v, 'r');
    view_key(v, '<');
    for (int i = 0; i < 9; i++)
        view_key(v, '>');
    assert_string_equal(row_name(v, 0), "kA");
    assert_string_equal(row_name(v, 1), "kC");
    /* Enter on kA: its launchers, aten::add (60 us) before aten::mm (40 us) */
    view_key(v, 'g');
    view_key(v, VK_ENTER);
    assert_int_equal(view_nrows(v), 2);
    assert_string_equal(row_name(v, 0), "aten::add");
    assert_string_equal(row_name(v, 1), "aten::mm");
    /* Esc: the kernels again, the cursor on kA */
    view_key(v, VK_ESC);
    assert_int_equal(view_nrows(v), 3);
    assert_string_equal(row_name(v, view_cursor(v)), "kA");
    /* Enter twice: aten::add is the focus of every view */
    view_key(v, VK_ENTER);
    view_key(v, VK_ENTER);
    assert_int_equal(scope_depth(view_scope(v)), 1);
    assert_int_not_equal(view_current(v), VIEW_KERNELS);
    unit_view_close(f);
}

static void test_kernels_no_launch(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(TRACE, NULL);
    view *v = f->v;
    go_kernels(v);
    view_key(v, VK_DOWN); /* kC */
    view_key(v, VK_ENTER);
    assert_int_equal(view_nrows(v), 1);
    /* no operator to focus: the status says why, the scope stays */
    view_key(v, VK_ENTER);
    assert_int_equal(scope_depth(view_scope(v)), 0);
    assert_non_null(strstr(view_status(v), "no operator"));
    unit_view_close(f);
}

/* V lists every view of the table, each with its key (no digit past nine);
   Enter on a row shows that view, Esc goes back where V was pressed. */
static void test_chooser(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(TRACE, NULL);
    view *v = f->v;
    view_key(v, '3');
    view_key(v, 'V');
    assert_int_equal(view_current(v), VIEW_CHOOSER);
    assert_int_equal(view_nrows(v), VIEW_NTABS);
    assert_int_equal(view_cursor(v), VIEW_TREE);
    for (size_t i = 0; i < VIEW_NTABS; i++)
        assert_string_equal(row_name(v, i), view_table_ops((enum view_tab)i)->label);
    view_key(v, VK_ESC);
    assert_int_equal(view_current(v), VIEW_TREE);
    for (int i = 0; i < VIEW_NTABS; i++) {
        view_key(v, 'V');
        view_key(v, 'g');
        for (int k = 0; k < i; k++)
            view_key(v, VK_DOWN);
        view_key(v, VK_ENTER);
        assert_int_equal(view_current(v), i);
    }
    /* the digits stop at nine; no key past it goes to a view */
    int arg;
    assert_int_equal(keys_action('0', VIEW_OPS, 12, &arg), ACT_NONE);
    assert_int_equal(keys_action('9', VIEW_OPS, 12, &arg), ACT_VIEW);
    assert_int_equal(arg, 8);
    unit_view_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_view),
        cmocka_unit_test(test_kernels_no_launch),
        cmocka_unit_test(test_chooser),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
