/* Ops and nodes by key, the merged tree and the categories: the parts of
   building a model that model_build (core/model/model.c) and model_regroup
   (core/model/model_regroup.c) share. */
#include "config.h"

#include <stdlib.h>

#include "core/model/model_nodes.h"
#include "core/base/vec.h"

int model_nodes_push(model_node **nodes, size_t *n, size_t *cap, model_node v)
{
    if (vec_grow_heap((void **)nodes, cap, *n, sizeof **nodes) < 0)
        return -1;
    (*nodes)[(*n)++] = v;
    return 0;
}

uint32_t model_nodes_op(struct builder *b, uint32_t name, uint32_t cat)
{
    /* a name nearly always comes with one category: try its last op first */
    uint32_t last = b->name_op[name];
    if (last != MODEL_NONE && b->m->ops[last].cat == cat)
        return last;
    uint64_t key = (uint64_t)name << 32 | cat;
    uint32_t op = hmap_get(&b->opmap, key);
    if (op != UINT32_MAX) {
        b->name_op[name] = op;
        return op;
    }
    model *m = b->m;
    if (m->nops == b->opcap) {
        size_t nc = b->opcap ? b->opcap * 2 : MODEL_FIRST_CAP;
        model_op *no = realloc(m->ops, nc * sizeof *no);
        if (!no)
            return MODEL_NONE;
        m->ops = no;
        uint32_t *os = realloc(b->onstack, nc * sizeof *os);
        if (!os)
            return MODEL_NONE;
        b->onstack = os;
        b->opcap = nc;
    }
    op = (uint32_t)m->nops++;
    m->ops[op] = (model_op){ .name = name, .cat = cat, .min_ns = INT64_MAX };
    b->onstack[op] = 0;
    if (hmap_put(&b->opmap, key, op) < 0)
        return MODEL_NONE;
    b->name_op[name] = op;
    return op;
}

/* The node of op under parent for a call of group g (1 + group, 0 none)
   from Python stack (STRTAB_NONE: none): with groups, the child key holds a
   small id of the (op, g) pair; with a stack, one of (that, stack). */
uint32_t model_nodes_child(struct builder *b, uint32_t parent, uint32_t op, uint32_t track,
                          uint32_t g, uint32_t stack)
{
    uint32_t kop = op;
    if (b->m->opts.group) {
        uint64_t ok = (uint64_t)op << 32 | g;
        kop = hmap_get(&b->opgroup, ok);
        if (kop == UINT32_MAX) {
            kop = (uint32_t)b->opgroup.n;
            if (hmap_put(&b->opgroup, ok, kop) < 0)
                return MODEL_NONE;
        }
    }
    if (stack != STRTAB_NONE) {
        /* calls of op from another Python stack are another node */
        uint64_t vk = (uint64_t)kop << 32 | stack;
        uint32_t v = hmap_get(&b->variants, vk);
        if (v == UINT32_MAX) {
            v = b->nvariants++;
            if (v >= 1u << 31 || hmap_put(&b->variants, vk, v) < 0)
                return MODEL_NONE;
        }
        kop = v | 1u << 31;
    }
    uint64_t key = (uint64_t)parent << 32 | kop;
    uint32_t node = hmap_get(&b->childmap, key);
    if (node != UINT32_MAX)
        return node;
    model *m = b->m;
    node = (uint32_t)m->nnodes;
    model_node v = { .op = op, .parent = parent, .first_child = MODEL_NONE,
                     .next_sibling = MODEL_NONE, .stream = MODEL_NONE, .track = track,
                     .depth = m->nodes[parent].depth + 1, .group = g };
    if (model_nodes_push(&m->nodes, &m->nnodes, &b->nodecap, v) < 0 ||
        hmap_put(&b->childmap, key, node) < 0)
        return MODEL_NONE;
    return node;
}

/* 1 + event e's group, 0 when none */
uint32_t model_nodes_group_of(const struct builder *b, uint32_t e)
{
    const uint32_t *g = b->m->opts.group;
    return g && g[e] != MODEL_NONE ? g[e] + 1 : 0;
}

static int build_cats(model *m)
{
    hmap cm;
    size_t cap = 0;
    if (hmap_init(&cm, 32) < 0)
        return -1;
    for (size_t i = 0; i < m->nops; i++) {
        const model_op *o = &m->ops[i];
        uint32_t c = hmap_get(&cm, o->cat);
        if (c == UINT32_MAX) {
            if (vec_grow_heap((void **)&m->cats, &cap, m->ncats, sizeof *m->cats) < 0)
                goto fail;
            c = (uint32_t)m->ncats++;
            m->cats[c] = (model_cat){ .name = o->cat };
            if (hmap_put(&cm, o->cat, c) < 0)
                goto fail;
        }
        m->cats[c].calls += o->calls;
        m->cats[c].self_ns += o->self_ns;
        m->cats[c].total_ns += o->total_ns;
        m->cats[c].dev_self_ns += o->dev_self_ns;
    }
    hmap_done(&cm);
    return 0;
fail:
    hmap_done(&cm);
    return -1;
}

