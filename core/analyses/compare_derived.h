/* The Steps and Memory figures of two traces side by side (comparing: the
   explorer's --base mode): each figure of the base and of the new trace,
   the delta being new minus base. From each trace's own analyses
   (core/analyses/steps.h, memory.h), which this only pairs. */
#ifndef T2P_COMPARE_DERIVED_H
#define T2P_COMPARE_DERIVED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/analyses/compare.h"
#include "core/analyses/memory.h"
#include "core/analyses/steps.h"

/* The average step of each trace (over its kept steps, TensorBoard's
   rule): its duration, each role, its GPU busy time. Row r < STEPS_NROLES
   is role r. */
enum { COMPARE_STEPS_DUR = STEPS_NROLES, COMPARE_STEPS_GPU, COMPARE_STEPS_NROWS };

typedef struct compare_steps {
    int64_t b[COMPARE_STEPS_NROWS], n[COMPARE_STEPS_NROWS]; /* ns per step */
    size_t b_steps, n_steps, b_kept, n_kept;
    bool b_whole, n_whole; /* no ProfilerStep#: one whole-trace step */
} compare_steps;

/* Fills out from the two traces' steps (either may be NULL: zeros). */
void compare_steps_fill(const steps *b, const steps *n, compare_steps *out);

/* "Kernel", ..., "Other" for a role row, "Step duration", "GPU busy". */
const char *compare_steps_title(int row);

/* One device of either trace, matched by name ("CPU", "GPU0"). */
typedef struct compare_mem_dev {
    char name[16];
    enum compare_status status;
    int64_t b_peak, n_peak;
    uint64_t b_allocs, n_allocs;
    int64_t b_alloc_bytes, n_alloc_bytes;
} compare_mem_dev;

/* One (operator, device) of either trace, matched by the operator's name
   and category and the device's name. */
typedef struct compare_mem_row {
    const char *name, *cat; /* the trace's strings (new's, else base's) */
    uint32_t dev;           /* index into devs */
    uint32_t b_op, n_op;    /* op index in each model, MODEL_NONE when absent */
    enum compare_status status;
    memory_stat b, n;       /* zero on the side where it is absent */
} compare_mem_row;

typedef struct compare_mem {
    compare_mem_dev *devs;
    size_t ndevs;
    compare_mem_row *rows; /* sorted by |Δ allocation size|, largest first, then name */
    size_t nrows;
} compare_mem;

/* Pairs the memory figures of base and new (either may be NULL: none).
   NULL with err set when out of memory. */
compare_mem *compare_mem_build(const memory *b, const memory *n, t2p_error *err);
void compare_mem_free(compare_mem *c);

#endif
