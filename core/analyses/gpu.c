#include "config.h"

#include "core/analyses/gpu.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/catkind.h"
#include "core/base/hmap.h"
#include "core/base/vec.h"

bool gpu_is_work_cat(const char *cat)
{
    return catkind_is_gpu_work(catkind_of(cat, strlen(cat)));
}

bool gpu_is_launch_cat(const char *cat)
{
    return catkind_is_launch(catkind_of(cat, strlen(cat)));
}

/* One GPU node per (launch node, GPU op, stream): the stream is part of the
   key so that every GPU node's events ran on one stream, which pprof labels
   the node's samples with. (op, stream) pairs get small ids in os so that the
   key still fits 64 bits. */
static int add_gpu_node(model *m, size_t *cap, hmap *gm, hmap *os, uint32_t parent, uint32_t op,
                        uint32_t stream, uint32_t *out)
{
    uint64_t oskey = (uint64_t)op << 32 | stream;
    uint32_t osid = hmap_get(os, oskey);
    if (osid == UINT32_MAX) {
        osid = (uint32_t)os->n;
        if (hmap_put(os, oskey, osid) < 0)
            return -1;
    }
    uint64_t key = (uint64_t)parent << 32 | osid;
    uint32_t n = hmap_get(gm, key);
    if (n == UINT32_MAX) {
        if (vec_grow_heap((void **)&m->nodes, cap, m->nnodes, sizeof *m->nodes) < 0)
            return -1;
        n = (uint32_t)m->nnodes++;
        m->nodes[n] = (model_node){ .op = op, .parent = parent, .first_child = MODEL_NONE,
                                    .next_sibling = MODEL_NONE, .track = m->nodes[parent].track,
                                    .depth = m->nodes[parent].depth + 1, .gpu = true,
                                    .stream = stream, .group = m->nodes[parent].group };
        if (hmap_put(gm, key, n) < 0)
            return -1;
    }
    *out = n;
    return 0;
}

struct keyed {
    uint64_t id;
    uint32_t corr; /* index into trace->corrs */
    uint32_t pad;
};

/* Stable LSD radix sort by id, 16 bits a pass; a pass whose digit is the same
   for every element is skipped (ids usually share their high bits).
   Not core/base/radix.h's, which was measured slower here: correlation ids
   spread over ~34 bits (the 10x bench trace: 214,240 ids), which are 3 passes
   of 16 bits but 4 of its 11, and it counts all 6 of its digits' histograms
   first; best of 31 sorts of those ids, 1.4 ms here against 2.1 ms there
   (analyze's CPU time on that trace, ~0.8 s, cannot tell them apart). */
static void radix_sort(struct keyed *a, struct keyed *tmp, size_t *count, size_t n)
{
    struct keyed *src = a, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, (1u << 16) * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(src[i].id >> shift) & 0xFFFF]++;
        if (n == 0 || count[(src[0].id >> shift) & 0xFFFF] == n)
            continue;
        size_t sum = 0;
        for (size_t d = 0; d < (1u << 16); d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i].id >> shift) & 0xFFFF]++] = src[i];
        struct keyed *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* corr_launch[i], for each entry i of trace->corrs that is GPU work: the
   event of the first launch (in file order) with the same id, or MODEL_NONE. */
