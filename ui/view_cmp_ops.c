/* Comparing, the Ops view: one row per operator of either trace (matched by
   name and category), its figures (new, base or delta: b) and the deltas,
   sorted by |Δ self| by default; + only in the new trace, - only in the base. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ui/cmp.h"

enum { C_NAME, C_CAT, C_CALLS, C_SELF, C_TOTAL, C_DSELF, C_DTOTAL, C_DCALLS, C_DS, C_DT,
       C_DPCT, C_DDEV };

static const col cols[] = {
    { C_NAME, "Name", 20, MODEL_SORT_NAME, 0, false, true, true },
    { C_CAT, "Category", 12, -1, 3, false, false, true },
    { C_CALLS, "Calls", 9, -1, 2, false, false, false },
    { C_SELF, "Self ms", 11, -1, 1, false, false, false },
    { C_TOTAL, "Total ms", 11, -1, 2, false, false, false },
    { C_DSELF, "Dev self", 11, -1, 4, true, false, false },
    { C_DTOTAL, "Dev total", 11, -1, 4, true, false, false },
    { C_DCALLS, "Δ calls", 9, MODEL_SORT_CALLS, 1, false, false, false },
    { C_DS, "Δ self ms", 11, MODEL_SORT_SELF, 0, false, false, false },
    { C_DT, "Δ total ms", 11, MODEL_SORT_TOTAL, 0, false, false, false },
    { C_DPCT, "Δ %", 7, MODEL_SORT_AVG, 0, false, false, false },
    { C_DDEV, "Δ dev ms", 11, MODEL_SORT_DEVICE_TOTAL, 3, true, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF,
                                         MODEL_SORT_TOTAL, MODEL_SORT_AVG,
                                         MODEL_SORT_DEVICE_TOTAL, MODEL_SORT_N };

static int cops_open(view *v)
{
    uint32_t *order = malloc((v->cmp->nops ? v->cmp->nops : 1) * sizeof *order);
    view_set_state(v, VIEW_OPS, order);
    return order ? 0 : -1;
}

static void cops_close(view *v)
{
    free(view_state(v, VIEW_OPS));
}

static int cops_rebuild(view *v, view_rows *r)
{
    const compare *c = v->cmp;
    uint32_t *order = view_state(v, VIEW_OPS);
    compare_sort_rows(c, c->ops, c->nops, cmp_sort_of(v->sort), v->reverse, order);
    for (size_t i = 0; i < c->nops; i++) {
        if (v->top_ops && r->n >= v->top_ops)
            break;
        if (scope_name_passes(v->scope, compare_str(c, c->ops[order[i]].name)) &&
            view_rows_push(r, order[i]) < 0)
            return -1;
    }
    return 0;
}

static const char *cops_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    *len = compare_strlen(v->cmp, v->cmp->ops[id].name);
    return compare_str(v->cmp, v->cmp->ops[id].name);
}

static void cops_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    const compare *cm = v->cmp;
    const compare_row *r = &cm->ops[id];
    compare_fig f = cmp_shown(v, &r->b, &r->n), d = compare_delta(&r->b, &r->n);
    bool delta = v->cmp_fig == CMP_FIG_DELTA;
    switch (c->id) {
    case C_NAME:
        cmp_cell_name(l, r->status, compare_str(cm, r->name), compare_strlen(cm, r->name), namew);
        break;
    case C_CAT:
        cols_cell(l, compare_str(cm, r->cat), compare_strlen(cm, r->cat), c->width, false);
        break;
    case C_CALLS:
        (delta ? cmp_cell_dcount : cmp_cell_count)(l, f.calls, c->width);
        break;
    case C_SELF: (delta ? cmp_cell_dms : view_cell_ms)(l, f.self_ns, c->width); break;
    case C_TOTAL: (delta ? cmp_cell_dms : view_cell_ms)(l, f.total_ns, c->width); break;
    case C_DSELF: (delta ? cmp_cell_dms : view_cell_ms)(l, f.dev_self_ns, c->width); break;
    case C_DTOTAL: (delta ? cmp_cell_dms : view_cell_ms)(l, f.dev_total_ns, c->width); break;
    case C_DCALLS: cmp_cell_dcount(l, d.calls, c->width); break;
    case C_DS: cmp_cell_dms(l, d.self_ns, c->width); break;
    case C_DT: cmp_cell_dms(l, d.total_ns, c->width); break;
    case C_DPCT: cmp_cell_dpct(l, r->status, &r->b, &r->n, c->width); break;
    case C_DDEV: cmp_cell_dms(l, d.dev_total_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static enum view_style cops_style(view *v, uint32_t id)
{
    const compare_row *r = &v->cmp->ops[id];
    return cmp_style(r->n.self_ns - r->b.self_ns);
}

static int cops_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    return cmp_action(v, act);
}

const struct view_ops view_cmp_ops_ops = {
    .name = "ops",
    .label = "Ops Δ",
    .cols = cols,
    .namecap = 80,
    .sorts = sorts,
    .open = cops_open,
    .close = cops_close,
    .rebuild = cops_rebuild,
    .name_of = cops_name,
    .cell = cops_cell,
    .style = cops_style,
    .action = cops_action,
    .tabinfo = cmp_tabinfo,
};
