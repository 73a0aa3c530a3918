/* analyze's scope (#23): the options that scope convert's profile
   (--focus, --category, --track, --filter, --short-names, --no-python,
   with --step, --range and --rank), applied to the model analyze reports
   on by core's selection, the one convert writes through
   (export_select), so that the operator table, the categories, the
   threads and the GPU figures count exactly the stacks `convert` with the
   same options writes; and said back in the report's header and in
   --json's "scope" object. One place for every variant of analyze. */
#ifndef T2P_ANALYZE_SCOPE_H
#define T2P_ANALYZE_SCOPE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/model/model.h"
#include "core/model/scope.h"
#include "core/pprof/export.h"
#include "src/opts.h"

typedef struct analyze_scope {
    const opts_common_vals *cv; /* the options as given (borrowed) */
    export_args a;              /* entries and filter, as convert passes them */
    bool stacks;                /* an entry or a filter: figures from the scope */
    const char *rank_of;        /* --rank: the job it was picked from (borrowed), or NULL */
    int64_t rank;
    /* after analyze_scope_apply: */
    const model *m;
    uint8_t *keep;              /* export_select's mask over m->nodes (owned) */
    scope *s;                   /* m narrowed to keep: the figures (owned) */
    int64_t busy_ns;            /* self time of the selected stacks (the profile's total) */
} analyze_scope;

/* The scope the options cv give (cv must outlive sc). */
void analyze_scope_init(analyze_scope *sc, const opts_common_vals *cv);
void analyze_scope_done(analyze_scope *sc);

/* Whether the options scope the stacks (an entry or a filter), which only
   the single-trace report can count. */
bool analyze_scope_stacks(const opts_common_vals *cv);

/* Selects sc's stacks in m (the model the report is on: the whole trace's,
   a step's or a range's; it must outlive sc). An entry that names nothing
   in whole (the trace's model) is refused; one that names nothing in m
   alone (outside the step) selects nothing. Returns 0, or -1 after
   printing why (*rc: the exit code: 2, as convert exits for a step the
   trace lacks). */
int analyze_scope_apply(analyze_scope *sc, const model *whole, const model *m, int *rc);

/* The figures per op, category and track in the scope (core/model/scope.h),
   or NULL when the options select every stack (the model's hold). */
const scope_fig *analyze_scope_ops(analyze_scope *sc);
const scope_fig *analyze_scope_cats(analyze_scope *sc);
const scope_fig *analyze_scope_tracks(analyze_scope *sc);

/* The ops to list into order (room for m->nops): by their figures in the
   scope, the ops on its stacks alone. Returns how many. */
size_t analyze_scope_order(analyze_scope *sc, enum model_sort sort, uint32_t *order);

/* The header's scope lines ("Scope: ..."), nothing when there is no scope
   of stacks, rank or name option. */
void analyze_scope_text(FILE *f, const analyze_scope *sc);

/* The "scope" object's members after its opening brace: "options" (the
   scope in convert's spelling), then "rank", "entries", "filter",
   "short_names", "no_python", "selected_ns", "of_ns" as they apply. */
void analyze_scope_json(FILE *f, const analyze_scope *sc);

#endif
