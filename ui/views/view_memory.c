/* The Memory view (traces recorded with profile_memory=True): per device a
   curve of the bytes allocated over the trace window, drawn across the
   terminal in block characters (ASCII in a non-UTF-8 locale), the peak
   marked ^ and the steps' starts | under it; then the operators by
   allocation size, count or size increase (< > r), each for one device,
   with TensorBoard's memory figures (core/analyses/memory.h). Enter on an operator
   shows the Tree of every stack through it, as in the Ops view, with that
   row's device's memory figures per node (ui/tree_mem.h) while the focus
   holds.

   Under a scope of time (a step, a range) the figures are the records in
   its window (core/analyses/memory.h) and the chart spans that window. The
   figures are core's, built once per model and shared
   (core/analyses/derived.h). Under a focus or filter the operators' rows
   are the allocations made inside the scope's stacks
   (core/analyses/memory_scope.h, analyze --focus's figures), counted again
   on each change of the scope; the charts and peaks stay the device's. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/analyses/derived.h"
#include "core/analyses/memory.h"
#include "core/analyses/memory_scope.h"
#include "core/analyses/steps.h"
#include "ui/tree_mem.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

const struct view_ops view_memory_ops;

enum { C_NAME, C_DEV, C_ALLOCS, C_SIZE, C_INCR, C_SALLOCS, C_SSIZE, C_SINCR };

static const col cols[] = {
    { C_NAME, "Name", 20, -1, 0, false, true, true },
    { C_DEV, "Device", 6, -1, 1, false, false, true },
    { C_ALLOCS, "Allocs", 9, -1, 1, false, false, false },
    { C_SIZE, "Alloc size", 11, -1, 0, false, false, false },
    { C_INCR, "Increase", 11, -1, 2, false, false, false },
    { C_SALLOCS, "Self allocs", 11, -1, 3, false, false, false },
    { C_SSIZE, "Self size", 11, -1, 2, false, false, false },
    { C_SINCR, "Self incr.", 11, -1, 3, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_N };

/* Row ids: operator rows are indices into mem->ops; chart rows have the top
   bit set, the device in bits 8..15 and the line in bits 0..7. */
#define ROW_CHART 0x80000000u
#define ROW_BLANK 0x7fffffffu
enum { CHART_H = 6, LINE_HEAD = 0, LINE_AXIS = CHART_H + 1, LINE_TIME = CHART_H + 2,
       CHART_LINES = CHART_H + 3, LABEL_W = 10 };

struct mem_state {
    const model *m;  /* what mem is of */
    const memory *mem; /* core's (derived_memory), not owned */
    const memory_scoped *ms; /* under a focus or filter: its rows (core's:
                                derived_memory_in), else NULL */
    uint32_t ms_gen;   /* scope_gen ms was counted for */
    const steps *st; /* the trace's, for the step marks and the peak's step; NULL when none */
    int64_t origin;  /* the whole trace's window start: times are offsets from it */
    int64_t c0, c1;  /* what the chart spans: the scope's window, else the model's */
    char err[200];
    enum memory_sort sort;
    bool reverse;
    /* the curves, per device, for a chart width: one pass over the records
       per width, not one per line drawn */
    int64_t *vals;
    int vals_w;
    /* the Tree's memory columns: shown while the scope is at least
       tree_depth deep (0: not shown), for device tree_dev; tree_figs per
       node of the tree it was computed for (merged, scope generation) */
    int tree_depth;
    uint32_t tree_dev;
    memory_stat *tree_figs;
    bool tree_merged;
    uint32_t tree_gen;
    col tree_cols[COLS_MAX + 1];
    enum model_sort tree_sorts[16]; /* the Tree's sort cycle with the memory ones */
};

static struct mem_state *state(view *v)
{
    return view_state(v, VIEW_MEMORY);
}

static int mview_open(view *v)
{
    struct mem_state *s = view_state_new(v, VIEW_MEMORY, sizeof *s);
    if (!s)
        return -1;
    /* the whole trace's analyses are known by its model before a step or
       a range scopes every view (core/analyses/derived.h) */
    if (!model_is_scoped(v->m))
        view_derived(v, v->m);
    return 0;
}

static void mview_close(view *v)
{
    struct mem_state *s = state(v);
    if (!s)
        return;
    free(s->vals);
    free(s->tree_figs);
    free(s);
}

