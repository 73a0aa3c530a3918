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

#include "core/analyses/steps_types.h"
#include "core/analyses/steps_rec.h"

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

/* How many ProfilerStep# calls m holds, by steps_build's rule
   (catkind_is_step), from its operators alone (no steps_build): for a
   front deciding what to show first. */
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

/* The steps a time window [start, end) (a range) shows: those whose host
   window [ProfilerStep#N ts, ts + dur) overlaps it, steps[*lo .. *hi) (the
   steps are in time order and do not overlap each other); none for a
   whole-trace step. What analyze's Steps table and the explorer's Steps
   view list under --range, each step with its whole figures, as a
   timeline's area selection shows every slice it touches. */
void steps_overlapping(const steps *s, int64_t start, int64_t end, size_t *lo, size_t *hi);

/* The index of the step whose window holds time t (host: its host window
   [ProfilerStep#N ts, ts + dur); else its window, moved to the device side
   when the GPU is used), or STEPS_NONE (no such step, a whole-trace step,
   s NULL): the one rule of "which step is this time in", which ev_step
   follows. O(log steps). */
uint32_t steps_at(const steps *s, int64_t t, bool host);

/* steps_at's rule over any n windows sorted by start: element i is size
   bytes after element i - 1 and holds its window [start, end) as int64_t
   at byte offsets so and eo (offsetof). The index of the window that holds
   t, the latest-starting of the four starting last by t, or STEPS_NONE.
   For fronts that keep the step windows in an array of their own (the
   timeline's marks), so that they answer as steps_at does. */
uint32_t steps_window_at(const void *w, size_t n, size_t size, size_t so, size_t eo, int64_t t);

/* Marks m (a model of steps first..last) with their time window,
   [first's host start, last's host end): what its memory figures cover
   (model.scope). Nothing for indices out of range. */
void steps_window(const steps *s, size_t first, size_t last, model *m);

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

#endif
