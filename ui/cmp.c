#include "config.h"

#include "ui/cmp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/pprof/pprof.h"
#include "core/analyses/steps.h"
#include "ui/tree_rows.h"
#include "ui/views/view_util.h"

compare_fig cmp_shown(const view *v, const compare_fig *b, const compare_fig *n)
{
    switch (v->cmp_fig) {
    case CMP_FIG_BASE: return *b;
    case CMP_FIG_DELTA: return compare_delta(b, n);
    default: return *n;
    }
}

void cmp_cell_dms(cols_line *l, int64_t ns, int width)
{
    char s[64];
    fmt_ms_signed(ns, s, sizeof s);
    cols_cell(l, s, strlen(s), width, true);
}

static bool integral(double x)
{
    return x == floor(x) && fabs(x) < 9e15;
}

static void count_cell(cols_line *l, double n, int width, bool sign)
{
    char t[48], s[64];
    if (integral(n)) {
        fmt_count((uint64_t)fabs(n), t, sizeof t);
        snprintf(s, sizeof s, "%s%s", n < 0 ? "-" : sign && n > 0 ? "+" : "", t);
    } else {
        snprintf(s, sizeof s, sign ? "%+.2f" : "%.2f", n);
    }
    cols_cell(l, s, strlen(s), width, true);
}

void cmp_cell_dcount(cols_line *l, double n, int width)
{
    count_cell(l, n, width, true);
}

void cmp_cell_count(cols_line *l, double n, int width)
{
    count_cell(l, n, width, false);
}

void cmp_cell_dpct(cols_line *l, enum compare_status st, const compare_fig *b,
                   const compare_fig *n, int width)
{
    char s[48];
    if (st == COMPARE_ADDED || (b->self_ns == 0 && n->self_ns != 0))
        snprintf(s, sizeof s, "new");
    else if (st == COMPARE_REMOVED)
        snprintf(s, sizeof s, "gone");
    else if (b->self_ns == 0)
        snprintf(s, sizeof s, "0.0");
    else
        snprintf(s, sizeof s, "%+.1f", compare_delta_pct(b, n));
    cols_cell(l, s, strlen(s), width, true);
}

void cmp_cell_name(cols_line *l, enum compare_status st, const char *s, size_t len, int width)
{
    cols_put(l, st == COMPARE_ADDED ? "+ " : st == COMPARE_REMOVED ? "- " : "  ", 2);
    cols_cell(l, s, len, width - 2, false);
}

enum view_style cmp_style(int64_t delta)
{
    return delta > 0 ? VIEW_STYLE_ROW_WORSE : delta < 0 ? VIEW_STYLE_ROW_BETTER : VIEW_STYLE_ROW;
}

enum compare_sort cmp_sort_of(enum model_sort s)
{
    switch (s) {
    case MODEL_SORT_TOTAL: return COMPARE_SORT_DELTA_TOTAL;
    case MODEL_SORT_CALLS: return COMPARE_SORT_DELTA_CALLS;
    case MODEL_SORT_NAME: return COMPARE_SORT_NAME;
    case MODEL_SORT_AVG: return COMPARE_SORT_DELTA_PCT;
    case MODEL_SORT_DEVICE_SELF: return COMPARE_SORT_DELTA_DEVICE_SELF;
    case MODEL_SORT_DEVICE_TOTAL: return COMPARE_SORT_DELTA_DEVICE_TOTAL;
    default: return COMPARE_SORT_DELTA_SELF;
    }
}

static const char *const fig_names[CMP_FIG_N] = { "new", "base", "delta" };

char *cmp_export_name(view *v, const char *dir)
{
    const char *np = v->cmp->new->tr->path;
    const char *slash = strrchr(np, '/');
    char stem[600];
    snprintf(stem, sizeof stem, "%.*s-diff", (int)strcspn(slash ? slash + 1 : np, "."),
             slash ? slash + 1 : np);
    return pprof_free_path(dir, stem);
}

const enum key_act cmp_table_off[] = { ACT_DRILL, ACT_NONE };
const enum key_act cmp_tree_off[] = { ACT_MERGE, ACT_SOURCE, ACT_NONE };

int cmp_action(view *v, enum key_act act)
{
    switch (act) {
    case ACT_CMP_FIGS:
        v->cmp_fig = (v->cmp_fig + 1) % CMP_FIG_N;
        view_status_set(v, "figures: %s (Δ columns always new minus base)", fig_names[v->cmp_fig]);
        return VIEW_DRAW_ALL;
    case ACT_DRILL:
    case ACT_FOCUS:
        view_status_set(v, "comparing: f in the Tree focuses a stack (\\ filters by name)");
        return VIEW_DRAW_FOOTER;
    case ACT_MERGE:
        view_status_set(v, "comparing: the tree is merged across tracks");
        return VIEW_DRAW_FOOTER;
    default:
        return -1;
    }
}

void cmp_tabinfo(view *v, char *buf, size_t size)
{
    snprintf(buf, size, " (by |Δ|)  figures: %s (b)", fig_names[v->cmp_fig]);
}

