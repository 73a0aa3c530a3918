/* Two traces loaded at once, one worker thread each: what a comparison
   needs in about the time of one load. */
#ifndef T2P_PAIR_H
#define T2P_PAIR_H

#include <stdbool.h>

#include "core/base/error.h"
#include "core/model/model.h"
#include "core/analyses/steps.h"
#include "core/load/trace.h"

typedef struct pair_load_opts {
    bool partial;               /* as trace_load_opts.partial, for both */
    model_opts mo;              /* for both models */
    bool steps;                 /* build each side's steps too (pair_side.st) */
    /* Called, never two calls at once, with the two loads' progress added
       up (one progress bar); non-zero cancels both. May be NULL. */
    trace_progress_fn progress;
    void *progress_ctx;
    /* --jobs: 1 loads one side after the other on the calling thread;
       otherwise (0: as 2) each side on its own thread, tokenised by
       jobs / 2 threads */
    unsigned jobs;
} pair_load_opts;

/* One side: its trace, model and, with pair_load_opts.steps, its steps
   (all owned by the caller once pair_load returns 0). */
typedef struct pair_side {
    trace *tr;
    model *m;
    steps *st; /* NULL unless pair_load_opts.steps */
} pair_side;

/* Loads paths[0] and paths[1] and builds their models (and steps), each
   side wholly on its own thread, so that on two cores a comparison costs
   about one load. On success returns 0 with both sides filled. On failure
   returns -1, frees whatever was loaded and sets err to the first failure
   (a failing side cancels the other). */
int pair_load(const char *const paths[2], const pair_load_opts *o, pair_side out[2],
              t2p_error *err);

#endif
