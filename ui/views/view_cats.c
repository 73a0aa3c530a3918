/* The Categories view: one row per event category. Enter focuses the Tree
   on every stack through an operator of the category. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

enum { C_NAME, C_CALLS, C_SELF, C_TOTAL, C_BUSYPCT, C_DSELF };

static const col cols[] = {
    { C_NAME, "Category", 20, MODEL_SORT_NAME, 0, false, true, true },
    { C_CALLS, "Calls", 12, MODEL_SORT_CALLS, 0, false, false, false },
    { C_SELF, "Self ms", 14, MODEL_SORT_SELF, 0, false, false, false },
    { C_TOTAL, "Total ms", 14, MODEL_SORT_TOTAL, 0, false, false, false },
    { C_BUSYPCT, "% busy", 7, -1, 0, false, false, false },
    { C_DSELF, "Dev self ms", 12, MODEL_SORT_DEVICE_SELF, 1, true, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF,
                                         MODEL_SORT_TOTAL, MODEL_SORT_DEVICE_SELF, MODEL_SORT_N };

struct cats_state {
    uint32_t *order;
};

static int cats_open(view *v)
{
    struct cats_state *s = view_state_new(v, VIEW_CATS, sizeof *s);
    if (!s)
        return -1;
    s->order = malloc((v->m->ncats ? v->m->ncats : 1) * sizeof *s->order);
    return s->order ? 0 : -1;
}

static void cats_close(view *v)
{
    struct cats_state *s = view_state(v, VIEW_CATS);
    if (s)
        free(s->order);
    free(s);
}

static const char *cats_name(view *v, uint32_t ci, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    const model *m = v->m;
    uint32_t name = m->cats[ci].name;
    return fmt_category(trace_str(m->tr, name), strtab_len(m->tr->strs, name), len);
}

static void cat_fig(view *v, uint32_t ci, scope_fig *f)
{
    const scope_fig *sf = scope_cats(v->scope);
    if (sf) {
        *f = sf[ci];
        return;
    }
    const model_cat *k = &v->m->cats[ci];
    *f = (scope_fig){ .calls = k->calls, .self_ns = k->self_ns, .total_ns = k->total_ns,
                      .dev_self_ns = k->dev_self_ns };
}

static int64_t fig_key(const scope_fig *f, enum model_sort s)
{
    switch (s) {
    case MODEL_SORT_TOTAL: return f->total_ns;
    case MODEL_SORT_CALLS: return (int64_t)f->calls;
    case MODEL_SORT_DEVICE_SELF: return f->dev_self_ns;
    default: return f->self_ns;
    }
}

static int cats_rebuild(view *v, view_rows *r)
{
    const model *m = v->m;
    struct cats_state *s = view_state(v, VIEW_CATS);
    const scope_fig *sf = scope_cats(v->scope);
    size_t n = m->ncats;
    if (!sf) {
        model_sort_cats(m, v->sort, v->reverse, s->order);
    } else {
        /* under a scope: the categories on its stacks, by their figures in it */
        view_keyed *k = view_keyed_buf(v, m->ncats);
        if (!k)
            return -1;
        n = 0;
        for (size_t c = 0; c < m->ncats; c++) {
            if (!sf[c].calls && !sf[c].total_ns && !sf[c].dev_events)
                continue;
            k[n].key = fig_key(&sf[c], v->sort);
            k[n].name = trace_str(m->tr, m->cats[c].name);
            k[n].id = (uint32_t)c;
            n++;
        }
        view_keyed_sort(k, n, v->sort == MODEL_SORT_NAME, v->reverse);
        for (size_t i = 0; i < n; i++)
            s->order[i] = k[i].id;
    }
    for (size_t i = 0; i < n; i++)
        if (scope_name_passes(v->scope, trace_str(m->tr, m->cats[s->order[i]].name)) &&
            view_rows_push(r, s->order[i]) < 0)
            return -1;
    return 0;
}

static void cats_cell(view *v, uint32_t ci, const col *c, int namew, cols_line *l)
{
    scope_fig k;
    size_t len;
    const char *s;
    cat_fig(v, ci, &k);
    switch (c->id) {
    case C_NAME:
        s = cats_name(v, ci, NULL, 0, &len);
        cols_cell(l, s, len, namew, false);
        break;
    case C_CALLS: view_cell_count(l, k.calls, c->width); break;
    case C_SELF: view_cell_ms(l, k.self_ns, c->width); break;
    case C_TOTAL: view_cell_ms(l, k.total_ns, c->width); break;
    case C_BUSYPCT: view_cell_pct(l, k.self_ns, scope_busy(v->scope), c->width); break;
    case C_DSELF: view_cell_ms(l, k.dev_self_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static int cats_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act != ACT_DRILL || view_nrows(v) == 0)
        return -1;
    view_push_focus(v, SCOPE_CAT, view_row(v, view_cursor(v)));
    return VIEW_DRAW_ALL;
}

const struct view_ops view_cats_ops = {
    .name = "categories",
    .alias = "cats",
    .label = "Categories",
    .cols = cols,
    .namecap = 90,
    .sorts = sorts,
    .open = cats_open,
    .close = cats_close,
    .rebuild = cats_rebuild,
    .name_of = cats_name,
    .cell = cats_cell,
    .action = cats_action,
};
