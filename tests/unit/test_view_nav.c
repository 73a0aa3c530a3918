/* Unit tests of the explorer's navigation (ui/): search into folded
   subtrees with "match i of n" and wrapping, smart case in search and
   filter, driven by keys on the view state as the terminal drives it.
   Expected orders come from a second computation: the rows of the fully
   expanded tree. */
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
#include "core/model/select.h"
#include "core/load/trace.h"
#include "ui/mouse.h"
#include "ui/tree_rows.h"
#include "tests/unit/unit_view.h"
#include "ui/view_impl.h"
#include "ui/views/view_tree.h"

/* Track 1: fwd [0,100] { aten::relu [10,40] { Relu_kernel [15,25] },
                          aten::mm [50,80] { relu_inner [55,60] } }
   Track 2: fwd [0,50] { aten::relu [10,20] }   (us) */
static const char nav_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"fwd\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"k\",\"name\":\"Relu_kernel\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"k\",\"name\":\"relu_inner\",\"pid\":1,\"tid\":1,\"ts\":55,\"dur\":5},"
    "{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"fwd\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":50},"
    "{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":10}]";


static void keys(view *v, const char *s)
{
    for (; *s; s++)
        view_key(v, (unsigned char)*s);
}

static const char *cur_name(view *v)
{
    static char buf[600];
    size_t len;
    const char *s = view_row_name(v, view_cursor(v), buf, sizeof buf, &len);
    memmove(buf, s, len);
    buf[len] = '\0';
    return buf;
}

static void search_for(view *v, const char *text)
{
    view_key(v, '/');
    keys(v, text);
    view_key(v, VK_ENTER);
}

/* ------------------------------------------------------------ callers */

static int64_t row_top_ns; /* the Top ms column of the last row_time row, in ns */

/* The time column of body row i, in ns (the pane shows ms to 3 places). */
static int64_t row_time(view *v, size_t i, char *name, size_t size)
{
    char buf[1024];
    bool gpu;
    view_body_line(v, i, buf, sizeof buf, &gpu);
    double ms = 0, top = 0;
    int n = 0;
    assert_int_equal(sscanf(buf + 1, "%lf %*f %*u %lf %n", &ms, &top, &n), 2);
    row_top_ns = (int64_t)(top * 1e6 + 0.5);
    /* the name: after the fold mark, to the end without padding */
    const char *p = strstr(buf, "\xe2\x96");
    p = p ? p + 4 : buf + n;
    while (*p == ' ')
        p++;
    snprintf(name, size, "%s", p);
    for (size_t k = strlen(name); k > 0 && name[k - 1] == ' '; k--)
        name[k - 1] = '\0';
    return (int64_t)(ms * 1e6 + 0.5);
}

/* The model's self time of the op named name over every track: what a top
   row of the Callers pane must show (a second computation). */
static int64_t op_self(const model *m, const char *name)
{
    int64_t t = 0;
    for (size_t i = 0; i < m->nops; i++)
        if (!strcmp(model_op_name(m, (uint32_t)i), name))
            t += m->ops[i].self_ns;
    return t;
}

