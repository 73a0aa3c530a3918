/* The Timeline view: one row per track (GPU streams first, grouped by
   device under the device's utilisation strip, then CPU threads), time
   along the row. Each cell shows what filled most of it: the Steps view's
   role letters (K M S C R D P, painted in the roles' colours), '.' when
   idle time filled most of a cell something ran in, blank when nothing
   ran; a strip shows its device's busy share (▁ to █). Above the tracks a
   ruler of times from the trace's start and a row of the steps (| at each
   ProfilerStep#'s start), the selected range ([===]) and the cursor (▼).

   Keys (ui/keys.c): Left/Right move the time cursor a column, H/L pan,
   + - zoom around the cursor, 0 the whole trace, , . the previous/next
   event on the cursor's track; { and } mark a range: every view then
   covers it (a model scoped to it, core/analyses/range.h, as the Steps
   view does for a step); Esc clears it. Enter on an event focuses its
   operator in every view; on the steps row it selects the step's window.
   The footer names the event under the cursor: name, start, duration and
   its stack (CPU) or launching operator (GPU).

   Every screen costs O(columns x rows x roles x log stretches): the
   timeline (core/analyses/timeline.h) sums any window in O(log). The view
   owns the timeline and the range's model, so its state
   outlives view_set_model. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/derived.h"
#include "core/analyses/range.h"
#include "core/analyses/steps.h"
#include "core/analyses/timeline.h"
#include "core/base/fmt.h"
#include "core/model/stack_text.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_timeline.h"
#include "ui/views/view_util.h"

const struct view_ops view_timeline_ops;

enum { C_NAME, C_BAR };

static const col cols[] = {
    { C_NAME, "Track", 14, -1, 0, false, true, true },
    { C_BAR, "Time", 20, -1, 0, false, false, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_N };

/* Row ids past the timeline's rows. */
static const uint32_t ROW_RULER = UINT32_MAX - 1, ROW_STEPS = UINT32_MAX - 2;

struct tl_state {
    const model *whole; /* the model the timeline is of */
    const timeline *tl; /* core's (derived_timeline), shared */
    char err[200];
    model *scoped;      /* the range's model the view shows, or NULL */
    int64_t t0, span;   /* the window on screen: [t0, t0 + span) */
    int64_t cursor;     /* the cursor's time */
    int64_t mark;       /* a range's start marked with {, INT64_MIN: none */
    uint32_t ev;        /* the event , and . went to (named in the footer), or TIMELINE_NONE */
    int64_t want0, wantn, wantc; /* --range: the window to show once built (wantn 0: none) */
    col shown[3];
    char title[64];
};

static struct tl_state *state(view *v)
{
    return view_state(v, VIEW_TIMELINE);
}

static int tl_open(view *v)
{
    struct tl_state *s = view_state_new(v, VIEW_TIMELINE, sizeof *s);
    if (!s)
        return -1;
    s->mark = INT64_MIN;
    s->ev = TIMELINE_NONE;
    s->span = 1;
    /* the whole trace's model, kept for when another view scopes every
       view (a step) before the timeline is first shown; built on first use */
    if (!model_is_scoped(v->m))
        s->whole = v->m;
    return 0;
}

static void drop(struct tl_state *s)
{
    s->tl = NULL;
}

static void tl_close(view *v)
{
    struct tl_state *s = state(v);
    if (!s)
        return;
    drop(s);
    model_free(s->scoped);
    free(s);
}

/* The timeline of the whole trace: built on first use, again when another
   model (a rank) is shown; a model scoped elsewhere (a step) keeps it. */
