/* The profile of one trace in a scope: what `torch2pprof convert TRACE`
   writes and what the explorer's e writes, by one function, so that the
   command the explorer records in the profile writes that profile again.

   The scope comes as the command line spells it (core/model/scope.h):
   the entries are resolved by name in the model that is written, so a
   step's model, a rebuilt model and the explorer's own all read them the
   same way. */
#ifndef T2P_EXPORT_H
#define T2P_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/load/trace.h"
#include "core/model/model.h"
#include "core/pprof/export_shape.h"
#include "core/pprof/pprof.h"

struct steps;

/* One scope entry as an option: opt "focus", "category" or "track". */
typedef struct export_entry {
    const char *opt;
    const char *val;
} export_entry;

typedef struct export_args {
    const char *step;             /* "N" or "N-M": those steps alone; NULL: every step */
    const char *range;            /* "START:END" (core/analyses/range.h): that window alone;
                                     NULL: the whole trace (never with step) */
    const struct steps *steps;    /* export_trace: the steps of its whole model when the
                                     caller has them (core/analyses/derived.h), not built
                                     again; NULL: built there */
    const export_entry *entries;  /* the focus stack, outermost first */
    size_t nentries;
    const char *filter;           /* name filter (smart case); NULL or "": none */
    const char *ignore_re;        /* drop stacks with a frame matching (POSIX ERE); NULL: none */
    const char *thread_re;        /* keep stacks of tracks whose label matches; NULL: none */
    bool short_names;             /* core/model/shortname.h names, full ones as system names */
    bool hide_python;             /* no Python frames in the stacks (pprof_opts.hide_python) */
    bool no_memory;               /* no heap sample types even with [memory] records */
    /* What a view shows rather than every stack (the explorer's e there): */
    bool kernels;                 /* GPU kernels alone, each at the stack that launched it
                                     (and on its stream): the Kernels view; filter then tests
                                     the kernel's name alone, as that view's filter does */
    const char *kernel;           /* with kernels: that kernel alone (its exact name); NULL:
                                     every kernel */
    bool by_shape;                /* the Ops view by input shape: the operator calls of
                                     TensorBoard's tree at the stacks of that tree, each
                                     labelled input_shape (core/pprof/export_shape.h); the
                                     filter tests the operator's name, as that view's does */
    bool modules;                 /* the stacks through an nn.Module call, with the Python
                                     frames but the modules hidden (pprof_opts.modules_only):
                                     the Modules view */
    bool has_rank;                /* a rank label on every sample */
    int64_t rank;
    const char *const *comments;  /* the profile's comments (the command first) */
    size_t ncomments;
    const char *tool_version;
    bool no_overwrite;            /* fail (EEXIST) rather than replace out */
    pprof_progress_fn progress;   /* may be NULL */
    void *progress_ctx;
} export_args;

/* A trace that ended early (loaded with partial): its path and why. */
typedef struct export_cut {
    char *path, *reason;
} export_cut;

typedef struct export_result {
    pprof_summary sum;
    bool selecting;       /* some entry, filter or pattern selected stacks */
    bool memory;          /* the heap sample types are in */
    int64_t busy_ns;      /* the written model's self time over all tracks (a job: its
                             written ranks') */
    bool gpu;             /* the trace has GPU events (a job: some written rank has) */
    char step_note[200];  /* "scope: step 1011 (...)", or "" */
    /* export_run alone fills what follows (it zeroes *res first;
       export_trace and export_diff leave these as they find them): */
    bool job;             /* the inputs were a job: nranks ranks written */
    size_t nranks;
    bool diff;            /* the inputs were a pair: new minus base */
    /* every trace that ended early (loaded with partial), in the inputs'
       order: one trace's or a pair's once written, a job's ranks' as
       loaded (also when the job then fails); the caller tells them. Owned
       (export_result_done) */
    export_cut *truncated;
    size_t ntruncated, cap_truncated;
    /* on failure: the error is the caller's mistake about the scope (an
       entry, a --step or --rank the input lacks), not the input's; the
       command names it ("torch2pprof convert: REASON") */
    bool scope_error;
} export_result;

/* Frees what export_run left in res (the truncated traces). */
void export_result_done(export_result *res);

/* The stacks a's entries, filter and patterns (a->entries, filter,
   ignore_re, thread_re) keep in m: a new mask over m->nodes in *keep
   (caller frees; NULL: every stack), *selecting when any of them is set.
   Returns 0, or -1 with err set (a bad pattern: T2P_ERR_ARG). */
int export_select(const model *m, const export_args *a, uint8_t **keep, bool *selecting,
                  t2p_error *err);

/* Whether each of a's entries, alone, keeps some stack of m: an entry that
   names nothing (an operator, category or track m lacks, a --focus that
   is no call path and matches no frame) is the caller's mistake, not an
   empty scope. Returns 0, or -1 with err set (T2P_ERR_MISSING, the reason
   naming the option; a bad pattern: T2P_ERR_ARG). What analyze checks
   before it reports on a scope. */
int export_check_entries(const model *m, const export_args *a, t2p_error *err);

/* whole in a's scope, ready to write: what every writer of a profile here
   (export_trace, each side of export_diff, export_rank_pack) makes the same
   way, so that a scope (--step, --range, --by-shape, the entries) means one
   thing in all of them. Caller storage: export_prepare fills it,
   export_piece_done frees what it holds; it must not move in between
   (po points into it). */
