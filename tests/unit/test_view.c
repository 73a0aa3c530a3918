/* Unit tests of the explorer's view state (ui/view.c), driven by keys as the
   terminal drives it, on a hand-made trace whose figures are worked out by
   hand and on the sample traces, whose rows must follow the model. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/fmt.h"
#include "core/model/model.h"
#include "core/pprof/pprof.h"
#include "core/model/scope.h"
#include "core/model/select.h"
#include "core/load/trace.h"
#include "ui/mouse.h"
#include "ui/progress.h"
#include "ui/tree_mem.h"
#include "ui/tree_rows.h"
#include "tests/unit/unit_view.h"
#include "ui/view_impl.h"
#include "ui/views/view_tree.h"

/* Track 1:  A [0,100] { B [10,40] { C [15,25] }, B [50,80], D [85,95] }
             A [200,250] { C [210,220] }
   Track 2:  A [0,50] { C [10,20] }
   In us; the model works in ns.
   Self: A = (100-30-30-10) + (50-10) + (50-10) = 110, B = 20+30 = 50,
   C = 30, D = 10; busy 200. */
static const char hand_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"leaf\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"leaf\",\"name\":\"D\",\"pid\":1,\"tid\":1,\"ts\":85,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":50},"
    "{\"ph\":\"X\",\"cat\":\"leaf\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":210,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"A\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":50},"
    "{\"ph\":\"X\",\"cat\":\"leaf\",\"name\":\"C\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":10}]";

/* Screen line y (negative: from the bottom) as text. */
static void screen_line(view *v, int y, char *buf, size_t size)
{
    enum view_style st;
    view_screen_line(v, y < 0 ? view_height(v) + y : y, buf, size, &st);
}

static void keys(view *v, const char *s)
{
    for (; *s; s++)
        view_key(v, (unsigned char)*s);
}

/* The names of the rows of the current tab, joined by spaces. */
static const char *row_names(view *v)
{
    static char out[4096];
    char buf[600];
    size_t o = 0, len;
    out[0] = '\0';
    for (size_t i = 0; i < view_nrows(v) && o < sizeof out - 100; i++) {
        const char *s = view_row_name(v, i, buf, sizeof buf, &len);
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s", i ? " " : "", (int)len, s);
    }
    return out;
}

/* The tree's names with their depth, "A1 B2", to check shape as well as order. */
static const char *tree_shape(view *v)
{
    static char out[4096];
    char buf[600];
    size_t o = 0, len;
    const model_node *nodes = view_tree_merged(v) ? v->m->mnodes : v->m->nodes;
    out[0] = '\0';
    for (size_t i = 0; i < view_nrows(v) && o < sizeof out - 100; i++) {
        uint32_t u = view_row(v, i);
        if (nodes[u].parent == MODEL_NONE) {
            o += (size_t)snprintf(out + o, sizeof out - o, "%sR", i ? " " : "");
            continue;
        }
        const char *s = view_row_name(v, i, buf, sizeof buf, &len);
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s%u", i ? " " : "", (int)len, s,
                              nodes[u].depth);
    }
    return out;
}

/* ------------------------------------------------------------- sorting */

static void test_ops_every_sort(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    uint32_t *want = malloc(f->m->nops * sizeof *want);
    assert_int_equal(view_nrows(v), f->m->nops);
    for (int s = 0; s < MODEL_SORT_N; s++)
        for (int rev = 0; rev < 2; rev++) {
            view_opts vo = { .sort = (enum model_sort)s };
            view *w = view_table_new(f->m, &vo);
            if (rev)
                view_key(w, 'r');
            model_sort_ops(f->m, (enum model_sort)s, rev, want);
            for (size_t i = 0; i < f->m->nops; i++)
                assert_int_equal(view_row(w, i), want[i]);
            view_free(w);
        }
    /* the default: self time descending, as `analyze` lists them */
    model_sort_ops(f->m, MODEL_SORT_SELF, false, want);
    assert_int_equal(view_row(v, 0), want[0]);
    /* the line shows the model's figures formatted as the CLI does */
    char line[2048], ms[32];
    bool gpu;
    view_body_line(v, 0, line, sizeof line, &gpu);
    assert_non_null(strstr(line, fmt_ms(f->m->ops[want[0]].self_ns, ms, sizeof ms)));
    assert_non_null(strstr(line, fmt_ms(f->m->ops[want[0]].total_ns, ms, sizeof ms)));
    /* the column header marks the sort column and its direction */
    screen_line(v, 3, line, sizeof line);
    assert_non_null(strstr(line, "Self ms\xe2\x96\xbc"));
    /* > and < walk the columns: Self -> Total -> Avg ...; r flips */
    view_key(v, '>');
    assert_int_equal(view_sort(v), MODEL_SORT_TOTAL);
    model_sort_ops(f->m, MODEL_SORT_TOTAL, false, want);
    assert_int_equal(view_row(v, 0), want[0]);
    view_key(v, '<');
    view_key(v, '<');
    assert_int_equal(view_sort(v), MODEL_SORT_CALLS);
    view_key(v, 'r');
    screen_line(v, 3, line, sizeof line);
    assert_non_null(strstr(line, "Calls\xe2\x96\xb2"));
    model_sort_ops(f->m, MODEL_SORT_CALLS, true, want);
    assert_int_equal(view_row(v, 0), want[0]);
    free(want);
    unit_view_close(f);
}

/* Under a focus the Ops view lists the ops on its stacks by their figures in
   the scope, with the tie rule of every other table (model_sort_ops:
   largest first, ties by name, then by index; r flips it all), written
   here a second time: the scoped order was sorted in ui by its own rule. */
static const scope_fig *exp_f;
static const model *exp_m;
static enum model_sort exp_s;
static bool exp_rev;

static int64_t exp_key(const scope_fig *f)
{
    switch (exp_s) {
    case MODEL_SORT_TOTAL: return f->total_ns;
    case MODEL_SORT_CALLS: return (int64_t)f->calls;
    case MODEL_SORT_AVG: return f->calls ? f->total_ns / (int64_t)f->calls : 0;
    case MODEL_SORT_DEVICE_SELF: return f->dev_self_ns;
    case MODEL_SORT_DEVICE_TOTAL: return f->dev_total_ns;
    case MODEL_SORT_NAME: return 0;
    default: return f->self_ns;
    }
}

static int exp_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    int64_t x = exp_key(&exp_f[a]), y = exp_key(&exp_f[b]);
    int r = x > y ? -1 : x < y;
    if (!r)
        r = strcmp(model_op_name(exp_m, a), model_op_name(exp_m, b));
    if (!r)
        r = a < b ? -1 : a > b;
    return exp_rev ? -r : r;
}