static const timeline *tl_of(view *v)
{
    struct tl_state *s = state(v);
    if (v->m != s->whole && v->m != s->scoped && !model_is_scoped(v->m)) {
        drop(s);
        if (s->scoped) {
            model_free(s->scoped);
            s->scoped = NULL;
        }
        s->whole = v->m;
        s->err[0] = '\0';
    }
    if (s->tl || s->err[0] || !s->whole)
        return s->tl;
    t2p_error err;
    struct derived *d = view_derived(v, s->whole);
    if (!d)
        error_set(&err, T2P_ERR_NOMEM, s->whole->tr->path, -1, "out of memory");
    if (!d || !(s->tl = derived_timeline(d, &err))) {
        snprintf(s->err, sizeof s->err, "%.180s", err.reason);
        drop(s);
        return NULL;
    }
    s->t0 = s->tl->start;
    s->span = s->tl->end - s->tl->start > 0 ? s->tl->end - s->tl->start : 1;
    s->cursor = s->t0;
    if (s->wantn > 0) { /* --range: its window, with a little room around it */
        s->t0 = s->want0;
        s->span = s->wantn;
        s->cursor = s->wantc;
    }
    return s->tl;
}

/* The bar's width: what the track names leave. */
static int bar_width(view *v)
{
    int namew = v->width >= 160 ? 28 : v->width >= 100 ? 20 : 14;
    int w = v->width - namew - 1;
    return w > 8 ? w : 8;
}

static const col *tl_cols(view *v)
{
    struct tl_state *s = state(v);
    memcpy(s->shown, cols, sizeof s->shown);
    s->shown[C_BAR].width = bar_width(v);
    s->shown[C_NAME].width = v->width - s->shown[C_BAR].width - 1;
    /* the header says the scale: the time of a column */
    char d[32];
    fmt_dur(s->span / s->shown[C_BAR].width > 0 ? s->span / s->shown[C_BAR].width : 1, d,
            sizeof d);
    snprintf(s->title, sizeof s->title, "Time (%s a column)", d);
    s->shown[C_BAR].title = s->title;
    return s->shown;
}

static int tl_rebuild(view *v, view_rows *r)
{
    const timeline *t = tl_of(v);
    if (!t)
        return 0;
    if (view_rows_push(r, ROW_RULER) < 0 || view_rows_push(r, ROW_STEPS) < 0)
        return -1;
    char buf[600];
    for (size_t i = 0; i < t->nrows; i++) {
        uint32_t k = t->rows[i].track;
        if (t->rows[i].kind != TIMELINE_UTIL &&
            !scope_name_passes(v->scope, trace_track_fullname(t->m->tr, k, buf, sizeof buf)))
            continue;
        if (view_rows_push(r, (uint32_t)i) < 0)
            return -1;
    }
    return 0;
}

/* column of time x on a bar w wide (may lie off it) */
static int64_t col_of(const struct tl_state *s, int64_t x, int w)
{
    return (int64_t)((double)(x - s->t0) * w / (double)s->span);
}

static int64_t time_of(const struct tl_state *s, int64_t c, int w)
{
    return s->t0 + (int64_t)((double)s->span * (double)c / w);
}

static const char *row_label(view *v, uint32_t id, char *buf, size_t size)
{
    const timeline *t = state(v)->tl;
    if (id == ROW_RULER)
        return "time";
    if (id == ROW_STEPS)
        return "steps";
    const timeline_row *r = &t->rows[id];
    char l[400];
    trace_track_label(t->m->tr, r->track, l, sizeof l);
    if (r->kind == TIMELINE_UTIL)
        snprintf(buf, size, "GPU %d busy", r->device);
    else if (r->kind == TIMELINE_STREAM && r->device >= 0)
        snprintf(buf, size, "GPU %d %s", r->device, l);
    else
        snprintf(buf, size, "%s", l);
    return buf;
}

/* A nice tick spacing: 1, 2 or 5 times a power of ten ns, at least min. */
static int64_t nice_step(int64_t min)
{
    int64_t p = 1;
    while (p <= INT64_MAX / 10 && p * 10 <= min)
        p *= 10;
    return p >= min ? p : 2 * p >= min ? 2 * p : 5 * p >= min ? 5 * p : 10 * p;
}

