/* The GPU view: HTA's analyses (core/analyses/hta.h) of the model shown.
   One row per stream: its GPU events, busy time, the idle time between
   them split into host wait, kernel wait and other, the launch delay p50,
   p95 and max of the launches of its events, the queue length's mean and
   max; under them the kernel-type split and the temporal breakdown.
   Enter on a stream lists its launches by delay, outliers first (delay or
   call past HTA's cutoffs, marked *); Enter on one focuses the operator
   that launched it (the Tree of its stacks); Esc goes back. e exports the
   stream's GPU time by the stacks that launched it (convert --track of
   that stream), the scope left as it is. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/derived.h"
#include "core/analyses/gpu.h"
#include "core/analyses/hta.h"
#include "core/base/fmt.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

const struct view_ops view_gpu_ops;

enum { C_NAME, C_EVENTS, C_BUSY, C_HOST, C_KWAIT, C_OTHER, C_P50, C_P95, C_MAX, C_QMEAN,
       C_QMAX };
enum { L_NAME = 100, L_DELAY, L_CALL, L_GPU, L_START, L_MARK };

/* The view's sorts, past the model's (MODEL_SORT_N ends a sort list): a
   stream row's figures, then a launch's. */
#define OWN(k) ((int)MODEL_SORT_N + 1 + (int)(k))
enum { K_BUSY, K_EVENTS, K_HOST, K_KWAIT, K_OTHER, K_P50, K_P95, K_MAX, K_QMEAN, K_QMAX, K_NAME,
       K_DELAY, K_CALL, K_GPU, K_START, K_LNAME, K_N };
static const char *const key_names[K_N] = {
    "busy", "events", "host wait", "kernel wait", "other wait", "delay p50", "delay p95",
    "delay max", "queue", "queue max", "name", "delay (outliers first)", "call", "GPU time",
    "start", "name"
};

