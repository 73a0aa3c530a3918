/* The All ranks view: the operators of every rank of a job merged by name
   and category, summed, with the min, median and max over ranks of one
   rank's self time and the rank that holds the max (core/ranks). Esc goes
   back to the Ranks view. Empty on one trace. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/analyses/ranks.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

enum { C_NAME, C_CAT, C_CALLS, C_SELF, C_TOTAL, C_MIN, C_MEDIAN, C_MAX, C_MAXRANK, C_SPREAD };

static const col cols[] = {
    { C_NAME, "Name (all ranks)", 24, MODEL_SORT_NAME, 0, false, true, true },
    { C_CAT, "Category", 14, -1, 3, false, false, true },
    { C_CALLS, "Calls", 10, MODEL_SORT_CALLS, 2, false, false, false },
    { C_SELF, "Self ms", 12, MODEL_SORT_SELF, 0, false, false, false },
    { C_TOTAL, "Total ms", 12, MODEL_SORT_TOTAL, 3, false, false, false },
    { C_MIN, "Min ms", 10, -1, 1, false, false, false },
    { C_MEDIAN, "Median ms", 10, -1, 1, false, false, false },
    { C_MAX, "Max ms", 10, -1, 0, false, false, false },
    { C_MAXRANK, "Max rank", 8, -1, 0, false, false, false },
    { C_SPREAD, "Max-min ms", 10, MODEL_SORT_AVG, 1, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

/* avg stands for the spread here: the view has no average, and < > cycle
   through model sort keys */
static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF,
                                         MODEL_SORT_TOTAL, MODEL_SORT_AVG, MODEL_SORT_N };

/* Which table the view shows (c switches), and the categories once built. */
struct all_state {
    bool cats;
    ranks_cat *c;
    size_t nc;
    const ranks_job *of; /* the job c was built from */
    /* the row under the cursor after the last key, and the order it was
       in: a new order (< > r) finds it again */
    uint32_t at;
    uint32_t order_gen;
};

static struct all_state *st(view *v)
{
    return view_state(v, VIEW_ALLRANKS);
}

static int all_open(view *v)
{
    struct all_state *s = view_state_new(v, VIEW_ALLRANKS, sizeof *s);
    if (!s)
        return -1;
    s->at = UINT32_MAX;
    s->order_gen = v->order_gen;
    return 0;
}

static void all_close(view *v)
{
    struct all_state *s = st(v);
    if (s)
        free(s->c);
    free(s);
}

/* The categories, sorted as the operators are (by self, calls, name, or
   spread for avg; total sorts by self: a category has no total here). */
static int cats_rebuild(view *v, view_rows *r)
{
    struct all_state *s = st(v);
    const ranks_job *j = v->ranks;
    if (s->of != j) {
        free(s->c);
        s->c = ranks_cats(j, &s->nc);
        s->of = j;
        if (!s->c)
            return -1;
    }
    view_keyed *k = view_keyed_buf(v, s->nc);
    if (!k && s->nc)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < s->nc; i++) {
        const ranks_cat *c = &s->c[i];
        const char *name = strtab_str(j->strs, c->name);
        if (!scope_name_passes(v->scope, name))
            continue;
        int64_t key = v->sort == MODEL_SORT_CALLS ? (int64_t)c->calls
                      : v->sort == MODEL_SORT_AVG ? c->max_ns - c->min_ns
                      : v->sort == MODEL_SORT_DEVICE_SELF || v->sort == MODEL_SORT_DEVICE_TOTAL
                          ? c->dev_self_ns
                          : c->self_ns;
        k[n++] = (view_keyed){ key, name, (uint32_t)i, false };
    }
    view_keyed_sort(k, n, v->sort == MODEL_SORT_NAME, v->reverse);
    for (size_t i = 0; i < n; i++)
        if (view_rows_push(r, k[i].id) < 0)
            return -1;
    return 0;
}

