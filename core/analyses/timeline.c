/* The timeline (see core/analyses/timeline.h). */
#include "config.h"

#include "core/analyses/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/catkind.h"

/* A GPU device's index from its process: "GPU 3" in its labels or name,
   else its pid when that is a number; -1 when neither says. */
static int device_of(const trace *tr, uint32_t k)
{
    const trace_process *p = &tr->processes[tr->tracks[k].process];
    uint32_t ids[2] = { p->labels, p->name };
    for (int i = 0; i < 2; i++) {
        if (ids[i] == STRTAB_NONE)
            continue;
        const char *s = trace_str(tr, ids[i]);
        const char *g = strstr(s, "GPU ");
        if (g && g[4] >= '0' && g[4] <= '9')
            return atoi(g + 4);
    }
    const char *pid = trace_str(tr, p->pid);
    char *end;
    long v = strtol(pid, &end, 10);
    return *pid && !*end && v >= 0 && v < 1 << 20 ? (int)v : -1;
}

static bool before(const trace_event *ev, uint32_t x, uint32_t y)
{
    return ev[x].ts < ev[y].ts || (ev[x].ts == ev[y].ts && ev[x].dur > ev[y].dur) ||
           (ev[x].ts == ev[y].ts && ev[x].dur == ev[y].dur && x < y);
}

/* Sorts a row's events by (ts, dur desc): a natural merge sort, since a
   trace writes each track nearly in order (a few runs: O(n log runs));
   tmp holds n entries. */
static void sort_row(const trace_event *ev, uint32_t *o, size_t n, uint32_t *tmp)
{
    size_t i = 1;
    while (i < n && !before(ev, o[i], o[i - 1]))
        i++;
    if (i >= n)
        return; /* in order already: the usual case */
    uint32_t *src = o, *dst = tmp;
    for (;;) {
        size_t runs = 0, a = 0;
        while (a < n) {
            /* the run at a, then the run after it, merged into dst */
            size_t b = a + 1;
            while (b < n && !before(ev, src[b], src[b - 1]))
                b++;
            size_t c = b < n ? b + 1 : b;
            while (c < n && !before(ev, src[c], src[c - 1]))
                c++;
            size_t x = a, y = b, k = a;
            while (x < b && y < c)
                dst[k++] = before(ev, src[y], src[x]) ? src[y++] : src[x++];
            while (x < b)
                dst[k++] = src[x++];
            while (y < c)
                dst[k++] = src[y++];
            runs++;
            a = c;
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
        if (runs <= 1)
            break;
    }
    if (src != o)
        memcpy(o, src, n * sizeof *o);
}

struct open {
    int64_t end;
    uint32_t ev;
    int32_t best;
};

struct sweep {
    timeline_row *r;
    size_t cap;
    struct open *stk;
    size_t depth, stkcap;
    bool nomem;
};

static void emit(struct sweep *w, int64_t a, int64_t b)
{
    if (b <= a || w->nomem)
        return;
    timeline_row *r = w->r;
    uint32_t ev = w->depth ? w->stk[w->depth - 1].ev : TIMELINE_NONE;
    int32_t role = w->depth ? w->stk[w->depth - 1].best : -1;
    if (r->nseg && r->seg[r->nseg - 1].event == ev && r->seg[r->nseg - 1].role == role &&
        r->end == a) {
        r->end = b;
        return;
    }
    if (r->nseg == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 256;
        timeline_seg *ns = realloc(r->seg, nc * sizeof *ns);
        if (!ns) {
            w->nomem = true;
            return;
        }
        r->seg = ns;
        w->cap = nc;
    }
    r->seg[r->nseg++] = (timeline_seg){ a, ev, role };
    r->end = b;
}

/* the segments of a row from its sorted events; work_only: a stream's,
   made of its GPU work alone (annotations on a GPU row are no work) */
static int segments(struct sweep *w, const timeline *t, const uint32_t *o, size_t n,
                    bool work_only)
{
    const trace_event *ev = t->m->tr->events;
    int64_t cur = INT64_MIN;
    w->depth = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_event *x = &ev[o[i]];
        if (x->dur <= 0)
            continue; /* an instant fills no time */
        if (work_only && !catkind_is_gpu_work(x->cat < t->m->ncatkind
                                                  ? (enum catkind)t->m->catkind[x->cat]
                                                  : CATKIND_NONE))
            continue;
        while (w->depth && w->stk[w->depth - 1].end <= x->ts) {
            int64_t e = w->stk[w->depth - 1].end;
            emit(w, cur, e);
            if (e > cur)
                cur = e;
            w->depth--;
        }
        if (cur != INT64_MIN)
            emit(w, cur, x->ts);
        cur = x->ts;
        if (w->depth == w->stkcap) {
            size_t nc = w->stkcap ? w->stkcap * 2 : 64;
            struct open *ns = realloc(w->stk, nc * sizeof *ns);
            if (!ns)
                return -1;
            w->stk = ns;
            w->stkcap = nc;
        }
        int32_t r = steps_ev_role(t->st, o[i]);
        int32_t p = w->depth ? w->stk[w->depth - 1].best : -1;
        /* the role first in the split's order wins: the lower enum value */
        int32_t best = r < 0 ? p : p < 0 ? r : r < p ? r : p;
        w->stk[w->depth++] = (struct open){ x->ts + x->dur, o[i], best };
    }
    while (w->depth) {
        int64_t e = w->stk[w->depth - 1].end;
        emit(w, cur, e);
        if (e > cur)
            cur = e;
        w->depth--;
    }
    return w->nomem ? -1 : 0;
}

