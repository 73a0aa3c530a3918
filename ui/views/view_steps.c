/* The Steps view: one row per ProfilerStep# with a bar of its time split by
   role (TensorBoard's Overview rules, core/analyses/steps.h), its duration and GPU
   utilisation, under a header of each GPU's figures over the kept steps
   (TensorBoard's GPU summary); the average of the kept steps, a legend and the
   recommendations under the table. Enter on a step points every view at
   that step's model (the title says "Step N"); [ and ] go to the previous
   and next step from any view, keeping it; Esc goes back to the whole
   trace; e then exports the step. Sorted by step order, duration or any
   role (< > r).

   The steps and the GPU summary are the trace's, built once by core
   (core/analyses/derived.h) and shared with every view; the view owns the
   step's model it points the view at, so its state outlives
   view_set_model. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/analyses/derived.h"
#include "core/analyses/kernels.h"
#include "core/analyses/steps.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

const struct view_ops view_steps_ops;

enum { C_NAME, C_DUR, C_GPU, C_BAR, C_ROLE0 };

/* Step, duration, GPU util and Kernel stay on the narrowest screen; the bar
   takes what the roles leave (every role shows from 120 columns), or its
   full width when they cannot all show (cols_of). */
enum { BAR_MAX = 42, BAR_MIN = 16 };
static const col cols[] = {
    { C_NAME, "Step", 10, MODEL_SORT_NAME, 0, false, true, true },
    { C_DUR, "Dur ms", 9, -1, 0, false, false, false },
    { C_GPU, "GPU %", 6, -1, 0, false, false, false },
    { C_BAR, "Time by role (legend below)", BAR_MAX, -1, 1, false, false, true },
    { C_ROLE0 + STEPS_KERNEL, "Kernel", 8, -1, 0, false, false, false },
    { C_ROLE0 + STEPS_MEMCPY, "Memcpy", 8, -1, 3, false, false, false },
    { C_ROLE0 + STEPS_MEMSET, "Memset", 8, -1, 3, false, false, false },
    { C_ROLE0 + STEPS_COMMUNICATION, "Comm", 8, -1, 3, false, false, false },
    { C_ROLE0 + STEPS_RUNTIME, "Runtime", 8, -1, 2, false, false, false },
    { C_ROLE0 + STEPS_DATALOADER, "DataLdr", 8, -1, 2, false, false, false },
    { C_ROLE0 + STEPS_CPU_OP, "CPU Exec", 8, -1, 2, false, false, false },
    { C_ROLE0 + STEPS_OTHER, "Other", 8, -1, 2, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};
#define NCOLS (sizeof cols / sizeof *cols)

/* < and > cycle through the view's own keys (step order, duration, the
   eight roles); the generic sort stays the other views' */
static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_N };
enum { K_ORDER, K_DUR, K_ROLE0, K_N = K_ROLE0 + STEPS_NROLES };

/* Row ids past the steps. */
static const uint32_t ROW_AVG = UINT32_MAX - 1, ROW_LEGEND = UINT32_MAX - 2,
                      ROW_BLANK = UINT32_MAX - 3, ROW_RECS = UINT32_MAX - 4,
                      ROW_REC0 = 0x80000000u, /* + recommendation index */
                      ROW_GPU0 = 0x40000000u; /* + index in kernels->gpus */

struct steps_state {
    const model *whole; /* the model the steps are of */
    const steps *st;    /* whole's (derived_steps_advised), not owned */
    const kernels *k;   /* the GPU summary over the kept steps (derived), or NULL */
    bool placed;        /* the cursor was put on the first step, under the header */
    model *scoped;      /* the step's model the view shows, or NULL */
    int key;            /* K_* */
    bool reverse;
    char err[200];
    /* per step, its top operators by self time (steps_top_ops), found the
       first time the step's row is selected: one pass over the events */
    struct { uint32_t op[3]; int64_t ns[3]; uint8_t n, done; } *top;
    col shown[NCOLS]; /* cols with the bar's width for the screen (cols_of) */
};

static struct steps_state *state(view *v)
{
    return view_state(v, VIEW_STEPS);
}

