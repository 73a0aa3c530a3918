/* The records of HTA's analyses (core/analyses/hta.h): options, kernel
   types, streams, launches, sequences. Types only, beneath hta.c, its
   parts and hta_kind.c. */
#ifndef T2P_HTA_TYPES_H
#define T2P_HTA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model_types.h"

/* HTA's defaults (its units are us; ours ns). */
#define HTA_KERNEL_WAIT_NS 30000     /* consecutive_kernel_delay */
#define HTA_RUNTIME_CUTOFF_NS 50000  /* runtime_cutoff */
#define HTA_DELAY_CUTOFF_NS 100000   /* launch_delay_cutoff */
#define HTA_SEQ_OP "ProfilerStep"    /* the operator of the sequences: the step */
#define HTA_SEQ_MIN_LEN 3            /* min_pattern_len */
#define HTA_SEQ_TOP 5                /* top_k */

typedef struct hta_opts {
    int64_t kernel_wait_ns;    /* a gap under this after a kernel: kernel wait */
    int64_t runtime_cutoff_ns; /* a launch call longer than this: runtime outlier */
    int64_t delay_cutoff_ns;   /* a launch delay longer than this: long delay */
    const char *seq_op;        /* sequences under operators whose name contains it */
    size_t seq_min_len;        /* operators launching fewer GPU events are left out */
    size_t seq_top;            /* sequences kept (0: all) */
} hta_opts;


enum hta_window {
    HTA_WINDOW_ALL,          /* fewer than two distinct ProfilerStep#N: every event */
    HTA_WINDOW_NO_LAST_STEP, /* HTA's: events before the last step's start */
    HTA_WINDOW_SCOPE         /* the caller's keep mask */
};

/* Kernel types, HTA's get_kernel_type: first match wins. */
enum hta_ktype { HTA_COMPUTATION, HTA_COMMUNICATION, HTA_MEMORY, HTA_OTHER, HTA_NKTYPES };


/* The kernel-type split: time with exactly this set of types running. */
typedef struct hta_typerow {
    unsigned mask; /* bit 1 << HTA_COMPUTATION, ... (OTHER never) */
    int64_t ns;
} hta_typerow;


/* One kernel name's GPU events (kernels_by_type). */
typedef struct hta_kernel {
    uint32_t name; /* strtab id */
    enum hta_ktype type;
    uint64_t count;
    int64_t sum_ns, min_ns, max_ns;
    double mean_ns, std_ns; /* std: sample (n - 1), 0 for one event, as pandas */
} hta_kernel;

/* One launch joined to its GPU event (cuda_kernel_launch_stats). */
typedef struct hta_launch {
    uint32_t launch;   /* the launch call (trace event) */
    uint32_t gpu;      /* its GPU event */
    uint32_t stream;   /* index into hta->streams */
    int64_t cpu_ns;    /* the call's duration */
    int64_t gpu_ns;    /* the GPU event's duration */
    int64_t delay_ns;  /* max(0, GPU start - call end) */
} hta_launch;

/* Launch delay over a set of launches. */
typedef struct hta_delay {
    uint64_t count;
    int64_t sum_ns, max_ns;
    double p50_ns, p95_ns;   /* linear interpolation between ranks, as pandas */
    uint64_t long_delay;     /* delay > delay_cutoff */
    uint64_t short_kernel;   /* call <= runtime_cutoff and GPU event shorter than the call */
    uint64_t runtime_outlier;/* call > runtime_cutoff */
} hta_delay;

/* One GPU stream (a GPU track). */
typedef struct hta_stream {
    uint32_t track;
    uint64_t events;     /* its GPU events (kernel, memcpy, memset) in the window */
    int64_t busy_ns;     /* union of their intervals */
    /* idle time: the gaps between consecutive events (sorted by start) */
    int64_t host_wait_ns, kernel_wait_ns, other_wait_ns;
    uint64_t overlaps;   /* events starting before the previous one ended: gap 0 */
    int64_t overlap_ns;  /* how far they started before (HTA subtracts it) */
    uint64_t no_launch;  /* events without a launch: never host wait */
    hta_delay delay;     /* the launches of its events */
    size_t first_launch; /* its launches: hta->launches[first_launch ..], by delay desc */
    /* queue length: +1 at a launch call's start, -1 at its GPU event's start */
    uint64_t qcount;     /* changes */
    double qmean, qp50;
    int64_t qmin, qmax;
} hta_stream;

/* A frequent kernel sequence: an operator and the GPU events under one call
   of it, in start order. */
typedef struct hta_seq {
    uint32_t op;         /* strtab id of the operator's name */
    size_t first, len;   /* its kernel names: hta->seq_names[first .. first + len) */
    uint64_t count;      /* calls with this sequence */
    int64_t gpu_ns;      /* their GPU events' durations, summed */
    int64_t cpu_ns;      /* the calls' durations, summed */
} hta_seq;

typedef struct hta {
    const model *m; /* not owned */
    hta_opts opts;
    enum hta_window window;
    int64_t window_cut;     /* NO_LAST_STEP: the last step's start (ns) */
    uint32_t window_steps;  /* distinct ProfilerStep#N seen */
    uint64_t cpu_events, gpu_events; /* in the window */
    uint64_t gpu_dropped;   /* GPU events left out of a NO_LAST_STEP window: no
                               launch, or launched in the last step */

    /* temporal (get_temporal_breakdown) */
    int64_t kernel_ns, idle_ns, compute_ns, non_compute_ns;

    hta_typerow types[7];   /* non-empty rows, largest first */
    size_t ntypes;
    int64_t types_ns;       /* their sum */
    hta_kernel *kernels;    /* by type, then name */
    size_t nkernels;

    hta_stream *streams;    /* in trace track order */
    size_t nstreams;
    uint64_t streams_without_launches;

    hta_launch *launches;   /* by stream, then delay desc */
    size_t nlaunches;
    hta_delay delay;        /* all launches */
    uint64_t gpu_no_launch; /* GPU events without a launch call (left out of launch/queue) */

    hta_seq *seqs;          /* by count desc, then pattern text */
    size_t nseqs, nseqs_all;/* kept (seq_top), found */
    uint32_t *seq_names;
    size_t nseq_names;
    uint64_t seq_roots;     /* operator calls considered */
} hta;

#endif