static void test_ops_scoped_ties(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    const model *m = f->m;
    uint32_t *want = malloc(m->nops * sizeof *want);
    view_key(v, VK_ENTER); /* a focus on the top operator */
    assert_int_equal(scope_depth(view_scope(v)), 1);
    view_key(v, '1');
    exp_f = scope_ops(view_scope(v));
    exp_m = m;
    assert_non_null(exp_f);
    size_t ties = 0;
    for (int s = 0; s < MODEL_SORT_N; s++)
        for (int rev = 0; rev < 2; rev++) {
            v->sort = (enum model_sort)s;
            v->reverse = rev;
            v->stale[VIEW_OPS] = true;
            exp_s = (enum model_sort)s;
            exp_rev = rev;
            size_t n = 0;
            for (uint32_t o = 0; o < m->nops; o++) {
                const scope_fig *g = &exp_f[o];
                if (g->calls || g->total_ns || g->dev_total_ns || g->dev_events)
                    want[n++] = o;
            }
            qsort(want, n, sizeof *want, exp_cmp);
            assert_int_equal(view_nrows(v), n);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(view_row(v, i), want[i]);
                ties += i && exp_key(&exp_f[want[i]]) == exp_key(&exp_f[want[i - 1]]);
            }
        }
    assert_true(ties > 0); /* the rule was put to the test */
    free(want);
    unit_view_close(f);
}

static void test_cats_and_threads(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    uint32_t want[64];
    view_key(v, '2');
    assert_int_equal(view_current(v), VIEW_CATS);
    assert_int_equal(view_nrows(v), f->m->ncats);
    model_sort_cats(f->m, MODEL_SORT_SELF, false, want);
    for (size_t i = 0; i < f->m->ncats; i++)
        assert_int_equal(view_row(v, i), want[i]);
    view_key(v, '4');
    assert_int_equal(view_nrows(v), f->m->tracks_with_events);
    /* threads by busy time: GPU streams carry their utilisation */
    char line[2048];
    bool gpu, any_gpu = false;
    for (size_t i = 0; i < view_nrows(v); i++) {
        view_body_line(v, i, line, sizeof line, &gpu);
        any_gpu |= gpu;
    }
    assert_true(any_gpu);
    view_key(v, VK_TAB);
    assert_int_equal(view_current(v), (VIEW_THREADS + 1) % VIEW_NTABS);
    view_key(v, VK_BTAB);
    assert_int_equal(view_current(v), VIEW_THREADS);
    unit_view_close(f);
}

/* ------------------------------------------------------------- the tree */

static void test_tree_expand_collapse(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(hand_trace, NULL);
    view *v = f->v;
    keys(v, "3");
    /* per track, tracks by their time: track 1 (150 us) before track 2 (50);
       the heaviest path open: track 1, A, B (60 us), C */
    assert_string_equal(tree_shape(v), "R A1 B2 C3 C2 D2 R A1");
    /* the two tracks open, nothing else */
    keys(v, "C+jj+g");
    assert_string_equal(tree_shape(v), "R A1 R A1");
    view_key(v, VK_DOWN);
    view_key(v, VK_RIGHT); /* expand A of track 1: B (self 50), then C, D (10 each, by name) */
    assert_string_equal(tree_shape(v), "R A1 B2 C2 D2 R A1");
    view_key(v, VK_RIGHT); /* already open: to the first child */
    assert_int_equal(view_cursor(v), 2);
    view_key(v, 'l');
    assert_string_equal(tree_shape(v), "R A1 B2 C3 C2 D2 R A1");
    view_key(v, 'h'); /* collapse B */
    assert_string_equal(tree_shape(v), "R A1 B2 C2 D2 R A1");
    view_key(v, 'h'); /* B is closed: to its parent A */
    assert_int_equal(view_cursor(v), 1);
    view_key(v, '-');
    assert_string_equal(tree_shape(v), "R A1 R A1");
    view_key(v, '+');
    assert_string_equal(tree_shape(v), "R A1 B2 C2 D2 R A1");
    view_key(v, 'C');
    assert_string_equal(tree_shape(v), "R R");
    assert_int_equal(view_cursor(v), 0); /* A is hidden: the cursor goes to its track */
    view_key(v, '*');
    assert_string_equal(tree_shape(v), "R A1 B2 C3 C2 D2 R");
    view_key(v, 'E');
    assert_string_equal(tree_shape(v), "R A1 B2 C3 C2 D2 R A1 C2");
    /* sort by name: children in name order, whatever their time */
    view_key(v, '>'); /* Total -> Self -> Calls -> (no device columns) -> Name */
    view_key(v, '>');
    view_key(v, '>');
    assert_int_equal(view_sort(v), MODEL_SORT_NAME);
    view_key(v, 'r');
    assert_string_equal(tree_shape(v), "R A1 C2 R A1 D2 C2 B2 C3");
    /* merged across tracks: one root, A with 3 calls */
    view_key(v, 'g');
    view_key(v, 'm');
    assert_true(view_tree_merged(v));
    view_key(v, 'E');
    view_key(v, 'r');
    assert_string_equal(tree_shape(v), "R A1 B2 C3 C2 D2");
    view_fig fig;
    view_tree_fig(v, view_row(v, 1), &fig);
    assert_int_equal(fig.calls, 3);
    assert_int_equal(fig.total_ns, 200000);
    assert_int_equal(fig.self_ns, 110000);
    view_tree_fig(v, view_row(v, 4), &fig); /* C directly under A: two calls */
    assert_int_equal(fig.calls, 2);
    assert_int_equal(fig.self_ns, 20000);
    unit_view_close(f);
}

/* The rows of the tree must be a preorder of the visible nodes, whatever the
   keys did: checked against a plain count after each of many keys. */
static void test_tree_rows_consistent(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    static const int ks[] = { VK_DOWN, VK_RIGHT, VK_DOWN, VK_DOWN, '*', VK_LEFT, 'j', 'l', 'E',
                              'G', 'h', 'h', '-', 'r', '>', 'm', 'j', 'j', '+', 'C', 'l', 'j', 'l' };
    view_key(v, '3');
    srand(1);
    for (int round = 0; round < 300; round++) {
        int k = round < (int)(sizeof ks / sizeof *ks) ? ks[round]
                                                       : ks[rand() % (int)(sizeof ks / sizeof *ks)];
        view_key(v, k);
        size_t n = view_nrows(v), count = 0;
        bool merged = view_tree_merged(v);
        const tree_rows *t = view_tree_rows(v);
        const scope_mask *mk = scope_mask_of(view_scope(v), merged);
        bool active = mk->active;
        for (size_t i = 0; i < t->n; i++) {
            bool vis = !active || mk->shown[i];
            for (uint32_t p = t->nodes[i].parent; vis && p != MODEL_NONE; p = t->nodes[p].parent)
                vis = t->expanded[p] && (!active || mk->shown[p]);
            /* per-track roots of tracks with no events are not listed */
            if (vis && (merged || t->nodes[i].parent != MODEL_NONE ||
                        v->m->tracks[t->nodes[i].track].events))
                count++;
        }
        assert_int_equal(n, count);
        uint32_t prev = MODEL_NONE;
        for (size_t i = 0; i < n; i++) {
            uint32_t u = view_row(v, i);
            assert_true(u != UINT32_MAX);
            uint32_t p = t->nodes[u].parent;
            if (p != MODEL_NONE)
                assert_true(t->expanded[p]);
            if (prev != MODEL_NONE)
                assert_true(t->nodes[u].depth <= t->nodes[prev].depth + 1);
            prev = u;
        }
        /* random access agrees with the sequential walk */
        if (n)
            assert_int_equal(view_row(v, n / 2), view_row(v, n / 2));
        assert_true(view_cursor(v) < (n ? n : 1));
    }
    unit_view_close(f);
}

