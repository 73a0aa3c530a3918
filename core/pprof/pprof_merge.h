/* Several pprof profiles merged into one, as `go tool pprof -proto a b`
   does: strings, functions and locations shared by value, samples kept side
   by side with their labels (the ranks of a job, each labelled rank=N by
   pprof_opts.has_rank, become one profile that -tagfocus rank=3 cuts back). */
#ifndef T2P_PPROF_MERGE_H
#define T2P_PPROF_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/pprof/pprof.h"

typedef struct pprof_merge pprof_merge;

/* NULL when out of memory. */
pprof_merge *pprof_merge_new(void);
void pprof_merge_free(pprof_merge *pm);

/* m's profile as pprof_write would write it (opts->has_rank labels every
   sample), packed and not compressed, for pprof_merge_add: a new buffer
   (caller frees). Returns 0, or -1 with err set. */
int pprof_merge_pack(const model *m, const pprof_opts *opts, uint8_t **buf, size_t *len,
                     t2p_error *err);

/* Adds a packed, uncompressed profile (pprof_merge_pack's). Its sample types must
   be the first profile's. what names it in errors. Returns 0, or -1 with err
   set (not a profile, other sample types: T2P_ERR_ARG; no memory). */
int pprof_merge_add(pprof_merge *pm, const uint8_t *buf, size_t len, const char *what,
                    t2p_error *err);

/* Writes the merged profile to out_path as pprof_write does, with mapping
   (the name pprof shows as the main file) and extra comment lines, refusing
   an out_path that names one of traces[0..ntraces). sum may be NULL.
   Returns 0, or -1 with err set. */
int pprof_merge_write(pprof_merge *pm, const char *out_path, const char *mapping,
                      const char *const *comments, size_t ncomments,
                      const char *const *traces, size_t ntraces, pprof_summary *sum,
                      t2p_error *err);

#endif
