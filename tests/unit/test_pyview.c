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
#include <unistd.h>

#include <cmocka.h>

#include "core/model/model.h"
#include "core/load/pyframe.h"
#include "core/analyses/pylines.h"
#include "core/analyses/srcfile.h"
#include "core/load/trace.h"
#include "ui/tree_rows.h"
#include "tests/unit/unit_view.h"
#include "ui/view_impl.h"
#include "ui/views/view_tree.h"

/* path in a view on tab, sorted by self, at 110x24 */
static struct fixture *open_trace(const char *path, int tab)
{
    view_opts o = { .tab = (enum view_tab)tab, .sort = MODEL_SORT_SELF };
    struct fixture *f = unit_view_open(path, &o);
    view_resize(f->v, 110, 24);
    return f;
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
    unit_view_close(f);

    /* an operator's Call stack suffix is secondary too */
    f = open_trace(TOP_SRCDIR "/tests/fixtures/pystack_calls.json", VIEW_TREE);
    view_key(f->v, 'E');
    r = row_named(f->v, "aten::mul  @ model.py:9 forward");
    assert_true(r != SIZE_MAX);
    assert_string_equal(sec_text(f->v, screen_y_of(f->v, r)), "@ model.py:9 forward");
    unit_view_close(f);
}

struct paths {
    char list[8][128];
    int n;
};

static int collect(void *ctx, const char *path)
{
    struct paths *p = ctx;
    snprintf(p->list[p->n++], sizeof p->list[0], "%s", path);
    return p->n == 8;
}

/* Where a frame's file is looked for: as recorded, then under DIR with
   fewer and fewer leading components (pprof's -source_path, -trim_path). */
static void test_srcfile_candidates(void **state)
{
    (void)state;
    struct paths p = { .n = 0 };
    const char *f = "/home/ci/proj/model.py";
    assert_int_equal(srcfile_candidates(f, strlen(f), "src/", collect, &p), 0);
    assert_int_equal(p.n, 5);
    assert_string_equal(p.list[0], "/home/ci/proj/model.py");
    assert_string_equal(p.list[1], "src/home/ci/proj/model.py");
    assert_string_equal(p.list[2], "src/ci/proj/model.py");
    assert_string_equal(p.list[3], "src/proj/model.py");
    assert_string_equal(p.list[4], "src/model.py");
    p.n = 0;
    assert_int_equal(srcfile_candidates("model.py", 8, NULL, collect, &p), 0);
    assert_int_equal(p.n, 1);

    /* found by its last component under the fixtures' source directory */
    srcfile sf;
    t2p_error err;
    assert_int_equal(srcfile_load(&sf, f, strlen(f), TOP_SRCDIR "/tests/fixtures/pysrc", &err), 0);
    assert_string_equal(sf.path, TOP_SRCDIR "/tests/fixtures/pysrc/model.py");
    assert_int_equal(sf.nlines, 21);
    assert_true(strncmp(srcfile_line(&sf, 20), "def features(self, x):", 22) == 0);
    assert_string_equal(srcfile_line(&sf, 21), "    return conv2d(x)");
    assert_null(srcfile_line(&sf, 22));
    assert_null(srcfile_line(&sf, 0));
    srcfile_done(&sf);
    /* not found: the reason names each path tried */
    f = "/nowhere/t2p/none.py";
    assert_int_equal(srcfile_load(&sf, f, strlen(f), "/t2p-nodir", &err), -1);
    assert_int_equal(err.kind, T2P_ERR_IO);
    assert_non_null(strstr(err.reason, "/nowhere/t2p/none.py"));
    assert_non_null(strstr(err.reason, "/t2p-nodir/nowhere/t2p/none.py"));
    assert_non_null(strstr(err.reason, "/t2p-nodir/none.py"));
    srcfile_done(&sf);
    /* more paths than the message holds: whole ones, then an ellipsis */
    char deep[800] = "";
    for (int i = 0; i < 30; i++)
        strcat(deep, "/component-xyz");
    strcat(deep, "/gone.py");
    assert_int_equal(srcfile_load(&sf, deep, strlen(deep), "/t2p-nodir", &err), -1);
    size_t rl = strlen(err.reason);
    assert_true(rl > 8);
    assert_string_equal(err.reason + rl - strlen("\xe2\x80\xa6)"), "\xe2\x80\xa6)");
    assert_non_null(strstr(err.reason, deep)); /* the first path tried, whole */
    /* every path listed is whole: each one ends in gone.py */
    const char *tried = strstr(err.reason, "(tried ") + 7;
    for (const char *t = tried; *t && strncmp(t, "\xe2\x80\xa6", 3);) {
        const char *comma = strstr(t, ", ");
        size_t n = comma ? (size_t)(comma - t) : strlen(t);
        assert_true(n >= 7 && !strncmp(t + n - 7, "gone.py", 7));
        t += n + 2;
    }
    srcfile_done(&sf);
}

