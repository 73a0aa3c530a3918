/* Comparing, the Threads view: one row per track of either trace, matched
   by its "process / thread" label (core/compare), its events, busy time and
   longest idle gap (new, base or delta: b) and the deltas, sorted by
   |Δ busy| by default; + only in the new trace, - only in the base. */
#include "config.h"

#include "ui/cmp.h"

enum { C_KIND = CMP_COL_OWN };

static const col cols[] = {
    { CMP_COL_NAME, "Track", 24, MODEL_SORT_NAME, 0, false, true, true },
    { C_KIND, "Kind", 4, -1, 2, false, false, true },
    { CMP_COL_CALLS, "Events", 10, -1, 2, false, false, false },
    { CMP_COL_SELF, "Busy ms", 12, -1, 1, false, false, false },
    { CMP_COL_TOTAL, "Max idle ms", 12, -1, 3, false, false, false },
    { CMP_COL_D_CALLS, "Δ events", 10, MODEL_SORT_CALLS, 1, false, false, false },
    { CMP_COL_D_SELF, "Δ busy ms", 12, MODEL_SORT_SELF, 0, false, false, false },
    { CMP_COL_D_PCT, "Δ %", 7, MODEL_SORT_AVG, 0, false, false, false },
    { CMP_COL_D_TOTAL, "Δ idle ms", 12, MODEL_SORT_TOTAL, 3, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF, MODEL_SORT_AVG, MODEL_SORT_TOTAL, MODEL_SORT_N };

static int cthreads_open(view *v)
{
    return cmp_table_open(v, VIEW_THREADS);
}

static void cthreads_close(view *v)
{
    cmp_table_close(v, VIEW_THREADS);
}

static int cthreads_rebuild(view *v, view_rows *r)
{
    return cmp_table_rebuild(v, VIEW_THREADS, r, false);
}

static const char *cthreads_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    return cmp_table_name(v, VIEW_THREADS, id, len);
}

static bool is_gpu(const compare *c, const compare_row *r)
{
    const model *m = r->new != MODEL_NONE ? c->new : c->base;
    uint32_t k = r->new != MODEL_NONE ? r->new : r->base;
    return m->tr->tracks[k].is_gpu || m->tracks[k].stream != MODEL_NONE;
}

static void cthreads_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    if (cmp_table_cell(v, VIEW_THREADS, id, c, namew, l))
        return;
    if (c->id == C_KIND) {
        bool gpu = is_gpu(v->cmp, &v->cmp->threads[id]);
        cols_cell(l, gpu ? "GPU" : "CPU", 3, c->width, false);
        return;
    }
    cols_cell(l, "", 0, c->width, true);
}

static enum view_style cthreads_style(view *v, uint32_t id)
{
    return cmp_table_style(v, VIEW_THREADS, id);
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
    .off_acts = cmp_table_off,
};
