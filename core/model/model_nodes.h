/* Building a model's nodes: the state model_build and model_regroup share
   (core/model/model_nodes.c), ops and nodes found or added by key, and the
   figures that follow the nodes (merged tree, categories). Private to
   core/model/. */
#ifndef T2P_MODEL_NODES_H
#define T2P_MODEL_NODES_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/hmap.h"
#include "core/load/trace.h"
#include "core/model/model_types.h"

struct frame; /* model_build's open events (core/model/model.c) */

struct builder {
    model *m;
    const trace *tr;
    hmap opmap;    /* (name, cat) -> op */
    hmap childmap; /* (parent node, op) -> node; with groups (parent, op-and-group id);
                      with a Call stack (parent, variant | 1 << 31) */
    hmap opgroup;  /* with groups: (op, 1 + group) -> its op-and-group id */
    hmap variants; /* (op or op-and-group id, Call stack) -> variant: as called from one Python stack */
    uint32_t nvariants;
    uint32_t *ev_stack; /* per event: its Call stack or STRTAB_NONE; NULL when none has one */
    size_t opcap, nodecap;
    uint32_t *name_map; /* strtab id -> name used for ops (merged steps) */
    uint32_t *name_op;  /* op name id -> the op last found for it */
    uint32_t *cat_map;  /* strtab id -> the category used for ops (modern spelling) */
    uint32_t *onstack;  /* per op: its open calls on the current track's stack */
    struct frame *stack;
    size_t stackcap;
    size_t mat;         /* stack[0..mat) have their nodes */
};

/* Node and op arrays start small and double: the explorer keeps a model
   per rank, and thousands of tiny ranks each held 2 x 1024 nodes. */
#define MODEL_FIRST_CAP 16

/* Appends v to *nodes (n used, cap allocated). 0, or -1 out of memory. */
int model_nodes_push(model_node **nodes, size_t *n, size_t *cap, model_node v);

/* The op of (name, cat), added when new. MODEL_NONE out of memory. */
uint32_t model_nodes_op(struct builder *b, uint32_t name, uint32_t cat);

/* The node of op under parent for a call of group g (1 + group, 0 none)
   from Python stack (STRTAB_NONE: none), added when new. MODEL_NONE out of
   memory. */
uint32_t model_nodes_child(struct builder *b, uint32_t parent, uint32_t op, uint32_t track,
                           uint32_t g, uint32_t stack);

/* 1 + event e's group, 0 when none */
uint32_t model_nodes_group_of(const struct builder *b, uint32_t e);

/* b->ev_stack: per event its args["Call stack"], left NULL when none has
   one or the model hides Python. 0, or -1 out of memory. */
int model_nodes_stacks(struct builder *b);

/* What model_build and model_regroup end alike with, once the nodes hold
   their figures: each node's Python stack, the children lists, the merged
   tree and the categories. 0, or -1 out of memory. */
int model_nodes_finish(model *m, const struct builder *b);

/* Frees what b holds (not b->m). */
void model_nodes_done(struct builder *b);

/* Per node of m->nodes: 1 when no ancestor calls the same operator (the
   outermost frame of its op on its stack), 0 otherwise, for roots and for
   a node without an op. An
   op's cum ("count a stack once", model_op.cum_ns) is the self time under
   its outer nodes: what scope.c's figures and select_cum sum. One pass
   (depth first, a per-op count of the path). New array (caller frees),
   NULL when out of memory. Here, not in model.h: model_nodes.c must not
   depend on model.c (tests/circles.py). */
uint8_t *model_outer_nodes(const model *m);

#endif
