/* What core/analyses/ranks.c and core/analyses/ranks_load.c share, not for other modules. */
#ifndef T2P_RANKS_INT_H
#define T2P_RANKS_INT_H

#include "core/analyses/ranks.h"

/* Loads every file of j on opts->jobs workers (default: one per core),
   filling each file's figures and ops, or its failure. -1 when out of
   memory for the pool itself; a file's own failure is in the file. */
int ranks_load_files(ranks_job *j, const ranks_load_opts *o);

/* The rank of f, once its trace_rank is known (or known to be absent):
   the trace's, else the file name's, else its position in name order. */
void ranks_set_rank(ranks_file *f);

#endif
