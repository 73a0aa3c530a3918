/* model_regroup: a model with the calls of each group apart, from a whole
   model's nesting (core/model/model.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/analyses/gpu.h"
#include "core/base/vec.h"
#include "core/model/model.h"
#include "core/model/model_nodes.h"

/* a copy of n elements of size elem (NULL stays NULL); false when out of memory */
static bool dup_array(void *dst, const void *src, size_t n, size_t elem)
{
    void **d = dst;
    *d = NULL;
    if (!src)
        return true;
    *d = malloc(n ? n * elem : 1);
    if (*d)
        memcpy(*d, src, n * elem);
    return *d != NULL;
}

model *model_regroup(const model *w, const uint32_t *group, t2p_error *err)
{
    const trace *tr = w->tr;
    struct builder b;
    memset(&b, 0, sizeof b);
    if (!w->ev_parent || model_is_scoped(w)) {
        error_set(err, T2P_ERR_ARG, tr->path, -1, "regrouping needs the nesting of a whole model");
        return NULL;
    }
    model *m = malloc(sizeof *m);
    if (!m)
        goto nomem;
    /* every figure but the nodes' is the same: the scalars as they are,
       the arrays copied (each model owns its own) */
    *m = *w;
    m->opts.keep_nesting = false;
    m->opts.group = group; /* read by child_get while building */
    m->nodes = m->mnodes = NULL;
    m->nnodes = m->nmnodes = 0;
    m->cats = NULL;
    m->ncats = 0;
    m->node_merged = m->ev_node = m->node_stack = NULL;
    m->nest_order = m->ev_parent = NULL;
    m->track_start = NULL;
    m->ev_self = NULL;
    m->ops = NULL;
    m->tracks = NULL;
    m->streams = NULL;
    m->corr_launch = NULL;
    m->catkind = NULL;
    m->keep = NULL; /* w is unscoped: no mask to share */
    if (!dup_array(&m->ops, w->ops, w->nops, sizeof *w->ops) ||
        !dup_array(&m->tracks, w->tracks, w->ntracks, sizeof *w->tracks) ||
        !dup_array(&m->streams, w->streams, w->nstreams, sizeof *w->streams) ||
        !dup_array(&m->catkind, w->catkind, w->ncatkind, 1))
        goto nomem; /* what was not copied is NULL: model_free frees the rest */
    m->ev_node = vec_alloc(tr->nevents, sizeof *m->ev_node);
    m->ev_self = vec_alloc(tr->nevents, sizeof *m->ev_self);
    if (w->corr_launch && !(m->corr_launch = vec_alloc(tr->ncorrs, sizeof *m->corr_launch)))
        goto nomem;
    if (!m->ev_node || !m->ev_self)
        goto nomem;
    if (w->corr_launch)
        memcpy(m->corr_launch, w->corr_launch, tr->ncorrs * sizeof *m->corr_launch);
    memcpy(m->ev_self, w->ev_self, tr->nevents * sizeof *m->ev_self);
    b.m = m;
    b.tr = tr;
    if (hmap_init(&b.childmap, 4096) < 0 || hmap_init(&b.opgroup, 64) < 0 ||
        hmap_init(&b.variants, 64) < 0 || model_nodes_stacks(&b) < 0)
        goto nomem;

    /* the nodes in model_build's order: the roots, then each track's events
       in nesting order, each under its parent event's node */
    for (size_t k = 0; k < tr->ntracks; k++) {
        model_node root = { .op = MODEL_NONE, .parent = MODEL_NONE, .first_child = MODEL_NONE,
                            .next_sibling = MODEL_NONE, .stream = MODEL_NONE, .track = (uint32_t)k };
        if (model_nodes_push(&m->nodes, &m->nnodes, &b.nodecap, root) < 0)
            goto nomem;
    }
    for (size_t k = 0; k < tr->ntracks; k++) {
        uint32_t root = m->tracks[k].root;
        for (size_t i = w->track_start[k]; i < w->track_start[k + 1]; i++) {
            uint32_t e = w->nest_order[i], p = w->ev_parent[e];
            uint32_t node = model_nodes_child(&b, p == MODEL_NONE ? root : m->ev_node[p],
                                      w->nodes[w->ev_node[e]].op, (uint32_t)k, model_nodes_group_of(&b, e),
                                      b.ev_stack ? b.ev_stack[e] : STRTAB_NONE);
            if (node == MODEL_NONE)
                goto nomem;
            m->ev_node[e] = node;
            model_node *nd = &m->nodes[node];
            nd->calls++;
            nd->total_ns += tr->events[e].dur;
            nd->self_ns += m->ev_self[e];
        }
        m->nodes[root].calls = w->nodes[w->tracks[k].root].calls;
    }
    for (size_t i = 0; i < m->nnodes; i++) {
        const model_node *nd = &m->nodes[i];
        if (nd->parent != MODEL_NONE && m->nodes[nd->parent].parent == MODEL_NONE)
            m->nodes[nd->parent].total_ns += nd->total_ns;
    }
    if (gpu_attribute_again(m) < 0 || model_nodes_finish(m, &b) < 0)
        goto nomem;
    m->opts.group = NULL;
    model_nodes_done(&b);
    return m;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory building the model");
    model_nodes_done(&b);
    model_free(m);
    return NULL;
}

