/* The timeline (see core/analyses/timeline.h). */
#include "config.h"

#include "core/analyses/timeline.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/steps_roles.h"
#include "core/base/vec.h"
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

/* An event on the sweep's stack: its end, its position in order, and the
   role first in the split's order among it and the events under it. */
struct open {
    int64_t end;
    uint32_t pos;
    int32_t best;
};

#define NO_FILL (-2) /* an event that fills no time of its row */

/* One thread's sweep: its stack and the sort's scratch array. A row is
   swept twice: first to count each role's stretches, then to write them
   into one block of the exact size (fill). Cheaper than a log of what the
   first sweep drew, or arrays grown as it goes: on the benchmark trace,
   faulting in and zeroing fresh pages was most of the build. */
struct sweep {
    const timeline *t;
    struct open *stk;
    size_t depth, stkcap;
    uint32_t *tmp;
    size_t tmpcap;
    timeline_row *fill; /* the second sweep's row, NULL in the first */
    /* per event of the row: the role that draws while it is the innermost
       (its stack entry's best), or NO_FILL; the first sweep's, for the
       second */
    signed char *bests;
    size_t bestcap;
    size_t count[STEPS_NROLES];
    int64_t last[STEPS_NROLES]; /* the end of each role's last stretch */
    steps_roles *roles;
};

/* [a, b) to a role's stretches, which have room (one entry more than the
   stretches: the end entry): the last one grows when b follows it */
static void add_run(timeline_runs *o, int64_t a, int64_t b)
{
    timeline_run *end = &o->r[o->n];
    if (o->n && end->s == a) {
        end->s = b;
        end->cum += b - a;
        return;
    }
    int64_t sum = o->n ? end->cum : 0;
    *end = (timeline_run){ a, sum };
    o->r[++o->n] = (timeline_run){ b, sum + (b - a) };
}

/* the end of stretch j < n */
static int64_t run_end(const timeline_runs *o, size_t j)
{
    return o->r[j].s + (o->r[j + 1].cum - o->r[j].cum);
}

/* [a, b) drawn by the top of the stack: its role's time and busy time */
static void emit(struct sweep *w, int64_t a, int64_t b)
{
    if (b <= a || !w->depth)
        return; /* idle: no stretch */
    int32_t role = w->stk[w->depth - 1].best;
    if (role >= STEPS_OTHER)
        role = -1;
    if (w->fill) {
        if (role >= 0)
            add_run(&w->fill->runs[role], a, b);
        add_run(&w->fill->runs[STEPS_OTHER], a, b);
        return;
    }
    if (role >= 0) {
        w->count[role] += w->last[role] != a;
        w->last[role] = b;
    }
    w->count[STEPS_OTHER] += w->last[STEPS_OTHER] != a;
    w->last[STEPS_OTHER] = b;
}

/* each role's stretches and their end entry */
static size_t room(size_t n)
{
    return n ? n + 1 : 0;
}

/* From this many stretches on (3 MB), a row's block is a mapping of its
   own (core/base/vec.h: huge pages): faulting in 4 KiB pages one by one
   took a third of the timeline's time on the benchmark trace. Below,
   malloc (a trace may have thousands of small tracks: no mapping each). */
#define TIMELINE_MAPPED ((size_t)3 << 16)

static timeline_run *block_new(size_t n, bool mapped)
{
    return mapped ? vec_alloc(n, sizeof(timeline_run)) : malloc((n ? n : 1) * sizeof(timeline_run));
}

static void block_free(timeline_run *b, size_t n, bool mapped)
{
    if (mapped)
        vec_free(b, n, sizeof *b);
    else
        free(b);
}

/* The row's block for the counted stretches, each role's share of it. */
static int block_of_counts(struct sweep *w, timeline_row *r)
{
    size_t n = 0;
    for (int q = 0; q < STEPS_NROLES; q++)
        n += room(w->count[q]);
    r->mapped = n >= TIMELINE_MAPPED;
    r->nblock = n;
    if (!n)
        return 0;
    if (!(r->block = block_new(n, r->mapped)))
        return -1;
    size_t at = 0;
    for (int q = 0; q < STEPS_NROLES; q++) {
        r->runs[q] = (timeline_runs){ w->count[q] ? r->block + at : NULL, 0, room(w->count[q]) };
        at += room(w->count[q]);
    }
    return 0;
}

