/* pprof export: the model (or a selection of its stacks) as a gzipped
   profile.proto. One sample per per-track call-tree node:
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

typedef struct pprof_opts {
    const uint8_t *keep;      /* mask over model->nodes from select_nodes; NULL: every stack */
    const char *tool_version; /* for the profile's comments */
    bool no_overwrite;        /* fail with T2P_ERR_IO (EEXIST) rather than replace out_path */
    const char *const *comments; /* more lines for the profile's comments (the selection) */
    size_t ncomments;
    bool has_rank;            /* a numeric "rank" label on every sample (-tagfocus rank=3) */
    int64_t rank;
} pprof_opts;

/* Writes the profile to out_path through a temp file in the same directory,
   renamed into place; on failure neither remains. Refuses out_path equal to
   the trace file. Returns 0, or -1 with err set. sum may be NULL. */
int pprof_write(const model *m, const pprof_opts *opts, const char *out_path,
                pprof_summary *sum, t2p_error *err);

/* For merging profiles (core/pprof_merge): m's profile as pprof_write would
   write it, packed but not compressed, in a new buffer (*buf, caller frees).
   Returns 0, or -1 with err set. */
int pprof_pack(const model *m, const pprof_opts *opts, uint8_t **buf, size_t *len,
               t2p_error *err);

/* Writes a built profile as pprof_write does (gzip, temp file, rename). */
struct Perftools__Profiles__Profile;
int pprof_write_profile(const struct Perftools__Profiles__Profile *prof, const char *out_path,
                        bool no_overwrite, t2p_error *err);

/* Whether out names the file at path (same inode, or same resolved path). */
bool pprof_same_file(const char *path, const char *out);

/* The first of DIR/NAME.pb.gz, DIR/NAME-1.pb.gz, ... that does not exist,
   NAME being the trace's file name without .json/.gz/.pt.trace endings.
   Returns a new string (caller frees) or NULL when out of memory. */
char *pprof_free_path(const char *dir, const char *trace_path);

#endif
