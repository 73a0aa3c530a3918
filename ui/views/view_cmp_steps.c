/* Comparing, the Steps view: the average step of the base trace and of the
   new one (TensorBoard's Overview rules, over each trace's kept steps) role
   by role, with the delta (new minus base) and its share of the base:
   slower red, faster green. The figures are core's: each trace's steps
   (core/analyses/derived.h), paired by core/analyses/compare_derived.h. */
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

enum { C_NAME, C_BASE, C_NEW, C_DELTA, C_PCT, C_BSHARE, C_NSHARE };

static const col cols[] = {
    { C_NAME, "Average step", 14, -1, 0, false, true, true },
    { C_BASE, "Base ms", 10, -1, 0, false, false, false },
    { C_NEW, "New ms", 10, -1, 0, false, false, false },
    { C_DELTA, "Δ ms", 10, -1, 0, false, false, false },
    { C_PCT, "Δ %", 7, -1, 1, false, false, false },
    { C_BSHARE, "Base %", 7, -1, 2, false, false, false },
    { C_NSHARE, "New %", 7, -1, 2, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_N };
/* one order, both traces' figures at once, no step of their own to go
   through: keys the hint bar must not offer */
static const enum key_act off[] = { ACT_DRILL, ACT_CMP_FIGS, ACT_SORT_NEXT, ACT_SORT_PREV,
                                    ACT_REVERSE, ACT_STEP_PREV, ACT_STEP_NEXT, ACT_NONE };

/* The rows in order: the duration, the roles, the GPU busy time. */
static const int order[COMPARE_STEPS_NROWS] = {
    COMPARE_STEPS_DUR, STEPS_KERNEL, STEPS_MEMCPY, STEPS_MEMSET, STEPS_COMMUNICATION,
    STEPS_RUNTIME, STEPS_DATALOADER, STEPS_CPU_OP, STEPS_OTHER, COMPARE_STEPS_GPU
};

struct csteps_state {
    compare_steps cs;
    bool ok;
    char err[200];
};

static struct csteps_state *state(view *v)
{
    return view_state(v, VIEW_STEPS);
}

static int csteps_open(view *v)
{
    return view_state_new(v, VIEW_STEPS, sizeof(struct csteps_state)) ? 0 : -1;
}

static void csteps_close(view *v)
{
    free(state(v));
}

/* Each trace's steps (shared, built once): the pairing is a copy of their
   averages. */
static int csteps_rebuild(view *v, view_rows *r)
{
    struct csteps_state *s = state(v);
    t2p_error err;
    struct derived *db = view_derived(v, v->cmp->base), *dn = view_derived(v, v->cmp->new);
    const steps *b = db ? derived_steps(db, &err) : NULL;
    const steps *n = b && dn ? derived_steps(dn, &err) : NULL;
    s->ok = b && n;
    if (!s->ok) {
        snprintf(s->err, sizeof s->err, "no steps: %.180s",
                 db && dn ? err.reason : "a trace's whole model is not loaded");
        return 0;
    }
    compare_steps_fill(b, n, &s->cs);
    int rc = 0;
    for (int i = 0; i < COMPARE_STEPS_NROWS && rc == 0; i++)
        if (scope_name_passes(v->scope, compare_steps_title(order[i])))
            rc = view_rows_push(r, (uint32_t)order[i]);
    return rc;
}

static const char *csteps_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    (void)buf, (void)size;
    const char *t = id < COMPARE_STEPS_NROWS ? compare_steps_title((int)id) : "";
    *len = strlen(t);
    return t;
}

static void pct_cell(cols_line *l, int64_t part, int64_t whole, bool sign, int width)
{
    char t[32];
    if (whole <= 0)
        snprintf(t, sizeof t, "-");
    else
        snprintf(t, sizeof t, sign ? "%+.1f" : "%.1f", 100.0 * (double)part / (double)whole);
    cols_cell(l, t, strlen(t), width, true);
}

static void csteps_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    struct csteps_state *s = state(v);
    size_t len;
    if (id >= COMPARE_STEPS_NROWS)
        return;
    int64_t b = s->cs.b[id], n = s->cs.n[id];
    switch (c->id) {
    case C_NAME: {
        const char *t = csteps_name(v, id, NULL, 0, &len);
        /* the roles are parts of the step: indented under it */
        char ind[64];
        snprintf(ind, sizeof ind, "%s%s", id == COMPARE_STEPS_DUR || id == COMPARE_STEPS_GPU ? "" : "  ", t);
        cols_cell(l, ind, strlen(ind), namew, false);
        break;
    }
    case C_BASE: view_cell_ms(l, b, c->width); break;
    case C_NEW: view_cell_ms(l, n, c->width); break;
    case C_DELTA: cmp_cell_dms(l, n - b, c->width); break;
    case C_PCT: pct_cell(l, n - b, b, true, c->width); break;
    case C_BSHARE: pct_cell(l, b, s->cs.b[COMPARE_STEPS_DUR], false, c->width); break;
    case C_NSHARE: pct_cell(l, n, s->cs.n[COMPARE_STEPS_DUR], false, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static enum view_style csteps_style(view *v, uint32_t id)
{
    struct csteps_state *s = state(v);
    if (id >= COMPARE_STEPS_NROWS || id == COMPARE_STEPS_GPU)
        return VIEW_STYLE_ROW; /* more GPU busy time is no worse */
    return cmp_style(s->cs.n[id] - s->cs.b[id]);
}

static int csteps_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act == ACT_DRILL || act == ACT_CMP_FIGS) {
        view_status_set(v, "comparing: each row shows both traces' average step and the Δ");
        return VIEW_DRAW_FOOTER;
    }
    return -1;
}

static void csteps_tabinfo(view *v, char *buf, size_t size)
{
    struct csteps_state *s = state(v);
    if (!s->ok) {
        snprintf(buf, size, "  %s", s->err);
        return;
    }
    const compare_steps *c = &s->cs;
    snprintf(buf, size, "  average step over kept steps | base %zu steps (%zu kept), new %zu (%zu kept)",
             c->b_steps, c->b_kept, c->n_steps, c->n_kept);
}

const struct view_ops view_cmp_steps_ops = {
    .name = "steps",
    .label = "Steps Δ",
    .cols = cols,
    .namecap = 20,
    .sorts = sorts,
    .open = csteps_open,
    .close = csteps_close,
    .rebuild = csteps_rebuild,
    .name_of = csteps_name,
    .cell = csteps_cell,
    .style = csteps_style,
    .action = csteps_action,
    .tabinfo = csteps_tabinfo,
    .off_acts = off,
};
