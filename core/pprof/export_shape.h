/* The profile by input shape (convert --by-shape, the Ops view's I then e):
   TensorBoard's Operator view by input shape (core/analyses/opshape.h) as
   stacks. Each operator call of the plugin's tree (core/analyses/tbtree.h)
   is a sample at the stack of its ancestors in that tree (operators, steps,
   modules: not the model's nesting by time), its values the figures the
   view counts for it: calls (its copies in the tree), time = its self time
   (duration less its children and its runtime calls), device_time = the GPU
   time of its own launches; labelled input_shape (and step). So go tool
   pprof's flat time of an operator under -tagfocus input_shape=S is the
   row (operator, S)'s self time, its samples the row's calls.

   For core/pprof/export.c alone: the model it returns borrows whole's
   operators, tracks' figures and trace (whole must outlive it) and holds
   just what pprof_write reads (nodes, tracks' roots). */
#ifndef T2P_EXPORT_SHAPE_H
#define T2P_EXPORT_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"

struct steps;

typedef struct export_shape {
    model *m;              /* the profile's model (export_shape_done frees it) */
    const char **steps;    /* per group (model_node.group - 1): its step label or NULL */
    const char **shapes;   /* per group: its input shape text */
    size_t ngroups;
    int64_t ops_self_ns;   /* every operator's self time, before keep */
} export_shape;

/* The model of the by-shape profile of whole (an unscoped model of the
   whole trace; its ev_node names each event's operator). keep: per trace
   event, non-zero for the operator calls that count (a step's or a range's,
   the stacks a scope keeps), NULL: all. st: whole's steps, for the step
   label (none for a whole-trace step). Returns 0, or -1 with err set. */
int export_shape_build(export_shape *s, const model *whole, const struct steps *st,
                       const unsigned char *keep, t2p_error *err);
void export_shape_done(export_shape *s);

#endif