static void ruler(view *v, char *b, int w)
{
    struct tl_state *s = state(v);
    memset(b, ' ', (size_t)w);
    b[w] = '\0';
    int64_t step = nice_step(s->span * 12 / w + 1);
    int64_t unit = step >= 1000000000 ? 1000000000 : step >= 1000000 ? 1000000
                   : step >= 1000 ? 1000 : 1;
    const char *un = unit == 1000000000 ? "s" : unit == 1000000 ? "ms" : unit == 1000 ? "us" : "ns";
    int64_t base = s->tl->start;
    int64_t first = (s->t0 - base) / step * step;
    bool named = false;
    for (int64_t off = first; base + off < s->t0 + s->span; off += step) {
        int64_t c = col_of(s, base + off, w);
        if (c < 0 || c >= w)
            continue;
        char num[40];
        int64_t whole = off / unit, frac = off % unit;
        if (frac == 0)
            snprintf(num, sizeof num, "|%lld%s", (long long)whole, named ? "" : un);
        else /* a step below the unit: its digits */
            snprintf(num, sizeof num, "|%.3f%s", (double)off / (double)unit, named ? "" : un);
        named = true;
        size_t n = strlen(num);
        if (c + (int64_t)n > w)
            n = (size_t)(w - c);
        memcpy(b + c, num, n);
    }
}

/* the range shown: the scope of the model shown (ours, a range; or the
   steps another view scoped every view to), as the model says it */
static bool shown_range(view *v, int64_t *a, int64_t *e)
{
    if (v->m->scope.kind == MODEL_SCOPE_NONE)
        return false;
    *a = v->m->scope.start;
    *e = v->m->scope.end;
    return true;
}

/* the steps row: | at each step's start with its number, the range, the cursor */
static void steps_row(view *v, char *b, size_t size, int w)
{
    struct tl_state *s = state(v);
    char tmp[2048];
    int n = w < (int)sizeof tmp - 1 ? w : (int)sizeof tmp - 1;
    memset(tmp, ' ', (size_t)n);
    tmp[n] = '\0';
    const timeline *t = s->tl;
    for (size_t i = 0; i < t->nmarks; i++) {
        int64_t c = col_of(s, t->marks[i].start, w);
        if (c < 0 || c >= n)
            continue;
        char l[48];
        snprintf(l, sizeof l, "|%s", timeline_mark_label(t, i));
        size_t k = strlen(l);
        if (c + (int64_t)k > n)
            k = (size_t)(n - c);
        memcpy(tmp + c, l, k);
    }
    int64_t a, e;
    bool rg = shown_range(v, &a, &e);
    if (!rg && s->mark != INT64_MIN) {
        a = e = s->mark;
        rg = true;
    }
    if (rg) {
        int64_t ca = col_of(s, a, w), ce = e > a ? col_of(s, e - 1, w) : ca;
        for (int64_t c = ca > 0 ? ca : 0; c <= ce && c < n; c++)
            tmp[c] = c == ca ? '[' : c == ce ? ']' : '=';
    }
    /* the cursor: ▼ (three bytes) */
    int64_t cc = col_of(s, s->cursor, w);
    size_t o = 0;
    for (int c = 0; c < n && o + 4 < size; c++) {
        if (c == cc) {
            memcpy(b + o, "\xe2\x96\xbc", 3);
            o += 3;
        } else {
            b[o++] = tmp[c];
        }
    }
    b[o] = '\0';
}

