#include "config.h"

#include "core/analyses/callers.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/hmap.h"
#include "core/base/vec.h"

struct build {
    callers *c;
    size_t cap;
    hmap kids; /* (inverted parent, op) -> inverted node */
};

static uint32_t add_node(struct build *b, uint32_t parent, uint32_t op, uint32_t track)
{
    callers *c = b->c;
    if (vec_grow_heap((void **)&c->nodes, &b->cap, c->nnodes, sizeof *c->nodes) < 0)
        return MODEL_NONE;
    uint32_t i = (uint32_t)c->nnodes++;
    c->nodes[i] = (model_node){ .op = op, .parent = parent, .first_child = MODEL_NONE,
                                .next_sibling = MODEL_NONE, .track = track,
                                .stream = MODEL_NONE,
                                .depth = parent == MODEL_NONE ? 0 : c->nodes[parent].depth + 1 };
    return i;
}

static uint32_t child_get(struct build *b, uint32_t parent, uint32_t op)
{
    uint64_t key = (uint64_t)parent << 32 | op;
    uint32_t i = hmap_get(&b->kids, key);
    if (i != UINT32_MAX)
        return i;
    i = add_node(b, parent, op, b->c->nodes[parent].track);
    if (i == MODEL_NONE || hmap_put(&b->kids, key, i) < 0)
        return MODEL_NONE;
    return i;
}

static void add_through(model_node *v, const model_node *nd)
{
    v->total_ns += nd->self_ns;
    v->calls += nd->calls;
    v->dev_events += nd->dev_events;
    v->dev_total_ns += nd->dev_leaf_ns;
}

/* Sibling lists by total_ns, largest first: a merge sort of each list. */
static uint32_t sort_list(model_node *n, uint32_t head)
{
    if (head == MODEL_NONE || n[head].next_sibling == MODEL_NONE)
        return head;
    uint32_t slow = head, fast = n[head].next_sibling;
    while (fast != MODEL_NONE && n[fast].next_sibling != MODEL_NONE) {
        slow = n[slow].next_sibling;
        fast = n[n[fast].next_sibling].next_sibling;
    }
    uint32_t b = n[slow].next_sibling;
    n[slow].next_sibling = MODEL_NONE;
    uint32_t a = sort_list(n, head);
    b = sort_list(n, b);
    uint32_t out = MODEL_NONE, *tail = &out;
    while (a != MODEL_NONE && b != MODEL_NONE) {
        bool take_a = n[a].total_ns != n[b].total_ns ? n[a].total_ns > n[b].total_ns
                                                     : n[a].op <= n[b].op;
        uint32_t *from = take_a ? &a : &b;
        *tail = *from;
        tail = &n[*from].next_sibling;
        *from = n[*from].next_sibling;
    }
    *tail = a != MODEL_NONE ? a : b;
    return out;
}

callers *callers_build(const model *m, const uint8_t *keep, const uint8_t *hide, bool per_track,
                       t2p_error *err)
{
    struct build b;
    memset(&b, 0, sizeof b);
    callers *c = calloc(1, sizeof *c);
    if (!c)
        goto nomem;
    b.c = c;
    c->per_track = per_track;
    c->nroots = per_track ? m->ntracks : 1;
    if (hmap_init(&b.kids, m->nnodes / 2 + 64) < 0)
        goto nomem;
    for (size_t k = 0; k < c->nroots; k++)
        if (add_node(&b, MODEL_NONE, MODEL_NONE, per_track ? (uint32_t)k : MODEL_NONE) ==
            MODEL_NONE)
            goto nomem;

    for (size_t i = 0; i < m->nnodes; i++) {
        const model_node *nd = &m->nodes[i];
        if (nd->parent == MODEL_NONE || (keep && !keep[i]))
            continue;
        if (!nd->calls && !nd->self_ns && !nd->dev_leaf_ns && !nd->dev_events)
            continue; /* a stack with nothing ending at it */
        uint32_t v = per_track ? nd->track : 0;
        add_through(&c->nodes[v], nd);
        /* innermost frame first: the stack's op, then its callers */
        for (uint32_t n = (uint32_t)i; m->nodes[n].parent != MODEL_NONE; n = m->nodes[n].parent) {
            if (hide && m->nodes[n].op != MODEL_NONE && hide[m->nodes[n].op])
                continue;
            v = child_get(&b, v, m->nodes[n].op);
            if (v == MODEL_NONE)
                goto nomem;
            add_through(&c->nodes[v], nd);
            if (m->nodes[n].gpu)
                c->nodes[v].gpu = true;
        }
        /* the outermost frame: the stack starts here */
        c->nodes[v].self_ns += nd->self_ns;
        c->nodes[v].dev_self_ns += nd->dev_leaf_ns;
        c->nodes[v].dev_leaf_ns += nd->dev_leaf_ns;
    }

    for (size_t i = c->nnodes; i-- > c->nroots;) {
        model_node *v = &c->nodes[i];
        v->next_sibling = c->nodes[v->parent].first_child;
        c->nodes[v->parent].first_child = (uint32_t)i;
    }
    for (size_t i = 0; i < c->nnodes; i++)
        c->nodes[i].first_child = sort_list(c->nodes, c->nodes[i].first_child);
    hmap_done(&b.kids);
    return c;

nomem:
    hmap_done(&b.kids);
    callers_free(c);
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory building the callers tree");
    return NULL;
}

void callers_free(callers *c)
{
    if (!c)
        return;
    free(c->nodes);
    free(c);
}
