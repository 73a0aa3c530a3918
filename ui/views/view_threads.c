/* The Threads view: one row per track with events (CPU threads, GPU
   streams): its busy time, share of the window and longest idle gap. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/track_figs.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

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

/* A track's events and busy time: the model's (a stream: its GPU work's
   union), or within the scope (a stream: the GPU time of the scope's
   stacks that ran on it; a thread: its self time in the scope). */
static void track_fig(view *v, uint32_t k, uint64_t *events, int64_t *busy)
{
    const model *m = v->m;
    const scope_fig *sf = scope_tracks(v->scope);
    bool stream = m->tracks[k].stream != MODEL_NONE;
    if (!sf) {
        *events = m->tracks[k].events;
        *busy = track_figs_busy(m, k);
    } else {
        *events = stream ? sf[k].dev_events : sf[k].calls;
        *busy = stream ? sf[k].dev_total_ns : sf[k].self_ns;
    }
}

static int threads_rebuild(view *v, view_rows *r)
{
    const model *m = v->m;
    char buf[600];
    bool scoped = scope_tracks(v->scope) != NULL;
    for (size_t k = 0; k < m->ntracks; k++) {
        uint64_t ev;
        int64_t busy;
        if (!m->tracks[k].events)
            continue;
        track_fig(v, (uint32_t)k, &ev, &busy);
        if (scoped && !ev && !busy)
            continue;
        if (!scope_name_passes(v->scope, trace_track_fullname(m->tr, (uint32_t)k, buf, sizeof buf)))
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
        snprintf(names[i], sizeof names[i], "%s", trace_track_fullname(m->tr, k, buf, sizeof buf));
        kb[i].name = names[i];
        kb[i].id = k;
        uint64_t ev;
        int64_t busy;
        track_fig(v, k, &ev, &busy);
        kb[i].key = v->sort == MODEL_SORT_CALLS ? (int64_t)ev : busy;
    }
    view_keyed_sort(kb, n, v->sort == MODEL_SORT_NAME, v->reverse);
    for (size_t i = 0; i < n; i++)
        r->ids[i] = kb[i].id;
    free(names);
    return 0;
}

static const char *threads_name(view *v, uint32_t k, char *buf, size_t size, size_t *len)
{
    trace_track_fullname(v->m->tr, k, buf, size);
    *len = strlen(buf);
    return buf;
}

static void threads_cell(view *v, uint32_t k, const col *c, int namew, cols_line *l)
{
    const model *m = v->m;
    char t[600];
    uint64_t ev;
    int64_t busy;
    track_fig(v, k, &ev, &busy);
    switch (c->id) {
    case C_NAME:
        trace_track_fullname(m->tr, k, t, sizeof t);
        cols_cell(l, t, strlen(t), namew, false);
        break;
    case C_KIND: cols_cell(l, is_gpu(m, k) ? "GPU" : "CPU", 3, c->width, false); break;
    case C_EVENTS: view_cell_count(l, ev, c->width); break;
    case C_BUSY: view_cell_ms(l, busy, c->width); break;
    case C_WINPCT: view_cell_pct(l, busy, m->window_ns, c->width); break;
    case C_IDLE:
        /* the gaps between the scope's events are not known */
        if (scope_active(v->scope))
            cols_cell(l, "-", 1, c->width, true);
        else
            view_cell_ms(l, track_figs_idle(m, k), c->width);
        break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static bool threads_gpu(view *v, uint32_t k)
{
    return is_gpu(v->m, k);
}

static int threads_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act != ACT_DRILL || view_nrows(v) == 0)
        return -1;
    view_push_focus(v, SCOPE_TRACK, view_row(v, view_cursor(v)));
    return VIEW_DRAW_ALL;
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
    .action = threads_action,
};
