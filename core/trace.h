/* A loaded trace: compact event records in arrays, strings interned.
   The loader streams the file (gzip or plain, by magic bytes) through yajl
   and never holds the JSON text or a DOM. */
#ifndef T2P_TRACE_H
#define T2P_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/strtab.h"

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

/* A flow event (ph s or f). */
typedef struct trace_flow {
    int64_t ts;
    uint64_t id;
    uint32_t cat;
    uint32_t track;
    char phase; /* 's' or 'f' */
} trace_flow;

/* One [memory] instant (profile_memory=True): an allocation or a free. 32 bytes. */
typedef struct trace_mem {
    int64_t ts;     /* ns, same base as events */
    int64_t bytes;  /* > 0 allocated, < 0 freed */
    uint64_t addr;  /* args.Addr; meaningful only with TRACE_MEM_ADDR */
    uint32_t track; /* the (pid, tid) that wrote it */
    int16_t device; /* TRACE_MEM_CPU, or the CUDA device index */
    uint16_t flags; /* TRACE_MEM_* */
} trace_mem;

#define TRACE_MEM_CPU (-1)
#define TRACE_MEM_ADDR 1u   /* the record has an Addr (PyTorch 1.10+) */
#define TRACE_MEM_TOTALS 2u /* mem_totals holds its Total Allocated / Total Reserved */

/* The caching allocator's totals right after a memory record. */
typedef struct trace_mem_total {
    int64_t allocated; /* "Total Allocated" */
    int64_t reserved;  /* "Total Reserved", -1 when absent */
} trace_mem_total;

enum trace_skip {
    TRACE_SKIP_METADATA,      /* M: used, not timed */
    TRACE_SKIP_INSTANT,       /* i / I / R, but the [memory] ones kept in mems */
    TRACE_SKIP_FLOW,          /* s t f */
    TRACE_SKIP_COUNTER,       /* C */
    TRACE_SKIP_OTHER_PHASE,   /* async, object and sample phases: legal, not timed */
    TRACE_SKIP_UNKNOWN_PHASE, /* no ph or one Chrome does not define */
    TRACE_SKIP_MISSING_TS,
    TRACE_SKIP_BAD_NUMBER,    /* ts or dur not a number, or out of range */
    TRACE_SKIP_MISSING_DUR,
    TRACE_SKIP_NEGATIVE_DUR,
    TRACE_SKIP_UNMATCHED_BEGIN,
    TRACE_SKIP_UNMATCHED_END,
    TRACE_SKIP_WINDOW,        /* the Trace-category span: the window, not an op */
    TRACE_SKIP_NOT_EVENT,     /* an element of traceEvents that is not an object */
    TRACE_SKIP_N
};

const char *trace_skip_name(enum trace_skip r);

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
    trace_flow *flows;
    size_t nflows;
    trace_mem *mems;     /* [memory] instants, in file order */
    size_t nmems;
    trace_mem_total *mem_totals; /* parallel to mems; NULL when no record has totals */
    size_t cap_events, cap_corrs, cap_flows; /* allocation sizes, for trace_free */
    size_t cap_mems, cap_mem_totals;

    int64_t base_ns;      /* baseTimeNanoseconds, 0 when absent: absolute ns = base_ns + ts */
    bool has_base;
    bool has_rank;        /* distributedInfo.rank: the rank of a multi-rank job's trace */
    int64_t rank;         /* >= 0 when has_rank */
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
} trace_load_opts;

/* Loads path. Returns a new trace (free with trace_free) or NULL with err set.
   opts may be NULL. */
trace *trace_load(const char *path, const trace_load_opts *opts, t2p_error *err);
void trace_free(trace *t);

/* Display helpers: the string of an id, with its length. */
static inline const char *trace_str(const trace *t, uint32_t id)
{
    return strtab_str(t->strs, id);
}

/* A track's label for people and pprof: "thread 1262 (pt_main_thread)", "stream 7",
   or "pid/tid". Writes into buf, returns buf. */
const char *trace_track_label(const trace *t, uint32_t track, char *buf, size_t size);

#endif
