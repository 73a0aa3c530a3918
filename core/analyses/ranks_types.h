/* The records of a job of many ranks (core/analyses/ranks.h says what they
   mean): apart from the functions so that loading the files
   (core/analyses/ranks_load.c), which ranks.c calls, can fill them without
   depending on ranks.c. Include core/analyses/ranks.h, not this, unless
   you are such a part. */
#ifndef T2P_RANKS_TYPES_H
#define T2P_RANKS_TYPES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analyses/collectives.h"
#include "core/base/error.h"
#include "core/model/model.h"
#include "core/analyses/steps.h"
#include "core/base/strtab.h"
#include "core/load/trace.h"

/* A straggler is flagged when its skew is above this. */
#define RANKS_SKEW_FLAG 0.05

enum ranks_from {
    RANKS_FROM_TRACE,   /* distributedInfo.rank */
    RANKS_FROM_NAME,    /* rank-3, rank3, rank_3, worker3 in the file name */
    RANKS_FROM_POSITION /* position in name order */
};

/* One rank's figures. Times in ns. */
typedef struct ranks_stat {
    uint64_t events;      /* elements of traceEvents, as analyze's "events" */
    uint64_t complete_events;
    int64_t window_ns;
    int64_t busy_ns;      /* sum of self time over every track, as analyze's busy_ns */
    int64_t cpu_ns;       /* the same over the CPU threads (model cpu_ns) */
    uint64_t gpu_events;
    int64_t gpu_busy_ns;  /* time when some stream runs GPU work (model gpu_busy_ns) */
    uint64_t steps;       /* ProfilerStep# steps kept for the average (0: none) */
    int64_t step_mean_ns, step_max_ns; /* over the kept steps */
    int64_t role_ns[STEPS_NROLES];     /* the mean step split by role (TensorBoard's Overview) */
    /* communication time per kept step, and its overlap with computation
       (TensorBoard's Distributed view; the whole trace without steps) */
    int64_t communication_ns;
    int64_t overlap_ns;
    double skew;          /* (metric - median of ranks) / median; see ranks_job.by_steps */
} ranks_stat;

/* An operator of one rank, its names in the rank's own small table. */
typedef struct ranks_fop {
    uint32_t name, cat; /* ids in ranks_file.names */
    uint64_t calls;
    int64_t self_ns, total_ns, dev_self_ns, dev_total_ns;
} ranks_fop;

/* The version of the analysis files this build writes and reads. */
#define RANKS_ANALYSIS_FORMAT 1

typedef struct ranks_file {
    char *path;          /* owned */
    /* an analysis file: the trace it was made from (as its "file" says), to
       show in reports; NULL when path is the trace itself. Owned. */
    char *trace_path;
    bool analysis;       /* path is an analysis file: no trace, no model */
    int64_t world_size;  /* distributedInfo.world_size, 0 when unknown */
    bool listed;         /* found in a directory (not named): left out when no trace */
    bool skipped;        /* so left out (ranks_load moves it to the notes) */
    size_t position;     /* in name order among the job's files */
    int64_t rank;        /* known when its model is built (to ranks_model_fn too) */
    enum ranks_from from;
    int64_t trace_rank;  /* distributedInfo.rank, -1 when the trace does not say */
    bool loaded;
    t2p_error err;       /* why it failed when !loaded */
    trace *tr;           /* kept when ranks_load_opts.keep_models; owned */
    model *m;
    bool truncated;      /* loaded from a file that ends early (--partial) */
    char truncated_reason[256];
    ranks_stat st;
    strtab *names;       /* names and categories of ops; owned */
    ranks_fop *ops;
    size_t nops;
    bool scoped;         /* ranks_load_opts.step: st and ops cover steps */
    size_t step_first, step_last; /* step_first..step_last (indices in its steps) alone */
    char step[64];       /* an analysis file's --step ("" when the whole trace) */
    coll_call *colls;    /* its NCCL collectives in arrival order, names in names; owned */
    size_t ncolls;
    void *out;           /* what ranks_model_fn made of it; freed with free() */
    size_t out_len;
} ranks_file;

