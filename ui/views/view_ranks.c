/* The Ranks view: one row per rank of a job opened together (a directory or
   several traces), with its events, busy and GPU time, steps and skew, and a
   bar of its mean step split by role (or of its busy time without steps)
   against the largest rank's; the
   straggler is painted apart and starred. Enter on a rank points every view
   at that rank's model; Enter on "(all ranks)" shows the All ranks view.
   Files that failed to load are listed last with their reason, then the
   directory's files left out (a FIFO, not a trace) with why. Opened on one
   trace, it shows that trace as its one row. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/analyses/ranks.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_ranks.h"
#include "ui/views/view_util.h"

enum { C_NAME, C_EVENTS, C_BUSY, C_GPU, C_STEPS, C_STEP, C_SKEW, C_BAR };

static const col cols[] = {
    { C_NAME, "Rank", 22, MODEL_SORT_NAME, 0, false, true, true },
    { C_EVENTS, "Events", 12, MODEL_SORT_CALLS, 1, false, false, false },
    { C_BUSY, "Busy ms", 12, MODEL_SORT_SELF, 0, false, false, false },
    { C_GPU, "GPU busy ms", 12, MODEL_SORT_DEVICE_SELF, 2, true, false, false },
    { C_STEPS, "Steps", 6, -1, 3, false, false, false },
    { C_STEP, "Mean step ms", 12, MODEL_SORT_AVG, 1, false, false, false },
    { C_SKEW, "Skew %", 7, -1, 0, false, false, false },
    { C_BAR, "Mean step by role", 24, -1, 2, false, false, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF,
                                         MODEL_SORT_DEVICE_SELF, MODEL_SORT_AVG, MODEL_SORT_N };

/* Row ids: the job's file index, nfiles + k for its note k, and this one
   for "(all ranks)". */
static const uint32_t ROW_ALL = UINT32_MAX - 1;

struct ranks_state {
    ranks_stat one;      /* without a job: the figures of the whole trace (the
                            view's first model: a step scope's cannot give steps) */
    const model *one_of; /* the model they were tried for (NULL: not yet) */
    bool one_ok;         /* and made: a failure is not retried on every cell */
};

void view_attach_ranks(view *v, const ranks_job *j)
{
    v->ranks = j;
    view_all_stale(v);
}

static int rview_open(view *v)
{
    struct ranks_state *s = view_state_new(v, VIEW_RANKS, sizeof *s);
    if (!s)
        return -1;
    return 0;
}

static void rview_close(view *v)
{
    free(view_state(v, VIEW_RANKS));
}

/* The figures of row id; NULL for "(all ranks)" and failed files. */
static const ranks_stat *stat_of(view *v, uint32_t id)
{
    const ranks_job *j = v->ranks;
    if (!j) {
        struct ranks_state *s = view_state(v, VIEW_RANKS);
        if (!s->one_of) {
            s->one_of = v->m;
            s->one_ok = ranks_figures(v->m, &s->one) == 0;
        }
        return s->one_ok ? &s->one : NULL;
    }
    return id < j->nloaded ? &j->files[id].st : NULL;
}

static int64_t metric(view *v, const ranks_stat *s)
{
    return ranks_metric(v->ranks, s);
}

static bool is_straggler(view *v, uint32_t id)
{
    return v->ranks && v->ranks->flagged && (int64_t)id == v->ranks->straggler;
}

/* Whether row id shows the view's current model. */
static bool is_shown(view *v, uint32_t id)
{
    return v->ranks && id < v->ranks->nloaded && v->ranks->files[id].m &&
           v->ranks->files[id].m == v->m;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* Row id's text: with full paths for the footer, file names in the table. */
static const char *row_text(view *v, uint32_t id, bool full, char *buf, size_t size, size_t *len)
{
    const ranks_job *j = v->ranks;
    const char *path = full ? v->m->tr->path : base_name(v->m->tr->path);
    if (id == ROW_ALL) {
        snprintf(buf, size, "(all ranks: %zu) operators merged, min/median/max per rank",
                 j ? j->nloaded : 1);
    } else if (!j) {
        int64_t r = ranks_trace_rank(v->m->tr);
        if (r >= 0)
            snprintf(buf, size, "  %lld %s", (long long)r, path);
        else
            snprintf(buf, size, "  - %s (no rank: one trace)", path);
    } else if (id >= j->nfiles) {
        t2p_error n = j->notes[id - j->nfiles];
        char e[1200];
        if (!full)
            snprintf(n.file, sizeof n.file, "%s", base_name(j->notes[id - j->nfiles].file));
        snprintf(buf, size, "- %s", error_format(&n, e, sizeof e));
    } else {
        const ranks_file *f = &j->files[id];
        char e[700];
        if (!f->loaded)
            snprintf(buf, size, "! %lld %s: failed: %s", (long long)f->rank,
                     full ? f->path : base_name(f->path), error_format(&f->err, e, sizeof e));
        else
            snprintf(buf, size, "%s%s%lld %s", is_shown(v, id) ? "\xe2\x96\xb8" : " ", /* ▸ */
                     is_straggler(v, id) ? "*" : " ", (long long)f->rank,
                     full ? f->path : base_name(f->path));
    }
    *len = strlen(buf);
    return buf;
}

static const char *ranks_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    return row_text(v, id, true, buf, size, len);
}