static int64_t seg_end(const timeline_row *r, size_t i)
{
    return i + 1 < r->nseg ? r->seg[i + 1].start : r->end;
}

/* Each role's runs (runs[STEPS_OTHER]: the busy time, any event open) in
   two passes over the segments: count, then fill. */
static int all_runs(timeline_row *row)
{
    size_t n[STEPS_NROLES] = { 0 };
    for (size_t i = 0; i < row->nseg; i++) {
        const timeline_seg *g = &row->seg[i], *p = i ? &row->seg[i - 1] : NULL;
        if (g->role >= 0 && g->role < STEPS_OTHER && !(p && p->role == g->role))
            n[g->role]++;
        if (g->event != TIMELINE_NONE && !(p && p->event != TIMELINE_NONE))
            n[STEPS_OTHER]++;
    }
    for (int r = 0; r < STEPS_NROLES; r++) {
        timeline_runs *o = &row->runs[r];
        memset(o, 0, sizeof *o);
        if (!n[r])
            continue;
        o->s = malloc(n[r] * sizeof *o->s);
        o->e = malloc(n[r] * sizeof *o->e);
        o->cum = malloc(n[r] * sizeof *o->cum);
        if (!o->s || !o->e || !o->cum)
            return -1;
    }
    int64_t sum[STEPS_NROLES] = { 0 };
    for (size_t i = 0; i < row->nseg; i++) {
        const timeline_seg *g = &row->seg[i];
        int64_t a = g->start, b = seg_end(row, i);
        int rs[2] = { g->role >= 0 && g->role < STEPS_OTHER ? g->role : -1,
                      g->event != TIMELINE_NONE ? STEPS_OTHER : -1 };
        for (int k = 0; k < 2; k++) {
            if (rs[k] < 0)
                continue;
            timeline_runs *o = &row->runs[rs[k]];
            if (o->n && o->e[o->n - 1] == a) {
                o->e[o->n - 1] = b;
                continue;
            }
            if (o->n)
                sum[rs[k]] += o->e[o->n - 1] - o->s[o->n - 1];
            o->s[o->n] = a;
            o->e[o->n] = b;
            o->cum[o->n++] = sum[rs[k]];
        }
    }
    return 0;
}

static int cmp_i64pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* a device strip: the union of GPU work on its streams rows[lo..hi) */
static int strip(timeline *t, timeline_row *u, size_t lo, size_t hi)
{
    const trace *tr = t->m->tr;
    size_t n = 0;
    for (size_t i = lo; i < hi; i++)
        n += t->rows[i].nev;
    int64_t *sp = malloc((n ? n : 1) * 2 * sizeof *sp);
    if (!sp)
        return -1;
    size_t k = 0;
    for (size_t i = lo; i < hi; i++)
        for (size_t j = 0; j < t->rows[i].nev; j++) {
            const trace_event *x = &tr->events[t->order[t->rows[i].first + j]];
            enum catkind c = x->cat < t->m->ncatkind ? (enum catkind)t->m->catkind[x->cat]
                                                    : CATKIND_NONE;
            if (x->dur <= 0 || !catkind_is_gpu_work(c))
                continue;
            sp[2 * k] = x->ts;
            sp[2 * k + 1] = x->ts + x->dur;
            k++;
        }
    qsort(sp, k, 2 * sizeof *sp, cmp_i64pair);
    timeline_runs *b = &u->runs[0];
    memset(b, 0, sizeof *b);
    if (k) {
        b->s = malloc(k * sizeof *b->s);
        b->e = malloc(k * sizeof *b->e);
        b->cum = malloc(k * sizeof *b->cum);
        if (!b->s || !b->e || !b->cum) {
            free(sp);
            return -1;
        }
    }
    int64_t sum = 0;
    for (size_t i = 0; i < k; i++) {
        if (b->n && sp[2 * i] <= b->e[b->n - 1]) {
            if (sp[2 * i + 1] > b->e[b->n - 1])
                b->e[b->n - 1] = sp[2 * i + 1];
            continue;
        }
        if (b->n)
            sum += b->e[b->n - 1] - b->s[b->n - 1];
        b->s[b->n] = sp[2 * i];
        b->e[b->n] = sp[2 * i + 1];
        b->cum[b->n++] = sum;
    }
    free(sp);
    return 0;
}