/* whether the event at position j of order fills time on row r: a stream's
   row is made of its GPU work alone (annotations on a GPU row are no work) */
static bool fills(const timeline *t, const timeline_row *r, size_t j)
{
    const trace_event *x = &t->m->tr->events[t->order[j]];
    if (x->dur <= 0)
        return false; /* an instant fills no time */
    if (r->kind != TIMELINE_STREAM)
        return true;
    return catkind_is_gpu_work(x->cat < t->m->ncatkind ? (enum catkind)t->m->catkind[x->cat]
                                                       : CATKIND_NONE);
}

/* A row's stretches and its events' under[] from its sorted events: at
   each instant the innermost open event (the top of the stack) draws. */
static int sweep_row(struct sweep *w, timeline_row *r)
{
    const timeline *t = w->t;
    const trace_event *ev = t->m->tr->events;
    uint32_t *under = t->under;
    signed char *bests = w->bests - r->first; /* by position in order */
    int64_t cur = INT64_MIN;
    w->depth = 0;
    for (size_t j = r->first; j < r->first + r->nev; j++) {
        /* the first sweep classifies each event; the second reads it back */
        if (w->fill ? bests[j] == NO_FILL : !fills(t, r, j)) {
            if (!w->fill) {
                bests[j] = NO_FILL;
                under[j] = w->depth ? w->stk[w->depth - 1].pos : TIMELINE_NONE;
            }
            continue;
        }
        const trace_event *x = &ev[t->order[j]];
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
        if (vec_grow_heap((void **)&w->stk, &w->stkcap, w->depth, sizeof *w->stk) < 0)
            return -1;
        int32_t best;
        if (w->fill) {
            best = bests[j];
        } else {
            int32_t role = steps_roles_of(w->roles, t->order[j]);
            int32_t p = w->depth ? w->stk[w->depth - 1].best : -1;
            /* the role first in the split's order wins: the lower enum value */
            best = role < 0 ? p : p < 0 ? role : role < p ? role : p;
            bests[j] = (signed char)best;
            under[j] = w->depth ? w->stk[w->depth - 1].pos : TIMELINE_NONE;
        }
        w->stk[w->depth++] = (struct open){ x->ts + x->dur, (uint32_t)j, best };
    }
    while (w->depth) {
        int64_t e = w->stk[w->depth - 1].end;
        emit(w, cur, e);
        if (e > cur)
            cur = e;
        w->depth--;
    }
    return 0;
}

/* counts, then writes row r's stretches */
static int sweep_twice(struct sweep *w, timeline_row *r)
{
    if (r->nev > w->bestcap) {
        signed char *nb = realloc(w->bests, r->nev);
        if (!nb)
            return -1;
        w->bests = nb;
        w->bestcap = r->nev;
    }
    w->fill = NULL;
    for (int q = 0; q < STEPS_NROLES; q++) {
        w->count[q] = 0;
        w->last[q] = INT64_MIN;
    }
    if (sweep_row(w, r) < 0 || block_of_counts(w, r) < 0)
        return -1;
    w->fill = r;
    return sweep_row(w, r);
}

/* sorts (unless the model did) and sweeps row r */
static int build_row(struct sweep *w, timeline_row *r)
{
    if (w->t->sorted)
        return sweep_twice(w, r);
    if (r->nev > w->tmpcap) {
        uint32_t *nt = realloc(w->tmp, r->nev * sizeof *nt);
        if (!nt)
            return -1;
        w->tmp = nt;
        w->tmpcap = r->nev;
    }
    sort_row(w->t->m->tr->events, w->t->order + r->first, r->nev, w->tmp);
    return sweep_twice(w, r);
}

/* A device strip: the union of GPU work on its streams rows[lo..hi), from
   their busy stretches (each a union of the stream's GPU work already, in
   time order): a device's one stream's own stretches, or a merge of its
   streams', no sort. */
