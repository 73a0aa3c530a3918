/* Comparing, the Threads view: one row per track of either trace, matched
   by its "process / thread" label (core/compare), its events, busy time and
   longest idle gap (new, base or delta: b) and the deltas, sorted by
   |Δ busy| by default; + only in the new trace, - only in the base. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ui/cmp.h"

enum { C_NAME, C_KIND, C_EVENTS, C_BUSY, C_IDLE, C_DEVENTS, C_DBUSY, C_DPCT, C_DIDLE };

static const col cols[] = {
    { C_NAME, "Track", 24, MODEL_SORT_NAME, 0, false, true, true },
    { C_KIND, "Kind", 4, -1, 2, false, false, true },
    { C_EVENTS, "Events", 10, -1, 2, false, false, false },
    { C_BUSY, "Busy ms", 12, -1, 1, false, false, false },
    { C_IDLE, "Max idle ms", 12, -1, 3, false, false, false },
    { C_DEVENTS, "Δ events", 10, MODEL_SORT_CALLS, 1, false, false, false },
    { C_DBUSY, "Δ busy ms", 12, MODEL_SORT_SELF, 0, false, false, false },
    { C_DPCT, "Δ %", 7, MODEL_SORT_AVG, 0, false, false, false },
    { C_DIDLE, "Δ idle ms", 12, MODEL_SORT_TOTAL, 3, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF,
                                         MODEL_SORT_AVG, MODEL_SORT_TOTAL, MODEL_SORT_N };

static int cthreads_open(view *v)
{
    uint32_t *order = malloc((v->cmp->nthreads ? v->cmp->nthreads : 1) * sizeof *order);
    view_set_state(v, VIEW_THREADS, order);
    return order ? 0 : -1;
}

static void cthreads_close(view *v)
{
    free(view_state(v, VIEW_THREADS));
}

static int cthreads_rebuild(view *v, view_rows *r)
{
    const compare *c = v->cmp;
    uint32_t *order = view_state(v, VIEW_THREADS);
    compare_sort_rows(c, c->threads, c->nthreads, cmp_sort_of(v->sort), v->reverse, order);
    for (size_t i = 0; i < c->nthreads; i++)
        if (scope_name_passes(v->scope, compare_str(c, c->threads[order[i]].name)) &&
            view_rows_push(r, order[i]) < 0)
            return -1;
    return 0;
}

static const char *cthreads_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    *len = compare_strlen(v->cmp, v->cmp->threads[id].name);
    return compare_str(v->cmp, v->cmp->threads[id].name);
}

static bool is_gpu(const compare *c, const compare_row *r)
{
    const model *m = r->new != MODEL_NONE ? c->new : c->base;
    uint32_t k = r->new != MODEL_NONE ? r->new : r->base;
    return m->tr->tracks[k].is_gpu || m->tracks[k].stream != MODEL_NONE;
}

static void cthreads_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    const compare *cm = v->cmp;
    const compare_row *r = &cm->threads[id];
    compare_fig f = cmp_shown(v, &r->b, &r->n), d = compare_delta(&r->b, &r->n);
    bool delta = v->cmp_fig == CMP_FIG_DELTA;
    switch (c->id) {
    case C_NAME:
        cmp_cell_name(l, r->status, compare_str(cm, r->name), compare_strlen(cm, r->name), namew);
        break;
    case C_KIND: cols_cell(l, is_gpu(cm, r) ? "GPU" : "CPU", 3, c->width, false); break;
    case C_EVENTS: (delta ? cmp_cell_dcount : cmp_cell_count)(l, f.calls, c->width); break;
    case C_BUSY: (delta ? cmp_cell_dms : view_cell_ms)(l, f.self_ns, c->width); break;
    case C_IDLE: (delta ? cmp_cell_dms : view_cell_ms)(l, f.total_ns, c->width); break;
    case C_DEVENTS: cmp_cell_dcount(l, d.calls, c->width); break;
    case C_DBUSY: cmp_cell_dms(l, d.self_ns, c->width); break;
    case C_DPCT: cmp_cell_dpct(l, r->status, &r->b, &r->n, c->width); break;
    case C_DIDLE: cmp_cell_dms(l, d.total_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static enum view_style cthreads_style(view *v, uint32_t id)
{
    const compare_row *r = &v->cmp->threads[id];
    return cmp_style(r->n.self_ns - r->b.self_ns);
}

static int cthreads_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    return cmp_action(v, act);
}

const struct view_ops view_cmp_threads_ops = {
    .name = "threads",
    .label = "Threads Δ",
    .cols = cols,
    .namecap = 90,
    .sorts = sorts,
    .open = cthreads_open,
    .close = cthreads_close,
    .rebuild = cthreads_rebuild,
    .name_of = cthreads_name,
    .cell = cthreads_cell,
    .style = cthreads_style,
    .action = cthreads_action,
    .tabinfo = cmp_tabinfo,
};