typedef struct export_piece {
    const model *m;          /* the model to write: whole, or one built for the scope */
    const struct steps *st;  /* whole's steps (the caller's, or own_st) */
    pprof_opts po;           /* keep, names, labels, memory and a's flags; comments: a's,
                                then step_note; the rank label a's (has_rank, rank) */
    bool selecting;          /* some entry, filter or pattern selected stacks */
    char step_note[200];     /* "scope: step 1011 (...)" with a->step, else "" */
    /* owned: */
    model *grouped;
    struct steps *own_st;
    const char **labels, **comments;
    unsigned char *mask;
    uint8_t *keep;
    shortnames *sn;
    memory *mem;
    export_shape shape;      /* a->by_shape: the model written, its groups' labels */
} export_piece;

/* Fills *p with whole (a model of the whole trace, built with mo) in a's
   scope. st: whole's steps, or NULL to build them here. a->step and
   a->range are refused together (T2P_ERR_ARG); a malformed --step or
   --range, a step the trace lacks (T2P_ERR_MISSING) or a START past the
   trace's end are errors. Returns 0, or -1 with err set; either way call
   export_piece_done. */
int export_prepare(const model *whole, const struct steps *st, const model_opts *mo,
                   const export_args *a, export_piece *p, t2p_error *err);
void export_piece_done(export_piece *p);

/* Writes the profile of tr in a's scope to out (pprof_write: a temp file
   renamed into place). whole is tr's model built with mo, or NULL to build
   it here. Errors: T2P_ERR_ARG for a malformed --step or a bad pattern,
   T2P_ERR_MISSING for a step the trace lacks (the reason lists the steps
   it has), else what loading, selecting or writing met. Returns 0, or -1
   with err set. */
int export_trace(const model *whole, const trace *tr, const model_opts *mo, const export_args *a,
                 const char *out, export_result *res, t2p_error *err);

/* The profile of new minus base (pprof's -diff_base convention: base's
   samples negated, labelled pprof::base=true), each side as export_trace
   writes it in a's scope; the heap sample types when both sides have
   [memory] records (res->memory; pprof diffs only profiles with the same
   sample types). base_whole and new_whole are the two traces' models,
   built with mo. What `convert --base BASE TRACE` and the explorer's e in
   compare mode write. Returns 0, or -1 with err set. */
int export_diff(const model *base_whole, const model *new_whole, const model_opts *mo,
                const export_args *a, const char *out, export_result *res, t2p_error *err);

struct ranks_file;
struct ranks_job;
struct steps;

/* One rank's piece of a job's profile (several traces or a directory):
   whole (the rank's model) in a's scope, labelled rank=N and step=N,
   packed uncompressed for pprof_merge_add into f->out (f->out_len), and
   f->st.busy_ns's share of the selection in *busy. st: whole's steps. What
   `convert DIR` makes of each rank on the worker that loaded it, and what
   the explorer's All ranks export makes of each loaded rank. Returns 0, or
   -1 with err set. */
int export_rank_pack(struct ranks_file *f, const model *whole, const struct steps *st,
                     const model_opts *mo, const export_args *a, t2p_error *err);

/* The job's profile from the loaded ranks' pieces (export_rank_pack), in
   rank order, written to out: one profile whose samples carry rank=N.
   Frees each piece once merged. a gives the comments (the command first)
   and the step; sum the net figures. Returns 0, or -1 with err set. */
int export_job_write(struct ranks_job *j, const export_args *a, const char *out,
                     pprof_summary *sum, t2p_error *err);

/* What export_run reads: one trace, a job (several traces, directories,
   or one trace with a rank picked) or a pair (base set). */
typedef struct export_inputs {
    const char *const *paths;     /* the traces and directories as given */
    size_t npaths;
    bool job;                     /* a job even of one trace (a directory, --rank) */
    bool has_rank;                /* with job: that rank's piece alone */
    int64_t rank;
    const char *base;             /* the pair: paths[0] minus base; NULL: none */
    bool partial;                 /* a trace that ends early loads what was read */
    model_opts mo;
    unsigned jobs;                /* threads at work (--jobs): one trace's tokenisers and
                                     model passes (0 or 1: one), a job's workers (0: one
                                     per core), a pair's (pair_load_opts.jobs) */
} export_inputs;

/* What export_run has to tell while it runs, before it returns: the
   caller prints them as they come (a job's notes come before its long
   load). The traces that ended early are no such news: they are in
   export_result.truncated. */
typedef enum export_tell_kind {
    EXPORT_TELL_NOTE,        /* a file of a job's directories left out (e) */
    EXPORT_TELL_EMPTY,       /* an entry selects nothing: the profile is empty (e) */
    EXPORT_TELL_FAILED,      /* a rank's trace failed to load (e): left out with
                                partial, else the run fails once all are told */
} export_tell_kind;
/* path: FAILED's trace (NULL for the others); e: what is told. */
typedef void (*export_tell_fn)(void *ctx, export_tell_kind kind, const char *path,
                               const t2p_error *e);

/* The one path of `torch2pprof convert`: loads in's inputs, writes their
   profile in a's scope to out (export_trace, export_job_write or
   export_diff), fills *res for the summary. One trace's rank labels its
   samples. tell (may be NULL) hears what is told on the way. Returns 0, or
   -1 with err set (res->scope_error: the scope's fault); either way call
   export_result_done. */
int export_run(const export_inputs *in, const export_args *a, const char *out,
               export_tell_fn tell, void *tell_ctx, export_result *res, t2p_error *err);

#endif