/* The figures of the model shown: built the first time the view is shown. */
static const memory *mem_of(view *v)
{
    struct mem_state *s = state(v);
    if (s->m != v->m) {
        s->mem = NULL;
        s->ms = NULL;
        s->st = NULL;
        s->m = v->m;
        s->err[0] = '\0';
        s->vals_w = 0;
        s->tree_depth = 0; /* another model: its own scope */
        free(s->tree_figs);
        s->tree_figs = NULL;
        t2p_error err;
        struct derived *d = view_derived(v, v->m);
        if (!d)
            snprintf(s->err, sizeof s->err, "no memory figures: out of memory");
        else if (!(s->mem = derived_memory(d, v->m, &err)))
            snprintf(s->err, sizeof s->err, "%.180s", err.reason);
        s->st = d ? derived_steps(d, &err) : NULL; /* NULL: no step marks */
        s->origin = d ? derived_whole(d)->window_start : v->m->window_start;
        s->c0 = v->m->scope.kind != MODEL_SCOPE_NONE ? v->m->scope.start : v->m->window_start;
        s->c1 = v->m->scope.kind != MODEL_SCOPE_NONE ? v->m->scope.end : v->m->window_end;
    }
    return s->mem;
}

/* The memory whose operator rows the view lists: under a focus or filter,
   the scope's (counted when the scope changed), else the model's. */
static const memory *rows_of(view *v)
{
    struct mem_state *s = state(v);
    const memory *mem = mem_of(v);
    if (!mem || !scope_active(v->scope)) {
        s->ms = NULL;
        return mem;
    }
    if (!s->ms || s->ms_gen != scope_gen(v->scope)) {
        s->ms = NULL;
        t2p_error err;
        uint8_t *sel = scope_keep(v->scope);
        struct derived *d = view_derived(v, v->m);
        if (sel && d)
            s->ms = derived_memory_in(d, v->m, sel, &err);
        free(sel); /* derived keeps a copy */
        s->ms_gen = scope_gen(v->scope);
    }
    return s->ms ? &s->ms->view : mem;
}

static int64_t key_of(const memory_op *o, enum memory_sort k)
{
    switch (k) {
    case MEMORY_SORT_ALLOC_COUNT: return (int64_t)o->st.alloc_count;
    case MEMORY_SORT_SIZE_INCREASE: return o->st.increase_bytes;
    default: return o->st.alloc_bytes;
    }
}

static int mview_rebuild(view *v, view_rows *r)
{
    struct mem_state *s = state(v);
    const memory *mem = mem_of(v);
    if (!mem || !mem->ndevices)
        return 0;
    int rc = 0;
    for (size_t d = 0; d < mem->ndevices && rc == 0; d++)
        for (uint32_t k = 0; k < CHART_LINES && rc == 0; k++)
            rc = view_rows_push(r, ROW_CHART | (uint32_t)d << 8 | k);
    if (rc == 0)
        rc = view_rows_push(r, ROW_BLANK);
    /* under a focus or filter, the rows count its stacks alone (the
       filter's text is in the scope's mask) */
    const memory *rows = rows_of(v);
    view_keyed *kb = view_keyed_buf(v, rows->nops);
    if (!kb)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < rows->nops; i++) {
        const memory_op *o = &rows->ops[i];
        const char *name = model_op_name(v->m, o->op);
        kb[n].key = key_of(o, s->sort);
        kb[n].name = name;
        kb[n].id = (uint32_t)i;
        n++;
    }
    view_keyed_sort(kb, n, false, s->reverse);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = view_rows_push(r, kb[i].id);
    return rc;
}

/* The chart's width: what a row spanning the table has (the screen less
   the gaps between the columns and the cursor mark) less the value labels. */
static int chart_w(view *v)
{
    const col *shown[COLS_MAX];
    int nw, k = cols_layout(cols, v->width, v->gpu, view_memory_ops.namecap, shown, &nw);
    int w = v->width - (k - 1) - 1 - LABEL_W - 1;
    return w < 8 ? 8 : w > 1000 ? 1000 : w;
}

static size_t col_of(view *v, int64_t ts, int w)
{
    const struct mem_state *s = state(v);
    int64_t span = s->c1 - s->c0;
    if (span <= 0 || ts < s->c0)
        return 0;
    size_t c = (size_t)((__int128)(ts - s->c0) * w / span);
    return c >= (size_t)w ? (size_t)w - 1 : c;
}

