/* TensorBoard's operator tree (its profiler plugin: event_parser.py,
   op_tree.py, node.py), which its Operator-by-input-shape and Module views
   aggregate. It is not the model's call tree, on purpose:
   - its nodes are operators (cpu_op/operator), ProfilerStep#, DataLoader
     __next__, Optimizer.step*, Python (early Kineto's python category),
     nn.Module calls (python_function events with "Python module id") and
     the gloo/nccl user annotations; other user annotations and plain
     python_function frames are not nodes, so an operator under them hangs
     from the nearest node that contains it;
   - on each thread (by tid), sorted by (start, -end), a node nests in the
     innermost open node that contains it; one that starts inside it and
     ends after is dropped (the plugin logs an error and leaves it out);
   - a node whose only child is an operator of its own name absorbs it
     (both of category cpu_op/operator): one call (remove_dup_nodes);
   - runtime calls belong to the first node (by thread, then file order)
     with their External id (an nn.Module call has none), not to the one
     that contains them; their GPU work follows by correlation (the
     model's links; a cuda_driver launch is not a runtime for it);
   - self time is duration - the children's durations - its runtime calls';
   - with nn.Module calls and fwdbwd flows, the backward roots regrouped under
     the modules by the flows' timestamps (op_tree.py; see backward_roots).
   Built over every event; the scope (keep) only says which nodes count in
   the views. Plain data, read by core/analyses/opshape.c and modules.c. */
#ifndef T2P_TBTREE_H
#define T2P_TBTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"

enum tbtree_kind {
    TBTREE_OP,         /* the plugin's OperatorNode: operators, Python, gloo/nccl */
    TBTREE_STEP,       /* ProfilerStep#N */
    TBTREE_DATALOADER, /* enumerate(DataLoader)#...__next__, enumerate(DataPipe)#... */
    TBTREE_OPTIMIZER,  /* Optimizer.step* */
    TBTREE_MODULE      /* an nn.Module call */
};

typedef struct tbtree_node {
    uint32_t event;        /* index into trace->events */
    uint32_t parent;       /* node index, MODEL_NONE under the thread's root */
    uint32_t first_child, next_sibling;
    uint8_t kind;          /* enum tbtree_kind */
    bool op_type;          /* its category is cpu_op/operator (not a step) */
    bool is_operator;      /* one of the Operator view's operators (is_operator_node) */
    bool tc_eligible;
    uint32_t operators;    /* direct children that are operators */
    uint32_t post;         /* rank in the plugin's operator list (post-order, threads in order) */
    int64_t self_ns, total_ns;
    int64_t dev_self_ns, dev_total_ns;
    int64_t tc_self_ns, tc_total_ns;
    /* how many times the plugin's tree holds it: 1, but a backward root and
       its subtree regrouped by the flows (see backward_roots) 0 when left
       out, 2 or more when placed under several module operators that start
       at one forward end's time */
    uint32_t copies;
} tbtree_node;

typedef struct tbtree {
    const model *m; /* not owned */
    tbtree_node *nodes; /* the nodes left in the tree (not dropped, not absorbed) */
    size_t n;
    uint64_t dropped;   /* nodes left out: partial overlap with an enclosing node */
    uint64_t absorbed;  /* operators merged into their parent of the same name */
    /* backward roots ("autograd::engine::evaluate_function: ...", at the top
       of a thread or right under a step) in a trace with nn.Module calls and
       fwdbwd flows: the plugin took them out and put each back under the
       "<module>.backward" node of the module operators whose start is a
       flow's forward end (a node's copies), leaving out those it could not
       place (copies 0; backward_dropped of them). 0 otherwise. */
    uint64_t backward_roots, backward_dropped;
} tbtree;

/* Builds the tree of m's trace (m supplies categories and GPU links).
   NULL with err set when out of memory. */
tbtree *tbtree_build(const model *m, t2p_error *err);
void tbtree_free(tbtree *t);

#endif
