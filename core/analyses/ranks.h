/* Many ranks of one job: the traces named on a command line (files, or a
   directory of trace files), each loaded into its own trace and model by a
   pool of worker threads; the rank of each; per-rank figures; the straggler;
   and the operators merged across ranks with the spread of their self time.

   Rank of a file: distributedInfo.rank; else the number in a "rank-3",
   "rank3", "rank_3" or "worker3" file name; else the file's position in name
   order. Two files of one rank are an error.

   A directory's files that are not traces are left out with a note (the
   job's notes): what is not a regular file (a FIFO would block the load
   forever), and what holds no trace at all (another JSON document, text, a
   pprof), unless its name says it is a trace (a rank in it, or
   .pt.trace.json): that one fails as a broken trace.

   The map and reduce of a large job (issue 28): a file that holds
   `analyze --json -top 0 TRACE` (an analysis file, told by its content:
   sniff.h's SNIFF_ANALYSIS) is one rank already summed up. Its ranks_file
   is filled from the file (ranks_read_analysis) where a trace's is filled
   from its model (ranks_file_from_model): the same record, so the job's
   figures are computed once, the same way, whatever a rank came from. */
#ifndef T2P_RANKS_H
#define T2P_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analyses/collectives.h"
#include "core/base/error.h"
#include "core/model/model.h"
#include "core/load/trace.h"
/* the records (ranks_job, ranks_file, ...) */
#include "core/analyses/ranks_types.h"
/* ranks_name_rank, ranks_figures, ranks_default_jobs: loading the files */
#include "core/analyses/ranks_load.h"


/* Whether path is a directory. */
bool ranks_is_dir(const char *path);

/* Whether a file name looks like a trace (.json, .json.gz, .pt.trace.json[.gz]). */
bool ranks_is_trace_name(const char *name);

/* The rank a single trace gives: distributedInfo.rank, else its file name's; -1. */
int64_t ranks_trace_rank(const trace *tr);

/* A job of the given files and directories (each directory's trace files,
   not recursive; what is not a regular file is left out with a note), in
   name order, not loaded. NULL with err set when a directory cannot be
   read, or holds no trace file (T2P_ERR_EMPTY: the reason names its
   subdirectories that hold some, else the names looked for), or out of
   memory. */
ranks_job *ranks_open(const char *const *args, size_t nargs, t2p_error *err);

/* Loads every file on opts->jobs threads, assigns ranks, and computes the
   figures. A file that fails is kept with loaded false and its error; the
   figures cover the others. A directory's file that holds no trace is
   moved to the notes (positions in name order count the files left).
   Returns 0, or -1 with err set: two files of one rank (T2P_ERR_ARG,
   naming both), no file left that is a trace (T2P_ERR_EMPTY), or out of
   memory. */
int ranks_load(ranks_job *j, const ranks_load_opts *opts, t2p_error *err);

void ranks_free(ranks_job *j);

/* The median of v[0..n) (reorders v); 0 when n is 0. */
int64_t ranks_median(int64_t *v, size_t n);

/* The figure a rank is measured by (skew, straggler, the Ranks view's bars):
   its mean step when the job's every rank has steps (j->by_steps), else its
   busy time; for a lone trace (j NULL), by its own steps. */
int64_t ranks_metric(const ranks_job *j, const ranks_stat *s);

/* Fills idx with merged op indices: by model sort key s (SELF, TOTAL, CALLS,
   NAME, AVG, DEVICE_SELF, DEVICE_TOTAL) or, when spread, by max - min of the
   per-rank self time, largest first. Ties break by name. */
void ranks_sort_ops(const ranks_job *j, enum model_sort s, bool spread, uint32_t *idx);

/* A category merged across ranks: its merged operators' figures summed,
   and min / median / max over the loaded ranks of one rank's self time in
   it (as ranks_op's; a rank without it counts 0). A category's self time
   is its operators' (model_cat's too), so the sums are the per-rank sums. */
typedef struct ranks_cat {
    uint32_t name;       /* id in ranks_job.strs */
    size_t nops;         /* merged operators in it */
    uint64_t calls;
    int64_t self_ns, dev_self_ns;
    int64_t min_ns, median_ns, max_ns;
    int64_t max_rank;
    uint32_t max_file;
} ranks_cat;

/* The categories of j's merged operators, in first-seen order; *n of
   them. A new array (the caller frees it); NULL when out of memory. */
ranks_cat *ranks_cats(const ranks_job *j, size_t *n);



#endif
