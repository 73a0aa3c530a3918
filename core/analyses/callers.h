/* The inverted (bottom-up) call tree: perf report's caller view, pprof's
   -peek. Its roots' children are the operators that end stacks, with the
   time spent in them (their self time); each one's children are its
   callers, with the part of that time that came through them; and so on up
   to the stacks' roots.

   Built from the per-track call trees (model->nodes) of a model, limited to
   the stacks a mask keeps, so that it shows one scope: a focus, a filter, a
   thread (select_nodes). One pass over the kept stacks: O(total length of
   the kept stacks), done once per scope.

   The result is an array of model_node, the struct of model->nodes, so a
   tree view can show it as it shows the call tree. Its fields mean:
     op            the operator (MODEL_NONE on a root)
     parent, first_child, next_sibling, depth
                   as in the model; children are ordered by total_ns, the
                   largest first (ties: op index); an index is always greater
                   than its parent's
     track         per-track: the track of the stacks (also on the roots);
                   merged: MODEL_NONE
     gpu           some stack counted here ends at GPU work under its launch
     stream        MODEL_NONE
   and, for the stacks whose innermost frames read, innermost first, the
   path from the root's child down to this node (the stacks that "flow
   through" it):
     total_ns      their self time (on a child of a root: the op's self time;
                   on a root: the scope's self time over all its tracks)
     self_ns       the part of total_ns from stacks that start here: no more
                   callers above. total_ns = self_ns + the children's total_ns
     calls         their calls (the calls that ended at those stacks)
     dev_events, dev_total_ns
                   their GPU events and GPU time (the model nodes' dev_events
                   and dev_leaf_ns: the pprof flat device time)
     dev_self_ns   the part of dev_total_ns from stacks that start here
     dev_leaf_ns   = dev_self_ns, so that, as in the call tree, the sum over a
                   subtree of dev_leaf_ns is its top's dev_total_ns
   calls and dev_events count every stack through the node, as total_ns does:
   on a root's child X, calls is X's calls.
   So a root's child X holds X's self time, and X's child Y the self time of
   X that was spent with Y as X's direct caller: the figure pprof -peek X
   prints for Y above X. */
#ifndef T2P_CALLERS_H
#define T2P_CALLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"

typedef struct callers {
    /* Owned by this struct (callers_free). Per-track: nodes[k] is the root
       of track k (k < model->ntracks; a track with no kept stack has an
       empty root). Merged: nodes[0] is the one root. */
    model_node *nodes;
    size_t nnodes;
    size_t nroots; /* ntracks per track, 1 merged: nodes[0..nroots) are the roots */
    bool per_track;
} callers;

/* Builds the inverted tree of the stacks keep selects (a mask over
   model->nodes as select_nodes returns; NULL: every stack), one tree per
   track or all tracks merged. hide (per operator, NULL: none) leaves the
   frames of those operators out of every stack, as pprof -hide does: a
   stack's time goes to its innermost frame that is not hidden, and a stack
   of hidden frames only counts on its root. m must outlive nothing here:
   the result holds op and track indices only. Returns a new callers (free
   with callers_free) or NULL with err set (T2P_ERR_NOMEM). */
callers *callers_build(const model *m, const uint8_t *keep, const uint8_t *hide, bool per_track,
                       t2p_error *err);

void callers_free(callers *c);

#endif