/* ------------------------------------------------------------- focus */

static void test_focus_and_back(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(hand_trace, NULL);
    view *v = f->v;
    const model *m = f->m;
    uint32_t C = unit_op_index(m, "C");
    /* Ops by self: A 110, B 50, C 30, D 10 */
    assert_string_equal(row_names(v), "A B C D");
    keys(v, "jj");
    view_key(v, VK_ENTER);
    assert_int_equal(view_current(v), VIEW_TREE);
    assert_true(view_tree_merged(v));
    assert_int_equal(scope_depth(view_scope(v)), 1);
    /* every stack through C: A>B>C and A>C, with the ancestors leading there;
       by self time in the scope: A>C (20 us) before B (0: not a C stack) */
    assert_string_equal(tree_shape(v), "R A1 C2 B2 C3");
    /* the cursor on the first C */
    assert_int_equal(view_cursor(v), 2);
    /* figures of the scope: C's own time only, as pprof's focus shows them */
    assert_int_equal(scope_busy(view_scope(v)), 30000);
    view_fig fig;
    view_tree_fig(v, view_row(v, 1), &fig);
    assert_int_equal(fig.total_ns, 30000);
    assert_int_equal(fig.self_ns, 0);
    char crumb[1024];
    screen_line(v, 1, crumb, sizeof crumb);
    assert_non_null(strstr(crumb, "Scope: all \xe2\x80\xba C"));
    /* export scope */
    select_spec s;
    assert_true(scope_spec(view_scope(v), &s));
    assert_int_equal(s.focus_op, C);
    assert_int_equal(s.focus_mnode, MODEL_NONE);
    assert_null(s.filter);
    uint8_t *keep = scope_keep(view_scope(v));
    int64_t kept = 0;
    for (size_t i = 0; i < m->nnodes; i++) {
        bool through = false;
        for (uint32_t x = (uint32_t)i; x != MODEL_NONE && m->nodes[x].parent != MODEL_NONE;
             x = m->nodes[x].parent)
            through |= m->nodes[x].op == C;
        assert_int_equal(keep[i], through);
        if (keep[i])
            kept += m->nodes[i].self_ns;
    }
    assert_int_equal(kept, 30000);
    free(keep);

    /* f on B (under the focus): stacks through C and at or below A>B */
    view_key(v, 'j');
    view_key(v, 'f');
    assert_int_equal(scope_depth(view_scope(v)), 2);
    assert_string_equal(tree_shape(v), "R A1 B2 C3");
    assert_int_equal(scope_busy(view_scope(v)), 10000);
    assert_true(scope_spec(view_scope(v), &s));
    assert_int_equal(s.focus_op, C);
    assert_true(s.focus_mnode != MODEL_NONE);
    /* back one level, then back to Ops on the row we left */
    view_key(v, VK_ESC);
    assert_int_equal(scope_depth(view_scope(v)), 1);
    assert_string_equal(tree_shape(v), "R A1 C2 B2 C3");
    view_key(v, VK_BACKSPACE);
    assert_int_equal(scope_depth(view_scope(v)), 0);
    assert_int_equal(view_current(v), VIEW_OPS);
    assert_int_equal(view_cursor(v), 2);
    assert_int_equal(scope_busy(view_scope(v)), m->busy_ns);

    /* a category: stacks through any op of it (C and D are "leaf") */
    view_key(v, '2');
    size_t leaf = 0;
    char buf[64];
    size_t len;
    while (strncmp(view_row_name(v, leaf, buf, sizeof buf, &len), "leaf", 4) != 0)
        leaf++;
    v->cur[VIEW_CATS] = leaf;
    view_key(v, VK_ENTER);
    /* by total under the focus: C (20 us), then B and D (10 each) by name */
    assert_string_equal(tree_shape(v), "R A1 C2 B2 C3 D2");
    assert_int_equal(scope_busy(view_scope(v)), 40000);
    assert_false(scope_spec(view_scope(v), &s)); /* select_spec cannot say it: view_keep does */
    keep = scope_keep(view_scope(v));
    kept = 0;
    for (size_t i = 0; i < m->nnodes; i++)
        kept += keep[i] ? m->nodes[i].self_ns : 0;
    assert_int_equal(kept, 40000);
    free(keep);
    view_key(v, VK_ESC);
    assert_int_equal(view_current(v), VIEW_CATS);

    /* f in the per-track tree: one track's stack only */
    keys(v, "3Cglj"); /* all folded, then track 1 open, on A */
    assert_false(view_tree_merged(v));
    keys(v, "ljf");
    assert_int_equal(scope_entry_at(view_scope(v), 0)->kind, SCOPE_NODE);
    assert_int_equal(scope_busy(view_scope(v)), 60000); /* B on track 1 (50), with C under it (10) */
    assert_false(scope_spec(view_scope(v), &s));
    unit_view_close(f);
}

/* ------------------------------------------------------------- search, filter */

static void test_search(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(hand_trace, NULL);
    view *v = f->v;
    keys(v, "3E"); /* R A1 B2 C3 C2 D2 R A1 C2 */
    keys(v, "/c");
    assert_int_equal(view_mode_of(v), VIEW_MODE_SEARCH);
    assert_int_equal(view_cursor(v), 3); /* incremental: first C from the cursor */
    view_key(v, VK_ENTER);
    assert_int_equal(view_mode_of(v), VIEW_MODE_NORMAL);
    view_key(v, 'n');
    assert_int_equal(view_cursor(v), 4);
    view_key(v, 'n');
    assert_int_equal(view_cursor(v), 8);
    view_key(v, 'n'); /* wraps */
    assert_int_equal(view_cursor(v), 3);
    view_key(v, 'N'); /* wraps back */
    assert_int_equal(view_cursor(v), 8);
    view_key(v, 'N');
    assert_int_equal(view_cursor(v), 4);
    keys(v, "/zz");
    char foot[512];
    screen_line(v, -2, foot, sizeof foot);
    assert_non_null(strstr(foot, "not found"));
    view_key(v, VK_ESC); /* cancels: back where the search began */
    assert_int_equal(view_cursor(v), 4);
    /* Ops: search by substring, any case */
    keys(v, "1/d");
    view_key(v, VK_ENTER);
    char buf[64];
    size_t len;
    assert_string_equal(view_row_name(v, view_cursor(v), buf, sizeof buf, &len), "D");
    unit_view_close(f);
}