void cmp_title(const view *v, char *buf, size_t size)
{
    const compare *c = v->cmp;
    char a[32], b[32], d[64];
    compare_fig db = compare_delta(&c->base_busy, &c->new_busy);
    fmt_ms_signed(db.self_ns, d, sizeof d);
    snprintf(buf, size, "%s vs base %s | busy %s ms -> %s ms (%s ms)", c->new->tr->path,
             c->base->tr->path, fmt_ms(c->base_busy.self_ns, a, sizeof a),
             fmt_ms(c->new_busy.self_ns, b, sizeof b), d);
}

const compare_row *cmp_table_rows(const view *v, enum view_tab tab, size_t *n)
{
    const compare *c = v->cmp;
    switch (tab) {
    case VIEW_CATS: *n = c->ncats; return c->cats;
    case VIEW_THREADS: *n = c->nthreads; return c->threads;
    default: *n = c->nops; return c->ops;
    }
}

int cmp_table_open(view *v, enum view_tab tab)
{
    size_t n;
    cmp_table_rows(v, tab, &n);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    view_set_state(v, tab, order);
    return order ? 0 : -1;
}

void cmp_table_close(view *v, enum view_tab tab)
{
    free(view_state(v, tab));
}

int cmp_table_rebuild(view *v, enum view_tab tab, view_rows *r, bool limit)
{
    const compare *c = v->cmp;
    size_t n;
    const compare_row *rows = cmp_table_rows(v, tab, &n);
    uint32_t *order = view_state(v, tab);
    compare_sort_rows(c, rows, n, cmp_sort_of(v->sort), v->reverse, order);
    for (size_t i = 0; i < n; i++) {
        if (limit && v->top_ops && r->n >= v->top_ops)
            break;
        if (scope_name_passes(v->scope, compare_str(c, rows[order[i]].name)) &&
            view_rows_push(r, order[i]) < 0)
            return -1;
    }
    return 0;
}

const char *cmp_table_name(const view *v, enum view_tab tab, uint32_t id, size_t *len)
{
    size_t n;
    const compare_row *r = &cmp_table_rows(v, tab, &n)[id];
    if (tab == VIEW_CATS)
        return fmt_category(compare_str(v->cmp, r->name), compare_strlen(v->cmp, r->name), len);
    *len = compare_strlen(v->cmp, r->name);
    return compare_str(v->cmp, r->name);
}

bool cmp_table_cell(view *v, enum view_tab tab, uint32_t id, const col *c, int namew,
                    cols_line *l)
{
    const compare *cm = v->cmp;
    size_t n;
    const compare_row *r = &cmp_table_rows(v, tab, &n)[id];
    compare_fig f = cmp_shown(v, &r->b, &r->n), d = compare_delta(&r->b, &r->n);
    bool delta = v->cmp_fig == CMP_FIG_DELTA;
    void (*ms)(cols_line *, int64_t, int) = delta ? cmp_cell_dms : view_cell_ms;
    switch (c->id) {
    case CMP_COL_NAME: {
        size_t len;
        const char *s = cmp_table_name(v, tab, id, &len);
        cmp_cell_name(l, r->status, s, len, namew);
        break;
    }
    case CMP_COL_CAT:
        cols_cell(l, compare_str(cm, r->cat), compare_strlen(cm, r->cat), c->width, false);
        break;
    case CMP_COL_CALLS: (delta ? cmp_cell_dcount : cmp_cell_count)(l, f.calls, c->width); break;
    case CMP_COL_SELF: ms(l, f.self_ns, c->width); break;
    case CMP_COL_TOTAL: ms(l, f.total_ns, c->width); break;
    case CMP_COL_DEV_SELF: ms(l, f.dev_self_ns, c->width); break;
    case CMP_COL_DEV_TOTAL: ms(l, f.dev_total_ns, c->width); break;
    case CMP_COL_D_CALLS: cmp_cell_dcount(l, d.calls, c->width); break;
    case CMP_COL_D_SELF: cmp_cell_dms(l, d.self_ns, c->width); break;
    case CMP_COL_D_TOTAL: cmp_cell_dms(l, d.total_ns, c->width); break;
    case CMP_COL_D_PCT: cmp_cell_dpct(l, r->status, &r->b, &r->n, c->width); break;
    case CMP_COL_D_DEV_SELF: cmp_cell_dms(l, d.dev_self_ns, c->width); break;
    case CMP_COL_D_DEV_TOTAL: cmp_cell_dms(l, d.dev_total_ns, c->width); break;
    default: return false;
    }
    return true;
}

enum view_style cmp_table_style(view *v, enum view_tab tab, uint32_t id)
{
    size_t n;
    const compare_row *r = &cmp_table_rows(v, tab, &n)[id];
    return cmp_style(r->n.self_ns - r->b.self_ns);
}

/* ---- the compare tree's nodes: the Tree Δ and the Callers Δ ---- */

