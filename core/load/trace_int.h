/* The loader's parts, private to core/trace*.c:
   trace_read.c inflates the file on a second thread into a ring of chunks,
   trace_yajl.c runs yajl behind an allocator that cannot hand it NULL,
   trace_parse.c holds the yajl callbacks that build the trace's records,
   trace.c drives them (trace_load) and owns the one cleanup path. */
#ifndef T2P_TRACE_INT_H
#define T2P_TRACE_INT_H

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "core/base/error.h"
#include "core/base/hmap.h"
#include "core/load/trace.h"

/* ---- trace_read.c: the reader thread ---- */

#define TRACE_READ_NBUF 4
/* The fuzz build makes the chunks tiny: tokens then cross chunk boundaries,
   and each run does not map and clear megabytes. */
#ifndef T2P_READ_BUFSZ
#define T2P_READ_BUFSZ (1u << 20)
#endif
#define TRACE_READ_BUFSZ ((unsigned)T2P_READ_BUFSZ)

/* The compressed bytes read at a time. */
#define TRACE_READ_INSZ (TRACE_READ_BUFSZ < (1u << 18) ? TRACE_READ_BUFSZ : (1u << 18))

typedef struct trace_reader {
    int fd;
    bool fd_open;        /* fd is ours to close */
    unsigned char *in;   /* TRACE_READ_INSZ bytes read from fd */
    size_t in_pos, in_len;
    uint64_t in_total;   /* bytes read from fd so far */
    bool in_eof;
    int mode;            /* 0 not known yet, 'p' plain, 'z' gzip */
    bool member_end;     /* a gzip member ended: another may follow */
#ifdef HAVE_ISAL
    /* ISA-L inflates gzip 3.5x faster than zlib (0.08 s against 0.28 s for
       the 274 MB benchmark trace) */
    struct inflate_state *inf;
#else
    z_stream zs;
    bool zs_open;        /* inflateInit2 succeeded: inflateEnd is due */
#endif
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *bufs[TRACE_READ_NBUF];
    size_t lens[TRACE_READ_NBUF];
    uint64_t offs[TRACE_READ_NBUF]; /* compressed bytes consumed after this chunk */
    int head, count;
    bool done, stop;
    bool inited;         /* the mutex and condition exist */
    bool started;        /* the thread runs (or ran) and must be joined */
    int zerr;            /* Z_OK, or the zlib error that ended the stream */
    char zmsg[200];
    /* the stream ended on a gzip trailer whose CRC-32 or length does not
       match: the data before it inflated whole and was handed over */
    bool bad_trailer;
    uint64_t trailer_at; /* the compressed offset of that trailer */
} trace_reader;

/* Starts inflating fd (which it owns from now on, even on failure) on a new
   thread. r is zeroed caller storage. Returns 0, or -1 with err set; either
   way trace_read_stop(r) releases what was taken. */
int trace_read_start(trace_reader *r, int fd, const char *path, t2p_error *err);

/* Waits for the next chunk. Returns false at the end of the stream (then
   r->zerr and r->zmsg tell how it ended). The chunk stays valid until
   trace_read_release. */
bool trace_read_next(trace_reader *r, const unsigned char **buf, size_t *len, uint64_t *off);
void trace_read_release(trace_reader *r);

/* After the parser failed on the chunk it holds (held) or on those it
   gathered: whether the stream ended right after them on a gzip trailer
   that condemns them, so that the corruption, not the garbage, is what to
   report. */
bool trace_read_ends_corrupt(trace_reader *r, bool held);

/* Stops and joins the thread, frees the buffers, closes the file. */
void trace_read_stop(trace_reader *r);

/* ---- trace_yajl.c: yajl that cannot crash on a failed allocation ---- */

/* yajl does not check its allocations: a failed realloc of its token buffer
   or nesting stack is written through (a segfault on a long name or deep
   nesting near the memory limit). So its allocator jumps back to the parse
   call instead of returning NULL. yajl's structures stay consistent: the
   jump leaves from inside the allocation call, before yajl stores its
   result, so yajl_free still frees everything. */
typedef struct trace_yajl {
    yajl_handle h;
    yajl_alloc_funcs yaf;
    jmp_buf jb;
    bool armed;    /* only inside yajl_alloc, yajl_parse and yajl_complete_parse */
    bool tracking; /* inside yajl_alloc: what it got so far is freed on a jump */
    int ntrack;
    void *track[8];
    size_t big;    /* the largest block yajl asked for: its buffers' size */
    bool too_long; /* the parse stopped on a string longer than TRACE_MAX_STRING */
} trace_yajl;

/* The longest string accepted (a name, a key, a Call stack). yajl holds a
   token that spans chunks in one buffer that doubles as it grows: a 1 GB
   name took 2.6 GB, and 4 GB ran out of memory after 6.3 GB. The longest
   strings of real traces (Call stacks) are kilobytes. */
