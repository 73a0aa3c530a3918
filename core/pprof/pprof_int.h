/* What core/pprof/pprof.c lends to other writers of profiles in core/ (the
   comparison's diff profile): not for the fronts. */
#ifndef T2P_PPROF_INT_H
#define T2P_PPROF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/pprof/pprof.h"
#include "core/pprof/profile.pb-c.h"

/* m's profile, exactly as pprof_write would write it but not compressed,
   into *out (a new buffer the caller frees) of *len bytes. opts->keep and
   the comments apply. Returns 0, or -1 with err set. */
int pprof_pack_mem(const model *m, const pprof_opts *opts, uint8_t **out, size_t *len,
                   t2p_error *err);

/* Writes msg gzipped to out_path through a temp file renamed into place
   (opts: no_overwrite, progress), refusing an out_path that names one of
   traces[0..ntraces). Returns 0, or -1 with err set. */
int pprof_write_message(const ProtobufCMessage *msg, const char *const *traces, size_t ntraces,
                        const pprof_opts *opts, const char *out_path, t2p_error *err);

#endif
