/* The profile by input shape: see core/pprof/export_shape.h. */
#include "config.h"

#include "core/pprof/export_shape.h"

#include <stdlib.h>
#include <string.h>

#include "core/analyses/opshape.h"
#include "core/analyses/steps.h"
#include "core/analyses/tbtree.h"
#include "core/base/hmap.h"
#include "core/base/vec.h"

/* The profile's model: nodes and tracks of its own, the rest borrowed from
   the whole model, so freed here, never by model_free. */
static void shape_model_free(model *m)
{
    if (!m)
        return;
    free(m->nodes);
    free(m->tracks);
    free(m);
}

/* The nodes being built: per-track trees keyed by (parent, op) for the
   frames, and (frame, group) for the samples. */
struct nodes {
    model_node *v;
    size_t n, cap;
    hmap frames, samples;
};

/* A new node (index n) under parent; MODEL_NONE when out of memory. */
static uint32_t node_add(struct nodes *ns, uint32_t parent, uint32_t op, uint32_t track,
                         uint32_t group)
{
    if (vec_grow_heap((void **)&ns->v, &ns->cap, ns->n, sizeof *ns->v) < 0)
        return MODEL_NONE;
    uint32_t id = (uint32_t)ns->n++;
    ns->v[id] = (model_node){ .op = op, .parent = parent, .first_child = MODEL_NONE,
                              .next_sibling = MODEL_NONE, .track = track,
                              .depth = parent == MODEL_NONE ? 0 : ns->v[parent].depth + 1,
                              .group = group, .stream = MODEL_NONE };
    return id;
}

/* The node of frame op under parent (made once). */
static uint32_t frame_get(struct nodes *ns, uint32_t parent, uint32_t op, uint32_t track)
{
    uint64_t key = (uint64_t)parent << 32 | op;
    uint32_t id = hmap_get(&ns->frames, key);
    if (id != UINT32_MAX)
        return id;
    if ((id = node_add(ns, parent, op, track, 0)) == MODEL_NONE ||
        hmap_put(&ns->frames, key, id) < 0)
        return MODEL_NONE;
    return id;
}

/* Per event of an operator: its (step, shape) pair as a group id. */
struct groups {
    hmap pairs;
    const char **steps, **shapes;
    size_t n, steps_cap, shapes_cap;
};

static uint32_t group_get(struct groups *g, const trace *tr, const steps *st,
                          const char *const *labels, uint32_t e, uint32_t empty)
{
    uint32_t step = st->whole_trace ? STEPS_NONE : st->ev_step[e];
    uint32_t shape = opshape_event_shape(tr, e, empty);
    uint64_t key = (uint64_t)step << 32 | shape;
    uint32_t id = hmap_get(&g->pairs, key);
    if (id != UINT32_MAX)
        return id;
    if (vec_grow_heap((void **)&g->steps, &g->steps_cap, g->n, sizeof *g->steps) < 0 ||
        vec_grow_heap((void **)&g->shapes, &g->shapes_cap, g->n, sizeof *g->shapes) < 0)
        return UINT32_MAX;
    id = (uint32_t)g->n;
    g->steps[id] = step != STEPS_NONE && labels ? labels[step] : NULL;
    g->shapes[id] = opshape_shape_text(tr, shape, NULL);
    if (hmap_put(&g->pairs, key, id) < 0)
        return UINT32_MAX;
    g->n++;
    return id;
}

