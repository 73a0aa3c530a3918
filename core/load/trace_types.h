/* A loaded trace's records (core/load/trace.h loads them and says what
   they mean): apart from the functions so that the loader's parts
   (trace_parse.c, trace_mem.c, trace_feed.c, trace_par.c), which trace.c
   drives, can fill them without depending on trace.c. Include
   core/load/trace.h, not this, unless you are such a part. */
#ifndef T2P_TRACE_TYPES_H
#define T2P_TRACE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/strtab.h"

/* One complete event (ph X, or a matched B/E pair). 32 bytes.
   The loader guarantees: ts and ts + dur lie in [-2^61, 2^62] ns, base_ns in
   [-2^61, 2^62), and the durations of all the events of a trace add up to at
   most 2^62 ns; events outside are skipped as bad_number. So differences of
   two times, base_ns + a time, and any sum of durations (or of self times)
   over a set of events fit in int64. */
typedef struct trace_event {
    int64_t ts;     /* ns; relative to trace->base_ns when the file gives one */
    int64_t dur;    /* ns, >= 0 */
    uint32_t name;  /* strtab id */
    uint32_t cat;   /* strtab id ("" when absent) */
    uint32_t track; /* index into trace->tracks */
    uint32_t ext;   /* args["External id"] + 1 when below 2^32 - 1, else 0 (none) */
} trace_event;

/* A process (pid) with its metadata. */
typedef struct trace_process {
    uint32_t pid;       /* strtab id of the pid as written (number text or string) */
    uint32_t name;      /* process_name, or STRTAB_NONE */
    uint32_t labels;    /* process_labels ("CPU", "GPU 0"), or STRTAB_NONE */
    int64_t sort_index; /* process_sort_index, or INT64_MIN */
} trace_process;

/* A track is (pid, tid). */
typedef struct trace_track {
    uint32_t process;   /* index into trace->processes */
    uint32_t tid;       /* strtab id of the tid as written */
    uint32_t name;      /* thread_name, or STRTAB_NONE */
    int64_t sort_index; /* thread_sort_index, or INT64_MIN */
    bool is_gpu;        /* the process is labelled "GPU n" or named like a GPU device */
} trace_track;

/* args.correlation of an event that has one (launches and GPU work). */
typedef struct trace_corr {
    uint32_t event; /* index into trace->events */
    uint32_t pad;
    uint64_t id;
} trace_corr;

/* args["Call stack"] of an event that has one (early Kineto, PyTorch 1.8-1.9):
   Python frames "file.py(LINE): function" joined by ';', innermost first. */
typedef struct trace_stack {
    uint32_t event; /* index into trace->events */
    uint32_t stack; /* strtab id */
} trace_stack;

/* A kernel's launch figures from its args (what CUPTI reported), kept for
   every complete event that has any of them (kernels; memcpy/memset rows
   carry args.device too). Only numbers count: a string, null or a figure
   past 1e12 (blocks per SM, occupancy) is absent. */
enum {
    TRACE_KARG_BPS = 1,       /* "blocks per SM" */
    TRACE_KARG_OCC = 2,       /* "est. achieved occupancy %" */
    TRACE_KARG_GRID = 4,      /* "grid": [x, y, z] integers */
    TRACE_KARG_BLOCK = 8,     /* "block": [x, y, z] integers */
    TRACE_KARG_REGS = 16,     /* "registers per thread" */
    TRACE_KARG_SMEM = 32,     /* "shared memory" (bytes) */
    TRACE_KARG_DEVICE = 64    /* "device" */
};
typedef struct trace_karg {
    uint32_t event;   /* index into trace->events */
    uint16_t flags;   /* TRACE_KARG_*: the fields the event had */
    int16_t device;   /* args.device (0 .. 32767), -1 when absent */
    double blocks_per_sm, occupancy;
    int32_t grid[3], block[3];
    int64_t registers, shared_memory;
} trace_karg;

/* The input shape of an event whose args have one, as TensorBoard showed
   it: Python's str() of args["Input Dims"], else of args["Input dims"]
   (core/load/pyrepr.h). An event without one has the shape "[]". */
typedef struct trace_shape {
    uint32_t event; /* index into trace->events */
    uint32_t shape; /* strtab id of the text */
} trace_shape;

/* The Python ids of an event whose args have any (python_function events of
   PyTorch 1.10+): "Python id", "Python parent id", "Python module id" (the
   last only on nn.Module calls). */
#define TRACE_PY_ID 1u
#define TRACE_PY_PARENT 2u
#define TRACE_PY_MODULE 4u
typedef struct trace_pyid {
    uint32_t event; /* index into trace->events */
    uint32_t has;   /* TRACE_PY_* bits: the ids it has (integers, not null) */
    int64_t id, parent, module;
} trace_pyid;

/* The NCCL metadata of an event that has some (args "Collective name",
   "Process Group Name" or "Process Group ID", "In msg nelems", "Out msg
   nelems", "Group size", "dtype", "Seq"): PyTorch puts them on
   record_param_comms and, since 2.3, on the NCCL kernel itself. A few per
   training step, so kept apart from the events. */
