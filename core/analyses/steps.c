#include "config.h"

#include "core/analyses/steps.h"
#include "core/analyses/steps_roles.h"
#include "core/analyses/gpu.h"

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/catkind.h"
#include "core/base/vec.h"

static const char *const role_keys[STEPS_NROLES] = {
    "kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_op", "other"
};
static const char *const role_titles[STEPS_NROLES] = {
    "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other"
};
static const char role_letters[STEPS_NROLES] = { 'K', 'M', 'S', 'C', 'R', 'D', 'P', 'O' };

const char *steps_role_key(enum steps_role r)
{
    return (unsigned)r < STEPS_NROLES ? role_keys[r] : "?";
}

const char *steps_role_title(enum steps_role r)
{
    return (unsigned)r < STEPS_NROLES ? role_titles[r] : "?";
}

char steps_role_letter(enum steps_role r)
{
    return (unsigned)r < STEPS_NROLES ? role_letters[r] : '?';
}

/* Interval lists: one per role, the union of all GPU work, and the windows. */
enum { L_GPU = STEPS_OTHER, NLISTS = STEPS_OTHER + 1 };

typedef struct span {
    int64_t s, e;
} span;

struct lists {
    span *l[NLISTS];
    size_t n[NLISTS];   /* spans in use */
    size_t cap[NLISTS]; /* spans allocated */
};

static bool span_le(const span *x, const span *y)
{
    return x->s < y->s || (x->s == y->s && x->e <= y->e);
}

/* Sorts l[0..n) by (start, end): a bottom-up merge sort that copies a pair
   of runs already in order as it is. A list holds each track's spans in
   time order, the tracks one after the other, so most merges are copies;
   qsort called the comparison through a pointer n log n times and mapped
   its scratch array afresh each call. Spans equal in start and end are
   equal, so the order is qsort's. Returns 0, or -1 out of memory. */
static int sort_spans(span *l, size_t n)
{
    span *tmp = vec_alloc(n, sizeof *tmp);
    if (!tmp)
        return -1;
    span *src = l, *dst = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            if (mid >= hi || span_le(&src[mid - 1], &src[mid])) {
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);
                continue;
            }
            size_t a = lo, c = mid, k = lo;
            while (a < mid && c < hi)
                dst[k++] = span_le(&src[a], &src[c]) ? src[a++] : src[c++];
            while (a < mid)
                dst[k++] = src[a++];
            while (c < hi)
                dst[k++] = src[c++];
        }
        span *t = src;
        src = dst;
        dst = t;
    }
    if (src != l)
        memcpy(l, src, n * sizeof *l);
    vec_free(tmp, n, sizeof *tmp);
    return 0;
}

/* sorts and merges l[0..n) in place into disjoint spans; returns the count,
   or SIZE_MAX when out of memory */
static size_t merge_spans(span *l, size_t n)
{
    if (n == 0)
        return 0;
    size_t i = 1;
    for (; i < n && span_le(&l[i - 1], &l[i]); i++)
        ;
    if (i < n && sort_spans(l, n) < 0)
        return SIZE_MAX;
    size_t k = 0;
    for (size_t j = 1; j < n; j++) {
        if (l[j].s <= l[k].e) {
            if (l[j].e > l[k].e)
                l[k].e = l[j].e;
        } else {
            l[++k] = l[j];
        }
    }
    return k + 1;
}

/* GPU work as TensorBoard's plugin saw it: kernel, memcpy, memset (not other
   accelerators' events) */
static bool tb_device(enum catkind k)
{
    return k == CATKIND_KERNEL || k == CATKIND_MEMCPY || k == CATKIND_MEMSET;
}

struct ctx {
    const model *m;
    const trace *tr;
    steps_roles roles;     /* names' classes, communication operators' ids */
    int *oprole;           /* per op: the role of its calls, -1 none */
    unsigned char *evr;    /* per event: EV_* bits and its role (EV_ROLE) */
};

