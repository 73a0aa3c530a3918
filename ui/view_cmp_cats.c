/* Comparing, the Categories view: one row per category of either trace, its
   figures (new, base or delta: b) and the deltas,
   sorted by |Δ self| by default; + only in the new trace, - only in the base. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ui/cmp.h"

enum { C_NAME, C_CALLS, C_SELF, C_TOTAL, C_DSELF, C_DCALLS, C_DS, C_DT, C_DPCT, C_DDEV };

static const col cols[] = {
    { C_NAME, "Category", 20, MODEL_SORT_NAME, 0, false, true, true },
    { C_CALLS, "Calls", 9, -1, 2, false, false, false },
    { C_SELF, "Self ms", 11, -1, 1, false, false, false },
    { C_TOTAL, "Total ms", 11, -1, 2, false, false, false },
    { C_DSELF, "Dev self", 11, -1, 4, true, false, false },
    { C_DCALLS, "Δ calls", 9, MODEL_SORT_CALLS, 1, false, false, false },
    { C_DS, "Δ self ms", 11, MODEL_SORT_SELF, 0, false, false, false },
    { C_DT, "Δ total ms", 11, MODEL_SORT_TOTAL, 0, false, false, false },
    { C_DPCT, "Δ %", 7, MODEL_SORT_AVG, 0, false, false, false },
    { C_DDEV, "Δ dev ms", 11, MODEL_SORT_DEVICE_SELF, 3, true, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF,
                                         MODEL_SORT_TOTAL, MODEL_SORT_AVG,
                                         MODEL_SORT_DEVICE_SELF, MODEL_SORT_N };

static int ccats_open(view *v)
{
    uint32_t *order = malloc((v->cmp->ncats ? v->cmp->ncats : 1) * sizeof *order);
    view_set_state(v, VIEW_CATS, order);
    return order ? 0 : -1;
}

static void ccats_close(view *v)
{
    free(view_state(v, VIEW_CATS));
}

static int ccats_rebuild(view *v, view_rows *r)
{
    const compare *c = v->cmp;
    uint32_t *order = view_state(v, VIEW_CATS);
    compare_sort_rows(c, c->cats, c->ncats, cmp_sort_of(v->sort), v->reverse, order);
    for (size_t i = 0; i < c->ncats; i++) {
        if (v->top_ops && r->n >= v->top_ops)
            break;
        if (scope_name_passes(v->scope, compare_str(c, c->cats[order[i]].name)) &&
            view_rows_push(r, order[i]) < 0)
            return -1;
    }
    return 0;
}

static const char *ccats_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    *len = compare_strlen(v->cmp, v->cmp->cats[id].name);
    if (*len == 0) {
        *len = 6;
        return "(none)";
    }
    return compare_str(v->cmp, v->cmp->cats[id].name);
}

static void ccats_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    const compare *cm = v->cmp;
    const compare_row *r = &cm->cats[id];
    compare_fig f = cmp_shown(v, &r->b, &r->n), d = compare_delta(&r->b, &r->n);
    bool delta = v->cmp_fig == CMP_FIG_DELTA;
    switch (c->id) {
    case C_NAME: {
        size_t len;
        const char *s = ccats_name(v, id, NULL, 0, &len);
        cmp_cell_name(l, r->status, s, len, namew);
        break;
    }
    case C_CALLS:
        (delta ? cmp_cell_dcount : cmp_cell_count)(l, f.calls, c->width);
        break;
    case C_SELF: (delta ? cmp_cell_dms : view_cell_ms)(l, f.self_ns, c->width); break;
    case C_TOTAL: (delta ? cmp_cell_dms : view_cell_ms)(l, f.total_ns, c->width); break;
    case C_DSELF: (delta ? cmp_cell_dms : view_cell_ms)(l, f.dev_self_ns, c->width); break;
    case C_DCALLS: cmp_cell_dcount(l, d.calls, c->width); break;
    case C_DS: cmp_cell_dms(l, d.self_ns, c->width); break;
    case C_DT: cmp_cell_dms(l, d.total_ns, c->width); break;
    case C_DPCT: cmp_cell_dpct(l, r->status, &r->b, &r->n, c->width); break;
    case C_DDEV: cmp_cell_dms(l, d.dev_self_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static enum view_style ccats_style(view *v, uint32_t id)
{
    const compare_row *r = &v->cmp->cats[id];
    return cmp_style(r->n.self_ns - r->b.self_ns);
}

static int ccats_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    return cmp_action(v, act);
}

const struct view_ops view_cmp_cats_ops = {
    .name = "categories",
    .label = "Categories Δ",
    .cols = cols,
    .namecap = 80,
    .sorts = sorts,
    .open = ccats_open,
    .close = ccats_close,
    .rebuild = ccats_rebuild,
    .name_of = ccats_name,
    .cell = ccats_cell,
    .style = ccats_style,
    .action = ccats_action,
    .tabinfo = cmp_tabinfo,
};