typedef struct trace_coll {
    uint32_t event;      /* index into trace->events */
    uint32_t name;       /* "Collective name", STRTAB_NONE when absent */
    uint32_t pg;         /* "Process Group Name", else "Process Group ID" as written; STRTAB_NONE */
    uint32_t dtype;      /* STRTAB_NONE when absent */
    int64_t in_nelems;   /* -1 when absent */
    int64_t out_nelems;  /* -1 when absent */
    int64_t group_size;  /* -1 when absent */
    int64_t seq;         /* "Seq" (or "seq"), -1 when absent */
} trace_coll;

/* An end of a forward-to-backward flow: an "s" or "f" event of category
   "fwdbwd" (PyTorch links each forward operator to the backward operator
   autograd ran for it; trace-format.md). Kept as written, in file order:
   which event an end belongs to is the reader's rule (TensorBoard's plugin
   matched the ends by their timestamps alone, Chrome binds them to the
   enclosing slice), and the events are not sorted while loading. A few per
   operator of a training step. Other flows are not kept: "ac2g" repeats
   args.correlation, which every launch and its GPU work carry. */
typedef struct trace_flow {
    int64_t ts;          /* ns, same base as events */
    uint64_t id;         /* "id" as a number, or the strtab id of a string id (id_str) */
    uint32_t track;      /* index into trace->tracks */
    char ph;             /* 's' (the forward end) or 'f' (the backward end) */
    bool bp_enclosing;   /* "bp": "e" (binds to the enclosing slice) */
    bool id_str;         /* the id was a JSON string */
    uint8_t pad;         /* 0: no padding byte left undefined (records compare by memcmp) */
} trace_flow;

/* The [memory] instants (profile_memory=True), one per allocation or free,
   in file order. Millions of them in a long run, so they are stored
   compactly (core/load/trace_mem.c: 12 bytes each, plus 2 when they come from
   several (track, device) pairs) and read through trace_mem_* below:
   - ts: an offset from its block's base (TRACE_MEM_BLOCK records a block);
   - bytes: 32 bits (> 0 allocated, < 0 freed);
   - the Addr as an id per (device, Addr): equal ids, same block of memory;
   - the (track, device) pair as an index into mem_streams;
   - the allocator's totals only where they differ from what the device's
     previous record (file order) predicts: its Total Allocated + Bytes, its
     Total Reserved. Read them in file order with a trace_mem_cursor.
   What does not fit (a ts 3 s from its block's base, 2 GB in one record)
   goes to mem_wide.
   The loader guarantees: the |Bytes| of all the records add up to at most
   2^62; a record past that is skipped as bad_bytes. So any sum of Bytes
   over a set of records (allocated, freed, a running level) fits in int64. */
typedef struct trace_mem_rec {
    uint32_t ts;    /* ns after mem_ts_base[block]; UINT32_MAX: in mem_wide */
    int32_t bytes;  /* INT32_MIN: in mem_wide */
    uint32_t addr;  /* interned (device, Addr), TRACE_MEM_NOADDR when it has none */
} trace_mem_rec;

#define TRACE_MEM_CPU (-1)
#define TRACE_MEM_NOADDR UINT32_MAX
#define TRACE_MEM_BLOCK 4096u

/* Where records come from: the thread that wrote them, and the device. */
typedef struct trace_mem_stream {
    uint32_t track;
    int16_t device; /* TRACE_MEM_CPU, or the CUDA device index */
    uint16_t dev;   /* index into mem_devices */
} trace_mem_stream;

enum { TRACE_MEM_WIDE_TS, TRACE_MEM_WIDE_BYTES, TRACE_MEM_WIDE_STREAM };

/* A field too wide for its record; sorted by (rec, field). */
typedef struct trace_mem_wide {
    uint32_t rec, field;
    int64_t value;
} trace_mem_wide;

/* The allocator's totals of a record that its device's previous one did not
   predict; sorted by rec. */
typedef struct trace_mem_total {
    uint32_t rec;
    bool has_alloc;    /* the record has "Total Allocated" */
    int64_t allocated; /* "Total Allocated", -1 when absent */
    int64_t reserved;  /* "Total Reserved", -1 when absent */
} trace_mem_total;

enum trace_skip {
    TRACE_SKIP_METADATA,      /* M: used, not timed */
    TRACE_SKIP_INSTANT,       /* i / I / R, but the [memory] ones kept in mems */
    TRACE_SKIP_FLOW,          /* s t f (the fwdbwd ones are also kept in flows) */
    TRACE_SKIP_COUNTER,       /* C */
    TRACE_SKIP_OTHER_PHASE,   /* async, object and sample phases: legal, not timed */
    TRACE_SKIP_UNKNOWN_PHASE, /* no ph or one Chrome does not define */
    TRACE_SKIP_MISSING_TS,
    TRACE_SKIP_BAD_NUMBER,    /* ts or dur not a number, or out of range */
    TRACE_SKIP_BAD_BYTES,     /* a [memory] Bytes past what sums can hold (trace_mem_rec) */
    TRACE_SKIP_MISSING_DUR,
    TRACE_SKIP_NEGATIVE_DUR,
    TRACE_SKIP_UNMATCHED_BEGIN,
    TRACE_SKIP_UNMATCHED_END,
    TRACE_SKIP_WINDOW,        /* the Trace-category span: the window, not an op */
    TRACE_SKIP_NOT_EVENT,     /* an element of traceEvents that is not an object */
    TRACE_SKIP_N
};

