/* analyze's Kernels sections (TensorBoard's Kernel view and GPU summary,
   core/analyses/kernels.h): "kernels", "kernels_by_op" and "gpus", as text
   and as --json members; and --kernels (those sections alone). */
#ifndef T2P_ANALYZE_KERNELS_H
#define T2P_ANALYZE_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/analyses/kernels.h"

/* The three tables, top rows each (0: every row). Prints nothing for a
   trace without kernels. Under a scope of stacks (--focus, --filter, ...)
   k is kernels_build_in's over the scope and whole the unscoped build:
   the kernel tables are the scope's, the GPU summary (a property of the
   device, not of a stack) whole's, and the headers say which is which
   and what whole covers: the trace, or its --step or --range window.
   whole NULL: no scope of stacks, everything from k. */
void analyze_kernels_text(FILE *f, const kernels *k, const kernels *whole, size_t top);

/* ,"kernels":[...],"kernels_by_op":[...],"gpus":[...],"kernels_info":{...}:
   members to put inside the report's object; top rows (0: every row).
   whole as above: "gpus" from it, "kernels_info" gets "scope":"stacks" and
   whole's "all_events" / "all_total_ns" beside the scope's, with "all_of"
   saying what they cover: "trace", or the --step or --range window
   (k->m's scope_note, "Step 7", "range 1.000-2.000 ms"). */
void analyze_kernels_json(FILE *f, const kernels *k, const kernels *whole, size_t top);

/* --kernels: the whole report is those sections: text, or a JSON object
   with "file" and the members above; whole as above (--kernels --focus). */
void analyze_kernels_only(FILE *f, const kernels *k, const kernels *whole, size_t top,
                          bool json);

#endif