struct trow {
    uint32_t track;
    int device;
    bool gpu;
};

static int cmp_trow(const void *a, const void *b)
{
    const struct trow *x = a, *y = b;
    if (x->gpu != y->gpu)
        return x->gpu ? -1 : 1; /* GPU streams first */
    if (x->gpu && x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->track > y->track) - (x->track < y->track);
}

timeline *timeline_build(const model *m, const steps *st, t2p_error *err)
{
    const trace *tr = m->tr;
    timeline *t = calloc(1, sizeof *t);
    struct trow *tw = calloc(tr->ntracks ? tr->ntracks : 1, sizeof *tw);
    size_t *at = calloc(tr->ntracks + 1, sizeof *at);
    size_t *rowof = malloc((tr->ntracks ? tr->ntracks : 1) * sizeof *rowof);
    uint32_t *tmp = malloc((tr->nevents ? tr->nevents : 1) * sizeof *tmp);
    struct sweep w = { 0 };
    if (!t || !tw || !at || !rowof || !tmp)
        goto nomem;
    t->m = m;
    t->st = st;
    t->start = m->window_start;
    t->end = m->window_end;

    /* the tracks with events, in row order */
    size_t nt = 0, ndev = 0;
    for (uint32_t k = 0; k < tr->ntracks; k++) {
        if (!m->tracks[k].events)
            continue;
        bool gpu = m->tracks[k].stream != MODEL_NONE || tr->tracks[k].is_gpu;
        tw[nt++] = (struct trow){ k, gpu ? device_of(tr, k) : -1, gpu };
    }
    qsort(tw, nt, sizeof *tw, cmp_trow);
    for (size_t i = 0; i < nt; i++)
        ndev += tw[i].gpu && (i == 0 || !tw[i - 1].gpu || tw[i - 1].device != tw[i].device);
    t->rows = calloc(nt + ndev + 1, sizeof *t->rows);
    t->order = malloc((tr->nevents ? tr->nevents : 1) * sizeof *t->order);
    if (!t->rows || !t->order)
        goto nomem;

    /* each track's events, in one array, then each run sorted */
    for (uint32_t k = 0; k < tr->ntracks; k++)
        rowof[k] = SIZE_MAX;
    for (size_t e = 0; e < tr->nevents; e++)
        at[tr->events[e].track + 1]++;
    for (size_t k = 0; k < tr->ntracks; k++)
        at[k + 1] += at[k];
    size_t *fill = rowof; /* reused below: first the fill pointers */
    for (size_t k = 0; k < tr->ntracks; k++)
        fill[k] = at[k];
    for (size_t e = 0; e < tr->nevents; e++)
        t->order[fill[tr->events[e].track]++] = (uint32_t)e;

    for (size_t i = 0; i < nt; i++) {
        bool strip_first = tw[i].gpu && (i == 0 || !tw[i - 1].gpu || tw[i - 1].device != tw[i].device);
        if (strip_first) {
            timeline_row *u = &t->rows[t->nrows++];
            u->kind = TIMELINE_UTIL;
            u->track = tw[i].track;
            u->device = tw[i].device;
        }
        timeline_row *r = &t->rows[t->nrows++];
        uint32_t k = tw[i].track;
        r->kind = tw[i].gpu ? TIMELINE_STREAM : TIMELINE_THREAD;
        r->track = k;
        r->device = tw[i].device;
        r->first = at[k];
        r->nev = at[k + 1] - at[k];
        sort_row(tr->events, t->order + r->first, r->nev, tmp);
        w.r = r;
        w.cap = 2 * r->nev + 1;
        if (!(r->seg = malloc(w.cap * sizeof *r->seg)))
            goto nomem;
        if (segments(&w, t, t->order + r->first, r->nev, r->kind == TIMELINE_STREAM) < 0)
            goto nomem;
        if (all_runs(r) < 0)
            goto nomem;
    }
    /* the strips, once their streams are sorted */
    for (size_t i = 0; i < t->nrows; i++) {
        if (t->rows[i].kind != TIMELINE_UTIL)
            continue;
        size_t hi = i + 1;
        while (hi < t->nrows && t->rows[hi].kind == TIMELINE_STREAM &&
               t->rows[hi].device == t->rows[i].device)
            hi++;
        if (strip(t, &t->rows[i], i + 1, hi) < 0)
            goto nomem;
    }
    free(w.stk);
    free(tw);
    free(at);
    free(rowof);
    free(tmp);
    return t;
nomem:
    free(w.stk);
    free(tw);
    free(at);
    free(rowof);
    free(tmp);
    timeline_free(t);
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory building the timeline");
    return NULL;
}

