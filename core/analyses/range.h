/* Time ranges: "what ran between 1.2 s and 1.5 s" as a scope, the same
   kind of thing as a step (core/analyses/steps.h): a per-event keep mask
   for model_opts.keep, and the model built with it.

   The rule (doc/ranges.md, --range's help): an event (operator
   call, runtime call, annotation, Python frame) belongs to the range its
   start lies in, [START, END); then all of its duration counts, its self
   time included, even the part past END. GPU work (kernel, memcpy, memset)
   launched by a CPU event counts with its launch, wherever and whenever it
   ran, so that an operator's device self and total time count the kernels
   it launched; GPU work without a known launch belongs by its own start.
   So ranges that tile the trace split every figure without loss or
   overlap (the rule steps_mask follows for steps).

   Times typed by the user are offsets from the trace's start: the
   window_start of the model of the whole trace (analyze --json's
   window_start_ns). Integer ns throughout. */
#ifndef T2P_RANGE_H
#define T2P_RANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"

/* What the user typed: offsets in ns from the trace's start. */
typedef struct range_spec {
    int64_t start_off;
    int64_t end_off; /* meaningful when has_end */
    bool has_end;    /* false: "START:" runs to the end of the trace */
} range_spec;

/* A range on the trace's clock (the events' ts: relative to tr->base_ns,
   like model.window_start): [start, end). */
typedef struct time_range {
    int64_t start, end;
    int64_t off_start, off_end; /* the same as offsets from the trace's start */
} time_range;

/* Parses "START:END" (either end a decimal number with a unit: ns, us, ms
   or s; "1.2s:1.5s", "120ms:", ":300ms"; an empty START is the trace's
   start, an empty END its end). Returns 0, or -1 with err set (T2P_ERR_ARG:
   no colon, a number without a unit or with an unknown one, END not after
   START). Needs no trace: a front checks the text before loading. */
int range_parse(const char *text, range_spec *out, t2p_error *err);

/* The range of spec in the trace of whole (the model of the whole trace):
   an END past the trace's end stops at it. Returns 0, or -1 with err set
   (T2P_ERR_ARG) when START lies at or past the trace's end. */
int range_resolve(const model *whole, const range_spec *spec, time_range *out, t2p_error *err);

/* A per-event keep mask for model_opts.keep: the events of r by the rule
   above. whole must be a model of the whole trace (its corr_launch finds
   the launches). Returns a new array of tr->nevents bytes (caller frees),
   NULL when out of memory. *kept (may be NULL) gets how many it keeps. */
unsigned char *range_mask(const model *whole, const time_range *r, size_t *kept);

/* The model of r alone: model_build of the trace with base's options and
   range_mask as its keep mask; its scope_note is range_label's. *kept
   (may be NULL) gets how many events the mask keeps, counted as it is
   built. NULL with err set. */
model *range_scope(const model *whole, const time_range *r, const model_opts *base,
                   size_t *kept, t2p_error *err);

/* Marks m (a model of r's events) with r's window (model.scope):
   its memory figures then count the [memory] records in [start, end). */
void range_window(const time_range *r, model *m);

/* "range 1.204–1.517 s" (offsets from the trace's start, in s, ms or us by
   the size of END, three decimals) into buf. Returns buf. */
const char *range_label(const time_range *r, char *buf, size_t size);

/* An offset as the user types it back: "1.2047s", "120ms", "35us",
   "12ns": the shortest exact form. Into buf; returns buf. */
const char *range_offset_text(int64_t ns, char *buf, size_t size);

#endif
