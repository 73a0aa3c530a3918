/* An analysis file read back (the reduce of issue 28): one rank of a job
   already summed up by `analyze --json -top 0 TRACE`, into the record a
   trace's model fills (core/analyses/ranks_types.h). */
#ifndef T2P_RANKS_READ_H
#define T2P_RANKS_READ_H

#include "core/analyses/ranks_types.h"

/* Fills f (path set, the rest zero) from the analysis file at f->path.
   Returns 0, or -1 with f->err set: not readable, cut short, another
   format version, made without -top 0, or not an analysis file. */
int ranks_read_analysis(ranks_file *f);

#endif