int export_shape_build(export_shape *s, const model *whole, const steps *st,
                       const unsigned char *keep, t2p_error *err)
{
    const trace *tr = whole->tr;
    memset(s, 0, sizeof *s);
    struct nodes ns = { 0 };
    struct groups g = { 0 };
    tbtree *t = NULL;
    uint32_t *frame = NULL, *root = NULL, *up = NULL;
    const char **labels = NULL;
    model *sm = NULL;
    int rc = -1;
    if (!whole->ev_node) {
        error_set(err, T2P_ERR_ARG, tr->path, -1, "by input shape: the model has no event nodes");
        return -1;
    }
    if (!(t = tbtree_build(whole, err)))
        return -1;
    if (!(sm = calloc(1, sizeof *sm)) || hmap_init(&ns.frames, 1024) < 0 ||
        hmap_init(&ns.samples, 1024) < 0 || hmap_init(&g.pairs, 256) < 0)
        goto nomem;
    if (!st->whole_trace && !(labels = steps_labels(st)))
        goto nomem;
    frame = malloc((t->n ? t->n : 1) * sizeof *frame);
    up = malloc((t->n ? t->n : 1) * sizeof *up);
    root = malloc((whole->ntracks ? whole->ntracks : 1) * sizeof *root);
    if (!frame || !up || !root)
        goto nomem;
    for (size_t i = 0; i < t->n; i++)
        frame[i] = MODEL_NONE;
    for (size_t k = 0; k < whole->ntracks; k++)
        root[k] = MODEL_NONE;
    uint32_t empty = strtab_find(tr->strs, "[]", 2);
    for (size_t i = 0; i < t->n; i++) {
        const tbtree_node *x = &t->nodes[i];
        if (opshape_counts(x, NULL))
            s->ops_self_ns += (int64_t)x->copies * x->self_ns;
        /* the calls the Operator view by input shape counts (opshape_build) */
        if (!opshape_counts(x, keep))
            continue;
        /* its frame: the path of its ancestors in the plugin's tree, made
           parents first (a node's index stays greater than its parent's);
           an event the model left out (a Python frame under --no-python)
           adds no frame */
        size_t nup = 0;
        for (uint32_t a = (uint32_t)i; a != MODEL_NONE && frame[a] == MODEL_NONE;
             a = t->nodes[a].parent)
            up[nup++] = a;
        uint32_t track = tr->events[x->event].track;
        if (root[track] == MODEL_NONE &&
            (root[track] = node_add(&ns, MODEL_NONE, MODEL_NONE, track, 0)) == MODEL_NONE)
            goto nomem;
        while (nup) {
            uint32_t a = up[--nup], p = t->nodes[a].parent;
            uint32_t pf = p == MODEL_NONE ? root[track] : frame[p];
            uint32_t en = whole->ev_node[t->nodes[a].event];
            uint32_t op = en == MODEL_NONE ? MODEL_NONE : whole->nodes[en].op;
            if (op == MODEL_NONE)
                frame[a] = pf;
            else if ((frame[a] = frame_get(&ns, pf, op, track)) == MODEL_NONE)
                goto nomem;
        }
        uint32_t f = frame[i];
        uint32_t own = whole->ev_node[x->event];
        if (own == MODEL_NONE || whole->nodes[own].op == MODEL_NONE)
            continue; /* an operator the model does not hold */
        /* its sample: a node beside its frame (the same stack) per group,
           so that the frame's children and the labels stay apart */
        uint32_t gi = group_get(&g, tr, st, labels, x->event, empty);
        if (gi == UINT32_MAX)
            goto nomem;
        uint64_t key = (uint64_t)f << 32 | gi;
        uint32_t sn = hmap_get(&ns.samples, key);
        if (sn == UINT32_MAX) {
            if ((sn = node_add(&ns, ns.v[f].parent, ns.v[f].op, track, gi + 1)) == MODEL_NONE ||
                hmap_put(&ns.samples, key, sn) < 0)
                goto nomem;
        }
        model_node *nd = &ns.v[sn];
        int64_t k = x->copies;
        nd->calls += x->copies;
        nd->self_ns += k * x->self_ns;
        nd->total_ns += k * x->total_ns;
        nd->dev_leaf_ns += k * x->dev_self_ns;
        nd->dev_self_ns += k * x->dev_self_ns;
        nd->dev_total_ns += k * x->dev_total_ns;
    }
    /* children in the order they were made */
    for (size_t i = ns.n; i-- > 0;) {
        uint32_t p = ns.v[i].parent;
        if (p == MODEL_NONE)
            continue;
        ns.v[i].next_sibling = ns.v[p].first_child;
        ns.v[p].first_child = (uint32_t)i;
    }
    *sm = *whole;
    model *m = sm;
    m->nodes = ns.v;
    m->nnodes = ns.n;
    ns.v = NULL;
    if (!(m->tracks = malloc((whole->ntracks ? whole->ntracks : 1) * sizeof *m->tracks)))
        goto nomem;
    memcpy(m->tracks, whole->tracks, whole->ntracks * sizeof *m->tracks);
    for (size_t k = 0; k < whole->ntracks; k++)
        m->tracks[k].root = root[k];
    /* what pprof_write does not read, and this model does not have */
    m->mnodes = NULL;
    m->nmnodes = 0;
    m->node_merged = NULL;
    m->ev_node = NULL;
    m->node_stack = NULL;
    m->ev_self = NULL;
    m->nest_order = NULL;
    m->track_start = NULL;
    m->ev_parent = NULL;
    m->busy_ns = s->ops_self_ns;
    s->m = m;
    sm = NULL;
    s->steps = g.steps;
    s->shapes = g.shapes;
    s->ngroups = g.n;
    g.steps = g.shapes = NULL;
    rc = 0;
    goto out;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory");
out:
    shape_model_free(sm);
    free(ns.v);
    hmap_done(&ns.frames);
    hmap_done(&ns.samples);
    hmap_done(&g.pairs);
    free(g.steps);
    free(g.shapes);
    free(labels);
    free(frame);
    free(up);
    free(root);
    tbtree_free(t);
    return rc;
}

void export_shape_done(export_shape *s)
{
    if (!s)
        return;
    shape_model_free(s->m);
    free(s->steps);
    free(s->shapes);
    memset(s, 0, sizeof *s);
}