static int strip(timeline *t, timeline_row *u, size_t lo, size_t hi)
{
    size_t k = hi - lo, n = 0;
    timeline_runs *b = &u->runs[0];
    if (k == 1) {
        *b = t->rows[lo].runs[STEPS_OTHER]; /* shared: the stream's block holds it */
        return 0;
    }
    size_t *at = calloc(k ? k : 1, sizeof *at);
    if (!at)
        return -1;
    for (size_t i = lo; i < hi; i++)
        n += t->rows[i].runs[STEPS_OTHER].n;
    memset(b, 0, sizeof *b);
    n = room(n);
    u->mapped = n >= TIMELINE_MAPPED;
    u->nblock = n;
    if (n && !(u->block = block_new(n, u->mapped))) {
        free(at);
        return -1;
    }
    b->r = u->block;
    b->cap = n;
    int64_t last = INT64_MIN; /* the end of the union's last stretch */
    for (;;) {
        /* the stretch starting first among the streams' next ones */
        const timeline_runs *x = NULL;
        size_t from = 0;
        for (size_t i = 0; i < k; i++) {
            const timeline_runs *o = &t->rows[lo + i].runs[STEPS_OTHER];
            if (at[i] < o->n && (!x || o->r[at[i]].s < x->r[at[from]].s)) {
                x = o;
                from = i;
            }
        }
        if (!x)
            break;
        int64_t s = x->r[at[from]].s, e = run_end(x, at[from]);
        at[from]++;
        if (b->n && s <= last) { /* overlapping or touching: one stretch */
            if (e > last) {
                b->r[b->n].s = e;
                b->r[b->n].cum += e - last;
                last = e;
            }
            continue;
        }
        add_run(b, s, e);
        last = e;
    }
    free(at);
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

/* The rows' builds on up to m->opts.jobs threads: each takes the next
   row not taken, the largest first. */
struct pool {
    timeline *t;
    size_t *bysize; /* row indices, the most events first */
    size_t n;
    size_t next;    /* the next of bysize to build */
    pthread_mutex_t lock;
    steps_roles *roles;
    int rc;
};

static void *pool_main(void *arg)
{
    struct pool *p = arg;
    struct sweep w = { .t = p->t, .roles = p->roles };
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->n && p->rc == 0 ? p->bysize[p->next++] : SIZE_MAX;
        pthread_mutex_unlock(&p->lock);
        if (i == SIZE_MAX)
            break;
        if (build_row(&w, &p->t->rows[i]) < 0) {
            pthread_mutex_lock(&p->lock);
            p->rc = -1;
            pthread_mutex_unlock(&p->lock);
            break;
        }
    }
    free(w.stk);
    free(w.tmp);
    free(w.bests);
    return NULL;
}

#define TIMELINE_MAX_THREADS 8

static int build_rows(timeline *t, steps_roles *roles)
{
    struct pool p = { .t = t, .roles = roles };
    if (!(p.bysize = malloc((t->nrows ? t->nrows : 1) * sizeof *p.bysize)))
        return -1;
    for (size_t i = 0; i < t->nrows; i++)
        if (t->rows[i].kind != TIMELINE_UTIL)
            p.bysize[p.n++] = i;
    /* the largest first (insertion: a trace has tens of tracks) */
    for (size_t i = 1; i < p.n; i++)
        for (size_t j = i; j > 0 && t->rows[p.bysize[j]].nev > t->rows[p.bysize[j - 1]].nev; j--) {
            size_t x = p.bysize[j];
            p.bysize[j] = p.bysize[j - 1];
            p.bysize[j - 1] = x;
        }
    unsigned n = t->m->opts.jobs < TIMELINE_MAX_THREADS ? t->m->opts.jobs : TIMELINE_MAX_THREADS;
    if (n > p.n)
        n = (unsigned)p.n;
    pthread_t th[TIMELINE_MAX_THREADS];
    bool started[TIMELINE_MAX_THREADS] = { false };
    pthread_mutex_init(&p.lock, NULL);
    for (unsigned i = 1; i < n; i++)
        started[i] = pthread_create(&th[i], NULL, pool_main, &p) == 0;
    pool_main(&p); /* this thread too; it also builds what no thread started for */
    for (unsigned i = 1; i < n; i++)
        if (started[i])
            pthread_join(th[i], NULL);
    pthread_mutex_destroy(&p.lock);
    free(p.bysize);
    return p.rc;
}

/* the marks: the ProfilerStep# events */
static int marks(timeline *t, const steps_roles *roles)
{
    if (!roles->nsteps)
        return 0;
    if (!(t->marks = malloc(roles->nsteps * sizeof *t->marks)))
        return -1;
    for (size_t i = 0; i < roles->nsteps; i++) {
        const trace_event *x = &t->m->tr->events[roles->step_ev[i]];
        t->marks[i] = (timeline_mark){ x->ts, x->ts + x->dur, roles->step_ev[i], x->name };
    }
    t->nmarks = roles->nsteps;
    return 0;
}