static int link_launches(const trace *tr, const unsigned char *catkind,
                         const unsigned char *keep, uint32_t **out)
{
    size_t n = 0;
    uint32_t *cl = vec_alloc(tr->ncorrs, sizeof *cl); /* model_free's vec_free */
    struct keyed *a = vec_alloc(tr->ncorrs, sizeof *a);
    struct keyed *tmp = vec_alloc(tr->ncorrs, sizeof *tmp);
    size_t *count = malloc((1u << 16) * sizeof *count);
    if (!cl || !a || !tmp || !count) {
        vec_free(cl, tr->ncorrs, sizeof *cl);
        vec_free(a, tr->ncorrs, sizeof *a);
        vec_free(tmp, tr->ncorrs, sizeof *tmp);
        free(count);
        return -1;
    }
    for (size_t i = 0; i < tr->ncorrs; i++) {
        cl[i] = MODEL_NONE;
        /* a scope links only its own events: a step's model sorts a step's ids */
        if (catkind[tr->events[tr->corrs[i].event].cat] && (!keep || keep[tr->corrs[i].event]))
            a[n++] = (struct keyed){ tr->corrs[i].id, (uint32_t)i, 0 };
    }
    radix_sort(a, tmp, count, n);
    /* within a run of one id the entries keep file order */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        uint32_t launch = MODEL_NONE;
        for (; j < n && a[j].id == a[i].id; j++) {
            uint32_t e = tr->corrs[a[j].corr].event;
            if (launch == MODEL_NONE && catkind[tr->events[e].cat] == 2)
                launch = e;
        }
        for (size_t k = i; k < j; k++)
            cl[a[k].corr] = launch;
        i = j;
    }
    vec_free(a, tr->ncorrs, sizeof *a);
    vec_free(tmp, tr->ncorrs, sizeof *tmp);
    free(count);
    *out = cl;
    return 0;
}

uint32_t gpu_launcher_node(const model *m, uint32_t launch)
{
    if (launch == MODEL_NONE || launch >= m->tr->nevents || m->ev_node[launch] == MODEL_NONE)
        return MODEL_NONE;
    uint32_t lnode = m->ev_node[launch];
    uint32_t opnode = m->nodes[lnode].parent;
    if (opnode == MODEL_NONE || m->nodes[opnode].parent == MODEL_NONE)
        return lnode; /* a launch with no operator around it launched it itself */
    return opnode;
}

struct run {
    int64_t start, end;
};

