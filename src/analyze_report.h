/* The single-trace report of torch2pprof analyze: the text tables and the
   --json document of one model (a whole trace, or a --step or --range
   scope), from figures src/analyze.c computed. Print only. */
#ifndef T2P_ANALYZE_REPORT_H
#define T2P_ANALYZE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/analyses/range.h"
#include "core/analyses/ranks_load.h"
#include "core/model/model.h"
#include "core/model/shortname.h"
#include "src/analyze_scope.h"
#include "src/analyze_steps.h"

/* What --range applied: the range and how many events start in it. */
typedef struct analyze_ranged {
    time_range r;
    size_t kept;
} analyze_ranged;

/* The header, scope lines and tables of m: the ops in order[0..nshow),
   the categories and the streams. */
void analyze_report_text(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                         enum model_sort sort, const shortnames *sn,
                         const analyze_steps_sel *st, const analyze_ranged *rg,
                         analyze_scope *sc);

/* The same as the opening of the --json document (the caller closes it),
   with rank's job figures (ranks_file_from_model). */
void analyze_report_json(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                         const shortnames *sn, const analyze_steps_sel *st,
                         const analyze_ranged *rg, const ranks_file *rank, analyze_scope *sc);

#endif