static void test_callers(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(nav_trace, NULL);
    view *v = f->v;
    char name[300];
    keys(v, "3i");
    assert_int_equal(view_current(v), VIEW_CALLERS);
    /* top rows: the operators by their self time over both tracks, largest first */
    size_t n = view_nrows(v);
    assert_int_equal(n, 5);
    const char *order[] = { "fwd", "aten::relu", "aten::mm", "Relu_kernel", "relu_inner" };
    for (size_t i = 0; i < n; i++) {
        int64_t t = row_time(v, i, name, sizeof name);
        assert_string_equal(name, order[i]);
        assert_int_equal(t, op_self(f->m, name));
    }
    /* aten::relu's callers: fwd, with all of relu's self time (20 us on
       track 1, 10 on track 2); a double-click unfolds as l does, and folds */
    mouse_event(v, MOUSE_DOUBLE, 10, VIEW_CHROME_TOP + 1);
    assert_int_equal(view_nrows(v), 6);
    mouse_event(v, MOUSE_DOUBLE, 10, VIEW_CHROME_TOP + 1);
    assert_int_equal(view_nrows(v), 5);
    keys(v, "l");
    assert_int_equal(view_nrows(v), 6);
    assert_int_equal(row_time(v, 2, name, sizeof name), 30000);
    assert_string_equal(name, "fwd");
    /* relu_inner: called by aten::mm, itself called by fwd */
    keys(v, "G*");
    assert_int_equal(row_time(v, view_nrows(v) - 2, name, sizeof name), 5000);
    assert_string_equal(name, "aten::mm");
    assert_int_equal(row_time(v, view_nrows(v) - 1, name, sizeof name), 5000);
    assert_string_equal(name, "fwd");
    view_key(v, VK_ESC);
    assert_int_equal(view_current(v), VIEW_TREE);

    /* from Ops: the operator under the cursor alone, its callers shown */
    keys(v, "1");
    size_t r = 0;
    while (strcmp(cur_name(v), "aten::mm") != 0 && r++ < view_nrows(v))
        keys(v, "j");
    keys(v, "i");
    assert_int_equal(view_current(v), VIEW_CALLERS);
    assert_int_equal(view_nrows(v), 2);
    assert_int_equal(row_time(v, 0, name, sizeof name), 25000);
    assert_string_equal(name, "aten::mm");
    /* Top: the time of stacks that start at the row; aten::mm's start at fwd */
    assert_int_equal(row_top_ns, 0);
    assert_int_equal(row_time(v, 1, name, sizeof name), 25000);
    assert_string_equal(name, "fwd");
    assert_int_equal(row_top_ns, 25000);
    keys(v, "i"); /* i goes back too */
    assert_int_equal(view_current(v), VIEW_OPS);

    /* in a scope: Enter on aten::mm, then the Tree's i shows only the
       stacks through aten::mm */
    view_key(v, VK_ENTER);
    keys(v, "3i");
    assert_int_equal(view_current(v), VIEW_CALLERS);
    assert_int_equal(view_nrows(v), 2);
    assert_int_equal(row_time(v, 0, name, sizeof name), 25000);
    assert_string_equal(name, "aten::mm");
    assert_int_equal(row_time(v, 1, name, sizeof name), 5000);
    assert_string_equal(name, "relu_inner");
    unit_view_close(f);
}

/* ------------------------------------------------------------- search */

static void test_search_folded(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(nav_trace, NULL);
    view *v = f->v;
    keys(v, "3C"); /* every node folded: the two track rows */
    assert_int_equal(view_nrows(v), 2);
    search_for(v, "relu_inner");
    /* found under fwd and aten::mm, both folded: the way to it unfolds */
    assert_string_equal(cur_name(v), "relu_inner");
    assert_string_equal(view_status(v), "match 1 of 1");
    assert_int_equal(view_nrows(v), 6); /* R fwd aten::relu aten::mm relu_inner R */
    /* smart case: lower case matches any case, a capital only itself */
    keys(v, "gC");
    search_for(v, "relu");
    assert_string_equal(view_status(v), "match 1 of 4");
    search_for(v, "Relu");
    assert_string_equal(cur_name(v), "Relu_kernel");
    assert_string_equal(view_status(v), "match 1 of 1");
    search_for(v, "RELU");
    assert_non_null(strstr(view_status(v), "not found"));
    unit_view_close(f);
}

/* n and N walk every match in the order of the fully expanded tree, and
   say when they go round the end. */
