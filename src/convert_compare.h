/* convert --base: the diff profile of two traces. */
#ifndef T2P_CONVERT_COMPARE_H
#define T2P_CONVERT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model/model.h"
#include "core/pprof/export.h"

typedef struct convert_compare_opts {
    const char *base_path, *new_path, *out_path;
    bool partial;
    model_opts mo;
    const export_args *args; /* the scope (applied to both traces) and the comments */
} convert_compare_opts;

/* Loads both traces (in parallel), writes TRACE minus BASE; returns the exit
   code. When both traces have [memory] records (and not no_memory), the
   profile has the heap sample types too, as each side's convert gives them;
   when only one has, neither side gets them (pprof diffs only profiles with
   the same sample types). */
int convert_compare(const convert_compare_opts *o);

#endif
