/* Memory figures from the [memory] instants of a trace (profile_memory=True):
   who allocated what, the peak per device, and what was still allocated at
   the end. Built once from a model; every front reads these.

   Attribution (TensorBoard's rule): a record belongs to the innermost complete
   event on its track whose [ts, ts + dur) holds the record's ts (the latest
   one in the track's (ts asc, dur desc) order); none: the track's root.
   Frees are attributed where they happen, as TensorBoard does, so an
   operator's "increase" is what it allocated minus what it freed.
   Per operator and per call-tree node: allocation count, allocation size and
   size increase, of its own records ("self") and including everything under
   it. An operator's including-children figures add up its calls' subtrees,
   like total time (a recursive call counts in both).
   Allocations are matched to frees by address per device, in time order. */
#ifndef T2P_MEMORY_H
#define T2P_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"
#include "core/analyses/steps.h"

#define MEMORY_NONE UINT32_MAX

/* Allocation figures of one operator or node on one device. */
typedef struct memory_stat {
    uint64_t alloc_count, self_alloc_count;
    int64_t alloc_bytes, self_alloc_bytes;
    int64_t increase_bytes, self_increase_bytes; /* allocated - freed */
    uint64_t live_count;  /* own allocations never freed in the window */
    int64_t live_bytes;
} memory_stat;

typedef struct memory_device {
    int16_t device;          /* TRACE_MEM_CPU or the CUDA index */
    char name[16];           /* "CPU", "GPU0", ... (TensorBoard's names) */
    uint64_t records, allocs, frees;
    int64_t alloc_bytes, free_bytes; /* free_bytes > 0 */
    bool has_totals;         /* the peak is the largest Total Allocated */
    int64_t peak_bytes;      /* largest Total Allocated, else largest running sum of Bytes */
    int64_t peak_ns;         /* when (relative to tr->base_ns) */
    uint32_t peak_record;    /* a record of tr->mems; MEMORY_NONE when no record */
    uint32_t peak_node;      /* the stack that was allocating: a node of model->nodes */
    int64_t reserved_at_peak;/* Total Reserved at the peak; -1 when unknown */
    bool has_addr;           /* records carry addresses: allocs and frees can be matched */
    uint64_t matched;        /* allocations freed in the window */
    int64_t lifetime_ns;     /* summed over the matched ones; at most INT64_MAX */
    uint64_t live_allocs_at_end;
    int64_t live_bytes_at_end; /* allocations never freed in the window; without
                                  addresses, allocated - freed in the window */
    uint64_t unmatched_frees;  /* frees of blocks allocated before the window */
    int64_t unmatched_free_bytes;
    uint64_t unattributed;     /* records outside any complete event (at a track root) */
} memory_device;

/* One (operator, device) row. */
typedef struct memory_op {
    uint32_t op;      /* index into model->ops */
    uint32_t device;  /* index into memory->devices */
    memory_stat st;
} memory_op;

/* Figures of one (node, device); tables sorted by (node, device). */
typedef struct memory_node {
    uint32_t node;
    uint32_t device;
    memory_stat st;
} memory_node;

typedef struct memory {
    const model *m;   /* not owned */
    memory_device *devices; /* CPU first, then GPU0, GPU1, ... */
    size_t ndevices;
    memory_op *ops;   /* sorted by (op, device) */
    size_t nops;
    memory_node *nodes;  /* per-track tree (model->nodes) */
    size_t nnodes;
    memory_node *mnodes; /* merged tree (model->mnodes) */
    size_t nmnodes;
    uint32_t *by_time;   /* record indices in (ts, file order); NULL when the file
                            had them in that order already */
    size_t nrecords;
    uint32_t *stream_dev; /* per tr->mem_streams: its index into devices */
    /* The model's scope window (model.scope: a range, a step):
       the figures count the records whose ts lies in [t0, t1) alone, as if
       the trace held no other; else t0 INT64_MIN, t1 INT64_MAX. */
    bool windowed;
    int64_t t0, t1;
} memory;

