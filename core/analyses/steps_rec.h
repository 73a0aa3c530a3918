/* Recommendations on a steps analysis (core/analyses/steps_rec.c). */
#ifndef T2P_STEPS_REC_H
#define T2P_STEPS_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/analyses/steps_types.h"

/* TensorBoard's Overview recommendations (DataLoader, communication,
   DataParallel when dp) and ours (GPU utilisation), from s's averages. */
void steps_rec_build(steps *s, const model *m, bool dp);

/* Adds a recommendation made by another analysis (core/analyses/kernels.h's
   GPU ones): id static, text copied. Returns false when the list is full. */
bool steps_add_rec(steps *s, const char *id, const char *text);

/* Adds the memory recommendation when peak device memory is above
   STEPS_REC_MEMORY of the device's totalGlobalMem. Called by whoever reads
   the memory figures (deviceProperties and the [memory] events); device is
   the device index. Returns true when it added one. */
bool steps_recommend_memory(steps *s, int device, int64_t peak_bytes, int64_t total_bytes);

#endif