static int all_rebuild(view *v, view_rows *r)
{
    const ranks_job *j = v->ranks;
    if (!j || !j->nops)
        return 0;
    if (st(v)->cats)
        return cats_rebuild(v, r);
    uint32_t *idx = malloc(j->nops * sizeof *idx);
    if (!idx)
        return -1;
    bool spread = v->sort == MODEL_SORT_AVG;
    enum model_sort s = spread || v->sort == MODEL_SORT_DEVICE_SELF ||
                        v->sort == MODEL_SORT_DEVICE_TOTAL ? MODEL_SORT_SELF : v->sort;
    ranks_sort_ops(j, s, spread, idx);
    int rc = 0;
    for (size_t k = 0; k < j->nops && rc == 0; k++) {
        size_t i = v->reverse ? j->nops - 1 - k : k;
        if (scope_name_passes(v->scope, strtab_str(j->strs, j->ops[idx[i]].name)))
            rc = view_rows_push(r, idx[i]);
    }
    free(idx);
    return rc;
}

static const char *all_name(view *v, uint32_t op, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    const ranks_job *j = v->ranks;
    if (st(v)->cats) {
        uint32_t c = st(v)->c[op].name;
        return fmt_category(strtab_str(j->strs, c), strtab_len(j->strs, c), len);
    }
    *len = strtab_len(j->strs, j->ops[op].name);
    return strtab_str(j->strs, j->ops[op].name);
}

/* A category's cells: its name, its operator count in the Category column. */
static void cat_cell(view *v, const ranks_cat *o, const col *c, int namew, cols_line *l)
{
    const ranks_job *j = v->ranks;
    char t[32];
    switch (c->id) {
    case C_NAME: {
        size_t len;
        const char *name = fmt_category(strtab_str(j->strs, o->name), strtab_len(j->strs, o->name),
                                        &len);
        cols_cell(l, name, len, namew, false);
        break;
    }
    case C_CAT:
        snprintf(t, sizeof t, "%zu ops", o->nops);
        cols_cell(l, t, strlen(t), c->width, false);
        break;
    case C_CALLS: view_cell_count(l, o->calls, c->width); break;
    case C_SELF: view_cell_ms(l, o->self_ns, c->width); break;
    case C_MIN: view_cell_ms(l, o->min_ns, c->width); break;
    case C_MEDIAN: view_cell_ms(l, o->median_ns, c->width); break;
    case C_MAX: view_cell_ms(l, o->max_ns, c->width); break;
    case C_MAXRANK:
        snprintf(t, sizeof t, "%lld", (long long)o->max_rank);
        cols_cell(l, t, strlen(t), c->width, true);
        break;
    case C_SPREAD: view_cell_ms(l, o->max_ns - o->min_ns, c->width); break;
    default: cols_cell(l, "-", 1, c->width, true); /* total: not summed over a category */
    }
}

