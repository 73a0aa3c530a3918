/* convert's steps: a step label on every sample of a trace with
   ProfilerStep#, and --step N[-M]'s scope. */
#ifndef T2P_CONVERT_STEPS_H
#define T2P_CONVERT_STEPS_H

#include <stdbool.h>

#include "core/model/model.h"
#include "core/analyses/steps.h"

typedef struct convert_steps {
    model *whole;        /* the first model, kept for st (NULL when *m was not replaced) */
    steps *st;
    const char **labels; /* per step: its number, for pprof_opts.step_labels */
    size_t nlabels;
    char comment[200];   /* "scope: step 1011 (...)" for the profile's comments, or "" */
} convert_steps;

/* Replaces *m (the whole trace's model, built with *mo) by one whose nodes
   keep each step's calls apart, scoped to spec's steps when spec is not
   NULL. A trace without ProfilerStep# keeps *m. Returns 0, or -1 after
   printing why (*usage_error: a step the trace lacks). cs is caller storage;
   release it with convert_steps_done. */
int convert_steps_prepare(convert_steps *cs, model **m, const model_opts *mo, const char *spec,
                          bool *usage_error);

/* The same scoped to --range's text (with no --step): the events of the
   range (core/analyses/range.h), each step's calls still apart. The range
   shows in the profile through its command (the first comment). */
int convert_steps_prepare_range(convert_steps *cs, model **m, const model_opts *mo,
                                const char *range_text, bool *usage_error);

/* Frees what prepare made (and the first model). */
void convert_steps_done(convert_steps *cs);

#endif