static void test_filter(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(hand_trace, NULL);
    view *v = f->v;
    keys(v, "\\B");
    assert_int_equal(view_mode_of(v), VIEW_MODE_FILTER);
    view_key(v, VK_ENTER);
    assert_string_equal(scope_filter(view_scope(v)), "B");
    assert_string_equal(row_names(v), "B");
    /* the tree keeps the stacks with a frame named like it */
    keys(v, "3E");
    assert_string_equal(tree_shape(v), "R A1 B2 C3");
    assert_int_equal(scope_busy(view_scope(v)), 60000);
    select_spec s;
    assert_true(scope_spec(view_scope(v), &s));
    assert_string_equal(s.filter, "B");
    assert_int_equal(s.focus_op, MODEL_NONE);
    /* a filter and a focus together: both must hold */
    keys(v, "1");
    assert_string_equal(row_names(v), "B");
    view_key(v, VK_ENTER);
    assert_int_equal(scope_busy(view_scope(v)), 50000 + 10000);
    view_key(v, VK_ESC);
    /* Esc in the prompt clears it; so does an empty filter */
    keys(v, "\\");
    view_key(v, VK_ESC);
    assert_string_equal(scope_filter(view_scope(v)), "");
    assert_string_equal(row_names(v), "A B C D");
    keys(v, "\\D");
    view_key(v, VK_ENTER);
    assert_string_equal(row_names(v), "D");
    view_key(v, VK_ESC);
    assert_string_equal(row_names(v), "A B C D");
    unit_view_close(f);
}

/* ------------------------------------------------------------- export */

/* Where select_spec can say the scope, select_nodes (the CLI's selection)
   and the view's own mask agree node for node. */
static void assert_same_mask(view *v)
{
    select_spec s;
    t2p_error err;
    assert_true(scope_spec(view_scope(v), &s));
    uint8_t *a = select_nodes(v->m, &s, &err);
    uint8_t *b = scope_keep(view_scope(v));
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < v->m->nnodes; i++)
        if (a[i] != b[i])
            fail_msg("node %zu: select_nodes %d, view %d", i, a[i], b[i]);
    free(a);
    free(b);
}

static void test_scope_matches_select(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    const model *m = f->m;
    /* every op as a focus, alone and with a filter */
    for (uint32_t op = 0; op < m->nops; op++) {
        view_push_focus(v, SCOPE_OP, op);
        assert_same_mask(v);
        view_key(v, VK_ESC);
    }
    keys(v, "\\aten");
    view_key(v, VK_ENTER);
    assert_same_mask(v);
    for (uint32_t op = 0; op < m->nops; op += 7) {
        view_push_focus(v, SCOPE_OP, op);
        assert_same_mask(v);
        view_key(v, VK_BACKSPACE);
    }
    view_key(v, VK_ESC); /* clears the filter */
    assert_string_equal(scope_filter(view_scope(v)), "");
    /* merged nodes as a focus, alone and under an op focus */
    for (uint32_t n = 1; n < m->nmnodes; n += 3) {
        view_push_focus(v, SCOPE_MNODE, n);
        assert_same_mask(v);
        view_key(v, VK_ESC);
    }
    view_push_focus(v, SCOPE_OP, m->mnodes[5].op);
    view_push_focus(v, SCOPE_MNODE, 5);
    assert_same_mask(v);
    unit_view_close(f);
}

/* Export paths longer than a search text: what is written is exactly the
   path typed, and a path that cannot be one is refused with the reason,
   nothing written (the prompt once held 255 bytes and a longer default
   name was cut, writing somewhere else than shown). */
static void test_export_long_paths(void **state)
{
    (void)state;
    char dir[] = "/tmp/t2p-view-long-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[600], path[1200];
    char name200[201], name90[91];
    memset(name200, 'd', 200);
    name200[200] = '\0';
    memset(name90, 'f', 86);
    memcpy(name90 + 86, ".pbz", 5);
    snprintf(sub, sizeof sub, "%s/%s", dir, name200);
    assert_int_equal(mkdir(sub, 0755), 0);
    int n = snprintf(path, sizeof path, "%s/%s", sub, name90);
    assert_true(n > 300 && n < 400);
    view_opts vo = { .export_dir = sub };
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", &vo);
    view *v = f->v;
    /* e offers a name in the long directory, whole */
    view_key(v, 'e');
    assert_int_equal(strncmp(view_prompt(v), sub, strlen(sub)), 0);
    assert_non_null(strstr(view_prompt(v), "alexnet_train.pb.gz"));
    /* typed: written at exactly that path, nothing else in the directory */
    view_key(v, SEARCH_KILL_LINE);
    for (const char *p = path; *p; p++)
        view_key(v, (unsigned char)*p);
    assert_string_equal(view_prompt(v), path);
    view_key(v, VK_ENTER);
    assert_int_equal(view_mode_of(v), VIEW_MODE_NORMAL);
    assert_int_equal(access(path, R_OK), 0);
    char foot[8192];
    assert_non_null(strstr(view_status(v), name90));
    /* the prompt shows the end of a path wider than the screen, where the
       cursor is */
    view_key(v, 'e');
    screen_line(v, -2, foot, sizeof foot);
    assert_non_null(strstr(foot, "export to: …"));
    assert_non_null(strstr(foot, "/alexnet_train.pb.gz"));
    assert_true(view_prompt_col(v) <= view_width(v) - 1);
    view_key(v, VK_ESC);
    /* a path longer than a path may be: refused as typed, nothing written */
    view_key(v, 'e');
    view_key(v, SEARCH_KILL_LINE);
    view_key(v, '/');
    for (int i = 0; i < 5000 && view_mode_of(v) == VIEW_MODE_EXPORT; i++)
        view_key(v, 'x');
    assert_int_equal(view_mode_of(v), VIEW_MODE_EXPORT);
    assert_non_null(strstr(view_status(v), "path too long"));
    assert_int_equal(strlen(view_prompt(v)), 4095);
    view_key(v, VK_ESC);
    /* ~/ whose expansion passes the limit: the same reason, RETRY */
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char longhome[4100];
    memset(longhome, 'h', sizeof longhome - 1);
    longhome[0] = '/';
    longhome[sizeof longhome - 1] = '\0';
    setenv("HOME", longhome, 1);
    assert_int_equal(view_export_to(v, "~/x.pb.gz"), VIEW_EXPORT_RETRY);
    assert_non_null(strstr(view_status(v), "path too long"));
    if (home)
        setenv("HOME", home, 1);
    else
        unsetenv("HOME");
    free(home);
    /* only the file typed was written */
    unlink(path);
    assert_int_equal(rmdir(sub), 0);
    assert_int_equal(rmdir(dir), 0);
    unit_view_close(f);
}