static int sview_open(view *v)
{
    struct steps_state *s = view_state_new(v, VIEW_STEPS, sizeof *s);
    if (!s)
        return -1;
    /* the whole trace's analyses are known by its model before another
       view scopes every view to a range (core/analyses/derived.h) */
    if (!model_is_scoped(v->m))
        view_derived(v, v->m);
    return 0;
}

static void sview_close(view *v)
{
    struct steps_state *s = state(v);
    if (!s)
        return;
    free(s->top);
    model_free(s->scoped);
    free(s);
}

/* The steps of the whole trace (core's, shared), looked up on first use,
   again when another model (a rank) is shown. NULL when there are none to
   show. */
static const steps *steps_of(view *v)
{
    struct steps_state *s = state(v);
    /* a model another view scoped from the same trace (a range): its
       steps are the whole trace's, those in the range listed */
    bool same_trace = model_is_scoped(v->m) && s->whole && v->m->tr == s->whole->tr;
    if (v->m != s->whole && v->m != s->scoped && !same_trace) {
        s->st = NULL;
        s->k = NULL;
        s->placed = false;
        free(s->top);
        s->top = NULL;
        s->err[0] = '\0';
        t2p_error err;
        /* a model scoped elsewhere: the steps of the trace it is scoped
           from, when its whole model was shown before */
        struct derived *d = view_derived(v, v->m);
        s->whole = d ? derived_whole(d) : v->m;
        if (model_is_scoped(v->m) && !d)
            return NULL;
        /* with the GPU and memory recommendations, as analyze gives them */
        if (!d || !(s->st = derived_steps_advised(d, &err))) {
            snprintf(s->err, sizeof s->err, "%.180s", d ? err.reason : "out of memory");
            return NULL;
        }
        s->top = calloc(s->st->nsteps, sizeof *s->top); /* NULL: no top operators */
        /* the GPU summary over the kept steps for the header rows (NULL:
           none shown) */
        s->k = derived_kernels(d, &err);
    }
    return s->st;
}

/* The columns with the bar as wide as the screen lets it be: all roles
   beside a bar of BAR_MIN or more, else the bar full and the roles that
   fit after Step, Dur, GPU and Kernel. */
static const col *sview_cols(view *v)
{
    struct steps_state *s = state(v);
    int all = 0, keep = 0;
    for (size_t i = 0; cols[i].title; i++) {
        if (cols[i].id == C_BAR)
            continue;
        int w = cols[i].width + (cols[i].name ? 0 : 1);
        all += w;
        if (cols[i].prio == 0)
            keep += w;
    }
    int bar = v->width - all - 1;
    if (bar < BAR_MIN)
        bar = v->width - keep - 1;
    memcpy(s->shown, cols, sizeof cols);
    for (size_t i = 0; cols[i].title; i++)
        if (cols[i].id == C_BAR)
            s->shown[i].width = bar > BAR_MAX ? BAR_MAX : bar < 4 ? 4 : bar;
    return s->shown;
}

static int64_t key_of(const steps_step *x, int key)
{
    if (key == K_DUR)
        return x->end - x->start;
    if (key >= K_ROLE0)
        return x->role_ns[key - K_ROLE0];
    return 0;
}

/* Whether every view shows a range (a model another view scoped to a time
   window): then the steps it shows are steps[*lo .. *hi), those whose host
   window overlaps it (steps_overlapping). */
static bool in_range(view *v, size_t *lo, size_t *hi)
{
    struct steps_state *s = state(v);
    if (!s->st || v->m == s->whole || v->m == s->scoped || v->m->scope.kind == MODEL_SCOPE_NONE)
        return false;
    steps_overlapping(s->st, v->m->scope.start, v->m->scope.end, lo, hi);
    return true;
}

