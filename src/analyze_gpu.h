/* analyze: the GPU section (HTA's analyses, core/analyses/hta.h) as text
   and as members of the --json object. */
#ifndef T2P_ANALYZE_GPU_H
#define T2P_ANALYZE_GPU_H

#include <stdio.h>

#include "core/analyses/hta.h"

/* The GPU section: the window, the temporal breakdown, the kernel types,
   per stream the idle split, launch delay and queue length, the launch
   outliers, the frequent kernel sequences and what was left out. Fitted to
   f's width. Prints nothing for a trace without GPU events. */
void analyze_gpu_text(FILE *f, const hta *h);

/* ,"gpu_window":{...},"temporal":{...},"kernel_types":[...],
   "kernels_by_type":[...],"idle":[...],"launch":{...},"queue":[...],
   "kernel_sequences":{...} (with the leading comma). */
void analyze_gpu_json(FILE *f, const hta *h);

#endif