static int cmp_run(const void *pa, const void *pb)
{
    const struct run *a = pa, *b = pb;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* Length of the union of the runs (sorted here); streams run at once, so
   their busy times overlap and do not add up. */
static int64_t union_ns(struct run *r, size_t n)
{
    int64_t sum = 0, start = 0, end = INT64_MIN;
    qsort(r, n, sizeof *r, cmp_run);
    for (size_t i = 0; i < n; i++) {
        if (end != INT64_MIN && r[i].start <= end) {
            if (r[i].end > end)
                end = r[i].end;
            continue;
        }
        if (end != INT64_MIN)
            sum += end - start;
        start = r[i].start;
        end = r[i].end;
    }
    if (end != INT64_MIN)
        sum += end - start;
    return sum;
}

/* catkind[i] for each category id: 1 GPU work, 2 a launch, else 0 (MTIA
   accelerators log their device work as mtia_ccp_events and its launches
   as mtia_runtime, with the same correlation scheme as CUDA) */
static unsigned char *work_kinds(const model *m)
{
    unsigned char *catkind = calloc(m->ncatkind ? m->ncatkind : 1, 1);
    for (uint32_t i = 0; catkind && i < m->ncatkind; i++) {
        enum catkind k = (enum catkind)m->catkind[i];
        catkind[i] = catkind_is_gpu_work(k) ? 1 : catkind_is_launch(k) ? 2 : 0;
    }
    return catkind;
}

/* The device figures of ops and nodes and the GPU nodes under the launches,
   from m->corr_launch; the ops' and the model's device figures start at 0. */
static int attribute_nodes(model *m, const unsigned char *catkind)
{
    const trace *tr = m->tr;
    const trace_event *ev = tr->events;
    uint32_t *stamp = malloc((m->nops ? m->nops : 1) * sizeof *stamp);
    hmap gm, os;
    size_t cap = m->nnodes;
    int rc = -1;

    memset(&gm, 0, sizeof gm);
    memset(&os, 0, sizeof os);
    if (!stamp || hmap_init(&gm, 1024) < 0 || hmap_init(&os, 256) < 0)
        goto out;
    for (size_t i = 0; i < m->nops; i++) {
        m->ops[i].gpu = catkind[m->ops[i].cat] == 1;
        stamp[i] = UINT32_MAX;
    }

    /* GPU events with a correlation that has a launch */
    size_t ci = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        if (catkind[ev[e].cat] != 1 || (m->opts.keep && !m->opts.keep[e]))
            continue;
        uint32_t launch = gpu_launch_next(m, e, &ci);
        int64_t dur = ev[e].dur;
        uint32_t gnode = m->ev_node[e];
        uint32_t gop = m->nodes[gnode].op;
        m->gpu_events++;
        m->gpu_ns += dur;
        m->ops[gop].dev_total_ns += dur;
        stamp[gop] = (uint32_t)e;
        /* its node on its stream shows its device time, as its op does; the
           flat (leaf) figures go to one node only, so that pprof counts it once */
        model_node *g = &m->nodes[gnode];
        g->dev_total_ns += dur;
        /* a launch outside the scope: as if it were not in the window */
        if (launch != MODEL_NONE && m->ev_node[launch] == MODEL_NONE)
            launch = MODEL_NONE;
        if (launch == UINT32_MAX || launch == MODEL_NONE) {
            /* no launch in the window: its own stream stack carries it */
            m->gpu_unattributed_events++;
            m->gpu_unattributed_ns += dur;
            g->dev_events++;
            g->dev_leaf_ns += dur;
            continue;
        }
        uint32_t lnode = m->ev_node[launch];
        uint32_t opnode = gpu_launcher_node(m, launch);
        m->nodes[opnode].dev_self_ns += dur;
        m->ops[m->nodes[opnode].op].dev_self_ns += dur;

        uint32_t leaf;
        if (add_gpu_node(m, &cap, &gm, &os, lnode, gop, ev[e].track, &leaf) < 0)
            goto out;
        /* dev_self stays 0, as on its op: a kernel launches nothing */
        m->nodes[leaf].dev_events++;
        m->nodes[leaf].dev_leaf_ns += dur;
        for (uint32_t n = leaf; n != MODEL_NONE && m->nodes[n].parent != MODEL_NONE;
             n = m->nodes[n].parent) {
            model_node *nd = &m->nodes[n];
            nd->dev_total_ns += dur;
            if (stamp[nd->op] != (uint32_t)e) {
                stamp[nd->op] = (uint32_t)e;
                m->ops[nd->op].dev_total_ns += dur;
            }
        }
        /* the track root carries the whole of its tracks' device time */
        m->nodes[m->tracks[m->nodes[lnode].track].root].dev_total_ns += dur;
    }

    rc = 0;
out:
    free(stamp);
    hmap_done(&gm);
    hmap_done(&os);
    return rc;
}

uint32_t gpu_launch_next(const model *m, size_t e, size_t *ci)
{
    const trace *tr = m->tr;
    while (*ci < tr->ncorrs && tr->corrs[*ci].event < e)
        (*ci)++;
    if (*ci < tr->ncorrs && tr->corrs[*ci].event == e && m->corr_launch)
        return m->corr_launch[*ci];
    return MODEL_NONE;
}

uint32_t gpu_work_node(const model *m, size_t e, uint32_t launch)
{
    uint32_t g = m->ev_node[e];
    /* as attribute_nodes: a launch outside the model has no GPU node */
    if (launch == MODEL_NONE || launch >= m->tr->nevents || m->ev_node[launch] == MODEL_NONE ||
        g == MODEL_NONE)
        return g;
    /* the launch node's children: its GPU nodes and the few calls it made */
    uint32_t op = m->nodes[g].op, stream = m->tr->events[e].track;
    for (uint32_t c = m->nodes[m->ev_node[launch]].first_child; c != MODEL_NONE;
         c = m->nodes[c].next_sibling)
        if (m->nodes[c].gpu && m->nodes[c].op == op && m->nodes[c].stream == stream)
            return c;
    return g;
}