static void test_export(void **state)
{
    (void)state;
    char dir[] = "/tmp/t2p-view-export-XXXXXX";
    assert_non_null(mkdtemp(dir));
    view_opts vo = { .export_dir = dir };
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", &vo);
    view *v = f->v;
    char path[512], foot[1024], ms[32];
    /* the whole trace: e offers the free name, Enter writes it; its total
       is the busy time */
    assert_int_equal(view_key(v, 'e'), VIEW_DRAW_FOOTER);
    snprintf(path, sizeof path, "%s/alexnet_train.pb.gz", dir);
    assert_int_equal(view_mode_of(v), VIEW_MODE_EXPORT);
    assert_string_equal(view_prompt(v), path);
    assert_int_equal(access(path, F_OK), -1); /* nothing written before Enter */
    view_key(v, VK_ENTER);
    assert_int_equal(view_mode_of(v), VIEW_MODE_NORMAL);
    assert_int_equal(access(path, R_OK), 0);
    screen_line(v, -2, foot, sizeof foot);
    assert_non_null(strstr(foot, path));
    assert_non_null(strstr(foot, fmt_ms(f->m->busy_ns, ms, sizeof ms)));
    /* a focus: the next free name, the scope's busy time */
    view_key(v, VK_ENTER);
    int64_t busy = scope_busy(view_scope(v));
    assert_true(busy > 0 && busy < f->m->busy_ns);
    view_key(v, 'e');
    view_key(v, VK_ENTER);
    snprintf(path, sizeof path, "%s/alexnet_train-1.pb.gz", dir);
    assert_int_equal(access(path, R_OK), 0);
    assert_non_null(strstr(view_status(v), fmt_ms(busy, ms, sizeof ms)));
    /* a category (no select_spec for it): the view's own mask */
    view_key(v, VK_ESC);
    view_key(v, '2');
    view_key(v, VK_ENTER);
    busy = scope_busy(view_scope(v));
    view_key(v, 'e');
    view_key(v, VK_ENTER);
    snprintf(path, sizeof path, "%s/alexnet_train-2.pb.gz", dir);
    assert_int_equal(access(path, R_OK), 0);
    assert_non_null(strstr(view_status(v), fmt_ms(busy, ms, sizeof ms)));
    /* a path that exists: refused, the prompt stays for another one */
    view_key(v, 'e');
    view_key(v, SEARCH_KILL_LINE);
    assert_string_equal(view_prompt(v), "");
    for (const char *p = path; *p; p++)
        view_key(v, (unsigned char)*p);
    view_key(v, VK_ENTER);
    assert_int_equal(view_mode_of(v), VIEW_MODE_EXPORT);
    assert_non_null(strstr(view_status(v), "exists"));
    view_key(v, VK_ESC);
    assert_int_equal(view_mode_of(v), VIEW_MODE_NORMAL);
    assert_non_null(strstr(view_status(v), "nothing written"));
    /* a directory of mode 0555: refused by its mode bits, even for root */
    char ro[600], rofile[700];
    snprintf(ro, sizeof ro, "%s/ro", dir);
    assert_int_equal(mkdir(ro, 0555), 0);
    assert_int_equal(chmod(ro, 0555), 0);
    snprintf(rofile, sizeof rofile, "%s/x.pb.gz", ro);
    assert_int_equal(view_export_to(v, rofile), VIEW_EXPORT_RETRY);
    assert_non_null(strstr(view_status(v), "cannot write in"));
    assert_non_null(strstr(view_status(v), strerror(EACCES)));
    assert_int_equal(access(rofile, F_OK), -1);
    rmdir(ro);
    /* a directory that does not exist: a message, no crash */
    view_set_export_dir(v, "/nonexistent-dir");
    assert_int_equal(view_export(v), -1);
    assert_non_null(strstr(view_status(v), "cannot write in /nonexistent-dir"));
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, i ? "%s/alexnet_train-%d.pb.gz" : "%s/alexnet_train.pb.gz", dir, i);
        unlink(path);
    }
    rmdir(dir);
    unit_view_close(f);
}

/* ------------------------------------------------------------- layout */

static void test_layout_widths(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    char line[8192];
    bool gpu;
    for (int w = 80; w <= 250; w += 85) {
        view_resize(v, w, 24);
        for (int tab = 0; tab < VIEW_NTABS; tab++) {
            view_key(v, '1' + tab);
            screen_line(v, 3, line, sizeof line);
            if (fmt_width(line, strlen(line)) != (size_t)w)
                fail_msg("tab %d width %d header: [%s]", tab, w, line);
            for (size_t i = 0; i < view_nrows(v) && i < 30; i++) {
                view_body_line(v, i, line, sizeof line, &gpu);
                if (fmt_width(line, strlen(line)) != (size_t)w)
                    fail_msg("tab %d width %d row %zu: [%s]", tab, w, i, line);
            }
            screen_line(v, 0, line, sizeof line);
            assert_int_equal(fmt_width(line, strlen(line)), w);
            screen_line(v, -2, line, sizeof line);
            assert_int_equal(fmt_width(line, strlen(line)), w);
        }
    }
    /* the device columns, since this trace has GPU work */
    view_resize(v, 200, 24);
    view_key(v, '1');
    screen_line(v, 3, line, sizeof line);
    assert_non_null(strstr(line, "Dev self ms"));
    assert_non_null(strstr(line, "Dev total ms"));
    view_key(v, '3');
    view_key(v, 'E');
    bool any = false;
    for (size_t i = 0; i < view_nrows(v); i++) {
        view_body_line(v, i, line, sizeof line, &gpu);
        if (gpu) {
            any = true;
            assert_non_null(strstr(line, "[GPU]"));
        }
    }
    assert_true(any);
    /* a long name is cut, and shown in full in the footer */
    view_resize(v, 80, 24);
    view_key(v, 'g');
    view_key(v, '1');
    view_body_line(v, 0, line, sizeof line, &gpu);
    assert_non_null(strstr(line, "\xe2\x80\xa6"));
    screen_line(v, -2, line, sizeof line);
    assert_non_null(strstr(line, "cudaDeviceGetStreamPriorityRange"));
    unit_view_close(f);
}

static void test_top_and_help(void **state)
{
    (void)state;
    view_opts vo = { .top = 2, .tab = VIEW_OPS };
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/cnn_train_cpu.json.gz", &vo);
    view *v = f->v;
    assert_int_equal(view_nrows(v), 2);
    assert_int_equal(view_key(v, '?'), VIEW_DRAW_ALL);
    assert_int_equal(view_mode_of(v), VIEW_MODE_HELP);
    assert_non_null(view_help_line(v, 0));
    view_key(v, 'x');
    assert_int_equal(view_mode_of(v), VIEW_MODE_NORMAL);
    assert_int_equal(view_key(v, 'q'), VIEW_QUIT);
    unit_view_close(f);
}

/* ------------------------------------------------------------- scoped figures */

/* The row of the current flat view whose name is name, and its line. */
static size_t row_of(view *v, const char *name)
{
    char buf[600];
    size_t len;
    for (size_t i = 0; i < view_nrows(v); i++) {
        const char *s = view_row_name(v, i, buf, sizeof buf, &len);
        if (len == strlen(name) && !strncmp(s, name, len))
            return i;
    }
    fail_msg("no row %s", name);
    return 0;
}

