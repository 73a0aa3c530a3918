/* TensorBoard's Operator view grouped by name and input shape
   (op_agg.aggregate_ops over the plugin's tree, core/analyses/tbtree.h):
   one row per (operator, input shape), the shape as TensorBoard showed it
   (Python's str() of args "Input Dims", core/load/pyrepr.h). */
#ifndef T2P_OPSHAPE_H
#define T2P_OPSHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analyses/tbtree.h"
#include "core/base/error.h"
#include "core/model/model.h"

typedef struct opshape_row {
    uint32_t name;  /* strtab id */
    uint32_t shape; /* strtab id of the shape text; STRTAB_NONE: "[]" */
    uint64_t calls;
    int64_t total_ns, self_ns;         /* host */
    int64_t dev_total_ns, dev_self_ns; /* GPU time launched (with its children's / its own) */
    int64_t tc_total_ns, tc_self_ns;   /* of that, tensor-core kernels */
    bool tc_eligible; /* as the plugin's row has it: its first call's (in its operator list) */
    uint32_t first;   /* that call's post-order rank */
} opshape_row;

typedef struct opshape {
    opshape_row *rows; /* in order of first appearance */
    size_t nrows;
} opshape;

/* Whether tree node n is a call the rows count: an operator the plugin's
   tree holds (copies > 0) whose event keep marks (NULL: every event). The
   by-shape profile (core/pprof/export_shape.c) counts the same calls. */
bool opshape_counts(const tbtree_node *n, const unsigned char *keep);

/* The rows of the operators of t that keep marks (NULL: all of them).
   NULL with err set when out of memory. */
opshape *opshape_build(const tbtree *t, const unsigned char *keep, t2p_error *err);
void opshape_free(opshape *s);

/* The shape id of trace event e as rows have it (opshape_row.shape):
   args "Input Dims" (else "Input dims"), STRTAB_NONE for none or "[]".
   empty: strtab_find(tr->strs, "[]", 2), looked up once by the caller. */
uint32_t opshape_event_shape(const trace *tr, uint32_t e, uint32_t empty);

/* The text of shape id (opshape_row.shape, opshape_event_shape): "[]" for
   STRTAB_NONE; its length in *len when len is not NULL. */
const char *opshape_shape_text(const trace *tr, uint32_t id, size_t *len);

/* The shape text of a row: "[]" for STRTAB_NONE. */
const char *opshape_shape(const opshape *s, const trace *tr, size_t row, size_t *len);

/* tc_*_pct: tensor-core time over device time, 0 when that is 0. */
double opshape_tc_self_pct(const opshape_row *r);
double opshape_tc_total_pct(const opshape_row *r);

/* idx[0..nrows) in the order of every table of operators (model.h's
   model_sort_ops rule): by model_sort_key of the row's figures, largest
   first; ties and MODEL_SORT_NAME by name, then by shape text, then by
   first appearance; reverse flips it all. The Ops view by input shape and
   analyze --by-shape both list rows by it. */
void opshape_sort(const opshape *s, const trace *tr, enum model_sort by, bool reverse,
                  uint32_t *idx);

#endif
