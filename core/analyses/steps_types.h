/* The records of the steps analysis (core/analyses/steps.h): roles,
   steps, recommendations. Types only, beneath steps.c and steps_rec.c. */
#ifndef T2P_STEPS_TYPES_H
#define T2P_STEPS_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model_types.h"

#define STEPS_NONE UINT32_MAX

/* The eight roles, in the priority order of the split. */
enum steps_role {
    STEPS_KERNEL,        /* kernels, but those of communication operators */
    STEPS_MEMCPY,
    STEPS_MEMSET,
    STEPS_COMMUNICATION, /* nccl:/gloo: collectives and their kernels */
    STEPS_RUNTIME,       /* cuda_runtime & co (cudaLaunchKernel, ...) */
    STEPS_DATALOADER,    /* enumerate(DataLoader)#...__next__, enumerate(DataPipe)#... */
    STEPS_CPU_OP,        /* every other operator, annotation, Python event: "CPU Exec" */
    STEPS_OTHER,         /* the rest of the window */
    STEPS_NROLES
};

/* "kernel", "memcpy", ..., "cpu_op", "other": the --json field stems. */
const char *steps_role_key(enum steps_role r);
/* "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader",
   "CPU Exec", "Other": TensorBoard's names. */
const char *steps_role_title(enum steps_role r);
/* 'K', 'M', 'S', 'C', 'R', 'D', 'P', 'O': one letter per role for bars
   drawn without colour. */
char steps_role_letter(enum steps_role r);

/* Compute/communication overlap of a step (TensorBoard's Distributed view). */
typedef struct steps_overlap {
    int64_t computation_ns;   /* kernel time in the step (CPU-op time when the trace has no kernel) */
    int64_t communication_ns; /* communication time in the step */
    int64_t overlap_ns;       /* both at once */
    int64_t other_ns;         /* duration + overlap - computation - communication */
} steps_overlap;

typedef struct steps_step {
    uint32_t event;        /* the ProfilerStep#N event; STEPS_NONE for the whole-trace step */
    uint32_t name;         /* its strtab id ("ProfilerStep#N"); STEPS_NONE likewise */
    int64_t host_start, host_end; /* the ProfilerStep#N event's [ts, ts+dur) */
    int64_t start, end;    /* the window the figures cover (the device side when the GPU is used) */
    int64_t role_ns[STEPS_NROLES]; /* the greedy split: they add up to end - start */
    int64_t gpu_busy_ns;   /* time in the window with any GPU work running (all devices) */
    int64_t cpu_ns;        /* time each CPU thread was in an outermost event, in the window, summed */
    uint64_t gpu_launched; /* GPU events launched from inside its host window */
    steps_overlap overlap;
    bool kept;             /* false: a tail step dropped from the average */
} steps_step;

/* A recommendation: a stable id and a plain-language sentence with its figure. */
typedef struct steps_rec {
    const char *id; /* "dataloader", "communication", "memory", "dataparallel", "gpu_util" */
    char text[400];
} steps_rec;

/* The thresholds of the recommendations (doc/usage.md "Steps"). */
#define STEPS_REC_DATALOADER 0.05    /* DataLoader share of the average step */
#define STEPS_REC_COMMUNICATION 0.10 /* Communication share of the average step */
#define STEPS_REC_MEMORY 0.90        /* peak device memory / totalGlobalMem */
#define STEPS_REC_GPU_UTIL 0.50      /* average GPU busy / average step, when the GPU is used */
#define STEPS_MAX_RECS 8

typedef struct steps {
    const model *m;        /* not owned */
    steps_step *steps;     /* in time order; all of them, dropped ones with kept = false */
    size_t nsteps;
    size_t nkept;
    bool whole_trace;      /* no ProfilerStep#: steps[0] covers the CPU events, as TensorBoard does */
    bool device_windows;   /* the windows moved to the device side (some step launched GPU work) */
    bool has_kernel;       /* any kernel role time at all (decides the overlap's computation) */
    /* Averages over the kept steps (integer division): duration and roles. */
    int64_t avg_duration_ns;
    int64_t avg_role_ns[STEPS_NROLES];
    int64_t avg_gpu_busy_ns;
    steps_rec recs[STEPS_MAX_RECS];
    size_t nrecs;
    /* Per trace event: the index in steps[] of the step it belongs to, or
       STEPS_NONE (see the rule above). Never NULL after steps_build. */
    uint32_t *ev_step;
    size_t nevents;
    /* Per trace event: the split's classification (steps_ev_role reads
       it), for every front that draws events by role (the timeline). */
    unsigned char *ev_class;
} steps;

#endif