static void test_scoped_tables(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(hand_trace, NULL);
    view *v = f->v;
    const model *m = f->m;
    /* focus on C: the stacks A>B>C and A>C (twice) */
    keys(v, "jj");
    view_key(v, VK_ENTER);
    view_key(v, '1');
    /* only the ops on the scope's stacks, by their self time in it */
    assert_string_equal(row_names(v), "C A B");
    const scope_fig *sf = scope_ops(view_scope(v));
    assert_non_null(sf);
    uint32_t A = unit_op_index(m, "A"), B = unit_op_index(m, "B"), C = unit_op_index(m, "C");
    assert_int_equal(sf[C].self_ns, 30000);
    assert_int_equal(sf[C].total_ns, 30000);
    assert_int_equal(sf[C].calls, 3);
    assert_int_equal(sf[A].self_ns, 0);
    assert_int_equal(sf[A].total_ns, 30000);
    assert_int_equal(sf[A].cum_ns, 30000);
    assert_int_equal(sf[A].calls, 3);
    assert_int_equal(sf[B].total_ns, 10000);
    /* the line shows them, and Self% is of the scope's time */
    char line[1024], ms[32];
    bool gpu;
    view_body_line(v, row_of(v, "C"), line, sizeof line, &gpu);
    assert_non_null(strstr(line, "100.0"));
    view_body_line(v, row_of(v, "A"), line, sizeof line, &gpu);
    assert_non_null(strstr(line, fmt_ms(30000, ms, sizeof ms)));
    assert_null(strstr(line, fmt_ms(m->ops[A].total_ns, ms, sizeof ms)));
    /* categories: op (A, B) and leaf (C) */
    view_key(v, '2');
    assert_string_equal(row_names(v), "leaf op");
    const scope_fig *cf = scope_cats(view_scope(v));
    uint32_t cat_op = scope_op_cat(view_scope(v), A), cat_leaf = scope_op_cat(view_scope(v), C);
    assert_int_equal(cf[cat_leaf].self_ns, 30000);
    assert_int_equal(cf[cat_leaf].calls, 3);
    assert_int_equal(cf[cat_op].total_ns, 40000);
    assert_int_equal(cf[cat_op].calls, 5);
    view_key(v, VK_ESC);
    view_key(v, VK_ESC);

    /* Threads: Enter on track 1 (the busier) focuses the per-track tree on it */
    view_key(v, '4');
    view_key(v, VK_ENTER);
    assert_int_equal(view_current(v), VIEW_TREE);
    assert_false(view_tree_merged(v));
    assert_int_equal(scope_entry_at(view_scope(v), 0)->kind, SCOPE_TRACK);
    assert_int_equal(scope_busy(view_scope(v)), 150000);
    /* the root row: the scope's calls on it (A 2, B 2, C 2, D 1), not the track's events */
    view_fig fig;
    view_tree_fig(v, view_row(v, 0), &fig);
    assert_int_equal(fig.calls, 7);
    assert_int_equal(fig.total_ns, 150000);
    assert_int_equal(view_nrows(v) > 1, true);
    /* m cannot merge a track's focus */
    view_key(v, 'm');
    assert_false(view_tree_merged(v));
    assert_non_null(strstr(view_status(v), "one track"));
    view_key(v, '1');
    assert_string_equal(row_names(v), "A B C D");
    sf = scope_ops(view_scope(v));
    assert_int_equal(sf[A].self_ns, 70000);
    assert_int_equal(sf[C].self_ns, 20000);
    /* a focus on C on top: track 1's C stacks */
    view_key(v, VK_HOME);
    keys(v, "jj");
    view_key(v, VK_ENTER);
    assert_int_equal(scope_busy(view_scope(v)), 20000);
    view_tree_fig(v, view_row(v, 0), &fig);
    assert_int_equal(fig.calls, 2 + 2 + 1 + 1); /* the frames leading to C: A, B (its node: 2 calls), C twice */
    unit_view_close(f);
}

/* A kernel's device figures agree in Ops, in the tree under its launches
   and on its stream; a [GPU] row shows its GPU events and their time. */
static void test_gpu_rows(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    const model *m = f->m;
    view_key(v, '3');
    size_t checked = 0;
    for (uint32_t op = 0; op < m->nops; op++) {
        if (!m->ops[op].gpu)
            continue;
        int64_t under_launch = 0, on_stream = 0, leaf_on_stream = 0;
        for (uint32_t n = 0; n < m->nnodes; n++) {
            const model_node *nd = &m->nodes[n];
            if (nd->parent == MODEL_NONE || nd->op != op)
                continue;
            view_fig fg;
            view_tree_fig(v, n, &fg);
            if (nd->gpu) {
                assert_true(fg.calls > 0);
                assert_int_equal(fg.calls, nd->dev_events);
                under_launch += fg.dev_total_ns;
            } else {
                on_stream += fg.dev_total_ns;
                leaf_on_stream += nd->dev_leaf_ns;
            }
        }
        assert_int_equal(on_stream, m->ops[op].dev_total_ns);
        assert_int_equal(under_launch + leaf_on_stream, m->ops[op].dev_total_ns);
        checked++;
    }
    assert_true(checked > 5);
    /* on screen: a [GPU] row has a count and a time, "-" for CPU time */
    view_resize(v, 200, 40);
    view_key(v, 'E');
    char line[2048], ms[32];
    bool gpu, seen = false;
    for (size_t i = 0; i < view_nrows(v) && !seen; i++) {
        view_body_line(v, i, line, sizeof line, &gpu);
        uint32_t u = view_row(v, i);
        if (!m->nodes[u].gpu)
            continue;
        seen = true;
        char want[64];
        snprintf(want, sizeof want, " %s ", fmt_ms(m->nodes[u].dev_total_ns, ms, sizeof ms));
        assert_non_null(strstr(line, want));
        assert_non_null(strstr(line, "  - "));
    }
    assert_true(seen);
    unit_view_close(f);
}

/* ------------------------------------------------------------- the key table */

/* Every key of the table has a --replay name that parses back to it, the
   help names every action, and every view's hint bar shows ? and q. */
/* The hint bar: whole hints in table order, as many as the width takes,
   never one cut (at 120 columns the Tree's once ended in "i call…"). */
static void test_hint_bar(void **state)
{
    (void)state;
    char full[1200], bar[1200];
    keys_hint(VIEW_TREE, VIEW_NTABS, 1000, full, sizeof full);
    assert_non_null(strstr(full, "i callers"));
    for (size_t cols = 20; cols <= 220; cols += 7) {
        keys_hint(VIEW_TREE, VIEW_NTABS, cols, bar, sizeof bar);
        assert_true(fmt_width(bar, strlen(bar)) <= cols);
        assert_null(strstr(bar, "\xe2\x80\xa6")); /* no ellipsis */
        /* a prefix of the whole bar that ends where a hint ends */
        size_t n = strlen(bar);
        assert_int_equal(strncmp(bar, full, n), 0);
        assert_true(full[n] == '\0' || (full[n] == ' ' && full[n + 1] == ' '));
        /* and the next hint would not have fitted */
        if (full[n]) {
            const char *next = full + n + 2, *end = strstr(next, "  ");
            size_t nl = end ? (size_t)(end - next) : strlen(next);
            assert_true(fmt_width(bar, n) + 2 + fmt_width(next, nl) > cols);
        }
    }
    keys_hint(VIEW_TREE, VIEW_NTABS, 120, bar, sizeof bar);
    assert_non_null(strstr(bar, "e export"));
    assert_null(strstr(bar, "i call"));
}

/* A click on the tab line selects the tab drawn there: view_tab_at reads
   the line's own layout, for the current tab ([N Label]) and the others. */
