/* The explorer's Python frames (issue 15): the file:line of a frame row is
   marked secondary text for the terminal to dim, p hides the frames
   without losing time, v opens the source pane with the figures of
   core/pylines. On the hand-made traces of tests/fixtures, whose frames
   point at tests/fixtures/pysrc/model.py. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/model.h"
#include "core/trace.h"
#include "ui/view_impl.h"

struct fixture {
    trace *tr;
    model *m;
    view *v;
};

static struct fixture *open_trace(const char *path, int tab)
{
    struct fixture *f = calloc(1, sizeof *f);
    t2p_error err;
    assert_non_null(f);
    f->tr = trace_load(path, NULL, &err);
    assert_non_null(f->tr);
    f->m = model_build(f->tr, NULL, &err);
    assert_non_null(f->m);
    view_opts o = { .tab = (enum view_tab)tab, .sort = MODEL_SORT_SELF };
    f->v = view_new(f->m, &o);
    assert_non_null(f->v);
    view_resize(f->v, 110, 24);
    return f;
}

static void close_fixture(struct fixture *f)
{
    view_free(f->v);
    model_free(f->m);
    trace_free(f->tr);
    free(f);
}

/* The row whose name is name, or SIZE_MAX. */
static size_t row_named(view *v, const char *name)
{
    char buf[600];
    size_t len;
    for (size_t i = 0; i < view_nrows(v); i++) {
        const char *s = view_row_name(v, i, buf, sizeof buf, &len);
        if (len == strlen(name) && !memcmp(s, name, len))
            return i;
    }
    return SIZE_MAX;
}

/* The secondary text of screen line y, as text. */
static const char *sec_text(view *v, int y)
{
    static char out[600];
    char buf[4096];
    enum view_style st;
    view_span sec;
    view_screen_line_sec(v, y, buf, sizeof buf, &st, &sec);
    out[0] = '\0';
    if (sec.w <= 0)
        return out;
    /* display columns to bytes: the lines here are ASCII but for the tree's
       marks, which take one column and three bytes */
    int x = 0;
    const char *p = buf;
    while (*p && x < sec.x0) {
        p += ((unsigned char)*p & 0xe0) == 0xe0 ? 3 : 1;
        x++;
    }
    snprintf(out, sizeof out, "%.*s", sec.w, p);
    return out;
}

static int screen_y_of(view *v, size_t row)
{
    return VIEW_CHROME_TOP + (int)(row - view_top(v));
}

static void test_frame_path_secondary(void **state)
{
    (void)state;
    struct fixture *f = open_trace(TOP_SRCDIR "/tests/fixtures/pyfunc_frames.json", VIEW_TREE);
    view_key(f->v, 'E');
    size_t r = row_named(f->v, "features  model.py:20");
    assert_true(r != SIZE_MAX);
    assert_string_equal(sec_text(f->v, screen_y_of(f->v, r)), "model.py:20");
    /* an operator row has none */
    r = row_named(f->v, "aten::relu");
    assert_true(r != SIZE_MAX);
    assert_string_equal(sec_text(f->v, screen_y_of(f->v, r)), "");
    /* a path cut by a narrow screen: what shows of it, the ellipsis too */
    view_resize(f->v, 60, 24);
    r = row_named(f->v, "helper  lib/util (v2).py:5");
    assert_true(r != SIZE_MAX);
    const char *s = sec_text(f->v, screen_y_of(f->v, r));
    assert_true(strncmp(s, "lib/", 4) == 0);
    close_fixture(f);

    /* an operator's Call stack suffix is secondary too */
    f = open_trace(TOP_SRCDIR "/tests/fixtures/pystack_calls.json", VIEW_TREE);
    view_key(f->v, 'E');
    r = row_named(f->v, "aten::mul  @ model.py:9 forward");
    assert_true(r != SIZE_MAX);
    assert_string_equal(sec_text(f->v, screen_y_of(f->v, r)), "@ model.py:9 forward");
    close_fixture(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_path_secondary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
