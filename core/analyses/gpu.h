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
   order/start: the model's per-track sorted event order. Links the GPU
   events to their launches first unless m->corr_launch is set (gpu_link).
   Returns 0, or -1 when out of memory. */
int gpu_attribute(model *m, const uint32_t *order, const size_t *start);

/* The links of gpu_attribute (model->corr_launch) alone, into *corr_launch
   (the caller owns it): they read only the trace, m->catkind and
   m->opts.keep, so model_build runs this on a thread of its own while it
   nests the tracks, and gives gpu_attribute the result in m->corr_launch.
   Returns 0, or -1 when out of memory. */
int gpu_link(const model *m, uint32_t **corr_launch);

/* Again for a model whose nodes were rebuilt (model_regroup): its ops' and
   its own device figures and GPU nodes, from m->corr_launch and m's CPU
   nodes; the streams stay as they are. Returns 0, or -1 when out of memory. */
int gpu_attribute_again(model *m);

/* The node that launched GPU work through the launch event launch (its
   node the launch's call): the launch's parent, or the launch itself when
   no operator surrounds it; MODEL_NONE when the launch has no node in m
   (outside its scope, or MODEL_NONE). The one rule gpu_attribute credits
   device self time by, for every reader that names a kernel's operator. */
uint32_t gpu_launcher_node(const model *m, uint32_t launch);

/* The launch of trace event e (m->corr_launch of its correlation record),
   MODEL_NONE when it has none, for a reader walking the events in order:
   *ci is the cursor into tr->corrs (0 at first), advanced over the records
   of earlier events; e must not go back. */
uint32_t gpu_launch_next(const model *m, size_t e, size_t *ci);

/* The node GPU event e's time is written at (what pprof puts it under):
   the GPU node gpu_attribute made under its launch's node for (its op, its
   stream), or its own node on its stream when its launch (gpu_launch_next)
   is MODEL_NONE or has no node in m. */
uint32_t gpu_work_node(const model *m, size_t e, uint32_t launch);

/* Whether a category names GPU work, or a launch. */
bool gpu_is_work_cat(const char *cat);
bool gpu_is_launch_cat(const char *cat);

#endif
