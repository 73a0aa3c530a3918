/* analyze --base: the report of what changed between two traces. */
#ifndef T2P_ANALYZE_COMPARE_H
#define T2P_ANALYZE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model/model.h"

typedef struct analyze_compare_opts {
    const char *base_path, *new_path;
    const char *sort;   /* a compare_sort name; NULL: delta_self */
    size_t top;         /* operations to list; 0: all */
    bool json, partial, per_step;
    /* steps to compare (N or N-M): base_step of BASE (of TRACE when
       base_path is NULL), step of TRACE; NULL: the whole trace */
    const char *base_step, *step;
    model_opts mo;
} analyze_compare_opts;

/* Loads both traces (in parallel), prints the report; returns the exit code. */
int analyze_compare(const analyze_compare_opts *o);

#endif
