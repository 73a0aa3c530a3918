/* The Threads view: one row per track with events (CPU threads, GPU
   streams): its busy time, share of the window and longest idle gap. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/view_impl.h"

enum { C_NAME, C_KIND, C_EVENTS, C_BUSY, C_WINPCT, C_IDLE };

static const col cols[] = {
    { C_NAME, "Track", 24, MODEL_SORT_NAME, 0, false, true, true },
    { C_KIND, "Kind", 4, -1, 1, false, false, true },
    { C_EVENTS, "Events", 12, MODEL_SORT_CALLS, 0, false, false, false },
    { C_BUSY, "Busy ms", 14, MODEL_SORT_SELF, 0, false, false, false },
    { C_WINPCT, "% window", 8, -1, 0, false, false, false },
    { C_IDLE, "Max idle ms", 14, -1, 2, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF,
                                         MODEL_SORT_N };

static bool is_gpu(const model *m, uint32_t k)
{
    return m->tr->tracks[k].is_gpu || m->tracks[k].stream != MODEL_NONE;
}

static int threads_rebuild(view *v, view_rows *r)
{
    const model *m = v->m;
    char buf[600];
    for (size_t k = 0; k < m->ntracks; k++) {
        if (!m->tracks[k].events)
            continue;
        if (!scope_name_passes(v->scope, view_track_label(m, (uint32_t)k, buf, sizeof buf)))
            continue;
        if (view_rows_push(r, (uint32_t)k) < 0)
            return -1;
    }
    size_t n = r->n;
    view_keyed *kb = view_keyed_buf(v, n);
    char (*names)[128] = malloc((n ? n : 1) * sizeof *names);
    if (!kb || !names) {
        free(names);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t k = r->ids[i];
        snprintf(names[i], sizeof names[i], "%s", view_track_label(m, k, buf, sizeof buf));
        kb[i].name = names[i];
        kb[i].id = k;
        kb[i].key = v->sort == MODEL_SORT_CALLS ? (int64_t)m->tracks[k].events
                                                : view_track_busy(m, k);
    }
    view_keyed_sort(kb, n, v->sort == MODEL_SORT_NAME, v->reverse);
    for (size_t i = 0; i < n; i++)
        r->ids[i] = kb[i].id;
    free(names);
    return 0;
}

static const char *threads_name(view *v, uint32_t k, char *buf, size_t size, size_t *len)
{
    view_track_label(v->m, k, buf, size);
    *len = strlen(buf);
    return buf;
}

static void threads_cell(view *v, uint32_t k, const col *c, int namew, cols_line *l)
{
    const model *m = v->m;
    char t[600];
    switch (c->id) {
    case C_NAME:
        view_track_label(m, k, t, sizeof t);
        cols_cell(l, t, strlen(t), namew, false);
        break;
    case C_KIND: cols_cell(l, is_gpu(m, k) ? "GPU" : "CPU", 3, c->width, false); break;
    case C_EVENTS: view_cell_count(l, m->tracks[k].events, c->width); break;
    case C_BUSY: view_cell_ms(l, view_track_busy(m, k), c->width); break;
    case C_WINPCT: view_cell_pct(l, view_track_busy(m, k), m->window_ns, c->width); break;
    case C_IDLE: view_cell_ms(l, view_track_idle(m, k), c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static bool threads_gpu(view *v, uint32_t k)
{
    return is_gpu(v->m, k);
}

const struct view_ops view_threads_ops = {
    .name = "threads",
    .label = "Threads",
    .cols = cols,
    .namecap = 90,
    .sorts = sorts,
    .rebuild = threads_rebuild,
    .name_of = threads_name,
    .cell = threads_cell,
    .gpu = threads_gpu,
};
