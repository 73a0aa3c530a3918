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

#include "core/base/error.h"
#include "core/analyses/memory.h"
#include "core/model/model.h"
#include "core/model/shortname.h"
/* pprof_same_file, pprof_free_path: the names of profile files */
#include "core/pprof/pprof_path.h"

typedef struct pprof_summary {
    size_t samples, locations, functions, strings;
    uint64_t calls;    /* sum of samples/count */
    int64_t total_ns;  /* sum of time */
    int64_t device_ns; /* sum of device_time */
    uint64_t alloc_objects, inuse_objects; /* sums of the memory sample types */
    int64_t alloc_bytes, inuse_bytes;
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
    bool has_rank;            /* a numeric "rank" label on every sample (-tagfocus rank=3) */
    int64_t rank;
    const shortnames *short_names; /* function names shortened (core/model/shortname.h), the
                                      full name kept as system_name; NULL: full names */
    /* A "step" label (-tagfocus step=1011) on the samples of nodes that hold
       one step's calls: a model built with model_opts.group = steps->ev_step;
       step_labels[i] names step i (steps_label). NULL: no step label. */
    const char *const *step_labels;
    size_t nsteps;
    /* With step_labels or alone: an "input_shape" label per group (NULL
       entries: none), nsteps of them, the shape TensorBoard's Operator view
       groups by (convert --by-shape). step_labels entries may then be NULL
       (a group with no step). */
    const char *const *shape_labels;
    /* Memory figures of m (memory_build(m)): four more sample types, as Go
       heap profiles have them: alloc_objects/count, alloc_space/bytes (the
       allocations made at a stack), inuse_objects/count, inuse_space/bytes
       (those still allocated at the end of the window), on samples of their
       own carrying a "device" label ("CPU", "GPU0"). Records outside any
       operator are samples with an empty stack. NULL: no memory types. */
    const memory *mem;
    /* Python frames (python_function events and Call stack frames) left out
       of every stack, as go tool pprof -hide does: their time goes to their
       caller (the explorer's p, convert --no-python). */
    bool hide_python;
    /* The Python frames but the nn.Module calls (pprof_is_module_op) left
       out the same way: TensorBoard's Module view as stacks, each module's
       flat time the time in none of its operators and modules (its host
       self time), cum its host total, the operators under it. */
    bool modules_only;
    /* The four memory sample types even without mem (values 0): a rank's
       profile has them whether or not the rank recorded [memory] events, so
       that the profiles of a job's ranks merge (pprof merges only profiles
       with the same sample types; go tool pprof -proto rank-*.pb.gz). */
    bool memory_types;
} pprof_opts;

/* Whether op is an nn.Module call: a python_function event named
   "nn.Module: NAME" (the frames of TensorBoard's Module view). */
bool pprof_is_module_op(const model *m, uint32_t op);

/* Writes the profile to out_path through a temp file in the same directory,
   renamed into place; on failure neither remains. Refuses out_path equal to
   the trace file. Returns 0, or -1 with err set. sum may be NULL. */
int pprof_write(const model *m, const pprof_opts *opts, const char *out_path,
                pprof_summary *sum, t2p_error *err);

/* The profile of new minus base: what `go tool pprof -proto -diff_base
   BASE.pb.gz NEW.pb.gz` writes from the two profiles pprof_write writes
   (core/pprof/pprof_merge.c, a merge with the base negated): new's samples, then base's with every value negated
   and the label pprof::base=true (pprof's mark of a base sample), over one
   set of functions (matched by name and file) and the mappings of both.
   base_opts and new_opts select each side's stacks (keep) and add comments;
   new_opts also gives no_overwrite and progress. sum: the net figures. */
int pprof_write_diff(const model *base, const pprof_opts *base_opts, const model *new,
                     const pprof_opts *new_opts, const char *out_path, pprof_summary *sum,
                     t2p_error *err);

/* For the other writers of profiles in core/ (core/pprof/pprof_merge.c);
   not for the fronts. */
struct ProtobufCMessage;

/* m's profile, exactly as pprof_write would write it but not compressed,
   into *out (a new buffer the caller frees) of *len bytes. opts->keep and
   the comments apply. Returns 0, or -1 with err set. */
int pprof_pack_mem(const model *m, const pprof_opts *opts, uint8_t **out, size_t *len,
                   t2p_error *err);

/* Writes msg gzipped to out_path through a temp file renamed into place
   (opts: no_overwrite, progress), refusing an out_path that names one of
   traces[0..ntraces). Returns 0, or -1 with err set. */
int pprof_write_message(const struct ProtobufCMessage *msg, const char *const *traces, size_t ntraces,
                        const pprof_opts *opts, const char *out_path, t2p_error *err);

#endif
