/* HTA's idle time per stream and queue length per stream (core/analyses/hta_idle.c). */
#ifndef T2P_HTA_IDLE_H
#define T2P_HTA_IDLE_H

#include "core/analyses/hta_ctx.h"

/* Fills its part of c->h; 0, or -1 when out of memory. */
int hta_idle(const hta_ctx *c);
int hta_queue(const hta_ctx *c);

#endif
