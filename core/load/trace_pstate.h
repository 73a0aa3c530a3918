/* The loader's parse state: the event being read, the parser's stacks and
   tables, shared by the callbacks (core/load/trace_parse.c) and the args
   reader (core/load/trace_args.c). Types and small inline helpers only, so
   that both sit above it. Private to core/load/. */
#ifndef T2P_TRACE_PSTATE_H
#define T2P_TRACE_PSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yajl/yajl_parse.h>

#include "core/base/error.h"
#include "core/load/pyrepr.h"
#include "core/base/hmap.h"
#include "core/load/trace_types.h"
#include "core/base/strtab.h"
#include <string.h>

enum trace_key {
    K_OTHER, K_PH, K_NAME, K_CAT, K_PID, K_TID, K_TS, K_DUR, K_ID, K_BP, K_ARGS,
    /* inside args */
    K_CORRELATION, K_EXTERNAL_ID, K_LABELS, K_SORT_INDEX, K_CALL_STACK,
    K_BYTES, K_ADDR, K_DEV_TYPE, K_DEV_ID, K_TOTAL_ALLOC, K_TOTAL_RES,
    K_KBPS, K_KOCC, K_KGRID, K_KBLOCK, K_KREGS, K_KSMEM, K_KDEVICE,
    K_INPUT_DIMS, K_INPUT_DIMS_LC, K_PY_ID, K_PY_PARENT, K_PY_MODULE,
    K_COLL_NAME, K_PG_NAME, K_PG_ID, K_IN_NELEMS, K_OUT_NELEMS, K_GROUP_SIZE, K_DTYPE, K_SEQ,
    /* top level */
    K_TRACE_EVENTS, K_BASE_NS, K_EXEC_GRAPH, K_DIST_INFO, K_DEV_PROPS, K_PROP_ID, K_PROP_MEM, K_PROP_MAJOR,
    /* inside distributedInfo */
    K_RANK, K_WORLD_SIZE
};

/* An open B event. The open B events of a track form a stack linked by prev;
   a matched slot goes to a free list linked the same way. */
struct trace_begin {
    int64_t ts;
    uint32_t name, cat, track;
    uint32_t prev; /* the next older open B on the track (or next free slot), BEGIN_NONE */
    bool has_corr;
    uint64_t corr;
    uint32_t ext;
};

/* The event being read. */
struct trace_cur {
    char ph;
    bool has_ph, has_ts, ts_ok, has_dur, dur_ok, has_id, has_corr;
    bool has_sort;
    bool id_str, bp_e; /* "id" was a string (flow_id: its strtab id); "bp": "e" */
    uint64_t flow_id;  /* "id", when has_id */
    uint32_t name, cat, pid, tid;
    uint32_t arg_name, arg_labels;
    uint32_t stack; /* args["Call stack"], STRTAB_NONE */
    /* str() of args["Input Dims"] and of args["Input dims"] (core/load/pyrepr.h),
       STRTAB_NONE when absent ("Input Dims" also when null) */
    uint32_t dims, dims_lc;
    uint8_t py_has; /* TRACE_PY_* bits: which of py_id, py_parent, py_module it has */
    int64_t py_id, py_parent, py_module;
    int64_t ts, dur, sort_index;
    uint64_t corr;
    uint32_t ext; /* External id + 1, 0 none */
    /* [memory] args; from here on three groups that a worker's record
       keeps only when set (trace_parse.c's rec_at): keep each together */
    bool has_bytes, has_addr, has_dev_type, has_total_alloc, has_total_res;
    int64_t bytes, dev_type, dev_id, total_alloc, total_res;
    uint64_t addr;
    /* kernel args (trace_karg); k_arr: inside the grid/block array, k_n its values */
    uint16_t kflags;
    uint8_t k_arr, k_n;
    bool k_bad;
    double k_bps, k_occ;
    int32_t k_grid[3], k_block[3];
    int64_t k_regs, k_smem, k_dev;
    /* NCCL args (trace_coll); has_coll when any is present */
    bool has_coll;
    uint32_t coll_name, coll_pg, coll_dtype; /* STRTAB_NONE */
    bool pg_from_name; /* coll_pg is "Process Group Name": an ID does not replace it */
    int64_t in_nelems, out_nelems, group_size, seq; /* -1 */
};

