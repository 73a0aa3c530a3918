#include "config.h"

#include "core/gpu.h"

#include <stdlib.h>
#include <string.h>

#include "core/hmap.h"

/* MTIA accelerators log their device work as mtia_ccp_events and its launches
   as mtia_runtime, with the same correlation scheme as CUDA. */
bool gpu_is_work_cat(const char *cat)
{
    return strcmp(cat, "kernel") == 0 || strcmp(cat, "gpu_memcpy") == 0 ||
           strcmp(cat, "gpu_memset") == 0 || strcmp(cat, "mtia_ccp_events") == 0;
}

bool gpu_is_launch_cat(const char *cat)
{
    return strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0 ||
           strcmp(cat, "mtia_runtime") == 0;
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
        if (m->nnodes == *cap || *cap == 0) {
            size_t nc = m->nnodes * 2 + 64;
            model_node *nn = realloc(m->nodes, nc * sizeof *nn);
            if (!nn)
                return -1;
            m->nodes = nn;
            *cap = nc;
        }
        n = (uint32_t)m->nnodes++;
        m->nodes[n] = (model_node){ .op = op, .parent = parent, .first_child = MODEL_NONE,
                                    .next_sibling = MODEL_NONE, .track = m->nodes[parent].track,
                                    .depth = m->nodes[parent].depth + 1, .gpu = true,
                                    .stream = stream };
        if (hmap_put(gm, key, n) < 0)
            return -1;
    }
    *out = n;
    return 0;
}

int gpu_attribute(model *m, const uint32_t *order, const size_t *start)
{
    const trace *tr = m->tr;
    const trace_event *ev = tr->events;
    uint32_t ncat = strtab_count(tr->strs);
    unsigned char *catkind = calloc(ncat ? ncat : 1, 1); /* 1 work, 2 launch */
    uint32_t *stamp = malloc((m->nops ? m->nops : 1) * sizeof *stamp);
    hmap launches, gm, os;
    size_t cap = m->nnodes;
    int rc = -1;

    memset(&launches, 0, sizeof launches);
    memset(&gm, 0, sizeof gm);
    memset(&os, 0, sizeof os);
    if (!catkind || !stamp || hmap_init(&launches, tr->ncorrs / 2 + 16) < 0 ||
        hmap_init(&gm, 1024) < 0 || hmap_init(&os, 256) < 0)
        goto out;
    for (uint32_t i = 0; i < ncat; i++) {
        const char *s = strtab_str(tr->strs, i);
        catkind[i] = gpu_is_work_cat(s) ? 1 : gpu_is_launch_cat(s) ? 2 : 0;
    }
    for (size_t i = 0; i < m->nops; i++) {
        m->ops[i].gpu = catkind[m->ops[i].cat] == 1;
        stamp[i] = UINT32_MAX;
    }

    /* correlation -> first launch carrying it */
    for (size_t i = 0; i < tr->ncorrs; i++) {
        const trace_corr *c = &tr->corrs[i];
        if (catkind[ev[c->event].cat] != 2)
            continue;
        uint64_t key = c->id;
        if (hmap_get(&launches, key) == UINT32_MAX && hmap_put(&launches, key, c->event) < 0)
            goto out;
    }

    /* GPU events with a correlation that has a launch */
    size_t ci = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        if (catkind[ev[e].cat] != 1)
            continue;
        while (ci < tr->ncorrs && tr->corrs[ci].event < e)
            ci++;
        uint32_t launch = MODEL_NONE;
        if (ci < tr->ncorrs && tr->corrs[ci].event == e)
            launch = hmap_get(&launches, tr->corrs[ci].id);
        int64_t dur = ev[e].dur;
        uint32_t gnode = m->ev_node[e];
        uint32_t gop = m->nodes[gnode].op;
        m->gpu_events++;
        m->gpu_ns += dur;
        m->ops[gop].dev_total_ns += dur;
        stamp[gop] = (uint32_t)e;
        if (launch == UINT32_MAX || launch == MODEL_NONE) {
            /* no launch in the window: its own stream stack carries it */
            m->gpu_unattributed_events++;
            m->gpu_unattributed_ns += dur;
            model_node *g = &m->nodes[gnode];
            g->dev_events++;
            g->dev_leaf_ns += dur;
            g->dev_total_ns += dur;
            continue;
        }
        uint32_t lnode = m->ev_node[launch];
        uint32_t opnode = m->nodes[lnode].parent;
        if (m->nodes[opnode].parent == MODEL_NONE)
            opnode = lnode; /* a launch with no operator around it launched it itself */
        m->nodes[opnode].dev_self_ns += dur;
        m->ops[m->nodes[opnode].op].dev_self_ns += dur;

        uint32_t leaf;
        if (add_gpu_node(m, &cap, &gm, &os, lnode, gop, ev[e].track, &leaf) < 0)
            goto out;
        m->nodes[leaf].dev_events++;
        m->nodes[leaf].dev_leaf_ns += dur;
        m->nodes[leaf].dev_self_ns += dur;
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

    /* streams: the tracks that carry GPU work; busy and gaps over that work
       alone, so sync rows and annotations on the same track do not count */
    size_t ns = 0;
    for (size_t k = 0; k < m->ntracks; k++)
        for (size_t i = start[k]; i < start[k + 1]; i++)
            if (catkind[ev[order[i]].cat] == 1) {
                ns++;
                break;
            }
    m->streams = calloc(ns ? ns : 1, sizeof *m->streams);
    if (!m->streams)
        goto out;
    for (size_t k = 0; k < m->ntracks; k++) {
        model_stream s = { .track = (uint32_t)k };
        int64_t cover_start = 0, cover_end = INT64_MIN;
        for (size_t i = start[k]; i < start[k + 1]; i++) {
            const trace_event *x = &ev[order[i]];
            if (catkind[x->cat] != 1)
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
                if (x->ts - cover_end > s.max_gap_ns)
                    s.max_gap_ns = x->ts - cover_end;
            }
            cover_start = x->ts;
            cover_end = end;
        }
        if (!s.gpu_events)
            continue;
        s.busy_ns += cover_end - cover_start;
        m->streams[m->nstreams++] = s;
    }
    rc = 0;
out:
    free(catkind);
    free(stamp);
    hmap_done(&launches);
    hmap_done(&gm);
    hmap_done(&os);
    return rc;
}
