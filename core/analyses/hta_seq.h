/* HTA's frequent kernel sequences (core/analyses/hta_seq.c). */
#ifndef T2P_HTA_SEQ_H
#define T2P_HTA_SEQ_H

#include "core/analyses/hta_ctx.h"

/* Fills its part of c->h; 0, or -1 when out of memory. */
int hta_sequences(const hta_ctx *c);

#endif
