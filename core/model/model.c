#include "config.h"

#include "core/model/model.h"
#include "core/model/model_nodes.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/catkind.h"
#include "core/analyses/gpu.h"
#include "core/base/hmap.h"
#include "core/base/vec.h"

struct frame {
    uint32_t ev;
    uint32_t node;
    int64_t end;
    int64_t cover;     /* union of direct children so far */
    int64_t cover_end; /* end of the last covered stretch */
    int64_t sub;       /* self time of the event and everything under it */
    bool kept;         /* in the scope (model_opts.keep); else node stays MODEL_NONE
                          until a counted event under it needs its stack */
};

/* Sorts idx[0..n) by (ts asc, dur desc, index asc): a natural merge sort,
   since traces are mostly in order already. */
static int cmp_ev(const trace_event *ev, uint32_t a, uint32_t b)
{
    if (ev[a].ts != ev[b].ts)
        return ev[a].ts < ev[b].ts ? -1 : 1;
    if (ev[a].dur != ev[b].dur)
        return ev[a].dur > ev[b].dur ? -1 : 1;
    return a < b ? -1 : (a > b);
}

static void sort_track(const trace_event *ev, uint32_t *idx, uint32_t *tmp, size_t n)
{
    size_t i;
    for (i = 1; i < n; i++)
        if (cmp_ev(ev, idx[i - 1], idx[i]) > 0)
            break;
    if (i >= n)
        return;
    /* bottom-up merge sort, ping-ponging between idx and tmp */
    uint32_t *src = idx, *dst = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, c = mid, k = lo;
            if (mid < hi && cmp_ev(ev, src[mid - 1], src[mid]) <= 0) {
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);
                continue;
            }
            while (a < mid && c < hi)
                dst[k++] = cmp_ev(ev, src[a], src[c]) <= 0 ? src[a++] : src[c++];
            while (a < mid)
                dst[k++] = src[a++];
            while (c < hi)
                dst[k++] = src[c++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != idx)
        memcpy(idx, src, n * sizeof *idx);
}

/* Closes the innermost open event. Its subtree's self time goes to its
   parent's, and to its op's cum when it is the op's outermost open call:
   then every stack through it holds the op, and no stack is counted twice. */
static void pop_frame(struct builder *b, size_t depth)
{
    model *m = b->m;
    struct frame *f = &b->stack[depth];
    const trace_event *e = &b->tr->events[f->ev];
    int64_t self = e->dur - f->cover;
    m->ev_self[f->ev] = self;
    if (b->mat > depth)
        b->mat = depth;
    if (!f->kept) {
        /* outside the scope: only what was counted under it goes up; a
           caller that counted stacks run through (it has a node) holds its
           op on them, so they are its op's cum as pprof counts it */
        if (depth > 0)
            b->stack[depth - 1].sub += f->sub;
        if (f->node != MODEL_NONE && --b->onstack[m->nodes[f->node].op] == 0)
            m->ops[m->nodes[f->node].op].cum_ns += f->sub;
        return;
    }
    model_node *nd = &m->nodes[f->node];
    nd->self_ns += self;
    m->ops[nd->op].self_ns += self;
    m->tracks[e->track].self_ns += self;
    m->busy_ns += self;
    f->sub += self;
    if (depth > 0)
        b->stack[depth - 1].sub += f->sub;
    if (--b->onstack[nd->op] == 0)
        m->ops[nd->op].cum_ns += f->sub;
}

/* Opens f, as the innermost call on the stack (room made by the caller).
   A zero-length event contains nothing: never a parent, or events at one
   instant would nest in each other (a chain millions deep): it closes at
   once. */
static void push_frame(struct builder *b, size_t *depth, struct frame f)
{
    b->stack[(*depth)++] = f;
    if (f.kept) {
        b->mat = *depth;
        b->onstack[b->m->nodes[f.node].op]++;
    }
    if (b->tr->events[f.ev].dur == 0)
        pop_frame(b, --*depth);
}