/* Objects and arrays nest at most this deep: a trace's events sit at level
   2 or 3, their args a few levels below. */
#define TRACE_MAX_DEPTH 1000

typedef struct trace_parser {
    trace *t;
    t2p_error *err;
    const char *path;
    int depth;
    int top;          /* 0 none yet, 'm' map, 'a' array, 's' scalar */
    int ev_depth;     /* depth of the events array, 0 when not inside it */
    bool in_event, in_args;
    bool in_dist;     /* inside the top-level distributedInfo object */
    bool in_props;    /* inside the top-level deviceProperties array */
    enum trace_key prop_key;
    int64_t prop_id, prop_mem, prop_major; /* of the device object being read */
    bool saw_events, saw_exec_graph, any_token, any_object;
    enum trace_key top_key, key, args_key, dist_key;
    struct trace_cur c;
    struct trace_cur c0; /* c at an event's start: its padding zero, so groups compare bytewise */
    bool failed;      /* a callback set err and aborted */
    size_t trackcap, proccap;
    hmap tracks, procs;
    uint32_t last_pid, last_tid, last_track;
    struct trace_begin *begins;
    size_t nbegins, begincap;
    hmap open_top;     /* track -> its innermost open B, BEGIN_NONE when none */
    uint32_t free_begin; /* head of the free slots, BEGIN_NONE when none */
    uint64_t open_begins;
    int64_t dur_sum;  /* of the events added, <= TIME_SUM_MAX */
    uint64_t mem_bytes_sum; /* |Bytes| of the [memory] records kept, <= MEM_SUM_MAX */
    struct trace_mem_load *mem; /* [memory] interning, core/load/trace_mem.c */
    uint32_t memo[4]; /* last pid, tid, cat and Call stack ids: most events repeat them */
    const char *memo_str[4];
    size_t memo_len[4];
    char last_key[40]; /* the start of the last key read, for messages */
    size_t last_key_len;
    uint32_t s_empty, s_trace, s_process_name, s_process_labels, s_thread_name,
        s_process_sort, s_thread_sort, s_memory;
    /* record mode (core/load/trace_par.c's workers): the elements of the events
       array are kept in recs, to be applied in file order by
       trace_parse_apply; the array's closing ']' sets ended and stops yajl */
    struct trace_recs *recs;
    bool ended;
    /* an args["Input Dims"]/["Input dims"] container being rendered: its key
       (K_OTHER when none), the depth of the args object, the text so far */
    enum trace_key dims_key;
    pyrepr dims;
} trace_parser;

/* The elements of the events array as a worker read them, one after
   another in v[0..n) (bytes): each an 8-byte header, then for an event
   object its trace_cur (string ids in the worker's own table) less the
   groups of fields it left as they were at the event's start (trace_cur's
   [memory], kernel and NCCL args: most events have none of them), 136
   bytes for most events where the whole trace_cur took 320. */
typedef struct trace_recs {
    unsigned char *v;
    size_t n, cap;
} trace_recs;

/* Sets err to out of memory and marks the parse failed; returns 0, what a
   yajl callback returns to stop. */
static inline int trace_pstate_nomem(trace_parser *L)
{
    error_set(L->err, T2P_ERR_NOMEM, L->path, -1, "out of memory");
    L->failed = true;
    return 0;
}

/* Interns s; STRTAB_NONE (err set) when out of memory. */
static inline uint32_t trace_pstate_intern(trace_parser *L, const char *s, size_t len)
{
    uint32_t id = strtab_intern(L->t->strs, s, len);
    if (id == STRTAB_NONE)
        trace_pstate_nomem(L);
    return id;
}

/* intern through a one-entry memo: pid, tid and cat repeat from event to event */
static inline uint32_t trace_pstate_intern_memo(trace_parser *L, int slot, const char *s, size_t len)
{
    uint32_t id = L->memo[slot];
    if (id != STRTAB_NONE && L->memo_len[slot] == len && memcmp(L->memo_str[slot], s, len) == 0)
        return id;
    id = trace_pstate_intern(L, s, len);
    if (id != STRTAB_NONE) {
        L->memo[slot] = id;
        L->memo_str[slot] = strtab_str(L->t->strs, id); /* stable until strtab_free */
        L->memo_len[slot] = len;
    }
    return id;
}

#endif