/* One line of a device's chart into buf. */
static void chart_line(view *v, uint32_t dev, uint32_t line, char *buf, size_t size)
{
    struct mem_state *s = state(v);
    const memory *mem = s->mem;
    const memory_device *d = &mem->devices[dev];
    char a[32], b[32], c[32], e[32];
    size_t o = 0;
    int w = chart_w(v);
    bool utf8 = MB_CUR_MAX > 1;
    buf[0] = '\0';
    if (line == LINE_HEAD && mem->windowed && !d->records) {
        snprintf(buf, size, "%s: no record in this window", d->name);
        return;
    }
    if (line == LINE_HEAD) {
        /* times are offsets from the trace's start, in a step or a range too */
        o += (size_t)snprintf(buf, size, "%s: peak %s at %s ms", d->name,
                              fmt_bytes(d->peak_bytes, a, sizeof a),
                              fmt_ms(d->peak_ns - s->origin, b, sizeof b));
        uint32_t step = d->peak_record != MEMORY_NONE ? steps_at(s->st, d->peak_ns, true) : STEPS_NONE;
        if (step != STEPS_NONE && o < size)
            o += (size_t)snprintf(buf + o, size - o, " (step %s)", steps_label(s->st, step));
        if (d->reserved_at_peak >= 0 && o < size)
            o += (size_t)snprintf(buf + o, size - o, ", reserved %s",
                                  fmt_bytes(d->reserved_at_peak, c, sizeof c));
        if (o < size)
            o += (size_t)snprintf(buf + o, size - o, "; %s allocs, %s frees; %s at the end%s",
                                  fmt_count(d->allocs, a, sizeof a), fmt_count(d->frees, b, sizeof b),
                                  fmt_bytes(d->live_bytes_at_end, e, sizeof e),
                                  d->has_totals ? "" : " (running sum of Bytes)");
        return;
    }
    if (line == LINE_AXIS || line == LINE_TIME) {
        if (line == LINE_TIME) {
            if (s->c0 == s->origin)
                snprintf(c, sizeof c, "0"); /* the trace's start */
            else
                fmt_ms(s->c0 - s->origin, c, sizeof c);
            fmt_ms(s->c1 - s->origin, a, sizeof a);
            int l0 = (int)strlen(c) + 3;
            snprintf(buf, size, "%*s%s ms%*s%s ms", LABEL_W + 1, "", c,
                     w - l0 - (int)strlen(a) - 3 > 0 ? w - l0 - (int)strlen(a) - 3 : 1, "", a);
            return;
        }
        char axis[1001];
        memset(axis, '-', (size_t)w);
        axis[w] = '\0';
        if (s->st && !s->st->whole_trace)
            for (size_t i = 0; i < s->st->nsteps; i++)
                if (s->st->steps[i].host_start >= s->c0 && s->st->steps[i].host_start < s->c1)
                    axis[col_of(v, s->st->steps[i].host_start, w)] = '|';
        if (d->peak_record != MEMORY_NONE)
            axis[col_of(v, d->peak_ns, w)] = '^';
        snprintf(buf, size, "%*s %s", LABEL_W, "", axis);
        return;
    }
    /* chart rows, top (line 1) to bottom (line CHART_H) */
    if (s->vals_w != w) {
        free(s->vals);
        s->vals = malloc((mem->ndevices ? mem->ndevices : 1) * (size_t)w * sizeof *s->vals);
        if (!s->vals) {
            s->vals_w = 0;
            snprintf(buf, size, "out of memory");
            return;
        }
        for (size_t k = 0; k < mem->ndevices; k++)
            memory_curve(mem, (uint32_t)k, s->c0, s->c1, s->vals + k * (size_t)w,
                         (size_t)w);
        s->vals_w = w;
    }
    const int64_t *vals = s->vals + dev * (size_t)w;
    int64_t top = 0;
    for (int i = 0; i < w; i++)
        if (vals[i] > top)
            top = vals[i];
    int row = CHART_H - (int)line; /* 0 at the bottom */
    if (line == 1)
        o = (size_t)snprintf(buf, size, "%*s ", LABEL_W, fmt_bytes(top, a, sizeof a));
    else if (line == CHART_H)
        o = (size_t)snprintf(buf, size, "%*s ", LABEL_W, "0 B");
    else
        o = (size_t)snprintf(buf, size, "%*s ", LABEL_W, "");
    static const char *const blocks[9] = { " ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
                                           "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86",
                                           "\xe2\x96\x87", "\xe2\x96\x88" };
    for (int i = 0; i < w && o + 4 < size; i++) {
        int eighths = 0;
        if (vals[i] > 0 && top > 0) {
            /* this row holds (row, row + 1] of CHART_H bands, in eighths */
            int64_t f = (int64_t)((__int128)vals[i] * CHART_H * 8 / top) - (int64_t)row * 8;
            eighths = f < 0 ? 0 : f > 8 ? 8 : (int)f;
            if (row == 0 && eighths == 0)
                eighths = 1; /* anything allocated shows */
        }
        const char *ch = utf8 ? blocks[eighths] : eighths >= 8 ? "#" : eighths >= 4 ? "+"
                                                  : eighths > 0 ? "." : " ";
        size_t n = strlen(ch);
        memcpy(buf + o, ch, n);
        o += n;
    }
    buf[o] = '\0';
}