/* what the first pass learns of each event */
enum {
    EV_ROLE = 0x0f,  /* its role, or EV_NOROLE */
    EV_NOROLE = 0x0f,
    EV_GPU = 0x10,   /* a GPU event: GPU work, or anything on a GPU row (annotations there) */
    EV_WORK = 0x20,  /* GPU work */
    EV_TB = 0x40     /* GPU work as TensorBoard counted it (kernel, memcpy, memset) */
};

static enum catkind ev_kind(const struct ctx *c, uint32_t e)
{
    uint32_t cat = c->tr->events[e].cat;
    return cat < c->m->ncatkind ? (enum catkind)c->m->catkind[cat] : CATKIND_NONE;
}

static unsigned ev_class(const struct ctx *c, uint32_t e)
{
    uint32_t name = c->tr->events[e].name;
    return name < c->roles.nstr ? c->roles.nclass[name] : 0;
}

/* Kernels that ran for a communication operator: their External id is one
   of a communication operator's (TensorBoard's rule; the ids are
   steps_roles'). On the shared traces none is: their NCCL kernels carry the
   id of the operator around the collective, not the collective's own. */
static void comm_kernels(struct ctx *c)
{
    const trace *tr = c->tr;
    const model *m = c->m;
    if (!c->roles.ncomm)
        return; /* no communication operator with an id: no event to look at */
    for (size_t e = 0; e < tr->nevents; e++) {
        if ((c->evr[e] & EV_ROLE) != STEPS_KERNEL ||
            !steps_roles_comm_id(&c->roles, tr->events[e].ext))
            continue;
        c->evr[e] = (unsigned char)((c->evr[e] & ~EV_ROLE) | STEPS_COMMUNICATION);
        if (m->ev_node[e] != MODEL_NONE) /* none: a Python frame left out (--no-python) */
            c->oprole[m->nodes[m->ev_node[e]].op] = -1; /* its op's calls now differ */
    }
}

struct dev_entry {
    int64_t launch_ts, launch_end;
    int64_t ts, end;
    uint32_t event;
    uint32_t pad;
};

static int cmp_dev(const void *a, const void *b)
{
    const struct dev_entry *x = a, *y = b;
    if (x->launch_ts != y->launch_ts)
        return x->launch_ts < y->launch_ts ? -1 : 1;
    return (x->event > y->event) - (x->event < y->event);
}

/* The step windows on the device side (steps.md "Step windows") and the
   tail steps to drop. Returns 0 or -1 when out of memory. */