timeline *timeline_build(const model *m, t2p_error *err)
{
    const trace *tr = m->tr;
    timeline *t = calloc(1, sizeof *t);
    struct trow *tw = calloc(tr->ntracks ? tr->ntracks : 1, sizeof *tw);
    size_t *at = calloc(tr->ntracks + 1, sizeof *at);
    size_t *fill = malloc((tr->ntracks ? tr->ntracks : 1) * sizeof *fill);
    steps_roles roles = { 0 };
    if (!t || !tw || !at || !fill)
        goto nomem;
    t->m = m;
    t->start = m->window_start;
    t->end = m->window_end;
    if (steps_roles_init(&roles, m, err) < 0)
        goto fail;

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
    t->under = vec_alloc(tr->nevents, sizeof *t->under);
    if (!t->rows || !t->under || marks(t, &roles) < 0)
        goto nomem;

    if (m->nest_order && m->track_start) {
        /* the model sorted each track's events by the same rule (ts, dur
           desc, index) and kept them (model_opts.keep_nesting) */
        t->order = m->nest_order;
        t->sorted = true;
        memcpy(at, m->track_start, (tr->ntracks + 1) * sizeof *at);
    } else {
        /* each track's events, in one array (a counting sort by track) */
        if (!(t->order = vec_alloc(tr->nevents, sizeof *t->order)))
            goto nomem;
        t->own_order = true;
        for (size_t e = 0; e < tr->nevents; e++)
            at[tr->events[e].track + 1]++;
        for (size_t k = 0; k < tr->ntracks; k++)
            at[k + 1] += at[k];
        for (size_t k = 0; k < tr->ntracks; k++)
            fill[k] = at[k];
        for (size_t e = 0; e < tr->nevents; e++)
            t->order[fill[tr->events[e].track]++] = (uint32_t)e;
    }

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
    }
    if (build_rows(t, &roles) < 0)
        goto nomem;
    /* the strips, once their streams are built */
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
    steps_roles_done(&roles);
    free(tw);
    free(at);
    free(fill);
    return t;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory building the timeline");
fail:
    steps_roles_done(&roles);
    free(tw);
    free(at);
    free(fill);
    timeline_free(t);
    return NULL;
}

void timeline_free(timeline *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->rows && i < t->nrows; i++)
        block_free(t->rows[i].block, t->rows[i].nblock, t->rows[i].mapped);
    free(t->rows);
    size_t n = t->m ? t->m->tr->nevents : 0; /* no model: no arrays yet */
    if (t->own_order)
        vec_free(t->order, n, sizeof *t->order);
    vec_free(t->under, n, sizeof *t->under);
    free(t->marks);
    free(t);
}

const char *timeline_mark_label(const timeline *t, size_t i)
{
    if (i >= t->nmarks)
        return "";
    const char *n = trace_str(t->m->tr, t->marks[i].name);
    const char *h = strchr(n, '#');
    return h ? h + 1 : n;
}

size_t timeline_mark_at(const timeline *t, int64_t x)
{
    uint32_t i = steps_window_at(t->marks, t->nmarks, sizeof *t->marks,
                                 offsetof(timeline_mark, start), offsetof(timeline_mark, end), x);
    return i == STEPS_NONE ? SIZE_MAX : i;
}

/* time of the runs before x */
static int64_t cum_at(const timeline_runs *r, int64_t x)
{
    size_t lo = 0, hi = r->n; /* the first run starting after x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->r[mid].s <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    size_t j = lo - 1;
    int64_t e = run_end(r, j);
    return r->r[j].cum + ((x < e ? x : e) - r->r[j].s);
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
    const trace_event *ev = t->m->tr->events;
    const uint32_t *o = t->order + r->first;
    size_t lo = 0, hi = r->nev; /* the first event starting after x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[o[mid]].ts <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return TIMELINE_NONE;
    /* the stack as the last event starting by x left it: the innermost of
       its events still open at x draws x (as the sweep drew it) */
    size_t j = r->first + lo - 1;
    uint32_t c = fills(t, r, j) ? (uint32_t)j : t->under[j];
    while (c != TIMELINE_NONE && ev[t->order[c]].ts + ev[t->order[c]].dur <= x)
        c = t->under[c];
    return c == TIMELINE_NONE ? TIMELINE_NONE : t->order[c];
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
