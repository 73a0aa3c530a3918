/* analyze's Kernels sections (TensorBoard's Kernel view and GPU summary,
   core/analyses/kernels.h): "kernels", "kernels_by_op" and "gpus", as text
   and as --json members; and --kernels (those sections alone). */
#ifndef T2P_ANALYZE_KERNELS_H
#define T2P_ANALYZE_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/analyses/kernels.h"

/* The three tables, top rows each (0: every row), of kr: the kernels of
   the model the report is on (the trace's, or a --step or --range window
   of it). Prints nothing for a trace without kernels. skr (NULL: none)
   is kernels_build_in's over a scope of stacks (--focus, --filter, ...):
   the kernel tables are then skr's, the GPU summary (a property of the
   device, not of a stack) kr's, and the headers say which is which and
   what kr covers: the trace, or its --step or --range window. */
void analyze_kernels_text(FILE *f, const kernels *kr, const kernels *skr, size_t top);

/* ,"kernels":[...],"kernels_by_op":[...],"gpus":[...],"kernels_info":{...}:
   members to put inside the report's object; top rows (0: every row).
   kr, skr as above: "gpus" from kr; with skr, "kernels_info" gets
   "scope":"stacks" and kr's "all_events" / "all_total_ns" beside the
   scope's, with "all_of" saying what they cover: "trace", or the --step
   or --range window (the scoped model's scope_note, "Step 7",
   "range 1.000-2.000 ms"). */
void analyze_kernels_json(FILE *f, const kernels *kr, const kernels *skr, size_t top);

/* --kernels: the whole report is those sections: text (saying so when
   there is no kernel), or a JSON object with "file" and the members above;
   kr, skr as above (--kernels --focus). */
void analyze_kernels_only(FILE *f, const kernels *kr, const kernels *skr, size_t top,
                          bool json);

#endif
