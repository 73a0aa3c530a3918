/* The model every front reads: nesting, self time, aggregates by operator,
   category and track, and the merged call tree. Built once from a trace.

   Nesting rule (../shared/docs/trace-format.md): on each track (pid, tid),
   sorted by (ts asc, dur desc), an event's parent is the innermost open event
   that fully contains it; a zero-length event contains nothing (events at
   one instant are siblings, not a chain). self = dur - length of the union of the direct
   children's intervals (never negative); total = sum of dur. */
#ifndef T2P_MODEL_H
#define T2P_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/load/trace.h"

/* the records: model, model_node, model_op, ... */
#include "core/model/model_types.h"

/* Builds the model of tr (which must outlive it). NULL with err set on failure. */
model *model_build(const trace *tr, const model_opts *opts, t2p_error *err);

/* model_build with keep (tr->nevents bytes, malloc'd; opts->keep is not
   read) as the scope mask, taken: the model owns it as model.keep instead
   of a copy (nevents bytes more, and their copy, at each step or range
   scoped to), and it is freed when the build fails. For callers that make
   a mask for the model alone (steps_scope, range_scope). */
model *model_build_keep(const trace *tr, const model_opts *opts, unsigned char *keep,
                        t2p_error *err);

/* The model that model_build(whole->tr, {whole's opts, .group = group}) builds,
   from whole (unscoped, built with keep_nesting; it must outlive the result
   only while this runs) without sorting, nesting or linking the events
   again: the calls of each group apart in the trees, every other figure
   the same. NULL with err set when out of memory or whole lacks its nesting. */
model *model_regroup(const model *whole, const uint32_t *group, t2p_error *err);
void model_free(model *m);

enum model_sort {
    MODEL_SORT_SELF,
    MODEL_SORT_TOTAL,
    MODEL_SORT_CALLS,
    MODEL_SORT_NAME,
    MODEL_SORT_AVG,
    MODEL_SORT_DEVICE_SELF,
    MODEL_SORT_DEVICE_TOTAL,
    MODEL_SORT_N
};

/* "self", "total", ... ; parse returns -1 for an unknown name. */
const char *model_sort_name(enum model_sort s);
int model_sort_parse(const char *s);

/* The figure sort s ranks a row by, from the row's figures: the one rule
   of every table sorted by these keys (ops, categories, scoped figures,
   shapes, ranks, the Tree). Average is total / calls (0 without calls). */
int64_t model_sort_key(enum model_sort s, uint64_t calls, int64_t self_ns, int64_t total_ns,
                       int64_t dev_self_ns, int64_t dev_total_ns);

/* Fills idx[0..nops) with op indices in sort order (descending for figures,
   ascending for names; reversed when reverse). Ties break by name. */
void model_sort_ops(const model *m, enum model_sort s, bool reverse, uint32_t *idx);

/* The ops idx[0..n) in the order of model_sort_ops, by key[op] (an op's
   model_sort_key over figures other than the model's own: a scope's), with
   the same rule: largest key first, ties and MODEL_SORT_NAME by name, then
   by index; reverse flips it all. The one sorter of operators (scope.h's
   scope_sort_ops, the Ops view, analyze). */
void model_sort_ops_keyed(const model *m, enum model_sort s, bool reverse, const int64_t *key,
                          uint32_t *idx, size_t n);

/* Same for categories. */
void model_sort_cats(const model *m, enum model_sort s, bool reverse, uint32_t *idx);

static inline const char *model_op_name(const model *m, uint32_t op)
{
    return trace_str(m->tr, m->ops[op].name);
}

static inline const char *model_op_cat(const model *m, uint32_t op)
{
    return trace_str(m->tr, m->ops[op].cat);
}

/* Whether m counts some events alone (built with a keep mask): its keep,
   said as a question. */
static inline bool model_is_scoped(const model *m)
{
    return m->keep != NULL;
}

#endif
