/* What core/analyses/memory.c (building) and core/analyses/memory_query.c (lookups, sorting,
   recommendations) share, not for other modules. */
#ifndef T2P_MEMORY_INT_H
#define T2P_MEMORY_INT_H

#include "core/analyses/memory.h"

/* Defined in memory.c, so that this header is memory.c's alone: inline
   functions here would make memory.c depend on a header that depends on
   memory.h, a circle (tests/circles.py). */

/* Adds self's own figures to to's inclusive ones. */
void memory_add_incl(memory_stat *to, const memory_stat *self);

/* The orders of mem->nodes / mnodes and mem->ops, which lookups bisect
   (qsort comparators of memory_node and memory_op). */
int memory_cmp_node(const void *pa, const void *pb);
int memory_cmp_op(const void *pa, const void *pb);

#endif