/* Builds the memory figures of m's trace; for a model of a time window
   (model.scope: a range, a step) those of the records in it:
   its allocations, frees and peak (the largest level reached in it: Total
   Allocated, or the running sum of Bytes since the trace's start), its
   allocations matched to its frees, those it left live, its frees of
   blocks allocated before it; each record attributed by the rule above to
   the innermost event holding it whose node in m holds counted calls
   (else the track's root). Returns NULL with err set on failure;
   a trace without [memory] records gives an empty memory (ndevices 0). */
memory *memory_build(const model *m, t2p_error *err);
void memory_free(memory *mem);

/* The (node, device) figures, NULL when it has none. merged: node indexes
   model->mnodes instead of model->nodes. */
const memory_stat *memory_node_stat(const memory *mem, bool merged, uint32_t node, uint32_t device);

/* Every node's figures on one device under a selection of stacks, for a
   tree that shows a scope: out[u] (one per node of model->nodes, or of
   model->mnodes when merged) gets u's own figures when sel is NULL or
   sel[u] (the stack ending at u is selected), and, as including-children
   figures, the sum of the own figures of the selected nodes at or below u.
   With sel NULL these are memory_node_stat's. Returns 0, or -1 for a
   device out of range. */
int memory_node_scoped(const memory *mem, bool merged, uint32_t device, const uint8_t *sel,
                       memory_stat *out);

/* The (op, device) figures, NULL when it has none. */
const memory_stat *memory_op_stat(const memory *mem, uint32_t op, uint32_t device);

/* Allocated bytes on a device after each of its records, in time order:
   its Total Allocated, or the running sum of Bytes. Fills out[0..ncols) with the
   largest value in each of ncols equal slices of [t0, t1) (ns, relative to the
   base), carrying the level into slices with no record; -1 before the first
   record. Returns the number of records seen (0 also when out of memory: a
   file out of time order reads the totals into a scratch array). */
size_t memory_curve(const memory *mem, uint32_t device, int64_t t0, int64_t t1, int64_t *out,
                    size_t ncols);

/* TensorBoard's peak-memory recommendation: adds it to st when a device's
   peak is above STEPS_REC_MEMORY of its deviceProperties totalGlobalMem (once,
   as TensorBoard said it once). mem may be NULL. Returns true when added. */
bool memory_recommend(const memory *mem, steps *st);

enum memory_sort {
    MEMORY_SORT_ALLOC_SIZE,
    MEMORY_SORT_ALLOC_COUNT,
    MEMORY_SORT_SIZE_INCREASE,
    MEMORY_SORT_N
};

/* "alloc_size", "alloc_count", "size_increase"; parse returns -1 for others. */
const char *memory_sort_name(enum memory_sort s);
int memory_sort_parse(const char *s);

/* Fills idx[0..nops) with indices into mem->ops, largest first by the
   including-children figure, ties by self figure then name. device ==
   MEMORY_NONE keeps all rows; otherwise only that device's rows come first and
   the count of them is returned (else nops). */
size_t memory_sort_ops(const memory *mem, enum memory_sort s, uint32_t device, uint32_t *idx);

/* For core/analyses/memory_query.c and memory_scope.c, defined in memory.c
   beside the build that uses them too; not for the fronts. */
/* Adds self's own figures to to's inclusive ones. */
void memory_add_incl(memory_stat *to, const memory_stat *self);

/* The operator rows of the stacks sel selects (one entry per node of
   mem->m->nodes, non-zero for a selected stack; NULL: all, which are
   mem->ops): an operator's own records on selected stacks ("self"), and
   each selected record at or below one of its calls once (with children).
   memory_build's rows and memory_scope_build's are this one computation.
   *out (sorted by (op, device); the caller's, free() it) and *nout; NULL
   and 0 when none. Returns 0, or -1 when out of memory. */
int memory_ops_scoped(const memory *mem, const uint8_t *sel, memory_op **out, size_t *nout);

/* The orders of mem->nodes / mnodes and mem->ops, which lookups bisect
   (qsort comparators of memory_node and memory_op). */
int memory_cmp_node(const void *pa, const void *pb);
int memory_cmp_op(const void *pa, const void *pb);

#endif
