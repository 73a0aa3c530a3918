/* The memory figures of a scope of stacks (a --focus, --category, --track,
   --filter; the explorer's f, Enter and /): the allocations made inside the
   stacks it selects. A record belongs to the stack of the innermost event
   holding it (core/analyses/memory.h), so a scope's allocations are the own
   records of its selected nodes. What a scope of stacks cannot narrow stays
   the memory's: a device's peak, its curve and its level at the end are
   properties of the device at an instant, not of a stack (the fronts say so).

   One computation: the operator rows are memory_ops_scoped's
   (core/analyses/memory.h), which memory_build calls with every stack
   selected (tests/unit/test_memory_scope.c checks the two agree). */
#ifndef T2P_MEMORY_SCOPE_H
#define T2P_MEMORY_SCOPE_H

#include <stdint.h>

#include "core/analyses/memory.h"
#include "core/base/error.h"

/* One device's allocations inside the scope (own records of its stacks). */
typedef struct memory_scope_dev {
    uint64_t allocs;
    int64_t alloc_bytes;
    int64_t increase_bytes; /* allocated - freed inside the scope */
    uint64_t live_allocs;   /* of those allocations, never freed in the window */
    int64_t live_bytes;
} memory_scope_dev;

typedef struct memory_scoped {
    /* mem with its operator rows replaced by the scope's (view.ops owned
       here; every other pointer borrowed from mem): memory_sort_ops and
       memory_op_stat read it as they read mem. */
    memory view;
    memory_scope_dev *devs; /* per mem->devices */
    const uint8_t *sel;     /* the mask it was built from (borrowed; NULL: all) */
} memory_scoped;

/* The figures of mem's stacks that sel selects: one entry per node of
   mem->m->nodes, non-zero for a selected stack (export_select's or
   scope_keep's mask), NULL for all. An operator's row: its own records on
   selected stacks ("self"), and each selected record at or below one of its
   calls once (with children), as memory_build counts them. mem must
   outlive the result. NULL with err set when out of memory. */
memory_scoped *memory_scope_build(const memory *mem, const uint8_t *sel, t2p_error *err);
void memory_scope_free(memory_scoped *ms);

#endif