static int device_windows(struct ctx *c, steps *s)
{
    const trace *tr = c->tr;
    const model *m = c->m;
    size_t n = 0;
    for (size_t i = 0; i < tr->ncorrs; i++) {
        uint32_t l = m->corr_launch ? m->corr_launch[i] : MODEL_NONE;
        if (l != MODEL_NONE && (c->evr[tr->corrs[i].event] & EV_TB) &&
            ev_kind(c, l) == CATKIND_RUNTIME)
            n++;
    }
    struct dev_entry *d = vec_alloc(n, sizeof *d);
    int64_t *dmin = malloc(s->nsteps * sizeof *dmin), *dmax = malloc(s->nsteps * sizeof *dmax);
    uint64_t *matched = calloc(tr->nevents / 64 + 1, sizeof *matched);
    if (!d || !dmin || !dmax || !matched) {
        vec_free(d, n, sizeof *d);
        free(dmin);
        free(dmax);
        free(matched);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < tr->ncorrs; i++) {
        uint32_t l = m->corr_launch ? m->corr_launch[i] : MODEL_NONE;
        uint32_t g = tr->corrs[i].event;
        if (l == MODEL_NONE || !(c->evr[g] & EV_TB) || ev_kind(c, l) != CATKIND_RUNTIME)
            continue;
        const trace_event *L = &tr->events[l], *G = &tr->events[g];
        d[k++] = (struct dev_entry){ L->ts, L->ts + L->dur, G->ts, G->ts + G->dur, g, 0 };
    }
    size_t sorted = 1;
    while (sorted < n && cmp_dev(&d[sorted - 1], &d[sorted]) <= 0)
        sorted++;
    if (sorted < n)
        qsort(d, n, sizeof *d, cmp_dev);

    /* the launches that lie entirely inside each host window, walking both
       in time order as the plugin did */
    size_t is = 0, ir = 0;
    uint64_t any = 0;
    for (size_t i = 0; i < s->nsteps; i++) {
        dmin[i] = INT64_MAX;
        dmax[i] = INT64_MIN;
    }
    while (is < s->nsteps && ir < n) {
        steps_step *st = &s->steps[is];
        const struct dev_entry *r = &d[ir];
        if (r->launch_ts < st->host_start) {
            ir++;
        } else if (r->launch_end <= st->host_end) {
            if (r->ts < dmin[is])
                dmin[is] = r->ts;
            if (r->end > dmax[is])
                dmax[is] = r->end;
            matched[r->event / 64] |= 1ull << (r->event % 64);
            st->gpu_launched++;
            any++;
            ir++;
        } else if (r->launch_ts < st->host_end) {
            ir++;
        } else {
            is++;
        }
    }

    if (any) {
        s->device_windows = true;
        int64_t prev = s->steps[0].host_start;
        if (dmin[0] != INT64_MAX)
            for (size_t e = 0; e < tr->nevents; e++) {
                const trace_event *x = &tr->events[e];
                if (!(c->evr[e] & EV_TB) || (matched[e / 64] >> (e % 64) & 1))
                    continue;
                if (x->ts + x->dur < dmin[0] && x->ts + x->dur > prev)
                    prev = x->ts + x->dur;
            }
        for (size_t i = 0; i < s->nsteps; i++) {
            steps_step *st = &s->steps[i];
            int64_t start = prev > st->host_start ? prev : st->host_start;
            int64_t end = st->host_end;
            if (dmin[i] != INT64_MAX && dmax[i] > end)
                end = dmax[i];
            if (end < start)
                end = start;
            st->start = start;
            st->end = end;
            prev = end;
        }
        /* tail steps: trailing steps that launched nothing, and the last
           one left when it launched under 80 % of the one before (the
           profiler stopped before its GPU work ran) */
        if (s->nsteps > 1) {
            size_t i = s->nsteps;
            while (i > 0 && s->steps[i - 1].gpu_launched == 0)
                i--;
            if (i > 0) {
                size_t keep = i;
                if (i > 1 && s->steps[i - 2].gpu_launched * 4 > s->steps[i - 1].gpu_launched * 5)
                    keep = i - 1;
                for (size_t j = keep; j < s->nsteps; j++)
                    s->steps[j].kept = false;
            }
        }
    }
    vec_free(d, n, sizeof *d);
    free(dmin);
    free(dmax);
    free(matched);
    return 0;
}

/* Role lists: each event's [ts, ts+dur) into its role's list, and GPU work
   into L_GPU, for the lists in mask (bit i: list i). An event nested in a
   call of the same role adds nothing to the role's union, so it is left
   out: the lists stay short. Each list is built in event order and sorted
   alone, so that threads may build a share of the lists each. */
