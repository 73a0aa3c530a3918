/* One trace tokenised on several threads (core/load/trace_par.c). Private
   to core/load/: trace_load (trace.c) calls it. */
#ifndef T2P_TRACE_PAR_H
#define T2P_TRACE_PAR_H

#include "core/base/error.h"
#include "core/load/trace_types.h"

/* Loads a regular file on opts->jobs tokenising threads into t (zeroed,
   the caller's: it frees t either way, with trace_free). Returns 0, or -1
   with err set on any error: the caller then loads it again on one thread,
   which says what is wrong exactly as it always did (but not after a
   cancel). */
int trace_load_par(trace *t, const char *path, const trace_load_opts *opts, t2p_error *err);

#endif