static void test_tab_at(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(hand_trace, NULL);
    view *v = f->v;
    char line[4096], want[64];
    view_resize(v, 240, 40); /* room for every tab */
    for (int cur = 0; cur < 3; cur++) {
        view_key(v, '1' + cur);
        screen_line(v, 2, line, sizeof line);
        for (int i = 0; i < VIEW_NTABS; i++) {
            /* the digits stop at nine: the views after them have no tab
               but the current one's (Tab, V) */
            if (i >= 9 && i != (int)view_current(v))
                continue;
            if (i < 9)
                snprintf(want, sizeof want, "%d %s", i + 1, view_table_ops((enum view_tab)i)->label);
            else
                snprintf(want, sizeof want, " %s ", view_table_ops((enum view_tab)i)->label);
            const char *at = strstr(line, want);
            assert_non_null(at);
            int x = (int)(at - line); /* the tabs are ASCII: bytes are columns */
            assert_int_equal(view_tab_at(v, x), i);
            assert_int_equal(view_tab_at(v, x + (int)strlen(want) - 1), i);
        }
        assert_int_equal(view_tab_at(v, 2000), -1);
    }
    unit_view_close(f);
}

/* The Tree's memory columns (Enter in the Memory view) sort as its other
   columns do: < and > reach them, siblings go by that figure, the tab line
   names it and the column wears the arrow; leaving the focus takes the sort
   back to total. */
static void test_tree_memory_sort(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/tests/fixtures/cnn_memory.json.gz", NULL);
    view *v = f->v;
    char line[4096];
    view_resize(v, 160, 40); /* the tab line holds nine tabs, then the sort */
    keys(v, "8jjjjjjjjjj");
    view_key(v, VK_ENTER);
    assert_int_equal(view_current(v), VIEW_TREE);
    view_key(v, 'E');
    screen_line(v, 3, line, sizeof line);
    assert_non_null(strstr(line, "Alloc size"));
    /* from total, six steps back: the memory sorts, last one first (a
       screen wide enough for the sort after every tab) */
    view_resize(v, 160, 40);
    for (int i = 0; i < 6; i++)
        view_key(v, '<');
    screen_line(v, 2, line, sizeof line);
    assert_non_null(strstr(line, "sort: alloc_size"));
    screen_line(v, 3, line, sizeof line);
    assert_non_null(strstr(line, "Alloc size\xe2\x96\xbc"));
    /* siblings by allocation size, largest first: each row against the
       next row under the same parent */
    const struct tree_rows *t = view_tree_rows(v);
    bool merged = view_tree_merged(v);
    size_t n = view_nrows(v), checked = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = view_row(v, i);
        for (size_t j = i + 1; j < n; j++) {
            uint32_t c = view_row(v, j);
            if (tree_rows_parent(t, c) == tree_rows_parent(t, a)) {
                assert_true(tree_mem_key(v, merged, a, TREE_MEM_SORT0) >=
                            tree_mem_key(v, merged, c, TREE_MEM_SORT0));
                checked++;
                break;
            }
        }
    }
    assert_true(checked > 5);
    /* Esc leaves the focus: the columns and their sort go */
    view_key(v, VK_ESC);
    view_key(v, '3');
    screen_line(v, 2, line, sizeof line);
    assert_null(strstr(line, "alloc_size"));
    assert_non_null(strstr(line, "sort: total"));
    unit_view_close(f);
}

static void test_key_table(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(hand_trace, NULL);
    view *v = f->v;
    bool acts[ACT_N] = { false };
    char name[64], got[64];
    for (const key_def *k = keys_table(); k->act != ACT_NONE; k++) {
        acts[k->act] = true;
        if (k->key == KEYS_DIGITS)
            continue;
        /* the script name: <Name> for named keys, the byte otherwise */
        keys_name(k->key, name, sizeof name);
        char script[80];
        if (k->key >= VK_UP || k->key == '<' || k->key == '>' || k->key == ' ') {
            static const struct { int key; const char *s; } sn[] = {
                { VK_UP, "<Up>" }, { VK_DOWN, "<Down>" }, { VK_LEFT, "<Left>" },
                { VK_RIGHT, "<Right>" }, { VK_PGUP, "<PgUp>" }, { VK_PGDN, "<PgDn>" },
                { VK_HOME, "<Home>" }, { VK_END, "<End>" }, { VK_ENTER, "<Enter>" },
                { VK_ESC, "<Esc>" }, { VK_BACKSPACE, "<BS>" }, { VK_TAB, "<Tab>" },
                { VK_BTAB, "<BTab>" }, { VK_F1, "<F1>" }, { '<', "<lt>" }, { '>', "<gt>" },
                { ' ', "<Space>" } };
            script[0] = '\0';
            for (size_t i = 0; i < sizeof sn / sizeof *sn; i++)
                if (sn[i].key == k->key)
                    snprintf(script, sizeof script, "%s", sn[i].s);
            if (!script[0])
                fail_msg("key %s has no --replay name", name);
        } else {
            snprintf(script, sizeof script, "%c", k->key);
        }
        const char *p = script;
        assert_int_equal(keys_script_next(&p, got, sizeof got), k->key);
        /* the help shows the key by the name keys_name gives */
        bool shown = false;
        for (size_t i = 0; i < view_help_count(v); i++) {
            const char *l = v->help_lines[i];
            if (strlen(l) > 20 && strncmp(l, "  ", 2) == 0) {
                char keycol[20];
                snprintf(keycol, sizeof keycol, "%.17s ", l + 2);
                for (char *t = strtok(keycol, " "); t; t = strtok(NULL, " "))
                    shown |= strcmp(t, name) == 0;
            }
        }
        if (!shown)
            fail_msg("key %s is not in the help", name);
    }
    /* the help is whole, however long the table makes it: its last line */
    assert_true(view_help_count(v) > 128);
    assert_string_equal(v->help_lines[view_help_count(v) - 1],
                        "Search and filter ignore case unless the text has a capital (smart case).");
    for (int a = ACT_NONE + 1; a < ACT_N; a++)
        if (!acts[a])
            fail_msg("action %d has no key", a);
    /* the digits go to the first nine views, Tab to the ones after */
    for (int t = 0; t < VIEW_NTABS; t++) {
        if (t < 9)
            view_key(v, '1' + t);
        else
            view_key(v, VK_TAB);
        assert_int_equal(view_current(v), t);
        char bar[1024];
        screen_line(v, -1, bar, sizeof bar);
        assert_non_null(strstr(bar, "q quit"));
        assert_non_null(strstr(bar, "? help"));
    }
    unit_view_close(f);
}

/* A view re-pointed at another model shows that model's rows. */
static void test_set_model(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open_text(hand_trace, NULL);
    struct fixture *g = unit_view_open(TOP_SRCDIR "/data/cnn_train_cpu.json.gz", NULL);
    view *v = f->v;
    keys(v, "jj");
    view_key(v, VK_ENTER);
    assert_int_equal(scope_depth(view_scope(v)), 1);
    assert_int_equal(view_set_model(v, g->m), 0);
    assert_int_equal(scope_depth(view_scope(v)), 0);
    view_key(v, '1');
    assert_int_equal(view_nrows(v), g->m->nops);
    keys(v, "3E");
    assert_true(view_nrows(v) > g->m->ntracks);
    char line[1024];
    screen_line(v, 0, line, sizeof line);
    assert_non_null(strstr(line, "cnn_train_cpu"));
    unit_view_close(f);
    unit_view_close(g);
}

/* ------------------------------------------------------------- mouse */

