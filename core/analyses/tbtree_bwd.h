/* TensorBoard's backward regrouping (its op_tree.py, build_tree), which
   core/analyses/tbtree.c applies to its tree: see tbtree_bwd_regroup. Apart
   from tbtree.c because it is a pass of its own over the finished tree
   (and reads the flows, which nothing else of the tree does). */
#ifndef T2P_TBTREE_BWD_H
#define T2P_TBTREE_BWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/load/trace.h"

/* A node of the tree as the pass reads it (indices into the same array,
   UINT32_MAX for none). */
typedef struct tbtree_bwd_node {
    uint32_t event;        /* index into trace->events */
    uint32_t group;        /* its thread: the rank of its tid */
    uint32_t parent, first_child, next_sibling; /* live nodes only */
    bool module, step;     /* an nn.Module call; ProfilerStep#N */
    bool is_operator;      /* the plugin's is_operator_node */
    bool live;             /* in the tree (not dropped, not absorbed) */
} tbtree_bwd_node;

/* The plugin's regrouping when a trace has nn.Module calls and fwdbwd flows
   (op_tree.py: _get_modules, _get_backward_roots, _build_backward_module,
   _insert_backward_modules). It takes every backward root ("autograd::
   engine::evaluate_function: ...", at the top of a thread or right under a
   step) out of its place; a root, with the AccumulateGrad roots after it,
   comes back under the "<module>.backward" node of each module operator
   whose start is a flow's forward end (the flows matched by id, the ends
   by their timestamps alone: create_association_events) when the flow's
   backward end starts a node under that root; the others are gone.
   ord: the nodes sorted by (thread, start, -end), parents before children.
   Sets copies[i] (1; a backward root and its subtree: 0 when gone, 2 or
   more when placed under several module operators starting at one forward
   time), *roots (the backward roots taken out) and *dropped (those gone).
   Not replicated: the place the moved nodes take in the operator list, and
   a ".backward" node that the plugin's insertion walk misses inside a node
   it descended into (only the main thread's span is checked). 0, or -1
   when out of memory. */
int tbtree_bwd_regroup(const trace *tr, const tbtree_bwd_node *n, size_t nn, const uint32_t *ord,
                       uint32_t *copies, uint64_t *roots, uint64_t *dropped);

#endif