enum { C_NAME = CMP_COL_OWN + 100, C_CALLS, C_SELF, C_TOTAL, C_DCALLS, C_DS, C_DT, C_DPCT, C_DDEV };

const col cmp_node_cols[] = {
    { C_DT, "Δ total ms", 11, MODEL_SORT_TOTAL, 0, false, false, false },
    { C_DS, "Δ self ms", 11, MODEL_SORT_SELF, 0, false, false, false },
    { C_DCALLS, "Δ calls", 9, MODEL_SORT_CALLS, 2, false, false, false },
    { C_DPCT, "Δ %", 7, MODEL_SORT_AVG, 1, false, false, false },
    { C_DDEV, "Δ dev ms", 11, MODEL_SORT_DEVICE_TOTAL, 3, true, false, false },
    { C_TOTAL, "Total ms", 11, -1, 1, false, false, false },
    { C_SELF, "Self ms", 11, -1, 2, false, false, false },
    { C_CALLS, "Calls", 9, -1, 3, false, false, false },
    { C_NAME, "Name", 24, MODEL_SORT_NAME, 0, false, true, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

const enum model_sort cmp_node_sorts[] = { MODEL_SORT_TOTAL, MODEL_SORT_SELF, MODEL_SORT_CALLS,
                                         MODEL_SORT_AVG, MODEL_SORT_DEVICE_TOTAL,
                                         MODEL_SORT_NAME, MODEL_SORT_N };

/* the sort key of a node: |Δ| of the sorted figure */
int64_t cmp_node_key(const compare_node *n, enum model_sort s)
{
    compare_fig d = compare_delta(&n->b, &n->n);
    int64_t k;
    switch (s) {
    case MODEL_SORT_SELF: k = d.self_ns; break;
    case MODEL_SORT_CALLS: k = (int64_t)d.calls; break;
    case MODEL_SORT_DEVICE_SELF: k = d.dev_self_ns; break;
    case MODEL_SORT_DEVICE_TOTAL: k = d.dev_total_ns; break;
    case MODEL_SORT_AVG:
        /* |Δ %| in tenths of a percent; a path in one trace only first */
        if (n->status != COMPARE_BOTH || n->b.total_ns == 0)
            return INT64_MAX;
        k = (int64_t)(1000.0 * (double)d.total_ns / (double)n->b.total_ns);
        break;
    default: k = d.total_ns;
    }
    return k < 0 ? -k : k;
}

const char *cmp_node_name(const view *v, const compare_node *n, size_t *len)
{
    const compare *c = v->cmp;
    if (n->row == MODEL_NONE) {
        *len = strlen("(all tracks)");
        return "(all tracks)";
    }
    uint32_t name = c->ops[n->row].name;
    *len = compare_strlen(c, name);
    return compare_str(c, name);
}

void cmp_node_cell(view *v, const compare_node *n, const tree_rows *t, uint32_t u,
                   uint32_t top_depth, const col *c, int namew, cols_line *l)
{
    compare_fig f = cmp_shown(v, &n->b, &n->n), d = compare_delta(&n->b, &n->n);
    bool delta = v->cmp_fig == CMP_FIG_DELTA;
    switch (c->id) {
    case C_NAME: {
        char pre[64];
        size_t len;
        const char *s = cmp_node_name(v, n, &len);
        int ind = (int)(n->depth - top_depth) * 2;
        if (ind > namew / 2)
            ind = namew / 2;
        if (ind > 40)
            ind = 40;
        cols_pad(l, (size_t)ind);
        const char *mark = !tree_rows_has_kids(t, u) ? "  "
                           : tree_rows_expanded(t, u) ? "\xe2\x96\xbe " : "\xe2\x96\xb8 ";
        size_t k = (size_t)snprintf(pre, sizeof pre, "%s%s", mark, n->gpu ? "[GPU] " : "");
        cols_put(l, pre, k);
        cmp_cell_name(l, n->status, s, len, namew - ind - (int)fmt_width(pre, k));
        break;
    }
    case C_CALLS: (delta ? cmp_cell_dcount : cmp_cell_count)(l, f.calls, c->width); break;
    case C_SELF: (delta ? cmp_cell_dms : view_cell_ms)(l, f.self_ns, c->width); break;
    case C_TOTAL: (delta ? cmp_cell_dms : view_cell_ms)(l, f.total_ns, c->width); break;
    case C_DCALLS: cmp_cell_dcount(l, d.calls, c->width); break;
    case C_DS: cmp_cell_dms(l, d.self_ns, c->width); break;
    case C_DT: cmp_cell_dms(l, d.total_ns, c->width); break;
    case C_DPCT: {
        /* a node's change is its inclusive time's: Δ total % of base total */
        compare_fig b = n->b, nn = n->n;
        b.self_ns = b.total_ns;
        nn.self_ns = nn.total_ns;
        cmp_cell_dpct(l, n->status, &b, &nn, c->width);
        break;
    }
    case C_DDEV: cmp_cell_dms(l, d.dev_total_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