static void check_order(view *v, const char *pat)
{
    char buf[600], name[300], msg[96];
    size_t len, want[64], nwant = 0;
    uint32_t got[64];
    /* the second computation: the matching rows of the expanded tree */
    keys(v, "E");
    for (size_t i = 0; i < view_nrows(v) && nwant < 64; i++) {
        const char *s = view_row_name(v, i, buf, sizeof buf, &len);
        snprintf(name, sizeof name, "%.*s", (int)len, s);
        if (select_name_has(name, strlen(name), pat, strlen(pat)))
            want[nwant++] = i;
    }
    assert_true(nwant > 1 && nwant < 64);
    /* with everything folded: the search, then n to each match in turn */
    keys(v, "Cg");
    search_for(v, pat);
    for (size_t k = 0; k <= nwant; k++) {
        if (k > 0)
            view_key(v, 'n');
        size_t j = k % nwant;
        snprintf(msg, sizeof msg, "match %zu of %zu%s", j + 1, nwant,
                 k == nwant ? " (search wrapped to top)" : "");
        assert_string_equal(view_status(v), msg);
        got[j] = view_row(v, view_cursor(v));
        assert_true(got[j] != UINT32_MAX);
    }
    /* N from the first match wraps to the last */
    keys(v, "Cg");
    search_for(v, pat);
    view_key(v, 'N');
    snprintf(msg, sizeof msg, "match %zu of %zu (search wrapped to bottom)", nwant, nwant);
    assert_string_equal(view_status(v), msg);
    assert_int_equal(view_row(v, view_cursor(v)), got[nwant - 1]);
    view_key(v, 'N');
    snprintf(msg, sizeof msg, "match %zu of %zu", nwant - 1, nwant);
    assert_string_equal(view_status(v), msg);
    /* the nodes n visited are the expanded tree's matching rows, in order */
    keys(v, "E");
    for (size_t j = 0; j < nwant; j++)
        assert_int_equal(view_row(v, want[j]), got[j]);
}

static void test_search_order(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(nav_trace, NULL);
    keys(f->v, "3");
    check_order(f->v, "relu");
    keys(f->v, "m"); /* merged tree: aten::relu once, with both tracks' calls */
    check_order(f->v, "relu");
    unit_view_close(f);
    f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    keys(f->v, "3");
    check_order(f->v, "relu");
    unit_view_close(f);
}

/* ------------------------------------------------------------- filter */

static void test_filter_smart_case(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(nav_trace, NULL);
    view *v = f->v;
    keys(v, "\\relu");
    view_key(v, VK_ENTER);
    /* Ops: every op whose name holds relu, in any case */
    assert_int_equal(view_nrows(v), 3);
    /* a capital: that case only */
    keys(v, "\\");
    view_key(v, VK_ESC);
    keys(v, "\\Relu");
    view_key(v, VK_ENTER);
    assert_int_equal(view_nrows(v), 1);
    assert_string_equal(cur_name(v), "Relu_kernel");
    /* the export's selection (select_nodes) agrees node for node */
    select_spec sp;
    t2p_error err;
    assert_true(scope_spec(view_scope(v), &sp));
    uint8_t *a = select_nodes(v->m, &sp, &err), *b = scope_keep(view_scope(v));
    assert_non_null(a);
    assert_non_null(b);
    size_t kept = 0;
    for (size_t i = 0; i < v->m->nnodes; i++) {
        assert_int_equal(a[i], b[i]);
        kept += a[i];
    }
    assert_int_equal(kept, 1); /* the stack ending in Relu_kernel */
    free(a);
    free(b);
    /* the rule itself */
    assert_true(select_name_has("aten::ReLU", 10, "relu", 4));
    assert_false(select_name_has("aten::ReLU", 10, "Relu", 4));
    assert_true(select_name_has("aten::ReLU", 10, "ReLU", 4));
    assert_false(select_name_has("aten::re", 8, "relu", 4));
    unit_view_close(f);
}

/* ------------------------------------------------------------- short names */

/* Two kernels whose short names are equal, under one launch. */
static const char short_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"run\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"k\",\"name\":\"void ns::k<1>(int, float*)\",\"pid\":1,\"tid\":1,"
    "\"ts\":10,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"k\",\"name\":\"void ns::k<2>(int, float*)\",\"pid\":1,\"tid\":1,"
    "\"ts\":50,\"dur\":20}]";