static int nest_track(struct builder *b, uint32_t track, const uint32_t *order, size_t n)
{
    model *m = b->m;
    const trace_event *ev = b->tr->events;
    model_track *mt = &m->tracks[track];
    size_t depth = 0;
    int64_t cover_end = INT64_MIN;

    b->mat = 0;
    mt->last_ns = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        uint32_t e = order[i];
        const trace_event *x = &ev[e];
        int64_t end = x->ts + x->dur;
        bool kept = !m->opts.keep || m->opts.keep[e];
        if (m->opts.no_python && x->cat < m->ncatkind &&
            (m->catkind[x->cat] == CATKIND_PYTHON_FUNCTION || m->catkind[x->cat] == CATKIND_PYTHON)) {
            /* no Python frames: the event is not there at all, its time
               is its caller's (as go tool pprof -hide leaves it) */
            m->ev_node[e] = MODEL_NONE;
            continue;
        }

        while (depth > 0 && b->stack[depth - 1].end < end) {
            /* x ends after it: when x also starts inside it, they overlap
               partly (counted, see model.h); the first such x is the one */
            const struct frame *f = &b->stack[depth - 1];
            if (f->kept && kept && x->ts < f->end) {
                m->partial_overlap_events++;
                m->partial_overlap_ns += f->end - x->ts;
            }
            pop_frame(b, --depth);
        }
        if (depth > 0) {
            struct frame *p = &b->stack[depth - 1];
            if (p->kept && x->ts < p->cover_end)
                m->ops[m->nodes[p->node].op].overlap = true;
            int64_t from = x->ts > p->cover_end ? x->ts : p->cover_end;
            if (end > from)
                p->cover += end - from;
            if (end > p->cover_end)
                p->cover_end = end;
        }
        if (vec_grow_heap((void **)&b->stack, &b->stackcap, depth, sizeof *b->stack) < 0)
            return -1;
        if (m->ev_parent)
            m->ev_parent[e] = depth > 0 ? b->stack[depth - 1].ev : MODEL_NONE;
        if (!kept) {
            m->ev_node[e] = MODEL_NONE;
            push_frame(b, &depth, (struct frame){ e, MODEL_NONE, end, 0, x->ts, 0, false });
            continue;
        }
        /* the callers outside the scope get their nodes now: a stack runs
           through them */
        for (; b->mat < depth; b->mat++) {
            struct frame *a = &b->stack[b->mat];
            const trace_event *ax = &ev[a->ev];
            uint32_t aop = model_nodes_op(b, b->name_map[ax->name], b->cat_map[ax->cat]);
            if (aop == MODEL_NONE)
                return -1;
            a->node = model_nodes_child(b, b->mat ? b->stack[b->mat - 1].node : mt->root, aop, track,
                                model_nodes_group_of(b, a->ev),
                                b->ev_stack ? b->ev_stack[a->ev] : STRTAB_NONE);
            if (a->node == MODEL_NONE)
                return -1;
            m->ev_node[a->ev] = a->node;
            b->onstack[aop]++; /* its stacks hold aop: cum (pop_frame) */
        }
        mt->events++;

        /* track coverage and gaps, for the threads and streams views */
        if (mt->events == 1)
            mt->first_ns = x->ts;
        if (end > mt->last_ns)
            mt->last_ns = end;
        if (cover_end == INT64_MIN) {
            mt->union_ns += x->dur;
            cover_end = end;
        } else if (x->ts >= cover_end) {
            if (x->ts - cover_end > mt->max_gap_ns)
                mt->max_gap_ns = x->ts - cover_end;
            mt->union_ns += x->dur;
            cover_end = end;
        } else if (end > cover_end) {
            mt->union_ns += end - cover_end;
            cover_end = end;
        }

        uint32_t parent_node = depth > 0 ? b->stack[depth - 1].node : mt->root;
        uint32_t op = model_nodes_op(b, b->name_map[x->name], b->cat_map[x->cat]);
        if (op == MODEL_NONE)
            return -1;
        uint32_t node = model_nodes_child(b, parent_node, op, track, model_nodes_group_of(b, e),
                                  b->ev_stack ? b->ev_stack[e] : STRTAB_NONE);
        if (node == MODEL_NONE)
            return -1;
        m->ev_node[e] = node;

        model_node *nd = &m->nodes[node];
        nd->calls++;
        nd->total_ns += x->dur;
        model_op *o = &m->ops[op];
        o->calls++;
        o->total_ns += x->dur;
        if (x->dur < o->min_ns)
            o->min_ns = x->dur;
        if (x->dur > o->max_ns)
            o->max_ns = x->dur;

        push_frame(b, &depth, (struct frame){ e, node, end, 0, x->ts, 0, true });
    }
    while (depth > 0)
        pop_frame(b, --depth);
    if (!mt->events)
        mt->last_ns = 0;
    /* a thread is busy once at a time, whatever overlaps on it */
    mt->busy_ns = mt->union_ns;
    return 0;
}