static int ranks_rebuild(view *v, view_rows *r)
{
    const ranks_job *j = v->ranks;
    if (view_rows_push(r, ROW_ALL) < 0)
        return -1;
    if (!j)
        return view_rows_push(r, 0);
    size_t n = j->nloaded;
    view_keyed *kb = view_keyed_buf(v, n);
    char (*names)[32] = malloc((n ? n : 1) * sizeof *names);
    if (!kb || !names) {
        free(names);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const ranks_stat *s = &j->files[i].st;
        /* by name is by rank number: zero-padded so that 10 follows 9 */
        snprintf(names[i], sizeof names[i], "%020lld", (long long)j->files[i].rank);
        kb[i].name = names[i];
        kb[i].id = (uint32_t)i;
        switch (v->sort) {
        case MODEL_SORT_CALLS: kb[i].key = (int64_t)s->events; break;
        case MODEL_SORT_DEVICE_SELF: kb[i].key = s->gpu_busy_ns; break;
        case MODEL_SORT_AVG: kb[i].key = metric(v, s); break;
        default: kb[i].key = s->busy_ns;
        }
    }
    view_keyed_sort(kb, n, v->sort == MODEL_SORT_NAME, v->reverse);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = view_rows_push(r, kb[i].id);
    for (size_t i = j->nloaded; i < j->nfiles + j->nnotes && rc == 0; i++)
        rc = view_rows_push(r, (uint32_t)i);
    free(names);
    return rc;
}

/* A bar of width w for s: as long as its mean step (busy time without
   steps) against the largest rank's, split by role in TensorBoard's order,
   one letter per role (K kernel, M memcpy, S memset, C communication,
   R runtime, D DataLoader, P CPU exec, O other); blocks when the job is
   measured by busy time (ranks_metric). */
static void bar(view *v, cols_line *l, const ranks_stat *s, int64_t whole, int w)
{
    char b[256];
    int64_t part = metric(v, s);
    int fill = whole > 0 ? (int)((double)part / (double)whole * w + 0.5) : 0;
    if (fill > w)
        fill = w;
    if (fill > (int)sizeof b - 1)
        fill = (int)sizeof b - 1;
    if (!s->steps || (v->ranks && !v->ranks->by_steps)) {
        /* measured by busy time: no step to split by role */
        size_t o = 0;
        for (int i = 0; i < fill && o + 3 < sizeof b; i++, o += 3)
            memcpy(b + o, "\xe2\x96\x88", 3); /* █ */
        cols_cell(l, b, o, w, false);
        return;
    }
    /* role r covers [cum before r, cum after r) of the step, scaled to fill */
    int64_t cum = 0;
    int at = 0;
    for (int r = 0; r < STEPS_NROLES; r++) {
        cum += s->role_ns[r];
        int end = s->step_mean_ns > 0 ? (int)((double)cum / (double)s->step_mean_ns * fill + 0.5)
                                      : 0;
        for (; at < end && at < fill; at++)
            b[at] = steps_role_letter((enum steps_role)r);
    }
    for (; at < fill; at++)
        b[at] = steps_role_letter(STEPS_OTHER);
    cols_cell(l, b, (size_t)fill, w, false);
}