/* The pane's per-line figures are pylines' for that file, and Esc goes
   back to the tree row it was opened from. */
static void test_source_pane(void **state)
{
    (void)state;
    struct fixture *f = open_trace(TOP_SRCDIR "/tests/fixtures/pyfunc_frames.json", VIEW_TREE);
    f->v->source_path = TOP_SRCDIR "/tests/fixtures/pysrc";
    view_key(f->v, 'E');
    size_t r = row_named(f->v, "features  model.py:20");
    assert_true(r != SIZE_MAX);
    while (view_cursor(f->v) < r)
        view_key(f->v, 'j');
    view_key(f->v, 'v');
    assert_int_equal(view_current(f->v), VIEW_SOURCE);
    assert_int_equal(view_nrows(f->v), 21);
    assert_int_equal(view_row(f->v, view_cursor(f->v)), 20);
    /* the figures of line 20 and line 10 as pylines has them */
    t2p_error err;
    pylines *pl = pylines_build(f->m, NULL, &err);
    assert_non_null(pl);
    char want20[64] = "", want10[64] = "";
    for (size_t i = 0; i < pylines_count(pl); i++) {
        const pyline *p = pylines_get(pl, i);
        if (p->file_len == 8 && !memcmp(p->file, "model.py", 8))
            snprintf(p->line == 20 ? want20 : want10, 64, "%.3f %.3f", p->self_ns / 1e6,
                     p->total_ns / 1e6);
    }
    pylines_free(pl);
    assert_string_equal(want20, "0.090 0.380");
    assert_string_equal(want10, "0.170 0.690");
    char line[4096], got[64];
    bool gpu;
    unsigned n;
    double s1, t1;
    view_body_line(f->v, 19, line, sizeof line, &gpu);
    assert_int_equal(sscanf(line, " > %u %lf %lf", &n, &s1, &t1), 3);
    snprintf(got, sizeof got, "%.3f %.3f", s1, t1);
    assert_string_equal(got, want20);
    view_body_line(f->v, 9, line, sizeof line, &gpu);
    assert_int_equal(sscanf(line, " %u %lf %lf", &n, &s1, &t1), 3);
    snprintf(got, sizeof got, "%.3f %.3f", s1, t1);
    assert_string_equal(got, want10);
    /* a line without time */
    view_body_line(f->v, 0, line, sizeof line, &gpu);
    assert_non_null(strstr(line, "     .            ."));
    view_key(f->v, VK_ESC);
    assert_int_equal(view_current(f->v), VIEW_TREE);
    assert_int_equal(view_cursor(f->v), r);
    /* v on an operator says what it wants */
    view_key(f->v, 'j');
    view_key(f->v, 'v');
    assert_int_equal(view_current(f->v), VIEW_TREE);
    assert_non_null(strstr(view_status(f->v), "not a Python frame"));
    unit_view_close(f);
}

/* With a focus the pane counts the focused stacks only, as every view:
   Enter on aten::conv2d keeps its two calls (self 20 + 70 us) and
   aten::convolution below (200 us), 290 us in all, and every frame above
   them (features at line 20, forward at 10) has that as its total and no
   self time of its own in the scope. Without the focus the figures are
   back to the whole trace's. */