static int build_name_map(struct builder *b)
{
    const trace *tr = b->tr;
    uint32_t n = strtab_count(tr->strs);
    b->name_map = malloc((size_t)(n ? n : 1) * sizeof *b->name_map);
    if (!b->name_map)
        return -1;
    uint32_t star = STRTAB_NONE;
    for (uint32_t i = 0; i < n; i++) {
        b->name_map[i] = i;
        if (b->m->opts.keep_steps)
            continue;
        const char *s = strtab_str(tr->strs, i);
        if (catkind_step_name(s, strtab_len(tr->strs, i))) {
            if (star == STRTAB_NONE) {
                star = strtab_intern(tr->strs, CATKIND_STEPS_MERGED,
                                     sizeof CATKIND_STEPS_MERGED - 1);
                if (star == STRTAB_NONE)
                    return -1;
            }
            b->name_map[i] = star;
        }
    }
    /* early Kineto's category spellings become their modern names in every
       table: "Operator" and "cpu_op" are one category */
    b->cat_map = malloc((size_t)(n ? n : 1) * sizeof *b->cat_map);
    if (!b->cat_map)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        b->cat_map[i] = i;
        const char *mod = catkind_modern(strtab_str(tr->strs, i), strtab_len(tr->strs, i));
        if (mod && (b->cat_map[i] = strtab_intern(tr->strs, mod, strlen(mod))) == STRTAB_NONE)
            return -1;
    }
    /* sized after "ProfilerStep*" and modern names may have been added */
    uint32_t all = strtab_count(tr->strs);
    b->m->catkind = malloc(all ? all : 1);
    if (!b->m->catkind)
        return -1;
    b->m->ncatkind = all;
    for (uint32_t i = 0; i < all; i++)
        b->m->catkind[i] = (unsigned char)catkind_of(strtab_str(tr->strs, i),
                                                     strtab_len(tr->strs, i));
    b->name_op = malloc((size_t)(all ? all : 1) * sizeof *b->name_op);
    if (!b->name_op)
        return -1;
    for (uint32_t i = 0; i < all; i++)
        b->name_op[i] = MODEL_NONE;
    return 0;
}

/* whether event i goes into the sorted tracks: every event, or in a scope
   the counted ones and those overlapping their track's counted stretch */
static bool in_scope(const model *m, const int64_t *lo, const int64_t *hi, size_t i)
{
    if (!m->opts.keep || m->opts.keep[i])
        return true;
    const trace_event *x = &m->tr->events[i];
    return x->ts < hi[x->track] && x->ts + x->dur > lo[x->track];
}

/* The GPU links (gpu_link) on a thread of their own while the tracks nest:
   they read the trace and what build_name_map made, nothing nesting writes. */
struct linker {
    const model *m;
    uint32_t *corr_launch;
    int rc;
};

static void *link_main(void *arg)
{
    struct linker *l = arg;
    l->rc = gpu_link(l->m, &l->corr_launch);
    return NULL;
}

