/* torch2pprof convert over several ranks: one profile whose every sample
   carries a rank label. */
#ifndef T2P_CONVERT_RANKS_H
#define T2P_CONVERT_RANKS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model/model.h"
#include "core/pprof/export.h"

typedef struct convert_ranks_opts {
    const export_args *args;     /* the scope and the comments (the command first) */
    bool selecting;              /* args select stacks: the summary says of how much */
    bool partial;
    unsigned jobs;               /* 0: one per core */
    bool has_rank;               /* --rank: that rank alone */
    int64_t rank;
    model_opts mo;
} convert_ranks_opts;

/* Converts the traces (or directories) args[0..nargs) into the profile
   out. Returns the exit code. */
int convert_ranks(const convert_ranks_opts *o, int nargs, char **args, const char *out);

#endif