/* a track's bar: the role letter of each cell, '.' or blank when idle */
static void track_bar(view *v, uint32_t id, char *b, size_t size, int w)
{
    struct tl_state *s = state(v);
    static const char *const levels[] = { " ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
                                          "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86",
                                          "\xe2\x96\x87", "\xe2\x96\x88" };
    const timeline_row *r = &s->tl->rows[id];
    size_t o = 0;
    for (int c = 0; c < w && o + 4 < size; c++) {
        int64_t a = time_of(s, c, w), e = time_of(s, c + 1, w);
        if (e <= a)
            e = a + 1;
        int64_t busy;
        int role = timeline_cell(s->tl, id, a, e, &busy);
        if (r->kind == TIMELINE_UTIL) {
            int q = (int)((busy * 8 + (e - a) / 2) / (e - a));
            if (q == 0 && busy > 0)
                q = 1;
            const char *g = levels[q > 8 ? 8 : q];
            size_t gl = strlen(g);
            memcpy(b + o, g, gl);
            o += gl;
            continue;
        }
        b[o++] = role >= 0 ? steps_role_letter((enum steps_role)role) : busy > 0 ? '.' : ' ';
    }
    b[o] = '\0';
}

static void tl_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    struct tl_state *s = state(v);
    char buf[8192];
    if (c->id == C_NAME) {
        const char *t = row_label(v, id, buf, sizeof buf);
        cols_cell(l, t, strlen(t), namew, false);
        return;
    }
    int w = c->width;
    if (w > 2000)
        w = 2000;
    if (id == ROW_RULER)
        ruler(v, buf, w);
    else if (id == ROW_STEPS)
        steps_row(v, buf, sizeof buf, w);
    else
        track_bar(v, id, buf, sizeof buf, w);
    (void)s;
    cols_put(l, buf, strlen(buf));
}

static bool tl_gpu(view *v, uint32_t id)
{
    const timeline *t = state(v)->tl;
    return t && id < t->nrows && t->rows[id].kind != TIMELINE_THREAD;
}

/* ---- the footer: what is under the cursor ---- */

/* an offset from the trace's start as a time */
static const char *at_text(const struct tl_state *s, int64_t x, char *buf, size_t size)
{
    return fmt_dur(x - s->tl->start, buf, size);
}

/* the event under the cursor on row i: the one , or . went to, else the
   innermost open at the cursor */
static uint32_t cursor_event(const struct tl_state *s, uint32_t i)
{
    if (s->ev != TIMELINE_NONE && s->tl->m->tr->events[s->ev].track == s->tl->rows[i].track)
        return s->ev;
    return timeline_event_at(s->tl, i, s->cursor);
}

static const char *tl_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    struct tl_state *s = state(v);
    char a[32], b[32], c[32], lab[400];
    bool cur = view_nrows(v) && view_row(v, view_cursor(v)) == id;
    if (!s->tl) {
        snprintf(buf, size, "%s", s->err[0] ? s->err : "no timeline");
    } else if (!cur) {
        row_label(v, id, buf, size);
    } else if (id == ROW_RULER) {
        snprintf(buf, size, "cursor at %s; the screen shows %s to %s",
                 at_text(s, s->cursor, a, sizeof a), at_text(s, s->t0, b, sizeof b),
                 at_text(s, s->t0 + s->span, c, sizeof c));
    } else if (id == ROW_STEPS) {
        size_t i = timeline_mark_at(s->tl, s->cursor);
        if (i != SIZE_MAX) {
            const timeline_mark *k = &s->tl->marks[i];
            snprintf(buf, size, "step %s: %s to %s (%s); Enter: every view covers it",
                     timeline_mark_label(s->tl, i), at_text(s, k->start, a, sizeof a),
                     at_text(s, k->end, b, sizeof b), fmt_dur(k->end - k->start, c, sizeof c));
        } else
            snprintf(buf, size, "cursor at %s: in no step", at_text(s, s->cursor, a, sizeof a));
    } else {
        const timeline_row *r = &s->tl->rows[id];
        const model *m = s->tl->m;
        uint32_t e = r->kind == TIMELINE_UTIL ? TIMELINE_NONE : cursor_event(s, id);
        row_label(v, id, lab, sizeof lab);
        if (r->kind == TIMELINE_UTIL) {
            int64_t busy;
            int64_t w = s->span / bar_width(v) > 0 ? s->span / bar_width(v) : 1;
            timeline_cell(s->tl, id, s->cursor, s->cursor + w, &busy);
            snprintf(buf, size, "%s at %s: %s%% of a column busy", lab,
                     at_text(s, s->cursor, a, sizeof a), fmt_pct(busy, w, b, sizeof b));
        } else if (e == TIMELINE_NONE) {
            snprintf(buf, size, "%s at %s: idle", lab, at_text(s, s->cursor, a, sizeof a));
        } else {
            const trace_event *x = &m->tr->events[e];
            char more[1200];
            if (r->kind == TIMELINE_STREAM) {
                uint32_t l = timeline_launch_of(s->tl, e);
                uint32_t p = l != TIMELINE_NONE && m->ev_node[l] != MODEL_NONE
                                 ? m->nodes[m->ev_node[l]].parent : MODEL_NONE;
                if (p != MODEL_NONE && m->nodes[p].op != MODEL_NONE)
                    snprintf(more, sizeof more, "launched by %s", model_op_name(m, m->nodes[p].op));
                else if (l != TIMELINE_NONE)
                    snprintf(more, sizeof more, "launched by %s", trace_str(m->tr, m->tr->events[l].name));
                else
                    snprintf(more, sizeof more, "no launch known");
            } else {
                model_stack_text(m, m->ev_node[e], " \xe2\x80\xba ", MODEL_STACK_TEXT_MAX, more,
                                 sizeof more); /* "a › b › c" */
            }
            /* what it is first: a narrow screen cuts the end */
            snprintf(buf, size, "%s | at %s for %s | %s | %s", trace_str(m->tr, x->name),
                     at_text(s, x->ts, a, sizeof a), fmt_dur(x->dur, b, sizeof b), more, lab);
        }
    }
    *len = strlen(buf);
    return buf;
}