/* model_build; keep: the scope mask taken (model_build_keep), or NULL */
static model *build(const trace *tr, const model_opts *opts, unsigned char *keep, t2p_error *err)
{
    int64_t *span_lo = NULL, *span_hi = NULL;
    struct builder b;
    pthread_t linker_th;
    bool linking = false;
    uint32_t *order = NULL, *tmp = NULL;
    size_t maxn = 0;
    size_t *start = NULL;

    memset(&b, 0, sizeof b);
    model *m = calloc(1, sizeof *m);
    struct linker lk = { .m = m, .rc = 0 };
    if (!m) {
        free(keep);
        goto nomem;
    }
    b.m = m;
    b.tr = tr;
    m->tr = tr;
    if (opts)
        m->opts = *opts;
    if (keep) /* the model's from now on: model_free frees it */
        m->opts.keep = m->keep = keep;
    m->ntracks = tr->ntracks;
    m->tracks = calloc(tr->ntracks ? tr->ntracks : 1, sizeof *m->tracks);
    m->ev_node = vec_alloc(tr->nevents, sizeof *m->ev_node);
    m->ev_self = vec_alloc(tr->nevents, sizeof *m->ev_self);
    order = vec_alloc(tr->nevents, sizeof *order);
    start = calloc(tr->ntracks + 1, sizeof *start);
    if (!m->tracks || !m->ev_node || !m->ev_self || !order || !start)
        goto nomem;
    if (hmap_init(&b.opmap, 1024) < 0 || hmap_init(&b.childmap, 4096) < 0 ||
        hmap_init(&b.opgroup, 64) < 0 || hmap_init(&b.variants, 64) < 0 ||
        build_name_map(&b) < 0)
        goto nomem;
    if (model_nodes_stacks(&b) < 0)
        goto nomem;
    if (m->opts.keep_nesting && !m->opts.keep) {
        m->ev_parent = vec_alloc(tr->nevents, sizeof *m->ev_parent);
        if (!m->ev_parent)
            goto nomem;
    }
    if (m->opts.jobs > 1 && tr->ncorrs) {
        linking = pthread_create(&linker_th, NULL, link_main, &lk) == 0;
        /* no thread: gpu_attribute links them itself */
    }

    /* a scope: only the events that may nest with a counted one on its
       track (those overlapping the track's counted stretch) are sorted */
    if (m->opts.keep) {
        memset(m->ev_node, 0xff, (tr->nevents ? tr->nevents : 1) * sizeof *m->ev_node);
        span_lo = malloc((tr->ntracks ? tr->ntracks : 1) * sizeof *span_lo);
        span_hi = malloc((tr->ntracks ? tr->ntracks : 1) * sizeof *span_hi);
        if (!span_lo || !span_hi)
            goto nomem;
        for (size_t k = 0; k < tr->ntracks; k++) {
            span_lo[k] = INT64_MAX;
            span_hi[k] = INT64_MIN;
        }
        for (size_t i = 0; i < tr->nevents; i++) {
            const trace_event *x = &tr->events[i];
            if (!m->opts.keep[i])
                continue;
            if (x->ts < span_lo[x->track])
                span_lo[x->track] = x->ts;
            if (x->ts + x->dur > span_hi[x->track])
                span_hi[x->track] = x->ts + x->dur;
        }
    }
    /* group events by track (a stable counting sort), then sort each track */
    for (size_t i = 0; i < tr->nevents; i++)
        if (in_scope(m, span_lo, span_hi, i))
            start[tr->events[i].track + 1]++;
    for (size_t k = 0; k < tr->ntracks; k++)
        start[k + 1] += start[k];
    {
        size_t *fill = malloc((tr->ntracks ? tr->ntracks : 1) * sizeof *fill);
        if (!fill)
            goto nomem;
        memcpy(fill, start, tr->ntracks * sizeof *fill);
        for (size_t i = 0; i < tr->nevents; i++)
            if (in_scope(m, span_lo, span_hi, i))
                order[fill[tr->events[i].track]++] = (uint32_t)i;
        free(fill);
    }
    maxn = 0;
    for (size_t k = 0; k < tr->ntracks; k++)
        if (start[k + 1] - start[k] > maxn)
            maxn = start[k + 1] - start[k];
    tmp = vec_alloc(maxn, sizeof *tmp);
    if (!tmp)
        goto nomem;

    for (size_t k = 0; k < tr->ntracks; k++) {
        model_node root = { .op = MODEL_NONE, .parent = MODEL_NONE, .first_child = MODEL_NONE,
                            .next_sibling = MODEL_NONE, .stream = MODEL_NONE, .track = (uint32_t)k };
        m->tracks[k].root = (uint32_t)m->nnodes;
        m->tracks[k].stream = MODEL_NONE;
        if (model_nodes_push(&m->nodes, &m->nnodes, &b.nodecap, root) < 0)
            goto nomem;
    }
    for (size_t k = 0; k < tr->ntracks; k++) {
        size_t n = start[k + 1] - start[k];
        sort_track(tr->events, order + start[k], tmp, n);
        if (nest_track(&b, (uint32_t)k, order + start[k], n) < 0)
            goto nomem;
        if (m->tracks[k].events) {
            m->tracks_with_events++;
            m->complete_events += m->tracks[k].events;
            model_node *root = &m->nodes[m->tracks[k].root];
            root->calls = m->tracks[k].events; /* a root is no call, so no self time */
        }
    }
    vec_free(tmp, maxn, sizeof *tmp);
    tmp = NULL;
    /* a caller outside a scope has no calls: no shortest one either */
    for (size_t i = 0; i < m->nops; i++)
        if (!m->ops[i].calls)
            m->ops[i].min_ns = 0;

    /* a root's total is what its direct children cover, summed */
    for (size_t i = 0; i < m->nnodes; i++) {
        const model_node *nd = &m->nodes[i];
        if (nd->parent != MODEL_NONE && m->nodes[nd->parent].parent == MODEL_NONE)
            m->nodes[nd->parent].total_ns += nd->total_ns;
    }

    /* the profiler's Trace span, widened to every counted event: a step can
       start before the span or end after it (triton_example), and a window
       that leaves out counted time would make every percentage of it lie */
    m->window_start = INT64_MAX;
    m->window_end = INT64_MIN;
    if (tr->has_window && !m->opts.keep) {
        m->window_start = tr->window_start;
        m->window_end = tr->window_end;
    }
    for (size_t k = 0; k < m->ntracks; k++) {
        if (!m->tracks[k].events)
            continue;
        if (m->tracks[k].first_ns < m->window_start)
            m->window_start = m->tracks[k].first_ns;
        if (m->tracks[k].last_ns > m->window_end)
            m->window_end = m->tracks[k].last_ns;
    }
    if (m->window_start > m->window_end)
        m->window_start = m->window_end = 0; /* nothing timed */
    m->window_ns = m->window_end - m->window_start;

    if (linking) {
        pthread_join(linker_th, NULL);
        linking = false;
        if (lk.rc < 0)
            goto nomem;
        m->corr_launch = lk.corr_launch;
    }
    if (gpu_attribute(m, order, start) < 0)
        goto nomem;
    for (size_t k = 0; k < m->ntracks; k++)
        if (m->tracks[k].stream == MODEL_NONE && !tr->tracks[k].is_gpu)
            m->cpu_ns += m->tracks[k].busy_ns;
    if (model_nodes_finish(m, &b) < 0)
        goto nomem;
    if (m->ev_parent) {
        /* model_regroup's: the order and the parents */
        m->nest_order = order;
        m->track_start = start;
        order = NULL;
        start = NULL;
    }
    if (m->opts.keep && !m->keep) {
        /* the scope as data (model.keep): the caller's mask is its own */
        if (!(m->keep = malloc(tr->nevents ? tr->nevents : 1)))
            goto nomem;
        memcpy(m->keep, m->opts.keep, tr->nevents);
    }
    m->opts.keep = NULL; /* the caller's, read only while building; or model.keep */
    m->opts.group = NULL;
    goto done;

nomem:
    if (linking) {
        pthread_join(linker_th, NULL);
        vec_free(lk.corr_launch, tr->ncorrs, sizeof *lk.corr_launch);
    }
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory building the model");
    model_free(m);
    m = NULL;
done:
    vec_free(order, tr->nevents, sizeof *order);
    vec_free(tmp, maxn, sizeof *tmp);
    free(start);
    free(span_lo);
    free(span_hi);
    model_nodes_done(&b);
    return m;
}

model *model_build(const trace *tr, const model_opts *opts, t2p_error *err)
{
    return build(tr, opts, NULL, err);
}

model *model_build_keep(const trace *tr, const model_opts *opts, unsigned char *keep,
                        t2p_error *err)
{
    return build(tr, opts, keep, err);
}

void model_free(model *m)
{
    if (!m)
        return;
    free(m->ops);
    free(m->cats);
    free(m->tracks);
    free(m->nodes);
    free(m->mnodes);
    free(m->node_merged);
    vec_free(m->ev_node, m->tr->nevents, sizeof *m->ev_node);
    free(m->node_stack);
    vec_free(m->ev_self, m->tr->nevents, sizeof *m->ev_self);
    vec_free(m->nest_order, m->tr->nevents, sizeof *m->nest_order);
    free(m->track_start);
    vec_free(m->ev_parent, m->tr->nevents, sizeof *m->ev_parent);
    vec_free(m->corr_launch, m->tr->ncorrs, sizeof *m->corr_launch);
    free(m->streams);
    free(m->catkind);
    free(m->keep);
    free(m);
}