static void all_cell(view *v, uint32_t op, const col *c, int namew, cols_line *l)
{
    const ranks_job *j = v->ranks;
    if (st(v)->cats) {
        cat_cell(v, &st(v)->c[op], c, namew, l);
        return;
    }
    const ranks_op *o = &j->ops[op];
    char t[32];
    switch (c->id) {
    case C_NAME:
        cols_cell(l, strtab_str(j->strs, o->name), strtab_len(j->strs, o->name), namew, false);
        break;
    case C_CAT:
        cols_cell(l, strtab_str(j->strs, o->cat), strtab_len(j->strs, o->cat), c->width, false);
        break;
    case C_CALLS: view_cell_count(l, o->calls, c->width); break;
    case C_SELF: view_cell_ms(l, o->self_ns, c->width); break;
    case C_TOTAL: view_cell_ms(l, o->total_ns, c->width); break;
    case C_MIN: view_cell_ms(l, o->min_ns, c->width); break;
    case C_MEDIAN: view_cell_ms(l, o->median_ns, c->width); break;
    case C_MAX: view_cell_ms(l, o->max_ns, c->width); break;
    case C_MAXRANK:
        snprintf(t, sizeof t, "%lld", (long long)o->max_rank);
        cols_cell(l, t, strlen(t), c->width, true);
        break;
    case C_SPREAD: view_cell_ms(l, o->max_ns - o->min_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

/* Enter on an operator: every view shows the rank that holds its max, the
   Ops view filtered to its name. */
static int all_drill(view *v)
{
    const ranks_job *j = v->ranks;
    if (!j || view_nrows(v) == 0)
        return -1;
    if (st(v)->cats) {
        view_status_set(v, "a category: c goes back to the operators (Enter there shows the worst rank)");
        return VIEW_DRAW_FOOTER;
    }
    const ranks_op *o = &j->ops[view_row(v, view_cursor(v))];
    const ranks_file *f = &j->files[o->max_file];
    char name[512];
    snprintf(name, sizeof name, "%s", strtab_str(j->strs, o->name));
    if (!f->m) {
        view_status_set(v, "rank %lld holds the max of %s; it is an analysis file (%s): open "
                        "its trace to see where", (long long)f->rank, name, f->path);
        return VIEW_DRAW_FOOTER;
    }
    if (f->m != v->m && view_set_model(v, f->m) < 0)
        return VIEW_QUIT; /* out of memory: the view cannot go on */
    v->tab = VIEW_OPS;
    scope_set_filter(v->scope, name);
    view_scope_changed(v);
    view_status_set(v, "rank %lld holds the max of %s: every view shows rank %lld", (long long)f->rank,
                    name, (long long)f->rank);
    return VIEW_DRAW_ALL;
}

static int all_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act == ACT_DRILL)
        return all_drill(v);
    if (act == ACT_ALL_TABLE) {
        st(v)->cats = !st(v)->cats;
        v->stale[VIEW_ALLRANKS] = true;
        v->cur[VIEW_ALLRANKS] = v->top[VIEW_ALLRANKS] = 0;
        return VIEW_DRAW_ALL;
    }
    if (act != ACT_BACK)
        return -1;
    if (scope_filter(v->scope)[0])
        return -1; /* Esc clears the filter first */
    v->tab = VIEW_RANKS;
    return VIEW_DRAW_ALL;
}

/* Re-sorting keeps the cursor on its row (the generic sort starts a new
   order from the top): comparing ranks, the operator one looks at is the
   point of changing the order. */
static void all_after_key(view *v)
{
    struct all_state *s = st(v);
    size_t n = view_nrows(v);
    if (s->order_gen != v->order_gen && s->at != UINT32_MAX)
        for (size_t i = 0; i < n; i++)
            if (view_row(v, i) == s->at) {
                v->cur[VIEW_ALLRANKS] = i;
                view_clamp(v);
                break;
            }
    s->order_gen = v->order_gen;
    s->at = n ? view_row(v, view_cursor(v)) : UINT32_MAX;
}

static void all_tabinfo(view *v, char *buf, size_t size)
{
    const ranks_job *j = v->ranks;
    if (!j)
        snprintf(buf, size, "  one trace: open a directory or several traces");
    else
        snprintf(buf, size, "  %zu ranks, %s (c: %s); Min/Median/Max: one rank's self time%s",
                 j->nloaded, st(v)->cats ? "categories" : "operators",
                 st(v)->cats ? "operators" : "categories",
                 v->sort == MODEL_SORT_AVG ? " (avg: max-min)" : "");
}

const struct view_ops view_allranks_ops = {
    .name = "allranks",
    .alias = "all",
    .label = "All ranks",
    .cols = cols,
    .namecap = 90,
    .sorts = sorts,
    .open = all_open,
    .close = all_close,
    .rebuild = all_rebuild,
    .name_of = all_name,
    .cell = all_cell,
    .action = all_action,
    .tabinfo = all_tabinfo,
    .after_key = all_after_key,
};