static int sview_rebuild(view *v, view_rows *r)
{
    struct steps_state *s = state(v);
    const steps *st = steps_of(v);
    if (!st || st->whole_trace)
        return 0;
    size_t n = st->nsteps;
    view_keyed *kb = view_keyed_buf(v, n);
    char (*names)[24] = malloc((n ? n : 1) * sizeof *names);
    if (!kb || !names) {
        free(names);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        /* by name is by time: the index, zero-padded */
        snprintf(names[i], sizeof names[i], "%020zu", i);
        kb[i].name = names[i];
        kb[i].id = (uint32_t)i;
        kb[i].key = key_of(&st->steps[i], s->key);
    }
    view_keyed_sort(kb, n, s->key == K_ORDER, s->reverse);
    int rc = 0;
    /* the header: each GPU's figures over the kept steps */
    for (size_t i = 0; s->k && i < s->k->ngpus && rc == 0; i++)
        rc = view_rows_push(r, ROW_GPU0 + (uint32_t)i);
    /* the first time, the cursor starts on the first step: Enter scopes to
       it as it did before the header was there */
    if (!s->placed && s->k && s->k->ngpus && n) {
        v->cur[VIEW_STEPS] = s->k->ngpus;
        s->placed = true;
    }
    size_t lo = 0, hi = n;
    bool ranged = in_range(v, &lo, &hi);
    for (size_t i = 0; i < n && rc == 0; i++)
        if (kb[i].id >= lo && kb[i].id < hi && scope_name_passes(v->scope, steps_label(st, kb[i].id)))
            rc = view_rows_push(r, kb[i].id);
    free(names);
    /* under a range, as analyze --range: the steps, without the average
       and the recommendations of the whole trace */
    if (rc == 0 && st->nkept && !ranged)
        rc = view_rows_push(r, ROW_AVG);
    if (rc == 0)
        rc = view_rows_push(r, ROW_LEGEND);
    if (rc == 0 && st->nrecs && !ranged && (rc = view_rows_push(r, ROW_BLANK)) == 0)
        rc = view_rows_push(r, ROW_RECS);
    for (size_t i = 0; i < st->nrecs && rc == 0 && !ranged; i++)
        rc = view_rows_push(r, ROW_REC0 + (uint32_t)i);
    return rc;
}

static const char *legend(char *buf, size_t size)
{
    size_t o = 0;
    for (int r = 0; r < STEPS_NROLES && o < size; r++)
        o += (size_t)snprintf(buf + o, size - o, "%s%c %s", r ? "  " : "legend: ",
                              steps_role_letter(r), steps_role_title(r));
    return buf;
}

/* A GPU's line of the header: TensorBoard's GPU summary over the kept
   steps (core/analyses/kernels.h; "-": the plugin had no figure either). */
static void gpu_line(const kernels_gpu *g, char *buf, size_t size)
{
    char u[16] = "-", e[16] = "-", o[16] = "-", t[16] = "-";
    if (g->has_utilization)
        snprintf(u, sizeof u, "%.2f%%", g->utilization_pct);
    if (g->has_sm_efficiency)
        snprintf(e, sizeof e, "%.2f%%", g->sm_efficiency_pct);
    if (g->has_occupancy)
        snprintf(o, sizeof o, "%.2f%%", g->occupancy_pct);
    if (g->has_tc)
        snprintf(t, sizeof t, "%.2f%%", g->tc_kernel_pct);
    snprintf(buf, size, "GPU %d: util %s  est. SM eff. %s  est. occ. %s  TC %s",
             g->device, u, e, o, t);
}

static const char *sview_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    const steps *st = state(v)->st;
    if (!st) {
        snprintf(buf, size, "%s", state(v)->err[0] ? state(v)->err : "no steps");
    } else if (id == ROW_AVG) {
        snprintf(buf, size, "average of the %zu kept steps", st->nkept);
    } else if (id == ROW_LEGEND) {
        legend(buf, size);
    } else if (id == ROW_BLANK) {
        buf[0] = '\0';
    } else if (id == ROW_RECS) {
        snprintf(buf, size, "Recommendations");
    } else if (id >= ROW_GPU0 && id < ROW_REC0 && state(v)->k &&
               id - ROW_GPU0 < state(v)->k->ngpus) {
        gpu_line(&state(v)->k->gpus[id - ROW_GPU0], buf, size);
    } else if (id >= ROW_REC0 && id - ROW_REC0 < st->nrecs) {
        snprintf(buf, size, "- %s", st->recs[id - ROW_REC0].text);
    } else if (id < st->nsteps) {
        const steps_step *x = &st->steps[id];
        struct steps_state *s = state(v);
        char a[32], b[32], c[32];
        int o = snprintf(buf, size, "ProfilerStep#%s: at %s ms, %s ms, CPU time %s ms%s",
                         steps_label(st, id), fmt_ms(x->start - st->m->window_start, a, sizeof a),
                         fmt_ms(x->end - x->start, b, sizeof b), fmt_ms(x->cpu_ns, c, sizeof c),
                         x->kept ? "" : " (dropped from the average: its GPU work was not all traced)");
        if (s->top && !s->top[id].done) {
            s->top[id].n = (uint8_t)steps_top_ops(st, id, s->top[id].op, s->top[id].ns, 3);
            s->top[id].done = 1;
        }
        for (int k = 0; s->top && k < s->top[id].n && o > 0 && (size_t)o < size; k++)
            o += snprintf(buf + o, size - (size_t)o, "%s%s %s ms", k ? ", " : "; top self: ",
                          model_op_name(st->m, s->top[id].op[k]),
                          fmt_ms(s->top[id].ns[k], a, sizeof a));
    } else {
        buf[0] = '\0';
    }
    *len = strlen(buf);
    return buf;
}

