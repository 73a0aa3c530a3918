/* The model's records (core/model/model.h builds them and says what they
   mean): apart from the functions so that the parts of the build that
   model.c calls (GPU attribution, core/analyses/gpu.c) can fill them
   without depending on model.c, which depends on them. Include
   core/model/model.h, not this, unless you are such a part. */
#ifndef T2P_MODEL_TYPES_H
#define T2P_MODEL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/load/trace.h"

#define MODEL_NONE UINT32_MAX

typedef struct model_opts {
    bool keep_steps; /* keep ProfilerStep#N apart instead of merging them as ProfilerStep* */
    bool no_python;  /* no Python frames: args["Call stack"] ignored (calls of one operator
                        under one parent are one node whatever Python code made them),
                        python_function events left out (their time is their caller's) */
    /* A scope: per trace event, non-zero to count it (NULL: every event),
       e.g. steps_mask() for one step. Events outside the scope count for
       nothing (calls, self, total, device time, tracks, window) but still
       nest: a counted event keeps its self time (dur less all its children)
       and its stack, through callers outside the scope, which then show
       with no calls. Read only while model_build runs. */
    const unsigned char *keep;
    /* Groups: per trace event, a group id or MODEL_NONE (NULL: none), e.g.
       steps->ev_step. The per-track trees then keep each group's calls
       apart (a node holds the calls of one group: model_node.group), so
       that pprof can label each sample with its step. Read only while
       model_build runs. */
    const uint32_t *group;
    /* Keep what model_regroup needs (model.nest_order, track_start,
       ev_parent: 8 bytes an event) in an unscoped model. */
    bool keep_nesting;
    /* Threads model_build may run beside the calling one, less one (0 or 1:
       none, the single-thread path). Figures do not depend on it. */
    unsigned jobs;
} model_opts;

/* What a scoped model stands for (model.scope). STEPS: steps first..last
   (indices into the steps of the whole trace, core/analyses/steps.h) and
   their host window [start, end); RANGE: the time range [start, end) on the
   trace's clock (core/analyses/range.h), off_start/off_end the same as
   offsets from the trace's start. NONE: the whole trace, or a mask that
   stands for no window (a focus); no field is meaningful then. memory_build
   counts the [memory] records of [start, end) alone when kind != NONE. */
enum model_scope_kind { MODEL_SCOPE_NONE, MODEL_SCOPE_STEPS, MODEL_SCOPE_RANGE };

typedef struct model_scope {
    enum model_scope_kind kind;
    size_t first, last;
    int64_t start, end;
    int64_t off_start, off_end;
} model_scope;

/* An operator: every call with the same (name, category). */
typedef struct model_op {
    uint32_t name; /* strtab id; "ProfilerStep*" for merged steps */
    uint32_t cat;  /* strtab id */
    uint64_t calls;
    int64_t self_ns, total_ns, min_ns, max_ns;
    /* Time with the op anywhere on the stack (pprof's cum): the self time of
       every per-track stack holding it at least once. Equals total_ns unless
       the op runs inside itself (recursion: cum < total, since total counts
       the nested calls again, as PyTorch's table does) or a call's children
       overlap each other (cum > total: each child's self time counts). */
    int64_t cum_ns;
    int64_t dev_self_ns;  /* GPU time launched directly by this operator */
    int64_t dev_total_ns; /* GPU time launched by it or anything under it, once per GPU event */
    bool overlap;         /* some call had direct children overlapping each other */
    bool gpu;             /* GPU work (kernel, memcpy, memset) */
} model_op;

typedef struct model_cat {
    uint32_t name;
    uint64_t calls;
    int64_t self_ns, total_ns;
    int64_t dev_self_ns;
} model_cat;

/* Per trace track (same index as trace->tracks). */
typedef struct model_track {
    uint64_t events;
    int64_t busy_ns;    /* the time it was busy: union_ns (never more than its
                           span, even when events overlap partly) */
    int64_t self_ns;    /* the sum of its events' self time (its pprof total): more
                           than busy_ns by what partial overlaps count twice */
    int64_t first_ns, last_ns; /* first start, last end */
    int64_t union_ns;   /* time covered by at least one event */
    int64_t max_gap_ns; /* largest idle gap between covered intervals */
    uint32_t root;      /* its root node in model->nodes */
    uint32_t stream;    /* its entry in model->streams when it carries GPU work, else MODEL_NONE */
} model_track;