static const col cols[] = {
    { C_NAME, "Stream", 14, OWN(K_NAME), 0, false, true, true },
    { C_EVENTS, "Events", 8, OWN(K_EVENTS), 3, false, false, false },
    { C_BUSY, "Busy ms", 10, OWN(K_BUSY), 0, false, false, false },
    { C_HOST, "Host wait", 10, OWN(K_HOST), 0, false, false, false },
    { C_KWAIT, "Kern wait", 10, OWN(K_KWAIT), 2, false, false, false },
    { C_OTHER, "Other wait", 10, OWN(K_OTHER), 2, false, false, false },
    { C_P50, "Delay p50us", 11, OWN(K_P50), 1, false, false, false },
    { C_P95, "p95 us", 8, OWN(K_P95), 3, false, false, false },
    { C_MAX, "max us", 8, OWN(K_MAX), 1, false, false, false },
    { C_QMEAN, "Queue", 6, OWN(K_QMEAN), 2, false, false, false },
    { C_QMAX, "Qmax", 5, OWN(K_QMAX), 4, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const col lcols[] = {
    { L_MARK, "!", 1, -1, 0, false, false, true },
    { L_DELAY, "Delay us", 10, OWN(K_DELAY), 0, false, false, false },
    { L_CALL, "Call us", 9, OWN(K_CALL), 1, false, false, false },
    { L_GPU, "GPU us", 9, OWN(K_GPU), 1, false, false, false },
    { L_START, "Start ms", 11, OWN(K_START), 2, false, false, false },
    { L_NAME, "Launched by / GPU event", 20, OWN(K_LNAME), 0, false, true, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

/* < and > cycle these (the streams' columns; a stream's launches' columns) */
#define S(k) (enum model_sort) OWN(k)
static const enum model_sort sorts[] = { S(K_BUSY), S(K_EVENTS), S(K_HOST), S(K_KWAIT),
                                         S(K_OTHER), S(K_P50), S(K_P95), S(K_MAX), S(K_QMEAN),
                                         S(K_QMAX), S(K_NAME), MODEL_SORT_N };
static const enum model_sort lsorts[] = { S(K_DELAY), S(K_CALL), S(K_GPU), S(K_START),
                                          S(K_LNAME), MODEL_SORT_N };
#undef S

/* Row ids: streams are their index; the lines under them have high bits. */
#define ROW_BLANK 0x10000000u
#define ROW_TEMPORAL 0x10000001u
#define ROW_WINDOW 0x10000002u
#define ROW_TYPE 0x40000000u
#define IS_TYPE(id) (((id) & 0x70000000u) == ROW_TYPE)

struct gpu_state {
    const model *m; /* what h is of */
    const hta *h;   /* core's (derived_hta), shared */
    char err[200];
    long stream;    /* the stream whose launches are listed, -1: the streams */
    size_t back_cur, back_top;
    enum model_sort sort, lsort; /* OWN(K_*): the streams', the launches' */
    bool reverse, lreverse;
};

static struct gpu_state *state(view *v)
{
    return view_state(v, VIEW_GPU);
}

static int gview_open(view *v)
{
    struct gpu_state *s = view_state_new(v, VIEW_GPU, sizeof *s);
    if (!s)
        return -1;
    s->stream = -1;
    s->sort = (enum model_sort)OWN(K_BUSY);
    s->lsort = (enum model_sort)OWN(K_DELAY);
    return 0;
}

static void gview_close(view *v)
{
    struct gpu_state *s = state(v);
    if (!s)
        return;
    free(s);
}

/* The figures of the model shown: built the first time the view is shown
   (one pass over the events), again when the model changes. */
static const hta *hta_of(view *v)
{
    struct gpu_state *s = state(v);
    if (s->m != v->m) {
        s->h = NULL;
        s->m = v->m;
        s->stream = -1;
        s->err[0] = '\0';
        t2p_error err;
        struct derived *d = view_derived(v, v->m);
        if (!d)
            error_set(&err, T2P_ERR_NOMEM, v->m->tr->path, -1, "out of memory");
        if (!d || !(s->h = derived_hta(d, v->m, v->hta_opts, &err)))
            snprintf(s->err, sizeof s->err, "%.180s", err.reason);
    }
    return s->h;
}

static const col *gview_cols(view *v)
{
    struct gpu_state *s = state(v);
    return s->stream >= 0 ? lcols : cols;
}

static uint32_t launcher_op(const model *m, uint32_t launch);
static const char *gview_name(view *v, uint32_t id, char *buf, size_t size, size_t *len);

/* A stream's figure for sort key k (-1 for a figure it lacks: no launch). */
static int64_t stream_key(const hta_stream *st, int k)
{
    bool launched = st->delay.count > 0;
    switch (k) {
    case K_EVENTS: return (int64_t)st->events;
    case K_HOST: return st->host_wait_ns;
    case K_KWAIT: return st->kernel_wait_ns;
    case K_OTHER: return st->other_wait_ns;
    case K_P50: return launched ? (int64_t)(st->delay.p50_ns + 0.5) : -1;
    case K_P95: return launched ? (int64_t)(st->delay.p95_ns + 0.5) : -1;
    case K_MAX: return launched ? st->delay.max_ns : -1;
    case K_QMEAN: return st->qcount ? (int64_t)(st->qmean * 1000 + 0.5) : -1;
    case K_QMAX: return st->qcount ? st->qmax : -1;
    default: return st->busy_ns;
    }
}

static int64_t launch_key(view *v, const hta *h, const hta_launch *l, int k)
{
    switch (k) {
    case K_CALL: return l->cpu_ns;
    case K_GPU: return l->gpu_ns;
    case K_START: return v->m->tr->events[l->launch].ts;
    /* outliers first, each part by delay */
    default: return (hta_launch_outlier(h, l) ? INT64_MAX / 2 : 0) + l->delay_ns;
    }
}

/* Pushes the n rows ids[] in the sort (key k, names when by name). */
static int push_sorted(view *v, view_rows *r, uint32_t n, int k, bool reverse)
{
    struct gpu_state *s = state(v);
    const hta *h = s->h;
    view_keyed *kb = view_keyed_buf(v, n);
    if (!kb)
        return -1;
    bool by_name = k == K_NAME || k == K_LNAME;
    size_t m = 0;
    char buf[600];
    for (uint32_t i = 0; i < n; i++) {
        size_t len;
        const char *name = gview_name(v, i, buf, sizeof buf, &len);
        if (s->stream < 0 && !scope_name_passes(v->scope, name))
            continue;
        if (s->stream >= 0) {
            size_t nl;
            const hta_launch *l = hta_stream_launches(h, (size_t)s->stream, &nl);
            kb[m].key = launch_key(v, h, &l[i], k);
        } else {
            kb[m].key = stream_key(&h->streams[i], k);
        }
        /* the name is built in buf: a copy the sorter frees */
        kb[m].name = by_name ? strdup(name) : "";
        kb[m].owned = by_name;
        kb[m].id = i;
        if (by_name && !kb[m].name)
            return -1;
        m++;
    }
    view_keyed_sort(kb, m, by_name, reverse);
    for (size_t i = 0; i < m; i++)
        if (view_rows_push(r, kb[i].id) < 0)
            return -1;
    return 0;
}

static int gview_rebuild(view *v, view_rows *r)
{
    struct gpu_state *s = state(v);
    const hta *h = hta_of(v);
    int rc = 0;
    if (!h || !h->gpu_events)
        return 0;
    if (s->stream >= 0) {
        size_t n;
        hta_stream_launches(h, (size_t)s->stream, &n);
        return push_sorted(v, r, (uint32_t)n, (int)s->lsort - OWN(0), s->lreverse);
    }
    rc = push_sorted(v, r, (uint32_t)h->nstreams, (int)s->sort - OWN(0), s->reverse);
    if (rc == 0)
        rc = view_rows_push(r, ROW_BLANK);
    if (rc == 0)
        rc = view_rows_push(r, ROW_TEMPORAL);
    for (size_t i = 0; i < h->ntypes && rc == 0; i++)
        rc = view_rows_push(r, ROW_TYPE | (uint32_t)i);
    if (rc == 0)
        rc = view_rows_push(r, ROW_WINDOW);
    return rc;
}

/* the op of the node that launched it (core's one rule), MODEL_NONE when
   the launch has no node in m (a scoped model's, outside its steps) */
static uint32_t launcher_op(const model *m, uint32_t launch)
{
    if (!m->ev_node)
        return MODEL_NONE;
    uint32_t n = gpu_launcher_node(m, launch);
    return n == MODEL_NONE ? MODEL_NONE : m->nodes[n].op;
}

static const char *gview_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    struct gpu_state *s = state(v);
    const hta *h = s->h;
    buf[0] = '\0';
    if (!h) {
        *len = 0;
        return buf;
    }
    if (s->stream >= 0) {
        size_t n;
        const hta_launch *l = hta_stream_launches(h, (size_t)s->stream, &n);
        if (id < n) {
            uint32_t op = launcher_op(v->m, l[id].launch);
            size_t ol = 0;
            const char *on = op != MODEL_NONE ? view_op_name(v, op, &ol) : "?";
            const trace *tr = v->m->tr;
            snprintf(buf, size, "%.*s > %s > %s", (int)ol, on,
                     trace_str(tr, tr->events[l[id].launch].name),
                     trace_str(tr, tr->events[l[id].gpu].name));
        }
    } else if (id == ROW_TEMPORAL) {
        char a[32], b[32], c[32], d[32];
        snprintf(buf, size, "Temporal: %s ms, compute %s%%, non-compute %s%%, idle %s%%",
                 fmt_ms(h->kernel_ns, a, sizeof a), fmt_pct(h->compute_ns, h->kernel_ns, b, sizeof b),
                 fmt_pct(h->non_compute_ns, h->kernel_ns, c, sizeof c),
                 fmt_pct(h->idle_ns, h->kernel_ns, d, sizeof d));
    } else if (id == ROW_WINDOW) {
        char w[300];
        snprintf(buf, size, "Window: %s", hta_window_text(h, w, sizeof w));
    } else if (IS_TYPE(id)) {
        const hta_typerow *t = &h->types[id & ~ROW_TYPE];
        char n[128], p[32];
        snprintf(buf, size, "  %s %s%%", hta_typerow_name(t->mask, n, sizeof n),
                 fmt_pct(t->ns, h->types_ns, p, sizeof p));
    } else if (id < h->nstreams) {
        hta_stream_label(h, id, buf, size);
    }
    *len = strlen(buf);
    return buf;
}

static void cell_us(cols_line *l, double ns, int width)
{
    char b[32];
    snprintf(b, sizeof b, "%.1f", ns / 1e3);
    cols_cell(l, b, strlen(b), width, true);
}

static void launch_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    struct gpu_state *s = state(v);
    size_t n;
    const hta_launch *x = hta_stream_launches(s->h, (size_t)s->stream, &n);
    if (id >= n) {
        cols_cell(l, "", 0, c->id == L_NAME ? namew : c->width, false);
        return;
    }
    x += id;
    char t[1200];
    size_t len;
    switch (c->id) {
    case L_MARK: cols_cell(l, hta_launch_outlier(s->h, x) ? "*" : " ", 1, c->width, false); break;
    case L_DELAY: cell_us(l, (double)x->delay_ns, c->width); break;
    case L_CALL: cell_us(l, (double)x->cpu_ns, c->width); break;
    case L_GPU: cell_us(l, (double)x->gpu_ns, c->width); break;
    case L_START:
        view_cell_ms(l, v->m->tr->events[x->launch].ts - v->m->window_start, c->width);
        break;
    default:
        gview_name(v, id, t, sizeof t, &len);
        cols_cell(l, t, len, namew, false);
    }
}

static void gview_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    struct gpu_state *s = state(v);
    const hta *h = s->h;
    if (s->stream >= 0) {
        launch_cell(v, id, c, namew, l);
        return;
    }
    char t[600];
    size_t len;
    if (c->id == C_NAME) {
        gview_name(v, id, t, sizeof t, &len);
        cols_cell(l, t, len, namew, false);
        return;
    }
    if (!h || id >= h->nstreams) {
        /* the kernel-type rows carry their time under Busy */
        if (h && IS_TYPE(id) && c->id == C_BUSY)
            view_cell_ms(l, h->types[id & ~ROW_TYPE].ns, c->width);
        else
            cols_cell(l, "", 0, c->width, true);
        return;
    }
    const hta_stream *st = &h->streams[id];
    bool launched = st->delay.count > 0;
    switch (c->id) {
    case C_EVENTS: view_cell_count(l, st->events, c->width); break;
    case C_BUSY: view_cell_ms(l, st->busy_ns, c->width); break;
    case C_HOST: view_cell_ms(l, st->host_wait_ns, c->width); break;
    case C_KWAIT: view_cell_ms(l, st->kernel_wait_ns, c->width); break;
    case C_OTHER: view_cell_ms(l, st->other_wait_ns, c->width); break;
    case C_P50:
    case C_P95:
    case C_MAX:
        if (!launched)
            cols_cell(l, "-", 1, c->width, true);
        else
            cell_us(l, c->id == C_P50 ? st->delay.p50_ns
                       : c->id == C_P95 ? st->delay.p95_ns : (double)st->delay.max_ns, c->width);
        break;
    case C_QMEAN:
    case C_QMAX:
        if (!st->qcount) {
            cols_cell(l, "-", 1, c->width, true);
        } else {
            if (c->id == C_QMEAN)
                snprintf(t, sizeof t, "%.1f", st->qmean);
            else
                snprintf(t, sizeof t, "%lld", (long long)st->qmax);
            cols_cell(l, t, strlen(t), c->width, true);
        }
        break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static bool gview_gpu(view *v, uint32_t id)
{
    struct gpu_state *s = state(v);
    return s->stream < 0 && s->h && id < s->h->nstreams;
}

static void show(view *v, long stream, size_t cur, size_t top)
{
    struct gpu_state *s = state(v);
    s->stream = stream;
    v->stale[VIEW_GPU] = true;
    v->cur[VIEW_GPU] = cur;
    v->top[VIEW_GPU] = top;
    view_clamp(v);
}

static uint32_t export_stream(view *v);

static int gview_action(view *v, enum key_act act, int arg)
{
    struct gpu_state *s = state(v);
    (void)arg;
    if (!s->h || view_nrows(v) == 0)
        return act == ACT_DRILL || act == ACT_EXPORT ? VIEW_DRAW_FOOTER : -1;
    uint32_t id = view_row(v, view_cursor(v));
    if (act == ACT_DRILL) {
        if (s->stream < 0) {
            if (id >= s->h->nstreams)
                return VIEW_DRAW_FOOTER;
            s->back_cur = view_cursor(v);
            s->back_top = view_top(v);
            show(v, (long)id, 0, 0);
            if (!s->h->streams[id].delay.count)
                view_status_set(v, "no launch calls joined to this stream's GPU events");
            return VIEW_DRAW_ALL;
        }
        size_t n;
        const hta_launch *l = hta_stream_launches(s->h, (size_t)s->stream, &n);
        uint32_t op = id < n ? launcher_op(v->m, l[id].launch) : MODEL_NONE;
        if (op == MODEL_NONE)
            return VIEW_DRAW_FOOTER;
        view_push_focus(v, SCOPE_OP, op);
        return VIEW_DRAW_ALL;
    }
    if (act == ACT_BACK && s->stream >= 0 && !scope_active(v->scope)) {
        show(v, -1, s->back_cur, s->back_top);
        return VIEW_DRAW_ALL;
    }
    if (act == ACT_EXPORT) {
        if (export_stream(v) == MODEL_NONE) {
            view_status_set(v, "e on a stream: its GPU time by the stacks that launched it");
            return VIEW_DRAW_FOOTER;
        }
        return -1; /* the generic e: scope_args names the stream */
    }
    return -1;
}

/* The stream e exports: the one whose launches are listed, else the one
   under the cursor; MODEL_NONE on another row. */
static uint32_t export_stream(view *v)
{
    struct gpu_state *s = state(v);
    if (!s || !s->h || s->m != v->m)
        return MODEL_NONE;
    if (s->stream >= 0)
        return (uint32_t)s->stream;
    if (view_nrows(v) == 0)
        return MODEL_NONE;
    uint32_t id = view_row(v, view_cursor(v));
    return id < s->h->nstreams ? id : MODEL_NONE;
}

/* e exports what is shown: the stream's GPU time by the stacks that
   launched it (convert --track LABEL, the stream as the Threads view names
   it), leaving the scope as it is. Only while this view is shown. */
static void gview_scope_args(view *v, struct view_scope_args *a)
{
    if (v->tab != VIEW_GPU)
        return;
    uint32_t st = export_stream(v);
    if (st != MODEL_NONE)
        trace_track_fullname(v->m->tr, state(v)->h->streams[st].track, a->track,
                             sizeof a->track);
}

static const enum model_sort *gview_sorts_of(view *v)
{
    return state(v)->stream >= 0 ? lsorts : sorts;
}

static void gview_own_sort(view *v, enum model_sort **sort, bool **reverse)
{
    struct gpu_state *s = state(v);
    *sort = s->stream >= 0 ? &s->lsort : &s->sort;
    *reverse = s->stream >= 0 ? &s->lreverse : &s->reverse;
}

static const char *gview_sort_name(view *v, int sort)
{
    (void)v;
    int k = sort - OWN(0);
    return k >= 0 && k < K_N ? key_names[k] : NULL;
}

static void gview_tabinfo(view *v, char *buf, size_t size)
{
    struct gpu_state *s = state(v);
    const hta *h = hta_of(v);
    char a[300];
    if (!h)
        snprintf(buf, size, "  GPU: %s", s->err);
    else if (!h->gpu_events)
        snprintf(buf, size, "  no GPU events");
    else if (s->stream >= 0)
        snprintf(buf, size, "  launches of %s (* past %.0f us delay or %.0f us call)",
                 hta_stream_label(h, (size_t)s->stream, a, sizeof a),
                 (double)h->opts.delay_cutoff_ns / 1e3, (double)h->opts.runtime_cutoff_ns / 1e3);
    else
        snprintf(buf, size, "  %zu streams, %llu launches (HTA's analyses; outliers past %.0f us "
                            "delay or %.0f us call)", h->nstreams,
                 (unsigned long long)h->nlaunches, (double)h->opts.delay_cutoff_ns / 1e3,
                 (double)h->opts.runtime_cutoff_ns / 1e3);
}

const struct view_ops view_gpu_ops = {
    .name = "gpu",
    .label = "GPU",
    .cols = cols,
    .cols_of = gview_cols,
    .namecap = 60,
    .sorts = sorts,
    .sorts_of = gview_sorts_of,
    .sort_name = gview_sort_name,
    .own_sort = gview_own_sort,
    .open = gview_open,
    .close = gview_close,
    .rebuild = gview_rebuild,
    .name_of = gview_name,
    .cell = gview_cell,
    .gpu = gview_gpu,
    .action = gview_action,
    .tabinfo = gview_tabinfo,
    .scope_args = gview_scope_args,
};