#define TRACE_MAX_STRING ((size_t)64 << 20)

/* y is caller storage that must not move until trace_yajl_done. Returns 0,
   or -1 when out of memory. */
int trace_yajl_init(trace_yajl *y, const yajl_callbacks *cb, void *ctx);

/* yajl_parse(buf, len), or yajl_complete_parse when buf is NULL; *oom set
   when yajl ran out of memory, y->too_long when it met a string longer
   than TRACE_MAX_STRING (both end the parse with yajl_status_error). */
yajl_status trace_yajl_parse(trace_yajl *y, const unsigned char *buf, size_t len, bool *oom);

/* yajl's message for the error of the last parse, without its trailing
   newline and full stop. */
void trace_yajl_reason(trace_yajl *y, const unsigned char *buf, size_t len, char *out,
                       size_t size);

void trace_yajl_done(trace_yajl *y);

/* ---- trace_parse.c: the callbacks and the state they build ---- */

enum trace_key {
    K_OTHER, K_PH, K_NAME, K_CAT, K_PID, K_TID, K_TS, K_DUR, K_ID, K_ARGS,
    /* inside args */
    K_CORRELATION, K_EXTERNAL_ID, K_LABELS, K_SORT_INDEX, K_CALL_STACK,
    K_BYTES, K_ADDR, K_DEV_TYPE, K_DEV_ID, K_TOTAL_ALLOC, K_TOTAL_RES,
    K_COLL_NAME, K_PG_NAME, K_PG_ID, K_IN_NELEMS, K_OUT_NELEMS, K_GROUP_SIZE, K_DTYPE, K_SEQ,
    /* top level */
    K_TRACE_EVENTS, K_BASE_NS, K_EXEC_GRAPH, K_DIST_INFO, K_DEV_PROPS, K_PROP_ID, K_PROP_MEM,
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
    uint32_t name, cat, pid, tid;
    uint32_t arg_name, arg_labels;
    uint32_t stack; /* args["Call stack"], STRTAB_NONE */
    int64_t ts, dur, sort_index;
    uint64_t corr;
    uint32_t ext; /* External id + 1, 0 none */
    /* [memory] args */
    bool has_bytes, has_addr, has_dev_type, has_total_alloc, has_total_res;
    int64_t bytes, dev_type, dev_id, total_alloc, total_res;
    uint64_t addr;
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
    int64_t prop_id, prop_mem; /* of the device object being read */
    bool saw_events, saw_exec_graph, any_token, any_object;
    enum trace_key top_key, key, args_key, dist_key;
    struct trace_cur c;
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
} trace_parser;

/* An element of the events array as a worker read it: an event object
   (its string ids in the worker's own table) or anything else. */
typedef struct trace_rec {
    struct trace_cur c;
    bool not_event;
} trace_rec;

typedef struct trace_recs {
    trace_rec *v;
    size_t n, cap;
} trace_recs;

extern const yajl_callbacks trace_parse_callbacks;

/* Prepares L (caller storage) to fill t, whose strs exists. Returns 0, or -1
   with err set (out of memory); trace_parse_done(L) is due either way. */
int trace_parse_init(trace_parser *L, trace *t, const char *path, t2p_error *err);

/* After the last token: refuses what is valid JSON but not a trace, counts
   the B events left open. Returns 0, or -1 with err set. */
int trace_parse_finish(trace_parser *L);

/* Where the parse is, for a message: "in event 12 after the key
   \"name\"", "after the key \"traceName\"" or "". */
void trace_parse_where(const trace_parser *L, char *buf, size_t size);

void trace_parse_done(trace_parser *L);

/* Applies a recorded element to L's trace as the callbacks would have,
   its string ids mapped through map (worker id -> L's table). Returns 0,
   or -1 with err set. */
int trace_parse_apply(trace_parser *L, const trace_rec *r, const uint32_t *map);

/* ---- trace.c's steps, for trace_par.c ---- */

/* Opens path (a file, never standard input); -1 with err set. */
int trace_load_open(trace *t, const char *path, t2p_error *err);
/* Runs buf (at offset base of the JSON) through yajl; 0 or -1 with err set. */
int trace_load_feed(trace *t, trace_yajl *y, const trace_parser *L, const unsigned char *buf,
                    size_t len, uint64_t base, t2p_error *err);
/* After the last byte (base bytes in all): the stream's end, the last yajl
   call, the checks of trace_parse_finish, the tracks' kinds. 0 or -1. */
int trace_load_end(trace *t, trace_yajl *y, trace_parser *L, const trace_reader *r,
                   uint64_t base, t2p_error *err);

/* ---- trace_par.c: one trace tokenised on several threads ---- */

/* Loads a regular file on opts->jobs tokenising threads. NULL with err set
   on any error: the caller then loads it again on one thread, which says
   what is wrong exactly as it always did (but not after a cancel). */
trace *trace_load_par(const char *path, const trace_load_opts *opts, t2p_error *err);

#endif