/* A node of a call tree: a path of operators from a root. */
typedef struct model_node {
    uint32_t op;     /* index into model->ops; MODEL_NONE for a root */
    uint32_t parent; /* MODEL_NONE for a root */
    uint32_t first_child, next_sibling;
    uint32_t track;  /* the track of a per-track node; MODEL_NONE in the merged tree */
    uint32_t depth;  /* 0 for a root */
    bool gpu;        /* GPU work placed under the launch that caused it */
    uint32_t group;  /* 1 + the group of its calls (model_opts.group), 0 none; a GPU
                        node has its launch's */
    uint32_t stream; /* a GPU node: the stream track its events ran on (a launch whose
                        work ran on several streams has one GPU node per stream);
                        MODEL_NONE otherwise and in the merged tree */
    uint64_t calls;  /* CPU calls; 0 for a GPU node */
    int64_t self_ns, total_ns;
    /* Device figures. A GPU event's stack ends at its GPU node under the
       launch, or at its own node on its stream when no launch is known: that
       node alone holds it in dev_events/dev_leaf_ns (so sums over nodes count
       each GPU event once). A GPU op's nodes, under the launch and on the
       stream alike, show what its op shows: dev_self 0, dev_total its time. */
    uint64_t dev_events; /* GPU events whose stack ends here */
    int64_t dev_leaf_ns; /* their GPU time: the pprof flat device time of this stack */
    int64_t dev_self_ns; /* GPU time launched directly by this node's calls */
    int64_t dev_total_ns;/* GPU time launched at or below this node; on a GPU op's
                            node, its own GPU time */
} model_node;

/* A GPU stream: a track that carries GPU work. */
typedef struct model_stream {
    uint32_t track;
    uint64_t gpu_events;
    int64_t busy_ns;    /* union of its GPU events' intervals */
    int64_t max_gap_ns; /* largest idle gap between them */
} model_stream;

typedef struct model {
    const trace *tr; /* not owned */
    model_opts opts; /* opts.keep and opts.group are NULL once built */
    /* The scope as data, for every reader that asks "which events, which
       steps, which time": keep is model_opts.keep's copy, or the mask
       model_build_keep took (per trace event, non-zero when counted; NULL
       when unscoped: model_is_scoped), scope says what it stands for (set
       by steps_scope, range_scope or who else scopes a model: steps_window,
       range_window). */
    unsigned char *keep; /* owned; tr->nevents bytes, or NULL */
    model_scope scope;
    char scope_note[48]; /* what the scope is, for headers ("Step 1011"), or "" */

    model_op *ops;
    size_t nops;
    model_cat *cats;
    size_t ncats;
    model_track *tracks; /* tr->ntracks of them */
    size_t ntracks;

    /* Per-track call trees: one root per track, nodes[tracks[k].root]. A node
       index is always greater than its parent's. A root stands for its track:
       calls = the track's events, self 0, total = its children's totals. */
    model_node *nodes;
    size_t nnodes;
    /* The same trees merged across tracks: mnodes[0] is the one root. */
    model_node *mnodes;
    size_t nmnodes;
    uint32_t *node_merged; /* per node: its merged node */
    uint32_t *ev_node;     /* per event: its node (its op is nodes[ev_node[e]].op) */
    /* Per node: the args["Call stack"] (strtab id) its calls share, STRTAB_NONE
       for none; NULL when no event has one (or opts.no_python). The calls of
       one operator under one parent with different Call stacks are sibling
       nodes, so each node has one Python stack (see core/load/pyframe.h). */
    uint32_t *node_stack;
    int64_t *ev_self;      /* per event: its self time (dur - its direct children's union) */
    /* With opts.keep_nesting (else NULL): each track's events in nesting
       order, nest_order[track_start[k] .. track_start[k + 1]), and per event
       the event it nests in directly (MODEL_NONE: none). */
    uint32_t *nest_order;
    size_t *track_start;
    uint32_t *ev_parent;

    uint64_t complete_events;
    uint64_t tracks_with_events;
    /* relative to tr->base_ns: the profiler's Trace span, widened to cover
       every counted event; without a span, first start to last end */
    int64_t window_start, window_end, window_ns;
    /* busy_ns: self time summed over all tracks, GPU stream rows too (the pprof
       total). cpu_ns: the busy time (model_track.busy_ns, the union of their
       events) summed over the CPU threads alone (tracks that are no stream).
       Both add up the threads' time, so on a multi-threaded trace they exceed
       the window: CPU time over all threads, not wall time. */
    int64_t busy_ns;
    int64_t cpu_ns;
    /* Partial overlaps: counted events that a later event of their track
       starts inside of and ends after (it cannot nest in them: A [0,10),
       B [1,11); a child rounded 1 us past its parent's end). Each keeps its
       self time, as PyTorch's table counts it, so busy_ns counts the overlap
       twice; the tracks' busy_ns and cpu_ns count it once. The events, and
       the time from the later event's start to the earlier one's end. */
    uint64_t partial_overlap_events;
    int64_t partial_overlap_ns;

    /* GPU figures (see core/analyses/gpu.h) */
    uint64_t gpu_events;
    uint64_t gpu_unattributed_events;
    int64_t gpu_ns;      /* sum of the GPU events' durations */
    int64_t gpu_busy_ns; /* GPU busy: time some stream runs GPU work (their union) */
    int64_t gpu_unattributed_ns;
    model_stream *streams;
    size_t nstreams;
    /* Per entry of tr->corrs that is GPU work: the event of the launch with
       the same correlation (the first in file order), else MODEL_NONE. */
    uint32_t *corr_launch;

    /* Per strtab id (ncatkind of them, the ids at build time): the id's kind
       as a category (enum catkind, core/model/catkind.h), for every reader that
       classifies events by category. */
    unsigned char *catkind;
    uint32_t ncatkind;
} model;

#endif
