/* Comparing, the Memory view: each device's peak and allocations in the
   base trace and in the new one, then every (operator, device) of either
   trace with its allocation size and count (including children,
   TensorBoard's figures) in both and the deltas (new minus base), largest
   |Δ size| first: more allocated red, less green; + only in the new trace,
   - only in the base. The figures are core's: each trace's memory
   (core/analyses/derived.h) paired by core/analyses/compare_derived.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/compare_derived.h"
#include "core/analyses/derived.h"
#include "core/base/fmt.h"
#include "ui/cmp.h"
#include "ui/view.h"
#include "ui/views/view_util.h"

extern const struct view_ops view_cmp_memory_ops; /* below: its name cap */

enum { C_NAME, C_DEV, C_BSIZE, C_NSIZE, C_DSIZE, C_BALLOCS, C_NALLOCS, C_DALLOCS, C_DINCR };

static const col cols[] = {
    { C_NAME, "Name", 20, -1, 0, false, true, true },
    { C_DEV, "Device", 6, -1, 1, false, false, true },
    { C_BSIZE, "Base size", 11, -1, 0, false, false, false },
    { C_NSIZE, "New size", 11, -1, 0, false, false, false },
    { C_DSIZE, "Δ size", 11, -1, 0, false, false, false },
    { C_BALLOCS, "Base allocs", 11, -1, 2, false, false, false },
    { C_NALLOCS, "New allocs", 10, -1, 2, false, false, false },
    { C_DALLOCS, "Δ allocs", 9, -1, 1, false, false, false },
    { C_DINCR, "Δ increase", 11, -1, 3, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_N };
/* one order, both traces' figures at once, no step of their own to go
   through: keys the hint bar must not offer */
static const enum key_act off[] = { ACT_DRILL, ACT_CMP_FIGS, ACT_SORT_NEXT, ACT_SORT_PREV,
                                    ACT_REVERSE, ACT_STEP_PREV, ACT_STEP_NEXT, ACT_NONE };

/* Row ids: operator rows index cm->rows; device rows and the gap have the
   top bit set. */
#define ROW_DEV0 0x80000000u
#define ROW_BLANK 0x7fffffffu

struct cmem_state {
    const compare_mem *cm; /* core's (derived_memory_vs), not owned */
    char err[200];
};

static struct cmem_state *state(view *v)
{
    return view_state(v, VIEW_MEMORY);
}

static int cmem_open(view *v)
{
    return view_state_new(v, VIEW_MEMORY, sizeof(struct cmem_state)) ? 0 : -1;
}

static void cmem_close(view *v)
{
    free(state(v));
}

static int cmem_rebuild(view *v, view_rows *r)
{
    struct cmem_state *s = state(v);
    t2p_error err;
    struct derived *db = view_derived(v, v->cmp->base), *dn = view_derived(v, v->cmp->new);
    if (!db || !dn || !(s->cm = derived_memory_vs(dn, db, &err))) {
        s->cm = NULL;
        snprintf(s->err, sizeof s->err, "memory: %.180s",
                 db && dn ? err.reason : "a trace's whole model is not loaded");
        return 0;
    }
    const compare_mem *cm = s->cm;
    int rc = 0;
    for (size_t d = 0; d < cm->ndevs && rc == 0; d++)
        rc = view_rows_push(r, ROW_DEV0 | (uint32_t)d);
    if (rc == 0 && cm->ndevs)
        rc = view_rows_push(r, ROW_BLANK);
    for (size_t i = 0; i < cm->nrows && rc == 0; i++)
        if (scope_name_passes(v->scope, cm->rows[i].name))
            rc = view_rows_push(r, (uint32_t)i);
    return rc;
}

static const char *dbytes(int64_t n, char *buf, size_t size)
{
    char t[32];
    fmt_bytes(n, t, sizeof t);
    snprintf(buf, size, "%s%s", n > 0 ? "+" : "", t);
    return buf;
}

/* A device's line: its peak and allocations, base -> new (Δ). */
static void dev_line(const compare_mem_dev *d, char *buf, size_t size)
{
    char a[32], b[32], c[40], e[32], f[32], g[32], h[32], i[32];
    const char *mark = d->status == COMPARE_ADDED ? " (new trace only)"
                       : d->status == COMPARE_REMOVED ? " (base trace only)" : "";
    bool more = d->n_allocs >= d->b_allocs;
    fmt_count(more ? d->n_allocs - d->b_allocs : d->b_allocs - d->n_allocs, g, sizeof g);
    snprintf(buf, size, "%s%s: peak %s -> %s (%s); %s -> %s allocs (%s%s), %s -> %s allocated",
             d->name, mark, fmt_bytes(d->b_peak, a, sizeof a), fmt_bytes(d->n_peak, b, sizeof b),
             dbytes(d->n_peak - d->b_peak, c, sizeof c), fmt_count(d->b_allocs, e, sizeof e),
             fmt_count(d->n_allocs, f, sizeof f), more ? (d->n_allocs > d->b_allocs ? "+" : "") : "-",
             g, fmt_bytes(d->b_alloc_bytes, h, sizeof h), fmt_bytes(d->n_alloc_bytes, i, sizeof i));
}

static const char *cmem_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    struct cmem_state *s = state(v);
    const compare_mem *cm = s->cm;
    if (!cm) {
        snprintf(buf, size, "%s", s->err);
    } else if (id == ROW_BLANK) {
        buf[0] = '\0';
    } else if (id & ROW_DEV0) {
        uint32_t d = id & ~ROW_DEV0;
        if (d < cm->ndevs)
            dev_line(&cm->devs[d], buf, size);
        else
            buf[0] = '\0';
    } else if (id < cm->nrows) {
        *len = strlen(cm->rows[id].name);
        return cm->rows[id].name;
    } else {
        buf[0] = '\0';
    }
    *len = strlen(buf);
    return buf;
}