/* The stacked bar: each role's share of the widest step, one letter per
   role (K M S C R D P O), so that it reads the same with or without colour.
   Largest remainders share out the cells, after a role of 1 % or more of
   the step got one: no role that counts is lost to rounding. */
static void bar(cols_line *l, const int64_t *roles, int64_t dur, int64_t widest, int w)
{
    char b[512];
    int cells = widest > 0 ? (int)((double)dur / (double)widest * w + 0.5) : 0;
    int n[STEPS_NROLES], used = 0;
    double rem[STEPS_NROLES];
    int64_t sum = 0;
    if (cells > w)
        cells = w;
    for (int r = 0; r < STEPS_NROLES; r++)
        sum += roles[r] > 0 ? roles[r] : 0;
    if (dur <= 0 || sum <= 0)
        cells = 0;
    else if (sum < dur) /* roles that leave time out leave its cells blank */
        cells = (int)((double)sum / (double)dur * cells + 0.5);
    for (int r = 0; r < STEPS_NROLES; r++) {
        double q = cells && roles[r] > 0 ? (double)roles[r] / (double)sum * cells : 0;
        n[r] = (int)q;
        if (n[r] == 0 && roles[r] > 0 && roles[r] * 100 >= dur && cells)
            n[r] = 1;
        rem[r] = q - n[r];
        used += n[r];
    }
    while (used < cells) {
        int best = 0;
        for (int r = 1; r < STEPS_NROLES; r++)
            if (rem[r] > rem[best])
                best = r;
        n[best]++, rem[best] -= 1, used++;
    }
    /* the 1 % roles took more than there is: from the most over-served
       role that keeps a letter */
    while (used > cells) {
        int worst = -1;
        for (int r = 0; r < STEPS_NROLES; r++)
            if (n[r] > 1 && (worst < 0 || rem[r] < rem[worst]))
                worst = r;
        if (worst < 0)
            break;
        n[worst]--, rem[worst] += 1, used--;
    }
    size_t o = 0;
    for (int r = 0; r < STEPS_NROLES; r++)
        for (int k = 0; k < n[r] && o + 1 < sizeof b; k++)
            b[o++] = steps_role_letter(r);
    b[o] = '\0';
    cols_cell(l, b, o, w, false);
}