static const char *mview_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    struct mem_state *s = state(v);
    const memory *mem = s->mem;
    if (!mem) {
        snprintf(buf, size, "%s", s->err);
    } else if (id == ROW_BLANK) {
        buf[0] = '\0';
    } else if (id & ROW_CHART) {
        uint32_t dev = (id >> 8) & 0xff;
        if (dev < mem->ndevices)
            chart_line(v, dev, id & 0xff, buf, size);
        else
            buf[0] = '\0';
    } else if (id < rows_of(v)->nops) {
        const memory_op *o = &rows_of(v)->ops[id];
        const char *n = model_op_name(v->m, o->op);
        *len = strtab_len(v->m->tr->strs, v->m->ops[o->op].name);
        return n;
    } else {
        buf[0] = '\0';
    }
    *len = strlen(buf);
    return buf;
}

static void cell_bytes(cols_line *l, int64_t n, int width)
{
    char b[32];
    fmt_bytes(n, b, sizeof b);
    cols_cell(l, b, strlen(b), width, true);
}

static void mview_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    const memory *mem = state(v)->mem ? rows_of(v) : NULL;
    char t[4096];
    size_t len;
    if (!mem || id >= mem->nops) {
        if (c->id == C_NAME) {
            /* chart lines run across the row: the other cells stay empty */
            const col *shown[COLS_MAX];
            int nw, k = cols_layout(cols, v->width, v->gpu, view_memory_ops.namecap, shown, &nw);
            const char *n = mview_name(v, id, t, sizeof t, &len);
            cols_cell(l, n, len, v->width - (k - 1), false);
        }
        return;
    }
    const memory_op *o = &mem->ops[id];
    switch (c->id) {
    case C_NAME: {
        const char *n = mview_name(v, id, t, sizeof t, &len);
        cols_cell(l, n, len, namew, false);
        break;
    }
    case C_DEV: {
        const char *d = mem->devices[o->device].name;
        cols_cell(l, d, strlen(d), c->width, false);
        break;
    }
    case C_ALLOCS: view_cell_count(l, o->st.alloc_count, c->width); break;
    case C_SIZE: cell_bytes(l, o->st.alloc_bytes, c->width); break;
    case C_INCR: cell_bytes(l, o->st.increase_bytes, c->width); break;
    case C_SALLOCS: view_cell_count(l, o->st.self_alloc_count, c->width); break;
    case C_SSIZE: cell_bytes(l, o->st.self_alloc_bytes, c->width); break;
    case C_SINCR: cell_bytes(l, o->st.self_increase_bytes, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static int mview_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    struct mem_state *s = state(v);
    switch (act) {
    case ACT_DRILL: {
        const memory *mem = rows_of(v);
        uint32_t id = view_nrows(v) ? view_row(v, view_cursor(v)) : UINT32_MAX;
        if (!mem || id >= mem->nops) {
            view_status_set(v, "Enter on an operator shows the Tree of every stack through it");
            return VIEW_DRAW_FOOTER;
        }
        int depth = scope_depth(view_scope(v));
        /* the row before the push: a new scope counts the rows again */
        memory_op o = mem->ops[id];
        view_push_focus(v, SCOPE_OP, o.op);
        if (scope_depth(view_scope(v)) > depth) {
            /* the Tree shows this row's device's memory while the focus holds */
            s->tree_depth = depth + 1;
            s->tree_dev = o.device;
            free(s->tree_figs);
            s->tree_figs = NULL;
        }
        return VIEW_DRAW_ALL;
    }
    case ACT_SORT_NEXT:
    case ACT_SORT_PREV:
        s->sort = (enum memory_sort)((s->sort + (act == ACT_SORT_NEXT ? 1 : MEMORY_SORT_N - 1)) %
                                     MEMORY_SORT_N);
        s->reverse = false;
        view_all_stale(v);
        return VIEW_DRAW_ALL;
    case ACT_REVERSE:
        s->reverse = !s->reverse;
        view_all_stale(v);
        return VIEW_DRAW_ALL;
    default:
        return -1;
    }
}

static void mview_tabinfo(view *v, char *buf, size_t size)
{
    struct mem_state *s = state(v);
    const memory *mem = mem_of(v);
    if (!mem) {
        snprintf(buf, size, "  memory: %s", s->err);
    } else if (!mem->ndevices) {
        snprintf(buf, size, "  no [memory] events (record with profile_memory=True)");
    } else {
        uint64_t n = 0;
        for (size_t d = 0; d < mem->ndevices; d++)
            n += mem->devices[d].records;
        snprintf(buf, size, "  operators by %s%s%s | %llu memory records%s%s on %zu device%s",
                 memory_sort_name(s->sort), s->reverse ? " (rev)" : "",
                 s->ms ? ", allocations in the scope" : "", (unsigned long long)n,
                 mem->windowed ? " in " : "", mem->windowed ? v->m->scope_note : "",
                 mem->ndevices, mem->ndevices == 1 ? "" : "s");
    }
}

/* ---- the Tree's memory columns (ui/tree_mem.h) ---- */

enum { T_SIZE = 1000, T_INCR, T_ALLOCS, T_SSIZE, T_SALLOCS, T_SINCR };

static const col tree_cols[] = {
    { T_SIZE, "Alloc size", 11, TREE_MEM_SORT0, 0, false, false, false },
    { T_INCR, "Increase", 11, TREE_MEM_SORT0 + 1, 1, false, false, false },
    { T_ALLOCS, "Allocs", 9, TREE_MEM_SORT0 + 2, 2, false, false, false },
    { T_SSIZE, "Self size", 11, TREE_MEM_SORT0 + 3, 1, false, false, false },
    { T_SALLOCS, "Self allocs", 11, TREE_MEM_SORT0 + 4, 3, false, false, false },
    { T_SINCR, "Self incr.", 11, TREE_MEM_SORT0 + 5, 3, false, false, false },
};

static const char *const tree_sort_names[TREE_MEM_NSORTS] = {
    "alloc_size", "size_increase", "alloc_count", "self_alloc_size", "self_alloc_count",
    "self_size_increase"
};

/* The Memory view's state when the Tree shows memory, else NULL. */
static struct mem_state *tree_state(view *v)
{
    struct mem_state *s = state(v);
    if (!s || !s->tree_depth || !s->mem || s->m != v->m || s->tree_dev >= s->mem->ndevices)
        return NULL;
    if (scope_depth(view_scope(v)) < s->tree_depth) {
        s->tree_depth = 0; /* the focus was left: the columns go with it */
        return NULL;
    }
    return s;
}

const col *tree_mem_cols(view *v, const col *base)
{
    struct mem_state *s = tree_state(v);
    if (!s)
        return NULL;
    /* base's figures but its total make room for the memory ones first on
       a narrow screen; the name stays last */
    size_t n = 0, nb = 0;
    while (base[nb].title)
        nb++;
    for (size_t i = 0; i < nb && n < COLS_MAX; i++) {
        if (base[i].name)
            continue;
        s->tree_cols[n] = base[i];
        if (base[i].prio > 0 || base[i].sort != MODEL_SORT_TOTAL)
            s->tree_cols[n].prio = base[i].prio + 1 > 4 ? 4 : base[i].prio + 1;
        n++;
    }
    for (size_t i = 0; i < sizeof tree_cols / sizeof *tree_cols && n < COLS_MAX; i++)
        s->tree_cols[n++] = tree_cols[i];
    for (size_t i = 0; i < nb && n < COLS_MAX; i++)
        if (base[i].name) {
            /* names stay readable: the last figures give way first */
            s->tree_cols[n] = base[i];
            if (s->tree_cols[n].width < 32)
                s->tree_cols[n].width = 32;
            n++;
        }
    s->tree_cols[n] = (col){ 0, NULL, 0, 0, 0, false, false, false };
    return s->tree_cols;
}

/* The memory figures of tree node u under the scope (computed once per
   tree and scope), or NULL when the Tree shows none or out of memory. */
static const memory_stat *tree_fig(view *v, bool merged, uint32_t u)
{
    struct mem_state *s = tree_state(v);
    if (!s)
        return NULL;
    scope *sc = view_scope(v);
    if (!s->tree_figs || s->tree_merged != merged || s->tree_gen != scope_gen(sc)) {
        const scope_mask *k = scope_mask_of(sc, merged);
        size_t n = merged ? v->m->nmnodes : v->m->nnodes;
        free(s->tree_figs);
        s->tree_figs = malloc((n ? n : 1) * sizeof *s->tree_figs);
        if (s->tree_figs)
            memory_node_scoped(s->mem, merged, s->tree_dev, k && k->active ? k->sel : NULL,
                               s->tree_figs);
        s->tree_merged = merged;
        s->tree_gen = scope_gen(sc);
    }
    return s->tree_figs ? &s->tree_figs[u] : NULL;
}

/* Figure k of a node, in the columns' (and the sorts') order. */
static int64_t tree_value(const memory_stat *f, int k)
{
    switch (k) {
    case 0: return f->alloc_bytes;
    case 1: return f->increase_bytes;
    case 2: return (int64_t)f->alloc_count;
    case 3: return f->self_alloc_bytes;
    case 4: return (int64_t)f->self_alloc_count;
    default: return f->self_increase_bytes;
    }
}

bool tree_mem_cell(view *v, bool merged, uint32_t u, const col *c, cols_line *l)
{
    if (c->id < T_SIZE || c->id > T_SINCR)
        return false;
    const memory_stat *f = tree_fig(v, merged, u);
    if (!f) {
        cols_cell(l, "", 0, c->width, true);
        return true;
    }
    int k = c->id - T_SIZE;
    if (c->id == T_ALLOCS || c->id == T_SALLOCS)
        view_cell_count(l, (uint64_t)tree_value(f, k), c->width);
    else
        cell_bytes(l, tree_value(f, k), c->width);
    return true;
}

int64_t tree_mem_key(view *v, bool merged, uint32_t u, int sort)
{
    const memory_stat *f = tree_fig(v, merged, u);
    int k = sort - TREE_MEM_SORT0;
    return f && k >= 0 && k < TREE_MEM_NSORTS ? tree_value(f, k) : 0;
}

const char *tree_mem_sort_name(int sort)
{
    int k = sort - TREE_MEM_SORT0;
    return k >= 0 && k < TREE_MEM_NSORTS ? tree_sort_names[k] : NULL;
}

const enum model_sort *tree_mem_sorts(view *v, const enum model_sort *base)
{
    struct mem_state *s = tree_state(v);
    if (!s)
        return base;
    size_t n = 0;
    while (base[n] != MODEL_SORT_N && n + TREE_MEM_NSORTS + 1 < 16) {
        s->tree_sorts[n] = base[n];
        n++;
    }
    for (int k = 0; k < TREE_MEM_NSORTS; k++)
        s->tree_sorts[n++] = (enum model_sort)(TREE_MEM_SORT0 + k);
    s->tree_sorts[n] = MODEL_SORT_N;
    return s->tree_sorts;
}

const char *tree_mem_device(view *v)
{
    struct mem_state *s = tree_state(v);
    return s ? s->mem->devices[s->tree_dev].name : NULL;
}

const struct view_ops view_memory_ops = {
    .name = "memory",
    .label = "Memory",
    .cols = cols,
    .namecap = 60,
    .sorts = sorts,
    .open = mview_open,
    .close = mview_close,
    .rebuild = mview_rebuild,
    .name_of = mview_name,
    .cell = mview_cell,
    .action = mview_action,
    .tabinfo = mview_tabinfo,
};
