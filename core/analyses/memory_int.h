/* What core/analyses/memory.c (building) and core/analyses/memory_query.c (lookups, sorting,
   recommendations) share, not for other modules. */
#ifndef T2P_MEMORY_INT_H
#define T2P_MEMORY_INT_H

#include "core/analyses/memory.h"

/* Adds self's own figures to to's inclusive ones. */
static inline void memory_add_incl(memory_stat *to, const memory_stat *self)
{
    to->alloc_count += self->self_alloc_count;
    to->alloc_bytes += self->self_alloc_bytes;
    to->increase_bytes += self->self_increase_bytes;
}

/* The orders of mem->nodes / mnodes and mem->ops, which lookups bisect. */
static inline int memory_cmp_node(const void *pa, const void *pb)
{
    const memory_node *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return a->device < b->device ? -1 : (a->device > b->device);
}

static inline int memory_cmp_op(const void *pa, const void *pb)
{
    const memory_op *a = pa, *b = pb;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    return a->device < b->device ? -1 : (a->device > b->device);
}

#endif
