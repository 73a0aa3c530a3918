/* GPU attribution: each GPU event (kernel, gpu_memcpy, gpu_memset) is linked
   to its launch (cuda_runtime / cuda_driver) by args.correlation; the
   launching operator is the launch's parent on its CPU track. Part of
   model_build; not called on its own. */
#ifndef T2P_GPU_H
#define T2P_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the model's records only: model_build (core/model/model.c) calls this */
#include "core/model/model_types.h"

/* Fills the device figures of ops and nodes, adds one GPU node per
   (launch node, GPU op, stream) under the launch, and the streams list.
   order/start: the model's per-track sorted event order.
   Returns 0, or -1 when out of memory. */
int gpu_attribute(model *m, const uint32_t *order, const size_t *start);

/* Whether a category names GPU work, or a launch. */
bool gpu_is_work_cat(const char *cat);
bool gpu_is_launch_cat(const char *cat);

#endif
