/* Kernels and the GPU summary, by the rules of TensorBoard's profiler plugin
   (its Kernel view and GPU metrics; doc/usage.md "Kernels"):
   - kernels: every complete event of category kernel (any case, any
     device, in or out of steps) grouped by name: calls, total, mean, min,
     max, "blocks per SM" and "est. achieved occupancy %" averaged weighted
     by duration (sum x*dur / sum dur, a missing or non-numeric value counts
     0, 0 when sum dur is 0), and whether the name is a tensor-core kernel
     (core/analyses/tensorcore.h);
   - by_op: the same per (launching operator, kernel name), the operator by
     the project's GPU attribution (gpu_launcher_node); a kernel without a
     launch in one row of its own (op MODEL_NONE). grid, block, registers
     and shared memory are kept when every call of the row agrees;
   - gpus: per args.device, over the span from the first kept step's start
     to the last kept step's end: utilization (union of kernels / span),
     estimated SM efficiency (at each instant min(sum of blocks per SM of the
     running kernels with blocks per SM > 0, 1), integrated / span),
     achieved occupancy (kernels with occupancy >= 0, weighted by their time
     in the span) and the tensor-core share of kernel time launched by
     operators; each null (has_* false) where the plugin left it null;
   - the GPU recommendations (kernels_recommend).
   Built in O(n log n) over the kernels; no per-event allocation. */
#ifndef T2P_KERNELS_H
#define T2P_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analyses/steps.h"
#include "core/base/error.h"
#include "core/model/model.h"

typedef struct kernels_row {
    uint32_t name;          /* strtab id of the kernel's name */
    uint32_t op;            /* by_op rows: model op that launched it, MODEL_NONE for none;
                               MODEL_NONE in the by-name rows */
    uint32_t kop;           /* the kernel itself as a model op (its GPU op: what a focus
                               on the kernel names), MODEL_NONE when it has none */
    uint64_t calls;
    int64_t total_ns, min_ns, max_ns;
    double mean_ns;         /* total / calls */
    double blocks_per_sm;   /* weighted mean */
    double occupancy_pct;   /* weighted mean, in % as the trace gives it */
    bool tensor_cores;
    uint64_t no_blocks_per_sm; /* calls without a numeric "blocks per SM" (counted 0) */
    uint64_t no_occupancy;     /* calls without a numeric occupancy (counted 0) */
    uint16_t agree;         /* TRACE_KARG_GRID/BLOCK/REGS/SMEM: every call had it, equal */
    int32_t grid[3], block[3];
    int64_t registers, shared_memory;
    /* sums while building */
    double bps_w, occ_w;
} kernels_row;

typedef struct kernels_gpu {
    int device;                 /* args.device */
    uint64_t kernels;           /* its kernels (all, in the scope) */
    int64_t kernel_ns;
    bool has_utilization;       /* false when the span is empty */
    double utilization_pct;
    bool has_sm_efficiency;     /* some kernel with blocks per SM > 0 ran in the span */
    double sm_efficiency_pct;
    bool has_occupancy;         /* some kernel with occupancy >= 0 ran in the span */
    double occupancy_pct;
    bool has_tc;                /* some kernel (any device) was launched by an operator */
    double tc_kernel_pct;       /* tensor-core time / kernel time of those on this device */
    int compute_major;          /* deviceProperties' computeMajor, 0 unknown */
} kernels_gpu;

typedef struct kernels {
    const model *m;          /* not owned */
    kernels_row *rows;       /* by name, total descending (ties by name) */
    size_t nrows;
    kernels_row *by_op;      /* by (op, name), total descending */
    size_t nby_op;
    kernels_gpu *gpus;       /* by device ascending */
    size_t ngpus;
    int64_t span_start, span_end; /* the GPU summary's span; equal when none */
    uint64_t kernel_events;
    int64_t kernel_ns;
    uint64_t no_launch;      /* kernels without a launch (no correlation, or none matched) */
    uint64_t no_device;      /* kernels without args.device: in the tables, not in gpus */
    uint64_t negative_occupancy, nonpositive_bps; /* left out of the GPU summary */
    bool has_tc_used;        /* some kernel at all */
    double tc_used_pct;      /* tensor-core kernel time / all kernel time */
    double tc_eligible_pct;  /* kernel time of the bottom tensor-core-eligible operators
                                over that of all operators (the AMP recommendation's share) */
} kernels;

