/* The job report's collectives across ranks: a text table and the JSON
   "collectives" and "collective_wait" members. */
#ifndef T2P_ANALYZE_COLLS_H
#define T2P_ANALYZE_COLLS_H

#include <stddef.h>
#include <stdio.h>

#include "core/analyses/ranks.h"

/* The calls with the longest waits (top of them; 0: all), then each
   rank's wait. Nothing when the job has no collectives. */
void analyze_colls_text(FILE *f, const ranks_job *j, size_t top);

/* ,"collectives":[...],"collective_wait":[...] */
void analyze_colls_json(FILE *f, const ranks_job *j);

#endif