void timeline_free(timeline *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->rows && i < t->nrows; i++) {
        free(t->rows[i].seg);
        for (int q = 0; q < STEPS_NROLES; q++) {
            free(t->rows[i].runs[q].s);
            free(t->rows[i].runs[q].e);
            free(t->rows[i].runs[q].cum);
        }
    }
    free(t->rows);
    free(t->order);
    free(t);
}

/* time of the runs before x */
static int64_t cum_at(const timeline_runs *r, int64_t x)
{
    size_t lo = 0, hi = r->n; /* the first run starting after x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->s[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    size_t j = lo - 1;
    return r->cum[j] + ((x < r->e[j] ? x : r->e[j]) - r->s[j]);
}

static int64_t runs_ns(const timeline_runs *r, int64_t a, int64_t b)
{
    return r->n && b > a ? cum_at(r, b) - cum_at(r, a) : 0;
}

int64_t timeline_role_ns(const timeline *t, size_t i, int r, int64_t a, int64_t b)
{
    if (i >= t->nrows || r < 0 || r >= STEPS_NROLES)
        return 0;
    return runs_ns(&t->rows[i].runs[r], a, b);
}

int timeline_cell(const timeline *t, size_t i, int64_t a, int64_t b, int64_t *busy)
{
    const timeline_row *row = &t->rows[i];
    /* runs[STEPS_OTHER] holds a row's busy time (a strip's: runs[0]) */
    int64_t bz = runs_ns(&row->runs[row->kind == TIMELINE_UTIL ? 0 : STEPS_OTHER], a, b);
    if (busy)
        *busy = bz;
    if (row->kind == TIMELINE_UTIL)
        return bz * 2 > b - a ? 0 : -1;
    int best = -1;
    int64_t most = (b - a) - bz; /* idle time: a role must fill more */
    for (int r = 0; r < STEPS_OTHER && bz > 0; r++) {
        int64_t v = runs_ns(&row->runs[r], a, b);
        if (v > most) {
            most = v;
            best = r;
        }
    }
    return best;
}

uint32_t timeline_event_at(const timeline *t, size_t i, int64_t x)
{
    const timeline_row *r = &t->rows[i];
    if (!r->nseg || x < r->seg[0].start || x >= r->end)
        return TIMELINE_NONE;
    size_t lo = 0, hi = r->nseg;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->seg[mid].start <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return r->seg[lo - 1].event;
}

uint32_t timeline_step_event(const timeline *t, size_t i, int64_t x, int dir)
{
    const timeline_row *r = &t->rows[i];
    const trace_event *ev = t->m->tr->events;
    const uint32_t *o = t->order + r->first;
    size_t lo = 0, hi = r->nev;
    /* dir > 0: the first starting after x; dir < 0: the first starting at or after x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (dir > 0 ? ev[o[mid]].ts <= x : ev[o[mid]].ts < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (dir > 0)
        return lo < r->nev ? o[lo] : TIMELINE_NONE;
    if (lo == 0)
        return TIMELINE_NONE;
    /* of the events at that start, the outermost (the first in the order) */
    int64_t ts = ev[o[lo - 1]].ts;
    while (lo > 1 && ev[o[lo - 2]].ts == ts)
        lo--;
    return o[lo - 1];
}

uint32_t timeline_launch_of(const timeline *t, uint32_t e)
{
    const trace *tr = t->m->tr;
    size_t lo = 0, hi = tr->ncorrs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tr->corrs[mid].event < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < tr->ncorrs && tr->corrs[lo].event == e && t->m->corr_launch &&
        t->m->corr_launch[lo] != MODEL_NONE)
        return t->m->corr_launch[lo];
    return TIMELINE_NONE;
}

size_t timeline_row_of_track(const timeline *t, uint32_t k)
{
    for (size_t i = 0; i < t->nrows; i++)
        if (t->rows[i].kind != TIMELINE_UTIL && t->rows[i].track == k)
            return i;
    return SIZE_MAX;
}
