/* HTA's launch delay (cuda_kernel_launch_stats) (core/analyses/hta_launch.c). */
#ifndef T2P_HTA_LAUNCH_H
#define T2P_HTA_LAUNCH_H

#include "core/analyses/hta_ctx.h"

/* Fills its part of c->h; 0, or -1 when out of memory. */
int hta_launch_stats(const hta_ctx *c);

#endif