static void test_source_pane_scoped(void **state)
{
    (void)state;
    struct fixture *f = open_trace(TOP_SRCDIR "/tests/fixtures/pyfunc_frames.json", VIEW_OPS);
    f->v->source_path = TOP_SRCDIR "/tests/fixtures/pysrc";
    size_t r = row_named(f->v, "aten::conv2d");
    assert_true(r != SIZE_MAX);
    while (view_cursor(f->v) < r)
        view_key(f->v, 'j');
    view_key(f->v, VK_ENTER);
    view_key(f->v, '3');
    assert_int_equal(view_current(f->v), VIEW_TREE);
    view_key(f->v, 'E');
    r = row_named(f->v, "features  model.py:20");
    assert_true(r != SIZE_MAX);
    while (view_cursor(f->v) < r)
        view_key(f->v, 'j');
    while (view_cursor(f->v) > r) /* the tree opens on the focused node */
        view_key(f->v, 'k');
    view_key(f->v, 'v');
    assert_int_equal(view_current(f->v), VIEW_SOURCE);
    char line[4096];
    bool gpu;
    unsigned n;
    double s1, t1;
    char self[32], total[32];
    view_body_line(f->v, 19, line, sizeof line, &gpu);
    assert_int_equal(sscanf(line, " > %u %31s %31s", &n, self, total), 3);
    assert_int_equal(n, 20);
    assert_string_equal(self, "."); /* no self time in the scope */
    assert_string_equal(total, "0.290");
    view_body_line(f->v, 9, line, sizeof line, &gpu);
    assert_int_equal(sscanf(line, " %u %31s %31s", &n, self, total), 3);
    assert_int_equal(n, 10);
    assert_string_equal(self, ".");
    assert_string_equal(total, "0.290");
    /* the tab line says what the figures cover */
    char top[4096];
    enum view_style sty;
    bool said = false;
    view_resize(f->v, 220, 24);
    for (int y = 0; y < VIEW_CHROME_TOP; y++) {
        view_screen_line(f->v, y, top, sizeof top, &sty);
        said |= strstr(top, "whole trace, in the scope") != NULL;
    }
    assert_true(said);
    /* back out of the pane and the focus: the whole trace's figures again */
    view_key(f->v, VK_ESC);
    assert_int_equal(view_current(f->v), VIEW_TREE);
    view_key(f->v, VK_ESC); /* the focus goes, back to Ops where it was made */
    view_key(f->v, '3');
    view_key(f->v, 'E');
    r = row_named(f->v, "features  model.py:20");
    assert_true(r != SIZE_MAX);
    while (view_cursor(f->v) < r)
        view_key(f->v, 'j');
    while (view_cursor(f->v) > r)
        view_key(f->v, 'k');
    view_key(f->v, 'v');
    assert_int_equal(view_current(f->v), VIEW_SOURCE);
    view_body_line(f->v, 19, line, sizeof line, &gpu);
    assert_int_equal(sscanf(line, " > %u %lf %lf", &n, &s1, &t1), 3);
    assert_int_equal((int)(s1 * 1000 + 0.5), 90);
    assert_int_equal((int)(t1 * 1000 + 0.5), 380);
    unit_view_close(f);
}

/* Sorted by name, frames are ordered by the names they show: "alpha
   a.py:2" before "zeta b.py:1", though zeta ran first (the names were once
   all read from one buffer, the last frame's, so they tied). */
static void test_sort_frames_by_name(void **state)
{
    (void)state;
    static const char text[] =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"b.py(1): zeta\",\"pid\":1,"
        "\"tid\":1,\"ts\":0,\"dur\":50},"
        "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"a.py(2): alpha\",\"pid\":1,"
        "\"tid\":1,\"ts\":100,\"dur\":10}]}";
    char path[] = "/tmp/t2p-pysort-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    struct fixture *f = open_trace(path, VIEW_TREE);
    view_key(f->v, 'E');
    size_t z = row_named(f->v, "zeta  b.py:1"), a = row_named(f->v, "alpha  a.py:2");
    assert_true(z != SIZE_MAX && a != SIZE_MAX);
    assert_true(z < a); /* by total time: zeta 50 us, alpha 10 */
    view_key(f->v, '<'); /* total -> name, the previous sort */
    z = row_named(f->v, "zeta  b.py:1");
    a = row_named(f->v, "alpha  a.py:2");
    assert_true(a < z);
    unit_view_close(f);
    unlink(path);
}