static void sview_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    struct steps_state *s = state(v);
    const steps *st = s->st;
    char t[600];
    size_t len;
    const int64_t *roles = NULL;
    int64_t dur = 0, busy = 0;
    if (st && id < st->nsteps) {
        const steps_step *x = &st->steps[id];
        roles = x->role_ns;
        dur = x->end - x->start;
        busy = x->gpu_busy_ns;
    } else if (st && id == ROW_AVG) {
        roles = st->avg_role_ns;
        dur = st->avg_duration_ns;
        busy = st->avg_gpu_busy_ns;
    }
    if (c->id == C_NAME) {
        if (roles && id < st->nsteps) {
            /* ▸ on the step every view shows (the model's scope); * on
               dropped tail steps */
            const model_scope *sc = &v->m->scope;
            bool shown = v->m->tr == st->m->tr && sc->kind == MODEL_SCOPE_STEPS &&
                         sc->first <= id && id <= sc->last;
            snprintf(t, sizeof t, "%s%s%s", shown ? "\xe2\x96\xb8" : " ", steps_label(st, id),
                     st->steps[id].kept ? "" : " *");
            cols_cell(l, t, strlen(t), namew, false);
        } else if (roles) {
            cols_cell(l, " average", 8, namew, false);
        } else {
            /* legend and recommendations run across the row: the other
               cells stay empty, so take their room less the spaces
               between them */
            const col *shown[COLS_MAX];
            int nw, k = cols_layout(sview_cols(v), v->width, v->gpu, view_steps_ops.namecap, shown, &nw);
            const char *n = sview_name(v, id, t, sizeof t, &len);
            cols_cell(l, n, len, v->width - (k - 1), false);
        }
        return;
    }
    if (!roles) {
        return; /* the name filled the row */
    }
    int64_t widest = 0;
    for (size_t i = 0; i < st->nsteps; i++)
        if (st->steps[i].end - st->steps[i].start > widest)
            widest = st->steps[i].end - st->steps[i].start;
    switch (c->id) {
    case C_DUR: view_cell_ms(l, dur, c->width); break;
    case C_GPU:
        if (st->m->gpu_events)
            view_cell_pct(l, busy, dur, c->width);
        else
            cols_cell(l, "-", 1, c->width, true);
        break;
    case C_BAR: bar(l, roles, dur, widest, c->width); break;
    default:
        if (c->id >= C_ROLE0 && c->id < C_ROLE0 + STEPS_NROLES)
            view_cell_ms(l, roles[c->id - C_ROLE0], c->width);
        else
            cols_cell(l, "", 0, c->width, true);
    }
}

static enum view_style sview_style(view *v, uint32_t id)
{
    const steps *st = state(v)->st;
    if (st && id < st->nsteps && !st->steps[id].kept)
        return VIEW_STYLE_ROW_GPU; /* dropped: painted apart */
    return VIEW_STYLE_ROW;
}

/* Points every view at step i's model; keep: with the focus and filter
   ([ and ] go through the steps looking at the same thing). */
static int show_step(view *v, size_t i, bool keep)
{
    struct steps_state *s = state(v);
    const steps *st = s->st;
    t2p_error err;
    model_opts mo = s->whole->opts;
    model *sm = steps_scope(st, i, i, &mo, &err);
    if (!sm) {
        view_status_set(v, "%s", err.reason);
        return VIEW_DRAW_FOOTER;
    }
    model *old = s->scoped;
    s->scoped = sm;
    int kept = keep ? view_set_model_keep(v, sm) : view_set_model(v, sm) == 0;
    model_free(old);
    if (kept < 0)
        return VIEW_QUIT; /* out of memory: the view cannot go on */
    if (kept) /* else the status says which focus the step lacks */
        view_status_set(v, "every view shows step %s: [ ] previous/next, Esc the whole trace, "
                           "e exports it", steps_label(st, i));
    return VIEW_DRAW_ALL;
}

static int back_to_whole(view *v)
{
    struct steps_state *s = state(v);
    if (!s->scoped || v->m != s->scoped)
        return -1;
    if (view_set_model(v, s->whole) < 0)
        return VIEW_QUIT;
    model_free(s->scoped);
    s->scoped = NULL;
    view_status_set(v, "every view shows the whole trace");
    return VIEW_DRAW_ALL;
}

/* [ ] and Esc, from every view */
static int sview_global(view *v, enum key_act act, int arg)
{
    (void)arg;
    struct steps_state *s = state(v);
    if (act == ACT_BACK)
        return back_to_whole(v);
    if (act != ACT_STEP_PREV && act != ACT_STEP_NEXT)
        return -1;
    const steps *st = steps_of(v);
    if (!st || st->whole_trace) {
        if (st || !s->err[0])
            view_status_set(v, st ? "no ProfilerStep# in this trace: no steps to go through"
                                  : "the steps of this trace are not known here");
        else
            view_status_set(v, "%s", s->err);
        return VIEW_DRAW_FOOTER;
    }
    /* from the scope every view shows, as the model says it: steps (go
       on from them), a range (its first or last step), the whole trace */
    const model_scope *sc = &v->m->scope;
    bool on_step = sc->kind == MODEL_SCOPE_STEPS && sc->last < st->nsteps;
    size_t i, lo = 0, hi = st->nsteps;
    if (sc->kind == MODEL_SCOPE_RANGE) {
        steps_overlapping(st, sc->start, sc->end, &lo, &hi);
        if (lo >= hi) {
            view_status_set(v, "no step overlaps %s: Esc the whole trace", v->m->scope_note);
            return VIEW_DRAW_FOOTER;
        }
    }
    if (act == ACT_STEP_NEXT) {
        if (on_step && sc->last + 1 >= st->nsteps) {
            view_status_set(v, "step %s is the last one", steps_label(st, sc->last));
            return VIEW_DRAW_FOOTER;
        }
        i = on_step ? sc->last + 1 : lo;
    } else {
        if (on_step && sc->first == 0) {
            view_status_set(v, "step %s is the first one", steps_label(st, sc->first));
            return VIEW_DRAW_FOOTER;
        }
        i = on_step ? sc->first - 1 : hi - 1;
    }
    enum view_tab tab = v->tab;
    int r = show_step(v, i, true);
    v->tab = tab; /* the view stays */
    return r;
}

