/* torch2pprof convert over several ranks: one profile whose every sample
   carries a rank label. */
#ifndef T2P_CONVERT_RANKS_H
#define T2P_CONVERT_RANKS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model.h"
#include "core/select.h"

typedef struct convert_ranks_opts {
    const select_spec *sel;      /* NULL: every stack */
    const char *const *comments; /* the selection, for the profile's comments */
    size_t ncomments;
    bool partial;
    unsigned jobs;               /* 0: one per core */
    bool short_names;            /* --short-names */
    const char *step;            /* --step N[-M] of each rank, or NULL */
    model_opts mo;
} convert_ranks_opts;

/* Whether convert's operands (inputs then OUT) call for the many-ranks
   profile: several inputs, or a directory. */
bool convert_ranks_wanted(int nargs, char **args);

/* Converts args[0..nargs-1) into the profile args[nargs-1]. Returns the exit
   code. */
int convert_ranks(const convert_ranks_opts *o, int nargs, char **args);

#endif