static int collect(struct ctx *c, struct lists *L, unsigned mask)
{
    const trace *tr = c->tr;
    const model *m = c->m;
    for (size_t e = 0; e < tr->nevents; e++) {
        unsigned char v = c->evr[e];
        int r = v & EV_ROLE;
        if (r == EV_NOROLE && !(v & EV_WORK))
            continue;
        const trace_event *x = &tr->events[e];
        span sp = { x->ts, x->ts + x->dur };
        if (r != EV_NOROLE && (mask >> r & 1)) {
            uint32_t p = m->ev_node[e] == MODEL_NONE ? MODEL_NONE : m->nodes[m->ev_node[e]].parent;
            if (p == MODEL_NONE || m->nodes[p].op == MODEL_NONE || c->oprole[m->nodes[p].op] != r) {
                if (vec_grow((void **)&L->l[r], &L->cap[r], L->n[r], sizeof(span)) < 0)
                    return -1;
                L->l[r][L->n[r]++] = sp;
            }
        }
        if ((v & EV_WORK) && (mask >> L_GPU & 1)) {
            if (vec_grow((void **)&L->l[L_GPU], &L->cap[L_GPU], L->n[L_GPU], sizeof(span)) < 0)
                return -1;
            L->l[L_GPU][L->n[L_GPU]++] = sp;
        }
    }
    for (int i = 0; i < NLISTS; i++)
        if ((mask >> i & 1) && (L->n[i] = merge_spans(L->l[i], L->n[i])) == SIZE_MAX) {
            L->n[i] = 0;
            return -1;
        }
    return 0;
}

/* Splits every step's window: walk the boundaries of all lists in time
   order; each stretch goes to the first role active in it. */
static void split(steps *s, struct lists *L)
{
    size_t cur[NLISTS] = { 0 };
    bool in[NLISTS] = { false };
    bool monotone = true;
    for (size_t i = 1; i < s->nsteps; i++)
        if (s->steps[i].start < s->steps[i - 1].end || s->steps[i].end < s->steps[i - 1].end)
            monotone = false;
    int64_t t = INT64_MIN;
    size_t lo = 0;
    for (;;) {
        /* the next boundary */
        int64_t next = INT64_MAX;
        for (int i = 0; i < NLISTS; i++) {
            if (cur[i] >= L->n[i])
                continue;
            int64_t b = in[i] ? L->l[i][cur[i]].e : L->l[i][cur[i]].s;
            if (b < next)
                next = b;
        }
        if (next == INT64_MAX)
            break;
        if (t != INT64_MIN && next > t) {
            int role = -1;
            for (int i = 0; i < STEPS_OTHER && role < 0; i++)
                if (in[i])
                    role = i;
            bool comp = s->has_kernel ? in[STEPS_KERNEL] : in[STEPS_CPU_OP];
            bool comm = in[STEPS_COMMUNICATION];
            if (role >= 0 || in[L_GPU]) {
                if (monotone)
                    while (lo < s->nsteps && s->steps[lo].end <= t)
                        lo++;
                for (size_t j = monotone ? lo : 0; j < s->nsteps && s->steps[j].start < next; j++) {
                    steps_step *st = &s->steps[j];
                    int64_t a = t > st->start ? t : st->start;
                    int64_t b = next < st->end ? next : st->end;
                    if (b <= a)
                        continue;
                    if (role >= 0)
                        st->role_ns[role] += b - a;
                    if (in[L_GPU])
                        st->gpu_busy_ns += b - a;
                    if (comp)
                        st->overlap.computation_ns += b - a;
                    if (comm)
                        st->overlap.communication_ns += b - a;
                    if (comp && comm)
                        st->overlap.overlap_ns += b - a;
                }
            }
        }
        t = next;
        for (int i = 0; i < NLISTS; i++) {
            if (cur[i] >= L->n[i])
                continue;
            if (in[i] && L->l[i][cur[i]].e == t) {
                in[i] = false;
                cur[i]++;
            }
            if (!in[i] && cur[i] < L->n[i] && L->l[i][cur[i]].s == t) {
                if (L->l[i][cur[i]].e > t)
                    in[i] = true;
                else
                    cur[i]++; /* an empty span covers nothing */
            }
        }
    }
    for (size_t j = 0; j < s->nsteps; j++) {
        steps_step *st = &s->steps[j];
        int64_t used = 0;
        for (int r = 0; r < STEPS_OTHER; r++)
            used += st->role_ns[r];
        st->role_ns[STEPS_OTHER] = (st->end - st->start) - used;
        st->overlap.other_ns = (st->end - st->start) + st->overlap.overlap_ns -
                               st->overlap.computation_ns - st->overlap.communication_ns;
    }
}