static int sview_action(view *v, enum key_act act, int arg)
{
    struct steps_state *s = state(v);
    switch (act) {
    case ACT_DRILL: {
        const steps *st = steps_of(v);
        if (!st || view_nrows(v) == 0)
            return VIEW_DRAW_FOOTER;
        uint32_t id = view_row(v, view_cursor(v));
        if (id >= st->nsteps) {
            view_status_set(v, "Enter on a step shows it alone in every view");
            return VIEW_DRAW_FOOTER;
        }
        return show_step(v, id, false);
    }
    case ACT_SORT_NEXT:
    case ACT_SORT_PREV:
        s->key = (s->key + (act == ACT_SORT_NEXT ? 1 : K_N - 1)) % K_N;
        s->reverse = false;
        view_all_stale(v);
        return VIEW_DRAW_ALL;
    case ACT_REVERSE:
        s->reverse = !s->reverse;
        view_all_stale(v);
        return VIEW_DRAW_ALL;
    default:
        (void)arg;
        return -1;
    }
}

static void sview_tabinfo(view *v, char *buf, size_t size)
{
    struct steps_state *s = state(v);
    const steps *st = steps_of(v);
    const char *k = s->key == K_ORDER ? "step" : s->key == K_DUR ? "duration"
                                                                : steps_role_key(s->key - K_ROLE0);
    if (!st || st->whole_trace) {
        snprintf(buf, size, "  no steps%s%s", s->err[0] ? ": " : "", s->err);
        return;
    }
    size_t lo, hi;
    if (in_range(v, &lo, &hi)) {
        snprintf(buf, size, "  steps by %s%s | %zu of %zu steps overlap the %s, whole figures",
                 k, s->reverse ? " (rev)" : "", hi - lo, st->nsteps, v->m->scope_note);
        return;
    }
    snprintf(buf, size, "  steps by %s%s | %zu steps, %zu kept", k, s->reverse ? " (rev)" : "",
             st->nsteps, st->nkept);
}

static int sview_set_scope_args(view *v, const struct view_scope_args *a, char *why, size_t size)
{
    if (!a->step[0])
        return 0;
    const steps *st = steps_of(v);
    t2p_error err;
    size_t first, last;
    if (!st || st->whole_trace) {
        snprintf(why, size, "--step %s: no ProfilerStep# in this trace", a->step);
        return -1;
    }
    if (steps_parse_range(st, a->step, &first, &last, &err) < 0) {
        snprintf(why, size, "--step: %s", err.reason);
        return -1;
    }
    if (first != last) {
        snprintf(why, size, "--step %s: the explorer shows one step at a time ([ ] go through them)",
                 a->step);
        return -1;
    }
    enum view_tab tab = v->tab;
    if (show_step(v, first, false) == VIEW_QUIT)
        return -1;
    v->tab = tab;
    return 0;
}

const struct view_ops view_steps_ops = {
    .name = "steps",
    .label = "Steps",
    .cols = cols,
    .cols_of = sview_cols,
    .namecap = 14,
    .sorts = sorts,
    .open = sview_open,
    .close = sview_close,
    .rebuild = sview_rebuild,
    .name_of = sview_name,
    .cell = sview_cell,
    .style = sview_style,
    .action = sview_action,
    .global = sview_global,
    .tabinfo = sview_tabinfo,
    .set_scope_args = sview_set_scope_args,
    .keeps_state = true,
    .bar_col = C_BAR + 1,
};