/* The Tree's search matches frames as they show: "model.py:20", not the
   event name's "model.py(20)". */
static void test_search_frames(void **state)
{
    (void)state;
    struct fixture *f = open_trace(TOP_SRCDIR "/tests/fixtures/pyfunc_frames.json", VIEW_TREE);
    const char *p;
    for (p = "/model.py:20"; *p; p++)
        view_key(f->v, (unsigned char)*p);
    assert_non_null(strstr(view_status(f->v), "match 1 of 1"));
    view_key(f->v, VK_ESC);
    for (p = "/model.py(20)"; *p; p++)
        view_key(f->v, (unsigned char)*p);
    assert_non_null(strstr(view_status(f->v), "not found"));
    view_key(f->v, VK_ESC);
    unit_view_close(f);
}

/* p in the Callers pane: the frames leave its stacks as they leave the
   Tree's, and come back with p again. */
static void test_callers_hide_python(void **state)
{
    (void)state;
    struct fixture *f = open_trace(TOP_SRCDIR "/tests/fixtures/pyfunc_frames.json", VIEW_TREE);
    view_key(f->v, 'i');
    assert_int_equal(view_current(f->v), VIEW_CALLERS);
    view_key(f->v, 'E');
    assert_true(row_named(f->v, "features  model.py:20") != SIZE_MAX); /* as the Tree shows it */
    size_t shown = view_nrows(f->v);
    view_key(f->v, 'p');
    assert_int_equal(view_current(f->v), VIEW_CALLERS);
    view_key(f->v, 'E');
    char buf[600];
    size_t len;
    for (size_t i = 0; i < view_nrows(f->v); i++) {
        const char *n = view_row_name(f->v, i, buf, sizeof buf, &len);
        assert_null(memchr(n, '(', len)); /* no frame: "file.py(N): fn" or "<built-in ...>" */
        assert_false(len && n[0] == '<');
        assert_null(strstr(n, ".py"));
    }
    assert_true(row_named(f->v, "aten::conv2d") != SIZE_MAX);
    assert_true(view_nrows(f->v) < shown);
    view_key(f->v, 'p');
    view_key(f->v, 'E');
    assert_int_equal(view_nrows(f->v), shown);
    unit_view_close(f);
}

/* The figures of the tree as shown: per node, its row's self and total. */
struct shown {
    size_t nrows, npy;     /* rows, rows of Python frames */
    int64_t self_sum;      /* every row's self */
    int64_t root_total[8], root_self[8], root_kids[8]; /* per root: its children's totals */
    int nroots;
    int64_t *self, *total; /* per node, -1 when not a row */
};

static void shown_of(view *v, struct shown *s)
{
    const model *m = view_model(v);
    const struct tree_rows *t = view_tree_rows(v);
    memset(s, 0, sizeof *s);
    s->self = malloc(t->n * sizeof *s->self);
    s->total = malloc(t->n * sizeof *s->total);
    assert_non_null(s->self);
    assert_non_null(s->total);
    for (size_t u = 0; u < t->n; u++)
        s->self[u] = s->total[u] = -1;
    s->nrows = view_nrows(v);
    for (size_t i = 0; i < s->nrows; i++) {
        uint32_t u = view_row(v, i);
        view_fig f;
        view_tree_fig(v, u, &f);
        s->self[u] = f.self_ns;
        s->total[u] = f.total_ns;
        s->self_sum += f.self_ns;
        if (t->nodes[u].parent == MODEL_NONE) {
            assert_true(s->nroots < 8);
            s->root_total[s->nroots] = f.total_ns;
            s->root_self[s->nroots++] = f.self_ns;
        } else {
            s->npy += pyframe_is_cat(model_op_cat(m, t->nodes[u].op));
            if (t->nodes[tree_rows_parent(t, u)].parent == MODEL_NONE)
                s->root_kids[s->nroots - 1] += f.total_ns;
        }
    }
}

