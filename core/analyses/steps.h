/* Steps: where each training step's time went, by TensorBoard's Overview
   rules (../shared/docs/steps.md): the step windows (moved to the device
   side when the GPU is used), the greedy split of each window into eight
   roles, tail steps dropped from the average, compute/communication
   overlap and the recommendations. Integer ns throughout; figures equal
   TensorBoard's plugin run on the same events (tests/fixtures/tb_steps/).

   Built from a model (which must outlive it) in one pass over the events
   and their arrays; every front reads these figures, none recomputes them.

   Also the step of every event, for scoping figures to steps (--step N,
   the TUI's step scope, pprof's step label): a CPU event belongs to the
   step whose host window ([ts, ts+dur) of its ProfilerStep#N) holds its
   start; a GPU event to the step of its launch, or, when it has no launch,
   to the step whose window holds its start. */
#ifndef T2P_STEPS_H
#define T2P_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"

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

/* The thresholds of the recommendations (README "Steps"). */
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

/* The role trace event e has in the split (a kernel of a communication
   operator: STEPS_COMMUNICATION), or -1 for none (a ProfilerStep#, a
   category no role takes). */
int steps_ev_role(const steps *s, size_t e);

/* Builds the steps of m (which must outlive them; a model of the whole
   trace, not a scoped one: T2P_ERR_ARG). NULL with err set when out of
   memory. A trace without ProfilerStep# gets one whole-trace step
   (whole_trace); ev_step then gives STEPS_NONE for every event. */
steps *steps_build(const model *m, t2p_error *err);
void steps_free(steps *s);

/* How many ProfilerStep# calls m holds on CPU threads, from its operators
   alone (no steps_build): for a front deciding what to show first. */
uint64_t steps_count(const model *m);

/* The step number text of step i: "1011" for ProfilerStep#1011, "" for the
   whole-trace step. Owned by the trace's strings. */
const char *steps_label(const steps *s, size_t i);

/* The index of the first step labelled label ("1011"), or -1. */
long steps_find(const steps *s, const char *label);

/* Parses "N" or "N-M" (step numbers) into step indices *first..*last.
   Returns 0, or -1 with err set (T2P_ERR_ARG) when the text is malformed,
   a step does not exist or M comes before N. */
int steps_parse_range(const steps *s, const char *text, size_t *first, size_t *last,
                      t2p_error *err);

/* A per-event keep mask for model_opts.keep: the events that belong to
   steps first..last. Returns a new array of s->nevents bytes (caller frees),
   NULL when out of memory. */
unsigned char *steps_mask(const steps *s, size_t first, size_t last);

/* The model of steps first..last alone: model_build of the trace with
   base's options and steps_mask as its keep mask. NULL with err set. */
model *steps_scope(const steps *s, size_t first, size_t last, const model_opts *base,
                   t2p_error *err);

/* The model of the whole trace with each step's calls in nodes of their
   own (model_opts.group = ev_step, base's other options), for a profile
   whose samples carry a step label; NULL with err set. */
model *steps_grouped(const steps *s, const model_opts *base, t2p_error *err);

/* steps_label of every step, for pprof_opts.step_labels: a new array of
   s->nsteps pointers (caller frees the array), NULL when out of memory. */
const char **steps_labels(const steps *s);

/* "1011" or "1011-1013" for steps first..last into buf. Returns buf. */
const char *steps_range_label(const steps *s, size_t first, size_t last, char *buf, size_t size);

/* The top n operators (model->ops indices) of step i by self time of their
   calls in the step, largest first; out_ns gets the self times. Returns how
   many were found (<= n); 0 also when out of memory. */
size_t steps_top_ops(const steps *s, size_t i, uint32_t *out_op, int64_t *out_ns, size_t n);

/* Adds a recommendation made by another analysis (core/analyses/kernels.h's
   GPU ones): id static, text copied. Returns false when the list is full. */
bool steps_add_rec(steps *s, const char *id, const char *text);

/* Adds the memory recommendation when peak device memory is above
   STEPS_REC_MEMORY of the device's totalGlobalMem. Called by whoever reads
   the memory figures (deviceProperties and the [memory] events); device is
   the device index. Returns true when it added one. */
bool steps_recommend_memory(steps *s, int device, int64_t peak_bytes, int64_t total_bytes);

#endif