/* The mouse without a terminal: a click on screen line y selects row
   top + (y - chrome), the wheel moves the cursor by three, a double-click
   on a tree node folds and unfolds it, a click on a tab shows its view. */
static void test_mouse(void **state)
{
    (void)state;
    struct fixture *f = unit_view_open(TOP_SRCDIR "/data/alexnet_train.json.gz", NULL);
    view *v = f->v;
    view_resize(v, 80, 24);
    view_key(v, '1');
    assert_true(view_nrows(v) > 40);
    view_key(v, VK_PGDN);
    view_key(v, VK_PGDN);
    size_t top = view_top(v);
    assert_true(top > 0);
    assert_int_not_equal(mouse_event(v, MOUSE_CLICK, 10, VIEW_CHROME_TOP + 5), 0);
    assert_int_equal(view_cursor(v), top + 5);
    assert_int_equal(view_top(v), top); /* a click does not scroll */
    /* the wheel: three rows a notch */
    mouse_event(v, MOUSE_WHEEL_DOWN, 10, 10);
    assert_int_equal(view_cursor(v), top + 8);
    mouse_event(v, MOUSE_WHEEL_UP, 10, 10);
    mouse_event(v, MOUSE_WHEEL_UP, 10, 10);
    assert_int_equal(view_cursor(v), top + 2);
    /* chrome lines and rows past the last one select nothing */
    size_t c = view_cursor(v);
    assert_int_equal(mouse_event(v, MOUSE_CLICK, 10, 0), 0);
    assert_int_equal(mouse_event(v, MOUSE_CLICK, 10, view_height(v) - 1), 0);
    assert_int_equal(view_cursor(v), c);
    view_key(v, VK_END);
    size_t last = view_cursor(v);
    mouse_event(v, MOUSE_CLICK, 10, view_height(v) - 3); /* the last body line */
    assert_int_equal(view_cursor(v), last);
    /* a tab: " 1 Ops   2 Categories  [3 Tree]": column 10 is Categories */
    mouse_event(v, MOUSE_CLICK, 10, 2);
    assert_int_equal(view_current(v), VIEW_CATS);
    mouse_event(v, MOUSE_CLICK, 25, 2);
    assert_int_equal(view_current(v), VIEW_TREE);
    /* the tree: a double-click on a node with children folds it, again unfolds */
    const struct tree_rows *t = view_tree_rows(v);
    size_t r = SIZE_MAX;
    for (size_t i = 0; i < view_nrows(v) && i < (size_t)(view_height(v) - VIEW_CHROME); i++)
        if (tree_rows_has_kids(t, view_row(v, i)) && i >= view_top(v)) {
            r = i;
            break;
        }
    assert_true(r != SIZE_MAX);
    uint32_t u = view_row(v, r);
    bool was = tree_rows_expanded(t, u);
    size_t n = view_nrows(v);
    int y = VIEW_CHROME_TOP + (int)(r - view_top(v));
    mouse_event(v, MOUSE_DOUBLE, 30, y);
    assert_int_equal(view_cursor(v), r);
    assert_true(tree_rows_expanded(t, u) != was);
    assert_int_not_equal(view_nrows(v), n);
    mouse_event(v, MOUSE_DOUBLE, 30, y);
    assert_true(tree_rows_expanded(t, u) == was);
    assert_int_equal(view_nrows(v), n);
    /* a prompt open: the mouse leaves it alone */
    view_key(v, '/');
    c = view_cursor(v);
    assert_int_equal(mouse_event(v, MOUSE_WHEEL_DOWN, 10, 10), 0);
    assert_int_equal(view_cursor(v), c);
    unit_view_close(f);
}

/* ------------------------------------------------------------- ranks' load screen */

/* One line per file with its own percentage and state, the overall
   fraction weighted by file size, and a count of what does not fit. */
static void test_ranks_progress(void **state)
{
    (void)state;
    ranks_file files[4];
    memset(files, 0, sizeof files);
    char *names[4] = { "dir/rank0.json.gz", "dir/rank1.json.gz", "dir/rank2.json.gz",
                       "dir/rank3.json.gz" };
    for (int i = 0; i < 4; i++)
        files[i].path = names[i];
    ranks_job j = { .files = files, .nfiles = 4 };
    ranks_file_progress p[4] = { { RANKS_READING, 45, 100 }, { RANKS_DONE, 300, 300 },
                                 { RANKS_WAITING, 0, 100 }, { RANKS_BUILDING, 500, 500 } };
    /* (45 + 300 + 0 + 500) / 1000 of the bytes */
    assert_true(progress_ranks_fraction(&j, p) > 0.8449 && progress_ranks_fraction(&j, p) < 0.8451);
    char buf[8192];
    size_t n = progress_ranks_text(&j, p, 1.5, 100, 20, buf, sizeof buf);
    assert_int_equal(n, 3 + 4);
    assert_non_null(strstr(buf, "Loading 4 traces: 1 done, 2 at work, 1 waiting"));
    assert_non_null(strstr(buf, " 84%\n") ? strstr(buf, " 84%\n") : strstr(buf, " 85%\n"));
    const char *l = strstr(buf, "rank0.json.gz");
    assert_non_null(l);
    assert_non_null(strstr(l, "45% reading"));
    /* at work first (rank0 reading, rank3 building), then waiting, then done */
    assert_true(strstr(buf, "rank3.json.gz") < strstr(buf, "rank2.json.gz"));
    assert_non_null(strstr(strstr(buf, "rank3.json.gz"), "100% building"));
    assert_true(strstr(buf, "rank2.json.gz") > l);
    assert_true(strstr(buf, "rank1.json.gz") > strstr(buf, "rank2.json.gz")); /* then done */
    assert_non_null(strstr(strstr(buf, "rank1.json.gz"), "100% done"));
    /* every line within the width */
    for (char *s = buf, *e; (e = strchr(s, '\n')); s = e + 1)
        assert_true(fmt_width(s, (size_t)(e - s)) <= 100);
    /* a short screen: the files at work, then a count of the rest */
    n = progress_ranks_text(&j, p, 1.5, 100, 6, buf, sizeof buf);
    assert_int_equal(n, 6);
    assert_non_null(strstr(buf, "... and 2 more"));
    assert_null(strstr(buf, "rank1.json.gz"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_every_sort),
        cmocka_unit_test(test_ops_scoped_ties),
        cmocka_unit_test(test_cats_and_threads),
        cmocka_unit_test(test_tree_expand_collapse),
        cmocka_unit_test(test_tree_rows_consistent),
        cmocka_unit_test(test_focus_and_back),
        cmocka_unit_test(test_search),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_scope_matches_select),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_export_long_paths),
        cmocka_unit_test(test_layout_widths),
        cmocka_unit_test(test_top_and_help),
        cmocka_unit_test(test_key_table),
        cmocka_unit_test(test_tree_memory_sort),
        cmocka_unit_test(test_tab_at),
        cmocka_unit_test(test_hint_bar),
        cmocka_unit_test(test_scoped_tables),
        cmocka_unit_test(test_gpu_rows),
        cmocka_unit_test(test_set_model),
        cmocka_unit_test(test_mouse),
        cmocka_unit_test(test_ranks_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