/* An operator merged across ranks by (name, category). */
typedef struct ranks_op {
    uint32_t name, cat;  /* ids in ranks_job.strs */
    uint64_t calls;      /* sums over ranks */
    int64_t self_ns, total_ns, dev_self_ns, dev_total_ns;
    /* min, median and max of the per-rank self time over the loaded ranks (a
       rank without the op counts 0); the median of an even count is the mean
       of the two middle values, rounded down */
    int64_t min_ns, median_ns, max_ns;
    int64_t max_rank;    /* the rank holding max_ns (the lowest such rank) */
    uint32_t max_file;   /* its index in ranks_job.files */
} ranks_op;

typedef struct ranks_job {
    ranks_file *files;   /* by rank once loaded (failed files last, by name) */
    size_t nfiles;
    /* files of the directories left out, each a one-line note: file is the
       path, reason says why (error_format gives the line), offset -1; the
       ones ranks_open found first, then ranks_load's */
    t2p_error *notes;
    size_t nnotes;
    size_t nloaded, nfailed;
    strtab *strs;        /* names of the merged ops */
    ranks_op *ops;
    size_t nops;
    int64_t *self;       /* nops x nfiles: self[op * nfiles + file], 0 where absent */
    bool by_steps;       /* skew and straggler by mean step (every rank has steps), else busy */
    int64_t median_ns;   /* median over loaded ranks of that metric */
    int64_t metric_max;  /* the largest rank's metric (bars are drawn against it) */
    int64_t straggler;   /* index into files of the rank with the largest metric, -1 */
    bool flagged;        /* its skew is above RANKS_SKEW_FLAG */
    collectives *colls;  /* the loaded ranks' collectives matched (file = index in files) */
    size_t nanalysis;    /* loaded files that are analysis files */
} ranks_job;

/* Where one file of a job is, for a progress screen. */
enum ranks_stage {
    RANKS_WAITING,  /* not started: every worker is busy */
    RANKS_READING,  /* done of size bytes of the file read */
    RANKS_BUILDING, /* read; its model is being built */
    RANKS_DONE,     /* loaded */
    RANKS_FAILED,   /* failed or cancelled */
    RANKS_SKIPPED   /* not a trace: left out with a note */
};

typedef struct ranks_file_progress {
    enum ranks_stage stage;
    uint64_t done, size; /* bytes of the (compressed) file read, of its size */
} ranks_file_progress;

/* Called by ranks_load on its own thread about ten times a second while
   the workers load, with each file's state (p[i] is files[i], in name
   order: ranks are not known yet). */
typedef void (*ranks_progress_fn)(const ranks_job *j, const ranks_file_progress *p, void *ctx);

/* Called in a worker thread for each file whose model is built, before the
   model is dropped (unless keep_models): the place to build per-rank output
   such as a pprof piece. m is the whole trace's model and st its steps
   (f->scoped tells the steps --step kept). Return 0, or -1 with err set to
   fail that file. */
typedef int (*ranks_model_fn)(ranks_file *f, const model *m, const steps *st, void *ctx,
                              t2p_error *err);

typedef struct ranks_load_opts {
    unsigned jobs;        /* worker threads; 0: one per available core */
    bool partial;         /* load what a truncated file holds */
    bool keep_models;     /* keep each file's trace and model (the explorer) */
    model_opts mo;
    /* "N" or "N-M" (--step): each rank's figures and ops cover those of its
       steps alone (steps_scope), as analyze --step of its file; a rank
       without them fails. NULL: the whole trace. */
    const char *step;
    /* The lookup of one rank (analyze --rank N): each trace is read for its
       rank alone (no model, no figures, on_model not called); the trace of
       the file whose rank is pick_rank stays in its f->tr for the caller,
       the others are freed as soon as their rank is known. */
    bool rank_only;
    int64_t pick_rank;
    ranks_model_fn on_model; /* may be NULL */
    void *ctx;
    /* may be NULL; when it becomes non-zero the loads stop (files not done
       fail with T2P_ERR_CANCELLED): the explorer's Ctrl-C */
    const volatile sig_atomic_t *cancel;
    ranks_progress_fn progress; /* may be NULL */
    void *progress_ctx;
} ranks_load_opts;

#endif
