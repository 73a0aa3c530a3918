/* The rows of a call tree as a list on screen: which nodes are expanded,
   which are shown (a mask from a scope), the order of each node's children,
   and the node on row i. Knows model_node and nothing of views, keys or
   text: the tree view and the callers view both use it.

   Cost model: rows are virtual. rowsz[u] is the number of rows node u takes
   when shown (itself, plus its shown children's rows when expanded), kept
   for every node; row i is found by descending from the tops, and the next
   row is one step from the last one looked up. Children are sorted on first
   use per order generation, so a new sort costs nothing until drawn, and
   expanding or collapsing fixes rowsz up the ancestors only. */
#ifndef T2P_TREE_ROWS_H
#define T2P_TREE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"

/* Puts ids[0..n) (siblings) in display order. */
typedef void (*tree_rows_sort_fn)(void *ctx, uint32_t *ids, size_t n);

typedef struct tree_rows {
    const model_node *nodes; /* not owned; a node's index is greater than its parent's */
    size_t n;
    uint32_t *kid_start; /* n+1: children of u are kids[kid_start[u] .. kid_start[u+1]) */
    uint32_t *kids;
    uint32_t *sorted_gen; /* per node: the gen its children were last sorted at */
    uint32_t *tops;       /* top-level rows */
    size_t ntops;
    uint32_t tops_gen;
    uint8_t *expanded;
    uint32_t *rowsz;
    uint32_t *pos;        /* index of u among its siblings, in their order */
    const uint8_t *shown; /* not owned; NULL: every node shown */
    /* Skipped nodes (tree_rows_set_skip; not owned, NULL: none) are never
       rows: their children show in their place, under par[], the nearest
       ancestor not skipped, at depth[] (each node's depth on screen). */
    const uint8_t *skip;
    uint32_t *par;
    uint32_t *depth;
    /* With skip, siblings on screen that are the same (operator, GPU,
       stream) are one row, as pprof -hide merges them: rep[u] is the node
       that has u's row, fold[] chains the nodes of one row from it
       (MODEL_NONE ends). NULL without skip. */
    uint32_t *rep, *fold;
    uint32_t gen;         /* the order generation */
    tree_rows_sort_fn sort;
    void *sort_ctx;
    size_t rc_i;          /* the last row looked up, and its node */
    uint32_t rc_node;
    uint32_t *scratch;
    size_t scratch_cap;
    uint8_t *below;       /* tree_rows_find: a hit at or under the node */
    uint32_t *found;      /* tree_rows_find's result */
    uint32_t *stack;
} tree_rows;

/* Rows over nodes[0..n) with the given top-level nodes (copied), which start
   expanded. Returns 0 or -1 (out of memory; tree_rows_done still needed). */
int tree_rows_init(tree_rows *t, const model_node *nodes, size_t n, const uint32_t *tops,
                   size_t ntops);
void tree_rows_done(tree_rows *t);

/* The sort children are put in; tree_rows_resort after its key changed. */
void tree_rows_set_sort(tree_rows *t, tree_rows_sort_fn fn, void *ctx);
void tree_rows_resort(tree_rows *t);

/* Which nodes show (NULL: all). With sel, every shown node that is not
   selected itself is expanded first, so the topmost selected frames show. */
void tree_rows_set_shown(tree_rows *t, const uint8_t *shown, const uint8_t *sel);

/* Which nodes are left out with their children lifted into their place
   (NULL: none), e.g. the Python frames: per node, non-zero to skip. A root
   is never skipped. O(n). Returns 0 or -1 (out of memory: nothing skipped). */
int tree_rows_set_skip(tree_rows *t, const uint8_t *skip);
/* The first of the nodes on u's row and the next one after u on it
   (MODEL_NONE: none): the figures of a row are the sum over them. */
uint32_t tree_rows_rep(const tree_rows *t, uint32_t u);
uint32_t tree_rows_fold_next(const tree_rows *t, uint32_t u);
/* The parent of u on screen, and u's depth there (the node's own ones
   when nothing is skipped). */
uint32_t tree_rows_parent(const tree_rows *t, uint32_t u);
uint32_t tree_rows_depth(const tree_rows *t, uint32_t u);

/* Forget the cached row lookup (the caller changed what the rows depend on). */
void tree_rows_dirty(tree_rows *t);

size_t tree_rows_count(const tree_rows *t);
/* The node on row i, or MODEL_NONE. Consecutive rows cost one step each. */
uint32_t tree_rows_at(tree_rows *t, size_t i);
/* The row of u, or SIZE_MAX when it is not on screen (not shown, or under a
   collapsed node). */
size_t tree_rows_index_of(tree_rows *t, uint32_t u);
/* The row of u or of its nearest ancestor on screen; 0 when none. */
size_t tree_rows_near(tree_rows *t, uint32_t u);
/* The node on the row after / before u's, or MODEL_NONE. */
uint32_t tree_rows_next(tree_rows *t, uint32_t u);
uint32_t tree_rows_prev(tree_rows *t, uint32_t u);

bool tree_rows_shown(const tree_rows *t, uint32_t u);
bool tree_rows_has_kids(const tree_rows *t, uint32_t u);
bool tree_rows_expanded(const tree_rows *t, uint32_t u);

void tree_rows_expand(tree_rows *t, uint32_t u, bool on);
/* Expands u and everything below it. */
void tree_rows_expand_subtree(tree_rows *t, uint32_t u);
/* Expands (on) or collapses every node. */
void tree_rows_expand_all(tree_rows *t, bool on);
/* Expands every ancestor of u, so that u has a row when shown. */
void tree_rows_reveal(tree_rows *t, uint32_t u);

/* Search: the shown nodes u with hit[u] set, folded or not, in the order
   their rows would have with every node expanded; *out points into t
   (valid until the next call). One pass over the node array, then a walk
   down the paths to the hits only (sorting the children it passes).
   Returns how many, or SIZE_MAX when out of memory. */
size_t tree_rows_find(tree_rows *t, const uint8_t *hit, const uint32_t **out);
/* Whether a comes before b in that order (false when a == b). */
bool tree_rows_before(tree_rows *t, uint32_t a, uint32_t b);

#endif