/* Builds the figures of m's kernels (m of the whole trace or a scope),
   counting only the events keep marks (NULL: all; steps_mask for --step)
   and, when m is a scoped model, those of its scope.
   s (may be NULL: no span, gpus without utilization) gives the span: its
   kept steps whose ProfilerStep# keep marks (all of them when none is
   kept). NULL with err set when out of memory.
   The same as kernels_build_in(m, s, keep, NULL, err). */
kernels *kernels_build(const model *m, const steps *s, const unsigned char *keep,
                       t2p_error *err);

/* The same, counting only the kernels whose stack a scope of stacks
   selects (a --focus, --category, --track, --filter; the explorer's f, Enter
   and /): sel has one entry per node of m->nodes, non-zero for a selected
   stack (export_select's or scope_keep's mask); NULL selects every stack,
   which is kernels_build. A kernel's stack ends at its GPU node under its
   launch (core/analyses/gpu.h), or at its own node on its stream when it
   has no launch in m: the stack pprof writes it at, so the scope's kernel
   time is the profile's device time of its kernels. The GPU summary (gpus,
   span) then covers those kernels alone: a front that shows the device as
   a whole takes it from the unscoped build. */
kernels *kernels_build_in(const model *m, const steps *s, const unsigned char *keep,
                          const uint8_t *sel, t2p_error *err);
void kernels_free(kernels *k);

/* TensorBoard's GPU recommendations, added to s's list: "amp" (compute
   capability >= 7, no tensor-core kernel, and eligible operators' share of
   kernel time > 0) and "gpu_low_util" (a device under
   KERNELS_REC_LOW_UTIL utilization); and ours, which the plugin never had:
   "gpu_low_sm_efficiency" (estimated SM efficiency under KERNELS_REC_SM_EFF
   of the utilization: while kernels run, most SMs have none) and
   "gpu_low_occupancy" (estimated achieved occupancy under
   KERNELS_REC_LOW_OCC %). */
#define KERNELS_REC_LOW_UTIL 0.50
#define KERNELS_REC_SM_EFF 0.50
#define KERNELS_REC_LOW_OCC 25.0
void kernels_recommend(const kernels *k, steps *s);

/* The launching operators of kernel name (a by-name row's name): the
   indices into k->by_op of the rows of that name, in by_op's order, into
   out (room for k->nby_op). Returns how many. */
size_t kernels_launcher_ids(const kernels *k, uint32_t name, uint32_t *out);

enum kernels_sort {
    KERNELS_SORT_TOTAL, KERNELS_SORT_CALLS, KERNELS_SORT_MEAN, KERNELS_SORT_MIN,
    KERNELS_SORT_MAX, KERNELS_SORT_BPS, KERNELS_SORT_OCC, KERNELS_SORT_TC,
    KERNELS_SORT_NAME, KERNELS_SORT_N
};
/* Fills idx[0..n) with the order of rows[0..n) by key: descending for
   figures, ascending for names; reversed when reverse; ties by name. */
void kernels_sort(const kernels *k, const kernels_row *rows, size_t n, enum kernels_sort key,
                  bool reverse, uint32_t *idx);
/* Sorts idx[0..n) (indices into rows) in place by the same rule: a subset
   of the rows, e.g. one kernel's launchers. */
void kernels_sort_ids(const kernels *k, const kernels_row *rows, uint32_t *idx, size_t n,
                      enum kernels_sort key, bool reverse);

#endif
