/* analyze: the Memory section and the "memory" object of --json. */
#ifndef T2P_ANALYZE_MEMORY_H
#define T2P_ANALYZE_MEMORY_H

#include <stddef.h>
#include <stdio.h>

#include "core/analyses/memory.h"

/* The Memory section: per device the peak, when and where, reserved at the
   peak, allocations, frees and what was still allocated at the end; then the
   top operators by sort. Prints nothing when the trace has no memory records. */
void analyze_memory_text(FILE *f, const memory *mem, const steps *st, enum memory_sort sort,
                         size_t top);

/* ,"memory":{"devices":[...],"ops":[...]} (with the leading comma). */
void analyze_memory_json(FILE *f, const memory *mem, enum memory_sort sort, size_t top);

#endif