static void ranks_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    char t[1200];
    size_t len;
    const ranks_stat *s = id == ROW_ALL ? NULL : stat_of(v, id);
    if (c->id == C_NAME) {
        const char *n = row_text(v, id, false, t, sizeof t, &len);
        cols_cell(l, n, len, namew, false);
        return;
    }
    if (!s) {
        cols_cell(l, "", 0, c->width, true);
        return;
    }
    int64_t most = v->ranks ? v->ranks->metric_max : metric(v, s);
    switch (c->id) {
    case C_EVENTS: view_cell_count(l, s->events, c->width); break;
    case C_BUSY: view_cell_ms(l, s->busy_ns, c->width); break;
    case C_GPU: view_cell_ms(l, s->gpu_busy_ns, c->width); break;
    case C_STEPS:
        if (s->steps)
            view_cell_count(l, s->steps, c->width);
        else
            cols_cell(l, "-", 1, c->width, true);
        break;
    case C_STEP:
        if (s->steps)
            view_cell_ms(l, s->step_mean_ns, c->width);
        else
            cols_cell(l, "-", 1, c->width, true);
        break;
    case C_SKEW:
        snprintf(t, sizeof t, "%+.1f", s->skew * 100);
        cols_cell(l, t, strlen(t), c->width, true);
        break;
    case C_BAR: bar(v, l, s, most, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static bool ranks_gpu(view *v, uint32_t id)
{
    return is_straggler(v, id);
}

static int ranks_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    const ranks_job *j = v->ranks;
    if (act != ACT_DRILL || view_nrows(v) == 0)
        return -1;
    size_t cur = view_cursor(v);
    uint32_t id = view_row(v, cur);
    if (id == ROW_ALL) {
        v->tab = VIEW_ALLRANKS;
        return VIEW_DRAW_ALL;
    }
    if (!j) {
        view_status_set(v, "one trace: open a directory or several traces to compare ranks");
        return VIEW_DRAW_FOOTER;
    }
    char e[1200];
    if (id >= j->nfiles) {
        view_status_set(v, "%s", error_format(&j->notes[id - j->nfiles], e, sizeof e));
        return VIEW_DRAW_FOOTER;
    }
    const ranks_file *f = &j->files[id];
    if (!f->loaded) {
        view_status_set(v, "%s", error_format(&f->err, e, sizeof e));
        return VIEW_DRAW_FOOTER;
    }
    if (!f->m) {
        /* an analysis file: its figures, not its events */
        view_status_set(v, "rank %lld is an analysis file (%s): Ranks, All ranks and "
                        "Collectives show it; open its trace for the other views",
                        (long long)f->rank, f->path);
        return VIEW_DRAW_FOOTER;
    }
    if (f->m != v->m && view_set_model(v, f->m) < 0)
        return VIEW_QUIT; /* out of memory: the view cannot go on */
    v->tab = VIEW_RANKS;
    v->cur[VIEW_RANKS] = cur;
    view_clamp(v);
    view_status_set(v, "every view shows rank %lld (%s)", (long long)f->rank, f->path);
    return VIEW_DRAW_ALL;
}

static void ranks_tabinfo(view *v, char *buf, size_t size)
{
    const ranks_job *j = v->ranks;
    if (!j) {
        snprintf(buf, size, "  one trace");
        return;
    }
    int64_t shown = -1;
    for (size_t i = 0; i < j->nloaded; i++)
        if (j->files[i].m && j->files[i].m == v->m)
            shown = j->files[i].rank;
    int o = shown >= 0 ? snprintf(buf, size, "  showing rank %lld of %zu", (long long)shown,
                                  j->nloaded)
                       : snprintf(buf, size, "  %zu ranks, analysis files", j->nloaded);
    if (o < 0 || (size_t)o >= size)
        return;
    if (j->flagged)
        o += snprintf(buf + o, size - (size_t)o, " | straggler rank %lld (%+.1f%%)",
                      (long long)j->files[j->straggler].rank, j->files[j->straggler].st.skew * 100);
    else if (j->nfailed)
        o += snprintf(buf + o, size - (size_t)o, " | %zu failed", j->nfailed);
    if (j->nnotes && o >= 0 && (size_t)o < size)
        snprintf(buf + o, size - (size_t)o, " | %zu skipped", j->nnotes);
}

/* The rank every view shows, when a job is open: by trace, so that a
   model scoped from the rank's (a step) names it too. */
static void ranks_scope_part(view *v, char *buf, size_t size)
{
    const ranks_job *j = v->ranks;
    buf[0] = '\0';
    if (j && v->tab == VIEW_ALLRANKS) { /* its table is of every rank */
        snprintf(buf, size, "all ranks");
        return;
    }
    for (size_t i = 0; j && i < j->nloaded; i++)
        if (j->files[i].m && j->files[i].m->tr == v->m->tr)
            snprintf(buf, size, "rank %lld", (long long)j->files[i].rank);
}

static void ranks_scope_args(view *v, struct view_scope_args *a)
{
    const ranks_job *j = v->ranks;
    if (j && v->tab == VIEW_ALLRANKS) {
        a->all_ranks = true;
        return;
    }
    for (size_t i = 0; j && i < j->nloaded; i++)
        if (j->files[i].m && j->files[i].m->tr == v->m->tr) {
            a->has_rank = true;
            a->rank = j->files[i].rank;
        }
}

static int ranks_set_scope_args(view *v, const struct view_scope_args *a, char *why, size_t size)
{
    const ranks_job *j = v->ranks;
    if (!a->has_rank)
        return 0;
    for (size_t i = 0; j && i < j->nloaded; i++)
        if (j->files[i].m && j->files[i].rank == a->rank) {
            enum view_tab tab = v->tab;
            if (j->files[i].m != v->m && view_set_model(v, j->files[i].m) < 0)
                return -1;
            v->tab = tab;
            return 0;
        }
    snprintf(why, size, "--rank %lld: %s", (long long)a->rank,
             j ? "the job has no such rank" : "one trace: --rank picks a rank of a job");
    return -1;
}

const struct view_ops view_ranks_ops = {
    .name = "ranks",
    .label = "Ranks",
    .cols = cols,
    .namecap = 60,
    .sorts = sorts,
    .open = rview_open,
    .close = rview_close,
    .rebuild = ranks_rebuild,
    .name_of = ranks_name,
    .cell = ranks_cell,
    .gpu = ranks_gpu,
    .action = ranks_action,
    .tabinfo = ranks_tabinfo,
    .scope_part = ranks_scope_part,
    .scope_args = ranks_scope_args,
    .set_scope_args = ranks_set_scope_args,
};
