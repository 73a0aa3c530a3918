/* torch2pprof analyze over several ranks: the Ranks table, the straggler and
   the operators merged across ranks (text or --json). */
#ifndef T2P_ANALYZE_RANKS_H
#define T2P_ANALYZE_RANKS_H

#include <stdbool.h>
#include <stddef.h>

#include <stdio.h>

#include "core/analyses/ranks.h"
#include "core/model/model.h"

typedef struct analyze_ranks_opts {
    size_t top;           /* operations to list; 0: every one */
    enum model_sort sort;
    bool spread;          /* --sort spread: by max - min of the per-rank self time */
    bool json, partial;
    unsigned jobs;        /* --jobs; 0: one per core */
    const char *step;     /* --step N[-M]: each rank's steps N to M alone; NULL */
    model_opts mo;
} analyze_ranks_opts;

/* Whether analyze's operands call for the many-ranks report: several
   operands, a directory, or one analysis file (analyze --json's output). */
bool analyze_ranks_wanted(int nargs, char **args);

/* Loads and reports on the files and directories args[0..nargs). Returns the
   exit code. */
int analyze_ranks(const analyze_ranks_opts *o, int nargs, char **args);

/* --rank N of the job args[0..nargs) (a directory, several traces, or one
   trace: a job of one): loads them for their ranks and sets *path (a new
   string, the caller frees it) to the trace of rank N, whose report is
   the single-trace one, and *tr to that trace, loaded (the caller owns
   it), or NULL when the file is an analysis file. Each file is read for
   its rank alone (no model), the chosen one once. Returns EXIT_OK, or the exit code after printing
   why: 2 for a rank the job lacks, naming the ranks it has, as convert
   --rank does. */
int analyze_ranks_pick(const analyze_ranks_opts *o, int nargs, char **args, int64_t rank,
                       char **path, trace **tr);

/* A rank's figures as JSON members (no braces): "events", ..., "roles".
   The job report's ranks and an analysis file's "rank_figures" both. */
void analyze_ranks_stat_json(FILE *f, const ranks_stat *s);

/* An analysis file's rank members, after analyze --json's own: "rank",
   "rank_from", "world_size", "rank_figures" and "collectives", from the
   record r that ranks_file_from_model filled (the job report reads them
   back with ranks_read_analysis). */
void analyze_ranks_map_json(FILE *f, const ranks_file *r);

#endif