/* ---- the range ---- */

static int apply_range(view *v, int64_t a, int64_t e)
{
    struct tl_state *s = state(v);
    t2p_error err;
    if (e <= a) {
        view_status_set(v, "an empty range: mark its start with { and its end with } at another time");
        return VIEW_DRAW_FOOTER;
    }
    time_range r = { a, e, a - s->whole->window_start, e - s->whole->window_start };
    model_opts mo = s->whole->opts;
    mo.keep = NULL;
    mo.group = NULL;
    model *sm = range_scope(s->whole, &r, &mo, NULL, &err);
    if (!sm) {
        view_status_set(v, "%s", err.reason);
        return VIEW_DRAW_FOOTER;
    }
    model *old = s->scoped;
    enum view_tab tab = v->tab;
    s->scoped = sm;
    s->mark = INT64_MIN;
    int kept = view_set_model_keep(v, sm);
    v->tab = tab;
    model_free(old);
    if (kept < 0)
        return VIEW_QUIT;
    if (kept) {
        char l[64], x[40], y[40];
        view_status_set(v, "every view covers %s (--range %s:%s): Esc the whole trace, e exports it",
                        range_label(&r, l, sizeof l), range_offset_text(r.off_start, x, sizeof x),
                        range_offset_text(r.off_end, y, sizeof y));
    }
    return VIEW_DRAW_ALL;
}

static int clear_range(view *v)
{
    struct tl_state *s = state(v);
    if (!s->scoped || v->m != s->scoped)
        return -1;
    enum view_tab tab = v->tab;
    if (view_set_model_keep(v, s->whole) < 0)
        return VIEW_QUIT;
    v->tab = tab;
    model_free(s->scoped);
    s->scoped = NULL;
    view_status_set(v, "every view shows the whole trace");
    return VIEW_DRAW_ALL;
}

int view_timeline_set_range(view *v, int64_t start, int64_t end)
{
    struct tl_state *s = state(v);
    /* the model is all a range needs: the timeline waits until it is shown */
    if (!s || !s->whole)
        return -1;
    int r = apply_range(v, start, end);
    if (r == VIEW_QUIT || !s->scoped)
        return -1;
    int64_t pad = (end - start) / 20;
    s->want0 = start - pad;
    s->wantn = end - start + 2 * pad;
    s->wantc = start;
    if (s->tl) {
        s->t0 = s->want0;
        s->span = s->wantn;
        s->cursor = start;
    }
    return 0;
}