static void shown_free(struct shown *s)
{
    free(s->self);
    free(s->total);
}

/* p hides the Python frames and loses no time: every root keeps its total
   (its self, the hidden frames' time directly under it, plus its children's
   totals), the rows' self times add up to the same, and every operator row
   keeps its figures. Per track and merged, whole trace and under a focus. */
static void check_hide(view *v, int64_t want_self_sum)
{
    const struct tree_rows *t = view_tree_rows(v);
    const model *m = view_model(v);
    struct shown on, off;
    view_key(v, 'E');
    shown_of(v, &off);
    assert_true(off.npy > 0);
    view_key(v, 'p');
    assert_true(v->hide_python);
    view_key(v, 'E');
    shown_of(v, &on);
    assert_int_equal(on.npy, 0);
    assert_true(on.nrows < off.nrows);
    assert_int_equal(on.self_sum, off.self_sum);
    if (want_self_sum >= 0)
        assert_int_equal(on.self_sum, want_self_sum);
    assert_int_equal(on.nroots, off.nroots);
    for (int r = 0; r < on.nroots; r++) {
        assert_int_equal(on.root_total[r], off.root_total[r]);
        assert_int_equal(off.root_self[r], 0);
        assert_int_equal(off.root_kids[r], off.root_total[r]);
        assert_int_equal(on.root_self[r] + on.root_kids[r], on.root_total[r]);
    }
    for (size_t u = 0; u < t->n; u++) {
        if (t->nodes[u].parent == MODEL_NONE || off.total[u] < 0 ||
            pyframe_is_cat(model_op_cat(m, t->nodes[u].op)))
            continue;
        /* no operator here has a Python frame below it: its figures stay */
        assert_int_equal(on.total[u], off.total[u]);
        assert_int_equal(on.self[u], off.self[u]);
    }
    shown_free(&on);
    shown_free(&off);
    /* and back */
    view_key(v, 'p');
    view_key(v, 'E');
    shown_of(v, &on);
    assert_int_equal(on.nrows, off.nrows);
    assert_true(on.npy > 0);
    shown_free(&on);
}

static void test_hide_python(void **state)
{
    (void)state;
    struct fixture *f = open_trace(TOP_SRCDIR "/tests/fixtures/pyfunc_frames.json", VIEW_TREE);
    check_hide(f->v, f->m->busy_ns);
    view_key(f->v, 'm'); /* merged */
    assert_true(view_tree_merged(f->v));
    check_hide(f->v, f->m->busy_ns);
    /* under a focus on forward (both tracks): the scope's self time */
    view_key(f->v, 'm');
    view_key(f->v, 'E');
    size_t r = row_named(f->v, "forward  model.py:10");
    assert_true(r != SIZE_MAX);
    while (view_cursor(f->v) < r)
        view_key(f->v, 'j');
    view_key(f->v, 'f');
    assert_true(scope_active(view_scope(f->v)));
    check_hide(f->v, scope_busy(view_scope(f->v)));
    /* the Ops table leaves them out too, the operators' rows as they were */
    view_key(f->v, VK_ESC);
    view_key(f->v, '1');
    size_t all = view_nrows(f->v);
    view_key(f->v, 'p');
    size_t nopy = view_nrows(f->v);
    size_t npy = 0;
    for (size_t i = 0; i < f->m->nops; i++)
        npy += pyframe_is_cat(model_op_cat(f->m, (uint32_t)i));
    assert_int_equal(npy, 5); /* <module>, forward, features, helper, <built-in method sum ...> */
    assert_int_equal(nopy, all - npy);
    unit_view_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_path_secondary),
        cmocka_unit_test(test_srcfile_candidates),
        cmocka_unit_test(test_source_pane),
        cmocka_unit_test(test_source_pane_scoped),
        cmocka_unit_test(test_callers_hide_python),
        cmocka_unit_test(test_search_frames),
        cmocka_unit_test(test_sort_frames_by_name),
        cmocka_unit_test(test_hide_python),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