/* Merges the per-track trees into one; parents come before children. */
static int build_merged(model *m)
{
    hmap mm;
    size_t cap = 0;
    if (hmap_init(&mm, m->nnodes / 2 + 16) < 0)
        return -1;
    m->node_merged = malloc((m->nnodes ? m->nnodes : 1) * sizeof *m->node_merged);
    if (!m->node_merged)
        goto fail;
    model_node root = { .op = MODEL_NONE, .parent = MODEL_NONE, .first_child = MODEL_NONE,
                        .next_sibling = MODEL_NONE, .stream = MODEL_NONE, .track = MODEL_NONE };
    if (model_nodes_push(&m->mnodes, &m->nmnodes, &cap, root) < 0)
        goto fail;
    for (size_t i = 0; i < m->nnodes; i++) {
        const model_node *nd = &m->nodes[i];
        uint32_t mi;
        if (nd->parent == MODEL_NONE) {
            mi = 0;
        } else {
            uint32_t mp = m->node_merged[nd->parent];
            uint64_t key = (uint64_t)mp << 32 | nd->op;
            mi = hmap_get(&mm, key);
            if (mi == UINT32_MAX) {
                mi = (uint32_t)m->nmnodes;
                model_node v = { .op = nd->op, .parent = mp, .first_child = MODEL_NONE,
                                 .next_sibling = MODEL_NONE, .stream = MODEL_NONE,
                                 .track = MODEL_NONE, .depth = nd->depth, .gpu = nd->gpu };
                if (model_nodes_push(&m->mnodes, &m->nmnodes, &cap, v) < 0 || hmap_put(&mm, key, mi) < 0)
                    goto fail;
            }
        }
        m->node_merged[i] = mi;
        model_node *mn = &m->mnodes[mi];
        mn->calls += nd->calls;
        mn->self_ns += nd->self_ns;
        mn->total_ns += nd->total_ns;
        mn->dev_events += nd->dev_events;
        mn->dev_leaf_ns += nd->dev_leaf_ns;
        mn->dev_self_ns += nd->dev_self_ns;
        mn->dev_total_ns += nd->dev_total_ns;
    }
    hmap_done(&mm);
    return 0;
fail:
    hmap_done(&mm);
    return -1;
}

/* first_child / next_sibling, children in creation order */
static void link_children(model_node *nodes, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        uint32_t p = nodes[i].parent;
        if (p != MODEL_NONE) {
            nodes[i].next_sibling = nodes[p].first_child;
            nodes[p].first_child = (uint32_t)i;
        }
    }
}

/* What model_build and model_regroup end alike with, once the nodes hold
   their figures: each node's Python stack, the children lists, the merged
   tree and the categories. Returns 0, or -1 when out of memory. */
int model_nodes_finish(model *m, const struct builder *b)
{
    const trace *tr = m->tr;
    if (b->ev_stack) {
        /* GPU nodes, added last, have none */
        m->node_stack = malloc((m->nnodes ? m->nnodes : 1) * sizeof *m->node_stack);
        if (!m->node_stack)
            return -1;
        for (size_t i = 0; i < m->nnodes; i++)
            m->node_stack[i] = STRTAB_NONE;
        for (size_t i = 0; i < tr->nstacks; i++) {
            uint32_t n = m->ev_node[tr->stacks[i].event];
            if (n < m->nnodes) /* an event outside the scope has none */
                m->node_stack[n] = tr->stacks[i].stack;
        }
    }
    link_children(m->nodes, m->nnodes);
    if (build_merged(m) < 0)
        return -1;
    link_children(m->mnodes, m->nmnodes);
    return build_cats(m);
}

/* per event: its args["Call stack"], or STRTAB_NONE; NULL when none has one */
int model_nodes_stacks(struct builder *b)
{
    const trace *tr = b->tr;
    if (!tr->nstacks || b->m->opts.no_python)
        return 0;
    b->ev_stack = malloc(tr->nevents * sizeof *b->ev_stack);
    if (!b->ev_stack)
        return -1;
    for (size_t i = 0; i < tr->nevents; i++)
        b->ev_stack[i] = STRTAB_NONE;
    for (size_t i = 0; i < tr->nstacks; i++)
        b->ev_stack[tr->stacks[i].event] = tr->stacks[i].stack;
    return 0;
}

void model_nodes_done(struct builder *b)
{
    free(b->stack);
    free(b->name_map);
    free(b->name_op);
    free(b->cat_map);
    free(b->onstack);
    hmap_done(&b->opmap);
    hmap_done(&b->childmap);
    hmap_done(&b->opgroup);
    hmap_done(&b->variants);
    free(b->ev_stack);
}

uint8_t *model_outer_nodes(const model *m)
{
    uint8_t *outer = calloc(m->nnodes ? m->nnodes : 1, 1);
    /* per op: how many times it is on the path from the root to here */
    uint32_t *on = calloc(m->nops ? m->nops : 1, sizeof *on);
    if (!outer || !on) {
        free(outer);
        free(on);
        return NULL;
    }
    for (size_t r = 0; r < m->nnodes; r++) {
        if (m->nodes[r].parent != MODEL_NONE)
            continue;
        /* depth first under the root r: count an op on entering its node,
           uncount it on leaving */
        uint32_t n = m->nodes[r].first_child;
        while (n != MODEL_NONE) {
            uint32_t op = m->nodes[n].op;
            /* a node without an op (none today) is no op's outer frame:
               the readers index cum by the node's op */
            outer[n] = op != MODEL_NONE && !on[op];
            if (op != MODEL_NONE)
                on[op]++;
            if (m->nodes[n].first_child != MODEL_NONE) {
                n = m->nodes[n].first_child;
                continue;
            }
            for (;;) {
                if (m->nodes[n].op != MODEL_NONE)
                    on[m->nodes[n].op]--;
                if (m->nodes[n].next_sibling != MODEL_NONE) {
                    n = m->nodes[n].next_sibling;
                    break;
                }
                n = m->nodes[n].parent;
                if (n == r) {
                    n = MODEL_NONE;
                    break;
                }
            }
        }
    }
    free(on);
    return outer;
}
