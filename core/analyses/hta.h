/* HTA's GPU analyses (Holistic Trace Analysis, facebookresearch), exact in
   ns: the temporal breakdown, the kernel-type split, idle time per stream,
   launch delay, queue length per stream and frequent kernel sequences.
   The definitions are HTA's (doc/gpu-hta.md); the figures
   equal HTA's own on the traces of tests/fixtures/hta/ (recorded by
   tests/fixtures/hta/record.py), within 1 us per row.

   Input: a model of the whole trace (GPU attribution by correlation from
   core/analyses/gpu.h, categories from core/model/catkind.h) and a keep
   mask (the scope contract of model_opts.keep: steps_mask(), a range mask;
   NULL: the whole trace). Without a mask the window is HTA's: a trace with
   two or more distinct ProfilerStep#N loses its last step (CPU events from
   the last step's start on, and the GPU work they launched); with a mask the
   mask is the window.

   Built in O(n log n) with a few arrays per analysis (no per-event malloc).
   Every front reads these figures; none recomputes them. */
#ifndef T2P_HTA_H
#define T2P_HTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"

#include "core/analyses/hta_types.h"
#include "core/analyses/hta_kind.h"

/* HTA's defaults above. */
void hta_opts_default(hta_opts *o);

/* Builds the analyses of m (a model of the whole trace, which must outlive
   them) over keep's events (NULL: a scoped model's own mask, model.keep;
   for an unscoped one, HTA's window). opts NULL: defaults.
   NULL with err set when out of memory. */
hta *hta_build(const model *m, const unsigned char *keep, const hta_opts *opts,
               t2p_error *err);
void hta_free(hta *h);

/* A stream's launches (by delay desc) and their number. */
const hta_launch *hta_stream_launches(const hta *h, size_t stream, size_t *n);

/* Whether a launch is an outlier: delay or call past the cutoffs. */
bool hta_launch_outlier(const hta *h, const hta_launch *l);

/* "pid 0 / stream 7": a stream's label into buf. */
const char *hta_stream_label(const hta *h, size_t stream, char *buf, size_t size);

/* The device of a stream: the pid of its track as the trace gives it. */
const char *hta_stream_device(const hta *h, size_t stream);

/* A short sentence saying which window the figures cover, into buf. */
const char *hta_window_text(const hta *h, char *buf, size_t size);

#endif
