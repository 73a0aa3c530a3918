/* analyze's TensorBoard views: operators by input shape and the nn.Module
   hierarchy (core/analyses/opshape.h, modules.h), as text sections
   (--by-shape, --modules) and as the --json members "ops_by_shape" and
   "modules". */
#ifndef T2P_ANALYZE_SHAPES_H
#define T2P_ANALYZE_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/analyses/modules.h"
#include "core/analyses/opshape.h"
#include "core/analyses/steps.h"
#include "core/model/model.h"

typedef struct analyze_shapes {
    tbtree *tree;
    opshape *ops;
    modules *mods;
    enum model_sort sort;
} analyze_shapes;

/* Builds both views from the whole trace's model; with keep (a step's or a
   range's mask, tr->nevents bytes; borrowed) only the calls it keeps count.
   Returns 0, or -1 with err set; analyze_shapes_done is due either way. */
int analyze_shapes_build(analyze_shapes *a, const model *whole, const unsigned char *keep,
                         enum model_sort sort, t2p_error *err);
void analyze_shapes_done(analyze_shapes *a);

/* ,"ops_by_shape":[...] (the top rows, all with top 0) ,"modules":[...]
   (the hierarchy, children nested): members of the report's object. */
void analyze_shapes_json(FILE *f, const analyze_shapes *a, const trace *tr, size_t top);

/* The "Operators by input shape" table (top rows). */
void analyze_shapes_text(FILE *f, const analyze_shapes *a, const trace *tr, size_t top);

/* The "Modules" tree. */
void analyze_modules_text(FILE *f, const analyze_shapes *a, const trace *tr);

#endif
