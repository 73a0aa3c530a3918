/* HTA's the temporal breakdown, the kernel-type split and kernels_by_type (core/analyses/hta_breakdown.c). */
#ifndef T2P_HTA_BREAKDOWN_H
#define T2P_HTA_BREAKDOWN_H

#include "core/analyses/hta_ctx.h"

/* Fills its part of c->h; 0, or -1 when out of memory. */
int hta_breakdown(const hta_ctx *c);

#endif
