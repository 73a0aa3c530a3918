/* torch2pprof convert over several ranks: one profile whose every sample
   carries a rank label. */
#ifndef T2P_CONVERT_RANKS_H
#define T2P_CONVERT_RANKS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model/model.h"
#include "core/model/select.h"

typedef struct convert_ranks_opts {
    const select_spec *sel;      /* NULL: every stack */
    const char *const *comments; /* the selection, for the profile's comments */
    size_t ncomments;
    bool partial;
    unsigned jobs;               /* 0: one per core */
    bool short_names;            /* --short-names */
    const char *step;            /* --step N[-M] of each rank, or NULL */
    bool no_memory;              /* --no-memory: time sample types only */
    model_opts mo;
} convert_ranks_opts;

/* Converts the traces (or directories) args[0..nargs) into the profile
   out. Returns the exit code. */
int convert_ranks(const convert_ranks_opts *o, int nargs, char **args, const char *out);

#endif
