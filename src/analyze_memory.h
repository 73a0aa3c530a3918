/* analyze: the Memory section and the "memory" object of --json. */
#ifndef T2P_ANALYZE_MEMORY_H
#define T2P_ANALYZE_MEMORY_H

#include <stddef.h>
#include <stdio.h>

#include "core/analyses/memory.h"
#include "core/analyses/memory_scope.h"

/* The Memory section: per device the peak, when and where, reserved at the
   peak, allocations, frees and what was still allocated at the end; then the
   top operators by sort. Prints nothing when the trace has no memory records.
   ms (NULL: no scope of stacks) is memory_scope_build's over mem for a
   scope of stacks (--focus, --filter, ...): per device first the
   allocations made inside the scope, then its device figures (the
   device's, said so), then the top operators by their allocations on the
   scope's stacks. */
void analyze_memory_text(FILE *f, const memory *mem, const memory_scoped *ms, const steps *st,
                         enum memory_sort sort, size_t top);

/* ,"memory":{"devices":[...],"ops":[...]} (with the leading comma); with
   ms as above: "scope":"stacks", each device (its figures the device's)
   with "in_scope":{allocs, alloc_bytes, increase_bytes, live_allocs,
   live_bytes}, and the operators' rows the scope's. */
void analyze_memory_json(FILE *f, const memory *mem, const memory_scoped *ms,
                         enum memory_sort sort, size_t top);

#endif