/* ---- keys ---- */

static void zoom(struct tl_state *s, int64_t span)
{
    int64_t whole = s->tl->end - s->tl->start > 0 ? s->tl->end - s->tl->start : 1;
    if (span < 16)
        span = 16; /* a few ns a column at most */
    if (span > whole)
        span = whole;
    /* the cursor keeps its place on the screen */
    double f = s->span ? (double)(s->cursor - s->t0) / (double)s->span : 0.5;
    if (f < 0 || f > 1)
        f = 0.5;
    s->t0 = s->cursor - (int64_t)(f * (double)span);
    s->span = span;
    if (s->t0 < s->tl->start)
        s->t0 = s->tl->start;
    if (s->t0 + s->span > s->tl->end)
        s->t0 = s->tl->end - s->span;
}

/* keeps the cursor on screen, panning to it */
static void follow(struct tl_state *s, int w)
{
    int64_t cw = s->span / w > 0 ? s->span / w : 1;
    if (s->cursor < s->t0)
        s->t0 = s->cursor;
    else if (s->cursor >= s->t0 + s->span)
        s->t0 = s->cursor - s->span + cw;
}

static int tl_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    struct tl_state *s = state(v);
    const timeline *t = tl_of(v);
    if (!t)
        return -1;
    int w = bar_width(v);
    int64_t cw = s->span / w > 0 ? s->span / w : 1;
    uint32_t id = view_nrows(v) ? view_row(v, view_cursor(v)) : ROW_RULER;
    switch (act) {
    case ACT_TL_LEFT:
    case ACT_TL_RIGHT:
        s->cursor += act == ACT_TL_LEFT ? -cw : cw;
        if (s->cursor < t->start)
            s->cursor = t->start;
        if (s->cursor >= t->end)
            s->cursor = t->end - 1;
        s->ev = TIMELINE_NONE;
        follow(s, w);
        return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER | VIEW_DRAW_TITLE;
    case ACT_TL_PAN_LEFT:
    case ACT_TL_PAN_RIGHT: {
        int64_t d = act == ACT_TL_PAN_LEFT ? -s->span / 2 : s->span / 2;
        if (s->t0 + d < t->start)
            d = t->start - s->t0;
        if (s->t0 + s->span + d > t->end)
            d = t->end - s->t0 - s->span;
        s->t0 += d;
        s->cursor += d;
        s->ev = TIMELINE_NONE;
        return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER | VIEW_DRAW_TITLE;
    }
    case ACT_TL_ZOOM_IN: zoom(s, s->span / 2); return VIEW_DRAW_ALL;
    case ACT_TL_ZOOM_OUT: zoom(s, s->span * 2); return VIEW_DRAW_ALL;
    case ACT_TL_ZOOM_ALL:
        s->t0 = t->start;
        s->span = t->end - t->start > 0 ? t->end - t->start : 1;
        if (s->cursor < t->start || s->cursor >= t->end)
            s->cursor = t->start;
        return VIEW_DRAW_ALL;
    case ACT_TL_NEXT_EVENT:
    case ACT_TL_PREV_EVENT: {
        if (id >= t->nrows || t->rows[id].kind == TIMELINE_UTIL) {
            view_status_set(v, "the cursor is on no track: Up/Down to one");
            return VIEW_DRAW_FOOTER;
        }
        uint32_t e = timeline_step_event(t, id, s->cursor, act == ACT_TL_NEXT_EVENT ? 1 : -1);
        if (e == TIMELINE_NONE) {
            view_status_set(v, "no %s event on this track",
                            act == ACT_TL_NEXT_EVENT ? "later" : "earlier");
            return VIEW_DRAW_FOOTER;
        }
        s->ev = e;
        s->cursor = t->m->tr->events[e].ts;
        /* an event off the screen: the screen centres on it, the zoom kept */
        if (s->cursor < s->t0 || s->cursor >= s->t0 + s->span) {
            s->t0 = s->cursor - s->span / 2;
            if (s->t0 + s->span > t->end)
                s->t0 = t->end - s->span;
            if (s->t0 < t->start)
                s->t0 = t->start;
        }
        return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER | VIEW_DRAW_TITLE;
    }
    case ACT_TL_MARK_START:
        s->mark = s->cursor;
        view_status_set(v, "range starts here: } at its end");
        return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;
    case ACT_TL_MARK_END: {
        if (s->mark == INT64_MIN) {
            view_status_set(v, "mark the range's start first: {");
            return VIEW_DRAW_FOOTER;
        }
        int64_t a = s->mark < s->cursor ? s->mark : s->cursor;
        int64_t e = s->mark < s->cursor ? s->cursor : s->mark;
        /* the end's column counts: the range runs to its end */
        return apply_range(v, a, e + cw);
    }
    case ACT_DRILL: {
        if (id == ROW_STEPS) {
            /* its host window: the events a step scope counts, by the same rule */
            size_t i = timeline_mark_at(t, s->cursor);
            if (i != SIZE_MAX)
                return apply_range(v, t->marks[i].start, t->marks[i].end);
            view_status_set(v, "the cursor is in no step");
            return VIEW_DRAW_FOOTER;
        }
        if (id >= t->nrows || t->rows[id].kind == TIMELINE_UTIL) {
            view_status_set(v, "Enter on an event focuses its operator: move to a track");
            return VIEW_DRAW_FOOTER;
        }
        uint32_t e = cursor_event(s, id);
        if (e == TIMELINE_NONE || t->m->ev_node[e] == MODEL_NONE) {
            view_status_set(v, "no event under the cursor");
            return VIEW_DRAW_FOOTER;
        }
        /* its operator in the model shown (a range's has its own indices) */
        const model_op *o = &t->m->ops[t->m->nodes[t->m->ev_node[e]].op];
        for (size_t k = 0; k < v->m->nops; k++)
            if (v->m->ops[k].name == o->name && v->m->ops[k].cat == o->cat) {
                view_push_focus(v, SCOPE_OP, (uint32_t)k);
                return VIEW_DRAW_ALL;
            }
        view_status_set(v, "%s is not in the range", trace_str(t->m->tr, o->name));
        return VIEW_DRAW_FOOTER;
    }
    case ACT_BACK:
        if (s->mark != INT64_MIN) {
            s->mark = INT64_MIN;
            view_status_set(v, "range mark cleared");
            return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;
        }
        if (scope_depth(v->scope) == 0)
            return clear_range(v);
        return -1;
    default:
        return -1;
    }
}

/* Esc from every view, once no focus is left to pop: the whole trace */
static int tl_global(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act != ACT_BACK || !state(v))
        return -1;
    return clear_range(v);
}

static void tl_tabinfo(view *v, char *buf, size_t size)
{
    struct tl_state *s = state(v);
    char a[32], b[32];
    if (!s || !s->tl)
        return;
    snprintf(buf, size, "  %s to %s", at_text(s, s->t0, a, sizeof a),
             at_text(s, s->t0 + s->span, b, sizeof b));
}

const struct view_ops view_timeline_ops = {
    .name = "timeline",
    .label = "Timeline",
    .cols = cols,
    .cols_of = tl_cols,
    .sorts = sorts,
    .open = tl_open,
    .close = tl_close,
    .rebuild = tl_rebuild,
    .name_of = tl_name,
    .cell = tl_cell,
    .gpu = tl_gpu,
    .action = tl_action,
    .global = tl_global,
    .tabinfo = tl_tabinfo,
    .keeps_state = true,
    .bar_col = C_BAR + 1,
};
