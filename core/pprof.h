/* pprof export: the model (or a selection of its stacks) as a gzipped
   profile.proto, in memory linear in the call tree (samples are packed as the
   tree is walked). One sample per per-track call-tree node:
   samples/count = calls ending at that stack, time/nanoseconds = their self
   time, device_time/nanoseconds = GPU time whose stack ends there. */
#ifndef T2P_PPROF_H
#define T2P_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/model.h"

typedef struct pprof_summary {
    size_t samples, locations, functions, strings;
    uint64_t calls;    /* sum of samples/count */
    int64_t total_ns;  /* sum of time */
    int64_t device_ns; /* sum of device_time */
} pprof_summary;

/* Called every few million stack entries while the profile is written (done
   of total); return non-zero to cancel: pprof_write then fails with
   T2P_ERR_CANCELLED and leaves nothing behind. */
typedef int (*pprof_progress_fn)(uint64_t done, uint64_t total, void *ctx);

typedef struct pprof_opts {
    const uint8_t *keep;      /* mask over model->nodes from select_nodes; NULL: every stack */
    const char *tool_version; /* for the profile's comments */
    bool no_overwrite;        /* fail with T2P_ERR_IO (EEXIST) rather than replace out_path */
    const char *const *comments; /* more lines for the profile's comments (the selection) */
    size_t ncomments;
    pprof_progress_fn progress; /* may be NULL */
    void *progress_ctx;
} pprof_opts;

/* Writes the profile to out_path through a temp file in the same directory,
   renamed into place; on failure neither remains. Refuses out_path equal to
   the trace file. Returns 0, or -1 with err set. sum may be NULL. */
int pprof_write(const model *m, const pprof_opts *opts, const char *out_path,
                pprof_summary *sum, t2p_error *err);

/* The first of DIR/NAME.pb.gz, DIR/NAME-1.pb.gz, ... that does not exist,
   NAME being the trace's file name without .json/.gz/.pt.trace endings.
   Returns a new string (caller frees) or NULL when out of memory. */
char *pprof_free_path(const char *dir, const char *trace_path);

#endif