static void cell_bytes(cols_line *l, int64_t n, bool sign, int width)
{
    char b[40];
    if (sign)
        dbytes(n, b, sizeof b);
    else
        fmt_bytes(n, b, sizeof b);
    cols_cell(l, b, strlen(b), width, true);
}

static void cmem_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    struct cmem_state *s = state(v);
    const compare_mem *cm = s->cm;
    char t[1024];
    size_t len;
    if (!cm || id >= cm->nrows) {
        if (c->id == C_NAME) {
            /* device lines run across the row: the other cells stay empty */
            const col *shown[COLS_MAX];
            int nw, k = cols_layout(cols, v->width, v->gpu, view_cmp_memory_ops.namecap, shown, &nw);
            const char *n = cmem_name(v, id, t, sizeof t, &len);
            cols_cell(l, n, len, v->width - (k - 1), false);
        }
        return;
    }
    const compare_mem_row *r = &cm->rows[id];
    switch (c->id) {
    case C_NAME: cmp_cell_name(l, r->status, r->name, strlen(r->name), namew); break;
    case C_DEV: {
        const char *d = cm->devs[r->dev].name;
        cols_cell(l, d, strlen(d), c->width, false);
        break;
    }
    case C_BSIZE: cell_bytes(l, r->b.alloc_bytes, false, c->width); break;
    case C_NSIZE: cell_bytes(l, r->n.alloc_bytes, false, c->width); break;
    case C_DSIZE: cell_bytes(l, r->n.alloc_bytes - r->b.alloc_bytes, true, c->width); break;
    case C_BALLOCS: cmp_cell_count(l, (double)r->b.alloc_count, c->width); break;
    case C_NALLOCS: cmp_cell_count(l, (double)r->n.alloc_count, c->width); break;
    case C_DALLOCS:
        cmp_cell_dcount(l, (double)r->n.alloc_count - (double)r->b.alloc_count, c->width);
        break;
    case C_DINCR: cell_bytes(l, r->n.increase_bytes - r->b.increase_bytes, true, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static enum view_style cmem_style(view *v, uint32_t id)
{
    const compare_mem *cm = state(v)->cm;
    if (!cm || id >= cm->nrows)
        return VIEW_STYLE_ROW;
    return cmp_style(cm->rows[id].n.alloc_bytes - cm->rows[id].b.alloc_bytes);
}

static int cmem_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act == ACT_DRILL || act == ACT_CMP_FIGS) {
        view_status_set(v, "comparing: each row shows both traces' allocations and the Δ");
        return VIEW_DRAW_FOOTER;
    }
    return -1;
}

static void cmem_tabinfo(view *v, char *buf, size_t size)
{
    struct cmem_state *s = state(v);
    if (!s->cm)
        snprintf(buf, size, "  %s", s->err);
    else if (!s->cm->ndevs)
        snprintf(buf, size, "  no [memory] events in either trace (record with profile_memory=True)");
    else
        snprintf(buf, size, "  by |Δ size| | %zu operator rows on %zu device%s", s->cm->nrows,
                 s->cm->ndevs, s->cm->ndevs == 1 ? "" : "s");
}

const struct view_ops view_cmp_memory_ops = {
    .name = "memory",
    .label = "Memory Δ",
    .cols = cols,
    .namecap = 60,
    .sorts = sorts,
    .open = cmem_open,
    .close = cmem_close,
    .rebuild = cmem_rebuild,
    .name_of = cmem_name,
    .cell = cmem_cell,
    .style = cmem_style,
    .action = cmem_action,
    .tabinfo = cmem_tabinfo,
    .off_acts = off,
};