static void test_short_names(void **state)
{
    (void)state;
    char *path = strdup("/tmp/t2p-nav-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, short_trace, strlen(short_trace)), (ssize_t)strlen(short_trace));
    close(fd);
    struct fixture *f = unit_view_open(path, NULL);
    f->path = path;
    view *v = f->v;
    char buf[600];
    size_t len;
    /* Ops by self time: k<1> (30 us), k<2> (20), run (50 - 50 = 50) */
    assert_int_equal(view_nrows(v), 3);
    assert_false(view_short_names(v));
    view_key(v, 's');
    assert_true(view_short_names(v));
    /* the two kernels become equal names and stay two rows, with their own figures */
    assert_int_equal(view_nrows(v), 3);
    int ks = 0;
    for (size_t i = 0; i < view_nrows(v); i++) {
        const char *n = view_row_name(v, i, buf, sizeof buf, &len);
        if (len == 5 && !memcmp(n, "ns::k", 5))
            ks++;
    }
    assert_int_equal(ks, 2);
    /* the tree too: two children of run named ns::k */
    keys(v, "3E");
    assert_int_equal(view_nrows(v), 4);
    const char *n = view_row_name(v, 2, buf, sizeof buf, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(n, "ns::k", 5);
    n = view_row_name(v, 3, buf, sizeof buf, &len);
    assert_memory_equal(n, "ns::k", 5);
    assert_true(view_row(v, 2) != view_row(v, 3));
    /* search matches the names shown: two ns::k, no k<1> */
    keys(v, "/ns::k");
    assert_non_null(strstr(view_status(v), "match 1 of 2"));
    view_key(v, VK_ESC);
    keys(v, "/k<1>");
    assert_non_null(strstr(view_status(v), "not found"));
    view_key(v, VK_ESC);
    /* s again: full names, and the search follows them */
    view_key(v, 's');
    n = view_row_name(v, 2, buf, sizeof buf, &len);
    assert_int_equal(len, strlen("void ns::k<1>(int, float*)"));
    keys(v, "/k<1>");
    assert_non_null(strstr(view_status(v), "match 1 of 1"));
    view_key(v, VK_ESC);
    unit_view_close(f);
    /* --short-names: on from the start */
    view_opts o = { .tab = VIEW_OPS, .sort = MODEL_SORT_SELF, .short_names = true };
    t2p_error err;
    trace *tr = trace_load(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL, &err);
    assert_non_null(tr);
    model *m = model_build(tr, NULL, &err);
    assert_non_null(m);
    view *w = view_table_new(m, &o);
    assert_non_null(w);
    assert_true(view_short_names(w));
    for (size_t i = 0; i < view_nrows(w); i++) {
        n = view_row_name(w, i, buf, sizeof buf, &len);
        assert_null(memchr(n, '(', len) && memchr(n, '<', len) ? n : NULL);
    }
    view_free(w);
    model_free(m);
    trace_free(tr);
}

/* ------------------------------------------------------------- tree defaults */

static void test_tree_defaults(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    const model *m = v->m;
    /* the Tree sorts by total time, whatever the tables sort by */
    assert_int_equal(view_sort(v), MODEL_SORT_SELF);
    keys(v, "3");
    assert_int_equal(view_sort(v), MODEL_SORT_TOTAL);
    keys(v, ">");
    assert_int_equal(view_sort(v), MODEL_SORT_SELF);
    keys(v, "<1");
    assert_int_equal(view_sort(v), MODEL_SORT_SELF);
    keys(v, ">3");
    assert_int_equal(view_sort(v), MODEL_SORT_TOTAL); /* Ops went to Total: the Tree stayed */
    keys(v, "1<3");
    /* GPU streams start folded; the heaviest CPU track opens down to a leaf
       along its heaviest children */
    const tree_rows *t = view_tree_rows(v);
    uint32_t heavy = MODEL_NONE;
    for (size_t k = 0; k < t->ntops; k++) {
        uint32_t r = t->tops[k];
        bool stream = m->tracks[m->nodes[r].track].stream != MODEL_NONE;
        if (stream)
            assert_false(tree_rows_expanded(t, r));
        else if (heavy == MODEL_NONE || m->nodes[r].total_ns > m->nodes[heavy].total_ns)
            heavy = r;
    }
    assert_true(heavy != MODEL_NONE);
    size_t depth = 0;
    for (uint32_t u = heavy; u != MODEL_NONE; depth++) {
        uint32_t best = MODEL_NONE;
        for (uint32_t c = m->nodes[u].first_child; c != MODEL_NONE; c = m->nodes[c].next_sibling)
            if (!m->nodes[c].gpu && (best == MODEL_NONE || m->nodes[c].total_ns > m->nodes[best].total_ns))
                best = c;
        if (best == MODEL_NONE)
            break;
        assert_true(tree_rows_expanded(t, u));
        u = best;
    }
    assert_true(depth > 3);
    /* the % column: a row's total over the scope's time */
    char line[1024];
    enum view_style sty;
    view_screen_line(v, 3, line, sizeof line, &sty);
    assert_non_null(strstr(line, " % "));
    view_fig fig;
    view_tree_fig(v, view_row(v, 1), &fig);
    char want[32];
    snprintf(want, sizeof want, "%.1f", 100.0 * (double)fig.total_ns / (double)m->busy_ns);
    view_body_line(v, 1, line, sizeof line, &(bool){ false });
    assert_non_null(strstr(line, want));
    unit_view_close(f);
}

/* A new sort shows its top: cursor and scroll back to the first row. */
static void test_sort_shows_top(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    view_resize(v, 80, 24);
    for (int i = 0; i < 30; i++)
        view_key(v, 'j');
    assert_int_equal(view_cursor(v), 30);
    assert_true(view_top(v) > 0);
    view_key(v, '>');
    assert_int_equal(view_cursor(v), 0);
    assert_int_equal(view_top(v), 0);
    for (int i = 0; i < 30; i++)
        view_key(v, 'j');
    view_key(v, 'r');
    assert_int_equal(view_cursor(v), 0);
    assert_int_equal(view_top(v), 0);
    keys(v, "3E");
    for (int i = 0; i < 40; i++)
        view_key(v, 'j');
    assert_true(view_top(v) > 0);
    view_key(v, '<');
    assert_int_equal(view_cursor(v), 0);
    assert_int_equal(view_top(v), 0);
    unit_view_close(f);
}

/* ------------------------------------------------------------- 80 columns */

/* At 80x24, in every table and the tree, under every sort: the sorted
   column shows (its arrow), no title is cut, the hint bar has ? and q. */
static void test_80_columns(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    view_resize(v, 80, 24);
    char line[1024];
    enum view_style sty;
    const char *tabs = "1234";
    for (const char *t = tabs; *t; t++) {
        view_key(v, (unsigned char)*t);
        view_key(v, '>'); /* into the view's own sorts (the tables share one) */
        for (int k = 0; k < 8; k++) {
            view_screen_line(v, 3, line, sizeof line, &sty);
            if (!strstr(line, "\xe2\x96\xb2") && !strstr(line, "\xe2\x96\xbc"))
                fail_msg("view %c, sort %d: no sorted column in \"%s\"", *t, (int)view_sort(v),
                         line);
            if (strstr(line, "\xe2\x80\xa6"))
                fail_msg("view %c: a title cut in \"%s\"", *t, line);
            view_screen_line(v, 23, line, sizeof line, &sty);
            assert_non_null(strstr(line, "q quit"));
            assert_non_null(strstr(line, "? help"));
            view_key(v, k == 3 ? 'r' : '>');
        }
    }
    unit_view_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_folded),
        cmocka_unit_test(test_search_order),
        cmocka_unit_test(test_filter_smart_case),
        cmocka_unit_test(test_short_names),
        cmocka_unit_test(test_tree_defaults),
        cmocka_unit_test(test_sort_shows_top),
        cmocka_unit_test(test_80_columns),
        cmocka_unit_test(test_callers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
