/* Loading a job's files (core/analyses/ranks_load.c): each file into its own
   trace and model on a pool of workers, kept as its figures and ops, and
   the rank of each file. ranks.c puts the ranks together on top of this;
   nothing here calls back into it. Included by core/analyses/ranks.h. */
#ifndef T2P_RANKS_LOAD_H
#define T2P_RANKS_LOAD_H

#include <stdint.h>

#include "core/model/model.h"
#include "core/analyses/ranks_read.h"
#include "core/analyses/ranks_types.h"

/* The rank a file name gives ("rank-3", "rank3", "rank_3", "worker3"), or -1. */
int64_t ranks_name_rank(const char *path);

/* One model's figures (skew 0): what a rank of a job gets. Returns 0, or -1
   when out of memory. */
int ranks_figures(const model *m, ranks_stat *st);

/* Worker count for jobs = 0: the cores this process may run on. */
unsigned ranks_default_jobs(void);

/* For core/analyses/ranks.c (ranks_load): */

/* Loads every file of j on opts->jobs workers (default: one per core),
   filling each file's figures and ops, or its failure. -1 when out of
   memory for the pool itself; a file's own failure is in the file. */
int ranks_load_files(ranks_job *j, const ranks_load_opts *o);

/* The rank of f, once its trace_rank is known (or known to be absent):
   the trace's, else the file name's, else its position in name order. */
void ranks_set_rank(ranks_file *f);

/* The path to show for f: the trace it came from. */
const char *ranks_file_shown(const ranks_file *f);

/* Fills f (path set, the rest zero) from whole, the model of its trace:
   figures and ops (over o->step's steps when set), collectives, rank and
   world size; then o->on_model. What the job does for each trace, and what
   analyze --json writes into an analysis file. Returns 0, or -1 with
   f->err set. */
int ranks_file_from_model(ranks_file *f, const model *whole, const ranks_load_opts *o);

/* The same from what the caller built: whole's steps st, and scoped, the
   model of the steps it holds (steps_scope: model.scope says which) or
   NULL for every step; o->step and o->mo are not read. What analyze --json
   does with the models its report shows, instead of building them again.
   Returns 0, or -1 with f->err set (T2P_ERR_ARG: scoped is no model of
   steps of st). */
int ranks_file_from_built(ranks_file *f, const model *whole, const steps *st,
                          const model *scoped, const ranks_load_opts *o);

/* Frees what f owns but its path; leaves f zeroed but its path. */
void ranks_file_clear(ranks_file *f);

#endif