int gpu_link(const model *m, uint32_t **corr_launch)
{
    unsigned char *catkind = work_kinds(m);
    *corr_launch = NULL;
    /* correlation -> first launch carrying it, by sorting the correlated
       events by id: a hash table of a few 100k launches misses the cache on
       every probe, a radix sort streams */
    int rc = catkind ? link_launches(m->tr, catkind, m->opts.keep, corr_launch) : -1;
    free(catkind);
    return rc;
}

int gpu_attribute_again(model *m)
{
    unsigned char *catkind = work_kinds(m);
    if (!catkind)
        return -1;
    for (size_t i = 0; i < m->nops; i++)
        m->ops[i].dev_self_ns = m->ops[i].dev_total_ns = 0;
    m->gpu_events = m->gpu_unattributed_events = 0;
    m->gpu_ns = m->gpu_unattributed_ns = 0;
    int rc = attribute_nodes(m, catkind);
    free(catkind);
    return rc;
}

int gpu_attribute(model *m, const uint32_t *order, const size_t *start)
{
    const trace *tr = m->tr;
    const trace_event *ev = tr->events;
    unsigned char *catkind = work_kinds(m);
    uint32_t *corr_launch = NULL;
    struct run *runs = NULL; /* every stream's busy stretches */
    size_t nruns = 0;
    int rc = -1;

    if (!catkind)
        goto out;
    if (!m->corr_launch) {
        if (link_launches(tr, catkind, m->opts.keep, &corr_launch) < 0)
            goto out;
        m->corr_launch = corr_launch; /* steps and scopes read the links too */
    }
    if (attribute_nodes(m, catkind) < 0)
        goto out;

    /* streams: the tracks that carry GPU work; busy and gaps over that work
       alone, so sync rows and annotations on the same track do not count */
    size_t ns = 0;
    for (size_t k = 0; k < m->ntracks; k++)
        for (size_t i = start[k]; i < start[k + 1]; i++)
            if (catkind[ev[order[i]].cat] == 1 && (!m->opts.keep || m->opts.keep[order[i]])) {
                ns++;
                break;
            }
    m->streams = calloc(ns ? ns : 1, sizeof *m->streams);
    runs = vec_alloc(m->gpu_events, sizeof *runs);
    if (!m->streams || !runs)
        goto out;
    for (size_t k = 0; k < m->ntracks; k++) {
        model_stream s = { .track = (uint32_t)k };
        int64_t cover_start = 0, cover_end = INT64_MIN;
        for (size_t i = start[k]; i < start[k + 1]; i++) {
            const trace_event *x = &ev[order[i]];
            if (catkind[x->cat] != 1 || (m->opts.keep && !m->opts.keep[order[i]]))
                continue;
            int64_t end = x->ts + x->dur;
            s.gpu_events++;
            if (cover_end != INT64_MIN && x->ts <= cover_end) {
                if (end > cover_end)
                    cover_end = end;
                continue;
            }
            if (cover_end != INT64_MIN) {
                s.busy_ns += cover_end - cover_start;
                runs[nruns++] = (struct run){ cover_start, cover_end };
                if (x->ts - cover_end > s.max_gap_ns)
                    s.max_gap_ns = x->ts - cover_end;
            }
            cover_start = x->ts;
            cover_end = end;
        }
        if (!s.gpu_events)
            continue;
        s.busy_ns += cover_end - cover_start;
        runs[nruns++] = (struct run){ cover_start, cover_end };
        m->tracks[k].stream = (uint32_t)m->nstreams;
        m->streams[m->nstreams++] = s;
    }
    m->gpu_busy_ns = union_ns(runs, nruns);
    rc = 0;
out:
    vec_free(runs, m->gpu_events, sizeof *runs);
    free(catkind);
    return rc;
}