enum trace_format {
    TRACE_FORMAT_KINETO, /* {"traceEvents": [...], ...} */
    TRACE_FORMAT_ARRAY   /* bare array (legacy autograd profiler) */
};

typedef struct trace {
    char *path;
    strtab *strs;
    enum trace_format format;

    trace_event *events;
    size_t nevents;
    trace_process *processes;
    size_t nprocesses;
    trace_track *tracks;
    size_t ntracks;
    trace_corr *corrs;   /* in event order */
    size_t ncorrs;
    trace_stack *stacks; /* in event order; only X events carry one */
    size_t nstacks;
    trace_karg *kargs;   /* in event order; only X events carry them */
    size_t nkargs;
    trace_coll *colls;   /* in event order; only X events carry one */
    size_t ncolls;
    trace_shape *shapes; /* in event order; only X events carry one */
    size_t nshapes, cap_shapes;
    trace_pyid *pyids;   /* in event order; only X events carry them */
    size_t npyids, cap_pyids;
    trace_flow *flows;   /* the fwdbwd flow ends, in file order */
    size_t nflows, cap_flows;
    trace_mem_rec *mems;  /* [memory] instants, in file order: see trace_mem_rec */
    size_t nmems;
    uint16_t *mem_stream; /* per record: index into mem_streams; NULL while there is one */
    trace_mem_stream *mem_streams;
    size_t nmem_streams;
    int16_t *mem_devices; /* the devices of the records, in order of appearance */
    size_t nmem_devices;
    int64_t *mem_ts_base; /* per block of TRACE_MEM_BLOCK records */
    trace_mem_wide *mem_wide;
    size_t nmem_wide;
    trace_mem_total *mem_totals;
    size_t nmem_totals;
    uint32_t nmem_addrs;  /* addr ids are below this */
    size_t cap_events, cap_corrs, cap_stacks, cap_kargs, cap_colls; /* allocation sizes, for trace_free */
    size_t cap_mems, cap_mem_stream, cap_mem_streams, cap_mem_devices, cap_mem_ts_base,
        cap_mem_wide, cap_mem_totals;

    int64_t base_ns;      /* baseTimeNanoseconds, 0 when absent: absolute ns = base_ns + ts */
    bool has_base;
    /* deviceProperties[].totalGlobalMem by the device's id (0 .. 15), 0 when
       the trace does not say */
    int64_t gpu_total_mem[16];
    /* deviceProperties[].computeMajor by the device's id, 0 when not said */
    int gpu_compute_major[16];
    bool has_rank;        /* distributedInfo.rank: the rank of a multi-rank job's trace */
    int64_t rank;         /* >= 0 when has_rank */
    int64_t world_size;   /* distributedInfo.world_size, 0 when the trace does not say */
    bool has_window;      /* a Trace-category span gave the window */
    int64_t window_start; /* ns, same base as events */
    int64_t window_end;

    uint64_t events_read; /* elements of traceEvents */
    uint64_t complete_events;
    uint64_t skipped[TRACE_SKIP_N];

    bool truncated;       /* loaded with partial=true from a file that ends early */
    char truncated_reason[256];
    uint64_t bytes_in;    /* uncompressed bytes parsed */
    uint64_t file_size;   /* bytes on disk */
    bool gzip;

    /* well-known string ids, STRTAB_NONE when the trace never uses them */
    uint32_t str_empty;
} trace;

typedef struct trace_progress {
    uint64_t file_bytes; /* compressed bytes consumed so far */
    uint64_t file_size;
    uint64_t events;
} trace_progress;

/* Called a few times a second of work; return non-zero to cancel. */
typedef int (*trace_progress_fn)(const trace_progress *p, void *ctx);

typedef struct trace_load_opts {
    bool partial;                /* a file that ends early loads what was read, sets truncated */
    trace_progress_fn progress;  /* may be NULL */
    void *progress_ctx;
    /* threads tokenising one file; 0 or 1: one (the single-thread path).
       Standard input and pipes always take one; a partial load takes
       several and, when the file does not load whole, loads it again on
       one (trace_load). */
    unsigned jobs;
    size_t chunk_bytes;          /* the text per tokenising task; 0: 2 MiB (tests go smaller) */
} trace_load_opts;

/* How a trace read from standard input is named (its path, in messages). */
#define TRACE_STDIN_NAME "<stdin>"

/* Display helpers: the string of an id, with its length. */
static inline const char *trace_str(const trace *t, uint32_t id)
{
    return strtab_str(t->strs, id);
}

#endif