/* element i's window bounds, of windows laid out as steps_window_at says */
static int64_t win_bound(const void *w, size_t size, size_t off, size_t i)
{
    int64_t v;
    memcpy(&v, (const char *)w + i * size + off, sizeof v);
    return v;
}

/* The number of windows that start at or before t, windows being sorted by
   start. */
static size_t windows_starting_by(const void *w, size_t n, size_t size, size_t so, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (win_bound(w, size, so, mid) <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Windows rarely overlap (a GPU-row ProfilerStep): look back a little. */
uint32_t steps_window_at(const void *w, size_t n, size_t size, size_t so, size_t eo, int64_t t)
{
    size_t lo = windows_starting_by(w, n, size, so, t);
    for (size_t i = lo, k = 0; i > 0 && k < 4; i--, k++)
        if (t < win_bound(w, size, eo, i - 1))
            return (uint32_t)(i - 1);
    return STEPS_NONE;
}

static uint32_t step_at(const steps *s, int64_t t, bool host)
{
    return steps_window_at(s->steps, s->nsteps, sizeof *s->steps,
                           host ? offsetof(steps_step, host_start) : offsetof(steps_step, start),
                           host ? offsetof(steps_step, host_end) : offsetof(steps_step, end), t);
}

uint32_t steps_at(const steps *s, int64_t t, bool host)
{
    return !s || s->whole_trace ? STEPS_NONE : step_at(s, t, host);
}

/* a step index from which on the windows that may hold t begin */
static size_t first_step_near(const steps *s, int64_t t)
{
    size_t lo = windows_starting_by(s->steps, s->nsteps, sizeof *s->steps,
                                    offsetof(steps_step, start), t);
    return lo > 4 ? lo - 4 : 0;
}

/* ev_step (the scoping rule) and each step's CPU time, in one pass */
static void assign_events(struct ctx *c, steps *s)
{
    const trace *tr = c->tr;
    const model *m = c->m;
    size_t ci = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        const trace_event *x = &tr->events[e];
        uint32_t st = STEPS_NONE;
        if (c->evr[e] & EV_GPU) {
            /* the step of its launch, else by its start */
            uint32_t l = gpu_launch_next(m, e, &ci);
            if (s->whole_trace)
                st = STEPS_NONE;
            else if (l != MODEL_NONE && !(c->evr[l] & EV_GPU))
                st = step_at(s, tr->events[l].ts, true);
            else
                st = step_at(s, x->ts, false);
            s->ev_step[e] = st;
            continue;
        }
        s->ev_step[e] = s->whole_trace ? STEPS_NONE : step_at(s, x->ts, true);
        /* CPU time: each CPU thread's outermost events, clipped to the windows */
        if (m->ev_node[e] == MODEL_NONE || m->nodes[m->ev_node[e]].depth != 1)
            continue;
        int64_t end = x->ts + x->dur;
        for (size_t j = first_step_near(s, x->ts); j < s->nsteps; j++) {
            steps_step *w = &s->steps[j];
            int64_t a = x->ts > w->start ? x->ts : w->start;
            int64_t b = end < w->end ? end : w->end;
            if (b > a)
                w->cpu_ns += b - a;
            if (w->start >= end)
                break;
        }
    }
}

/* whether m calls DataParallel (name class STEPS_NAME_DP) */
static bool uses_dataparallel(const struct ctx *c)
{
    for (size_t i = 0; i < c->m->nops; i++) {
        const model_op *o = &c->m->ops[i];
        if (o->calls && o->name < c->roles.nstr && (c->roles.nclass[o->name] & STEPS_NAME_DP))
            return true;
    }
    return false;
}

/* The lists from the most spans to the fewest, as a rule (kernels, GPU
   work, launches and operators come by the 100,000): dealt out to threads
   in turn, each gets a like share of the scanning and sorting. */
static const int list_weight_order[NLISTS] = { STEPS_KERNEL, L_GPU, STEPS_RUNTIME, STEPS_CPU_OP,
                                               STEPS_MEMCPY, STEPS_MEMSET, STEPS_COMMUNICATION,
                                               STEPS_DATALOADER };

/* A thread's share of the passes after the step windows: some lists, and
   for one of them the events' steps too (assign_events writes ev_step and
   cpu_ns, which the lists and split never touch). */
struct share {
    struct ctx *c;
    steps *s;
    struct lists *L;
    unsigned mask;
    bool assign;
    int rc;
};

static void *share_main(void *arg)
{
    struct share *sh = arg;
    if (sh->assign)
        assign_events(sh->c, sh->s);
    sh->rc = collect(sh->c, sh->L, sh->mask);
    return NULL;
}

#define STEPS_MAX_THREADS 4

/* collect and assign_events on up to m->opts.jobs threads (this one among
   them). Each list is made by one thread from the same events in the same
   order as on one thread, and ev_step and cpu_ns by one thread: the figures
   do not depend on the threads. Returns 0 or -1 (no memory). */
static int lists_and_steps(struct ctx *c, steps *s, struct lists *L)
{
    unsigned n = c->m->opts.jobs < STEPS_MAX_THREADS ? c->m->opts.jobs : STEPS_MAX_THREADS;
    if (n < 2) {
        if (collect(c, L, (1u << NLISTS) - 1) < 0)
            return -1;
        assign_events(c, s);
        return 0;
    }
    struct share sh[STEPS_MAX_THREADS];
    pthread_t th[STEPS_MAX_THREADS];
    bool started[STEPS_MAX_THREADS] = { false };
    for (unsigned t = 0; t < n; t++)
        sh[t] = (struct share){ .c = c, .s = s, .L = L, .assign = t == n - 1 };
    for (int i = 0; i < NLISTS; i++)
        sh[i % n].mask |= 1u << list_weight_order[i];
    int rc = 0;
    for (unsigned t = 1; t < n; t++)
        started[t] = pthread_create(&th[t], NULL, share_main, &sh[t]) == 0;
    share_main(&sh[0]);
    for (unsigned t = 1; t < n; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            share_main(&sh[t]); /* no thread: this one does its share */
    }
    for (unsigned t = 0; t < n; t++)
        if (sh[t].rc < 0)
            rc = -1;
    return rc;
}

steps *steps_build(const model *m, t2p_error *err)
{
    const trace *tr = m->tr;
    struct ctx c = { .m = m, .tr = tr };
    struct lists L;
    memset(&L, 0, sizeof L);
    steps *s = calloc(1, sizeof *s);
    if (!s)
        goto nomem;
    if (model_is_scoped(m)) {
        error_set(err, T2P_ERR_ARG, tr->path, -1, "steps need the model of the whole trace");
        free(s);
        return NULL;
    }
    s->m = m;
    s->nevents = tr->nevents;
    s->ev_step = vec_alloc(tr->nevents, sizeof *s->ev_step);
    if (steps_roles_init(&c.roles, m, err) < 0)
        goto nomem;
    c.oprole = malloc((m->nops ? m->nops : 1) * sizeof *c.oprole);
    c.evr = vec_alloc(tr->nevents, 1);
    if (!s->ev_step || !c.oprole || !c.evr)
        goto nomem;

    /* one pass: each event's role and kind, the CPU extent, and per op the
       role all its calls share (-1 when none or they differ): a call nested
       in one of the same role adds nothing to its union */
    for (size_t i = 0; i < m->nops; i++)
        c.oprole[i] = -2;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t e = 0; e < tr->nevents; e++) {
        const trace_event *x = &tr->events[e];
        enum catkind k = ev_kind(&c, (uint32_t)e);
        unsigned nc = ev_class(&c, (uint32_t)e);
        int r = steps_roles_role(k, nc);
        /* no node: a Python frame left out (--no-python) */
        int *o = m->ev_node[e] == MODEL_NONE ? NULL : &c.oprole[m->nodes[m->ev_node[e]].op];
        if (o)
            *o = *o == -2 || *o == r ? r : -1;
        unsigned char v = r < 0 ? EV_NOROLE : (unsigned char)r;
        if (catkind_is_gpu_work(k))
            v |= EV_WORK | EV_GPU;
        if (tb_device(k))
            v |= EV_TB;
        if (tr->tracks[x->track].is_gpu || m->tracks[x->track].stream != MODEL_NONE)
            v |= EV_GPU;
        c.evr[e] = v;
        if (k == CATKIND_CPU_OP || k == CATKIND_PYTHON) {
            if (x->ts < lo)
                lo = x->ts;
            if (x->ts + x->dur > hi)
                hi = x->ts + x->dur;
        }
    }
    comm_kernels(&c);
    /* the steps: steps_roles found the ProfilerStep# events, in time order
       (start, then event index) */
    if (c.roles.nsteps) {
        if (!(s->steps = malloc(c.roles.nsteps * sizeof *s->steps)))
            goto nomem;
        for (size_t i = 0; i < c.roles.nsteps; i++) {
            uint32_t e = c.roles.step_ev[i];
            const trace_event *x = &tr->events[e];
            s->steps[i] = (steps_step){ .event = e, .name = x->name, .host_start = x->ts,
                                        .host_end = x->ts + x->dur, .kept = true };
        }
        s->nsteps = c.roles.nsteps;
    } else {
        /* one step over the CPU events (operators, Python), as TensorBoard did */
        if (!(s->steps = calloc(1, sizeof *s->steps)))
            goto nomem;
        if (lo > hi) {
            lo = m->window_start;
            hi = m->window_end;
        }
        s->whole_trace = true;
        s->nsteps = 1;
        s->steps[0] = (steps_step){ .event = STEPS_NONE, .name = STEPS_NONE, .host_start = lo,
                                    .host_end = hi, .kept = true };
    }
    for (size_t i = 0; i < s->nsteps; i++) {
        s->steps[i].start = s->steps[i].host_start;
        s->steps[i].end = s->steps[i].host_end;
    }
    if (device_windows(&c, s) < 0 || lists_and_steps(&c, s, &L) < 0)
        goto nomem;
    s->has_kernel = L.n[STEPS_KERNEL] > 0;
    split(s, &L);

    for (size_t i = 0; i < s->nsteps; i++) {
        const steps_step *st = &s->steps[i];
        if (!st->kept)
            continue;
        s->nkept++;
        s->avg_duration_ns += st->end - st->start;
        s->avg_gpu_busy_ns += st->gpu_busy_ns;
        for (int r = 0; r < STEPS_NROLES; r++)
            s->avg_role_ns[r] += st->role_ns[r];
    }
    if (s->nkept) {
        int64_t k = (int64_t)s->nkept;
        s->avg_duration_ns /= k;
        s->avg_gpu_busy_ns /= k;
        for (int r = 0; r < STEPS_NROLES; r++)
            s->avg_role_ns[r] /= k;
    }
    steps_rec_build(s, c.m, uses_dataparallel(&c));
    s->ev_class = c.evr; /* kept: steps_ev_role */
    c.evr = NULL;
    goto done;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory computing the steps");
    steps_free(s);
    s = NULL;
done:
    for (int i = 0; i < NLISTS; i++)
        vec_free(L.l[i], L.cap[i], sizeof(span));
    steps_roles_done(&c.roles);
    free(c.oprole);
    vec_free(c.evr, tr->nevents, 1);
    return s;
}

int steps_ev_role(const steps *s, size_t e)
{
    int r = e < s->nevents && s->ev_class ? s->ev_class[e] & EV_ROLE : EV_NOROLE;
    return r == EV_NOROLE ? -1 : r;
}

void steps_free(steps *s)
{
    if (!s)
        return;
    free(s->steps);
    vec_free(s->ev_step, s->nevents, sizeof *s->ev_step);
    vec_free(s->ev_class, s->nevents, 1);
    free(s);
}
