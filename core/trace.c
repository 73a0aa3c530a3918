#include "config.h"

#include "core/trace.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "core/hmap.h"
#include "core/num.h"
#include "core/vec.h"

/* ---- the reader thread: inflate on the second core while the parser runs ---- */

#define NBUF 4
/* The fuzz build makes the chunks tiny: tokens then cross chunk boundaries,
   and each run does not map and clear megabytes. */
#ifndef T2P_READ_BUFSZ
#define T2P_READ_BUFSZ (1u << 20)
#endif
#define BUFSZ ((unsigned)T2P_READ_BUFSZ)

struct reader {
    gzFile gz;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *bufs[NBUF];
    size_t lens[NBUF];
    uint64_t offs[NBUF]; /* compressed bytes consumed after this chunk */
    int head, count;
    bool done, stop;
    int zerr;            /* Z_OK, or the zlib error that ended the stream */
    char zmsg[200];
};

static void *reader_main(void *arg)
{
    struct reader *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (r->count == NBUF && !r->stop)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->stop) {
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
        int slot = (r->head + r->count) % NBUF;
        pthread_mutex_unlock(&r->mu);

        int n = gzread(r->gz, r->bufs[slot], BUFSZ);
        int zerr = Z_OK;
        char msg[200] = "";
        if (n < 0) {
            const char *m = gzerror(r->gz, &zerr);
            snprintf(msg, sizeof msg, "%s", m ? m : "read error");
            if (zerr == Z_ERRNO)
                snprintf(msg, sizeof msg, "%s", strerror(errno));
            n = 0;
        } else if (n == 0) {
            /* zlib reports a gzip stream cut short (Z_BUF_ERROR) only through
               gzerror after the last bytes were returned */
            const char *m = gzerror(r->gz, &zerr);
            if (zerr != Z_OK && zerr != Z_STREAM_END)
                snprintf(msg, sizeof msg, "%s", m ? m : "read error");
        }
        uint64_t off = (uint64_t)gzoffset(r->gz);

        if (strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ": "))
            memmove(msg, strstr(msg, ": ") + 2, strlen(strstr(msg, ": ") + 2) + 1); /* gzdopen's name */

        pthread_mutex_lock(&r->mu);
        if (n > 0) {
            r->lens[slot] = (size_t)n;
            r->offs[slot] = off;
            r->count++;
        }
        if (n == 0) {
            r->done = true;
            r->zerr = zerr;
            snprintf(r->zmsg, sizeof r->zmsg, "%s", msg);
        }
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (n == 0)
            return NULL;
    }
}

/* ---- parser state ---- */

enum key {
    K_OTHER, K_PH, K_NAME, K_CAT, K_PID, K_TID, K_TS, K_DUR, K_ID, K_ARGS,
    /* inside args */
    K_CORRELATION, K_LABELS, K_SORT_INDEX,
    /* top level */
    K_TRACE_EVENTS, K_BASE_NS, K_EXEC_GRAPH
};

/* An open B event. The open B events of a track form a stack linked by prev;
   a matched slot goes to a free list linked the same way. */
struct begin {
    int64_t ts;
    uint32_t name, cat, track;
    uint32_t prev; /* the next older open B on the track (or next free slot), BEGIN_NONE */
    bool has_corr;
    uint64_t corr;
};

#define BEGIN_NONE (UINT32_MAX - 1) /* hmap cannot hold UINT32_MAX as a value */

struct cur {
    char ph;
    bool has_ph, has_ts, ts_ok, has_dur, dur_ok, has_id, has_corr;
    bool has_sort;
    uint32_t name, cat, pid, tid;
    uint32_t arg_name, arg_labels;
    int64_t ts, dur, sort_index;
    uint64_t id, corr;
};

struct loader {
    trace *t;
    t2p_error *err;
    const char *path;
    int depth;
    int top;          /* 0 none yet, 'm' map, 'a' array, 's' scalar */
    int ev_depth;     /* depth of the events array, 0 when not inside it */
    bool in_event, in_args;
    bool saw_events, saw_exec_graph, any_token, any_object;
    enum key top_key, key, args_key;
    struct cur c;
    bool failed;      /* a callback set err and aborted */
    size_t trackcap, proccap;
    hmap tracks, procs;
    uint32_t last_pid, last_tid, last_track;
    struct begin *begins;
    size_t nbegins, begincap;
    hmap open_top;     /* track -> its innermost open B, BEGIN_NONE when none */
    uint32_t free_begin; /* head of the free slots, BEGIN_NONE when none */
    uint64_t open_begins;
    int64_t dur_sum;  /* of the events added, <= TIME_SUM_MAX */
    uint32_t memo[3]; /* last pid, tid and cat ids: most events repeat them */
    const char *memo_str[3];
    size_t memo_len[3];
    uint32_t s_empty, s_trace, s_process_name, s_process_labels, s_thread_name,
        s_process_sort, s_thread_sort;
};

const char *trace_skip_name(enum trace_skip r)
{
    static const char *const names[TRACE_SKIP_N] = {
        [TRACE_SKIP_METADATA] = "metadata",
        [TRACE_SKIP_INSTANT] = "instant",
        [TRACE_SKIP_FLOW] = "flow",
        [TRACE_SKIP_COUNTER] = "counter",
        [TRACE_SKIP_OTHER_PHASE] = "other_phase",
        [TRACE_SKIP_UNKNOWN_PHASE] = "unknown_phase",
        [TRACE_SKIP_MISSING_TS] = "missing_ts",
        [TRACE_SKIP_BAD_NUMBER] = "bad_number",
        [TRACE_SKIP_MISSING_DUR] = "missing_dur",
        [TRACE_SKIP_NEGATIVE_DUR] = "negative_dur",
        [TRACE_SKIP_UNMATCHED_BEGIN] = "unmatched_begin",
        [TRACE_SKIP_UNMATCHED_END] = "unmatched_end",
        [TRACE_SKIP_WINDOW] = "window_span",
        [TRACE_SKIP_NOT_EVENT] = "not_an_object",
    };
    return (unsigned)r < TRACE_SKIP_N ? names[r] : "?";
}

static int fail_nomem(struct loader *L)
{
    error_set(L->err, T2P_ERR_NOMEM, L->path, -1, "out of memory");
    L->failed = true;
    return 0;
}

/* The small arrays (processes, tracks, open B events); the big ones are vec_grow's. */
static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 64;
    if (ncap > SIZE_MAX / elem)
        return -1;
    void *np = realloc(*p, ncap * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

static uint32_t intern(struct loader *L, const char *s, size_t len)
{
    uint32_t id = strtab_intern(L->t->strs, s, len);
    if (id == STRTAB_NONE)
        fail_nomem(L);
    return id;
}

/* intern through a one-entry memo: pid, tid and cat repeat from event to event */
static uint32_t intern_memo(struct loader *L, int slot, const char *s, size_t len)
{
    uint32_t id = L->memo[slot];
    if (id != STRTAB_NONE && L->memo_len[slot] == len && memcmp(L->memo_str[slot], s, len) == 0)
        return id;
    id = intern(L, s, len);
    if (id != STRTAB_NONE) {
        L->memo[slot] = id;
        L->memo_str[slot] = strtab_str(L->t->strs, id); /* stable until strtab_free */
        L->memo_len[slot] = len;
    }
    return id;
}

static uint32_t process_get(struct loader *L, uint32_t pid)
{
    uint32_t p = hmap_get(&L->procs, pid);
    if (p != UINT32_MAX)
        return p;
    trace *t = L->t;
    if (grow((void **)&t->processes, &L->proccap, t->nprocesses, sizeof *t->processes) < 0)
        return UINT32_MAX;
    p = (uint32_t)t->nprocesses++;
    t->processes[p] = (trace_process){ pid, STRTAB_NONE, STRTAB_NONE, INT64_MIN };
    if (hmap_put(&L->procs, pid, p) < 0)
        return UINT32_MAX;
    return p;
}

static uint32_t track_get(struct loader *L, uint32_t pid, uint32_t tid)
{
    if (pid == L->last_pid && tid == L->last_tid)
        return L->last_track;
    uint64_t key = (uint64_t)pid << 32 | tid;
    uint32_t k = hmap_get(&L->tracks, key);
    if (k == UINT32_MAX) {
        trace *t = L->t;
        uint32_t p = process_get(L, pid);
        if (p == UINT32_MAX ||
            grow((void **)&t->tracks, &L->trackcap, t->ntracks, sizeof *t->tracks) < 0)
            return UINT32_MAX;
        k = (uint32_t)t->ntracks++;
        t->tracks[k] = (trace_track){ p, tid, STRTAB_NONE, INT64_MIN, false };
        if (hmap_put(&L->tracks, key, k) < 0)
            return UINT32_MAX;
    }
    L->last_pid = pid;
    L->last_tid = tid;
    L->last_track = k;
    return k;
}

/* Times are kept in [TIME_MIN, TIME_MAX] and the durations of all the events
   add up to at most TIME_SUM_MAX (see trace.h), so that no difference of two
   times and no sum of durations formed later overflows an int64. Real traces
   are nowhere near: 2^62 ns is 146 years. */
#define TIME_MIN (-(INT64_C(1) << 61))
#define TIME_MAX (INT64_C(1) << 62)
#define TIME_SUM_MAX (INT64_C(1) << 62)

static bool time_ok(int64_t ts)
{
    return ts >= TIME_MIN && ts <= TIME_MAX;
}

static void skip(struct loader *L, enum trace_skip r);

static int add_event(struct loader *L, int64_t ts, int64_t dur, uint32_t name, uint32_t cat,
                     uint32_t track, bool has_corr, uint64_t corr)
{
    trace *t = L->t;
    if (dur > TIME_SUM_MAX - L->dur_sum) {
        skip(L, TRACE_SKIP_BAD_NUMBER);
        return 1;
    }
    L->dur_sum += dur;
    if (vec_grow((void **)&t->events, &t->cap_events, t->nevents, sizeof *t->events) < 0)
        return fail_nomem(L);
    uint32_t idx = (uint32_t)t->nevents++;
    t->events[idx] = (trace_event){ ts, dur, name, cat, track, 0 };
    t->complete_events++;
    if (has_corr) {
        if (vec_grow((void **)&t->corrs, &t->cap_corrs, t->ncorrs, sizeof *t->corrs) < 0)
            return fail_nomem(L);
        t->corrs[t->ncorrs++] = (trace_corr){ idx, 0, corr };
    }
    return 1;
}

static void skip(struct loader *L, enum trace_skip r)
{
    L->t->skipped[r]++;
}

static int finish_event(struct loader *L)
{
    struct cur *c = &L->c;
    trace *t = L->t;
    t->events_read++;
    L->any_object = true;
    if (!c->has_ph) {
        skip(L, TRACE_SKIP_UNKNOWN_PHASE);
        return 1;
    }
    uint32_t pid = c->pid == STRTAB_NONE ? L->s_empty : c->pid;
    uint32_t tid = c->tid == STRTAB_NONE ? L->s_empty : c->tid;
    uint32_t name = c->name == STRTAB_NONE ? L->s_empty : c->name;
    uint32_t cat = c->cat == STRTAB_NONE ? L->s_empty : c->cat;

    switch (c->ph) {
    case 'X':
    case 'B':
    case 'E': {
        if (!c->has_ts) {
            skip(L, TRACE_SKIP_MISSING_TS);
            return 1;
        }
        if (!c->ts_ok || !time_ok(c->ts)) {
            skip(L, TRACE_SKIP_BAD_NUMBER);
            return 1;
        }
        uint32_t track = track_get(L, pid, tid);
        if (track == UINT32_MAX)
            return fail_nomem(L);
        /* per-track stacks: an E closes its track's innermost open B in O(1)
           (a scan of every open B made B/E traces quadratic) */
        uint32_t top = hmap_get(&L->open_top, track);
        if (top == UINT32_MAX)
            top = BEGIN_NONE;
        if (c->ph == 'B') {
            uint32_t slot = L->free_begin;
            if (slot != BEGIN_NONE) {
                L->free_begin = L->begins[slot].prev;
            } else {
                if (L->nbegins >= BEGIN_NONE ||
                    grow((void **)&L->begins, &L->begincap, L->nbegins, sizeof *L->begins) < 0)
                    return fail_nomem(L);
                slot = (uint32_t)L->nbegins++;
            }
            L->begins[slot] = (struct begin){ c->ts, name, cat, track, top, c->has_corr, c->corr };
            if (hmap_put(&L->open_top, track, slot) < 0) {
                L->begins[slot].prev = L->free_begin;
                L->free_begin = slot;
                return fail_nomem(L);
            }
            L->open_begins++;
            return 1;
        }
        int64_t dur = c->dur;
        if (c->ph == 'E') {
            if (top == BEGIN_NONE) {
                skip(L, TRACE_SKIP_UNMATCHED_END);
                return 1;
            }
            struct begin b = L->begins[top];
            if (hmap_put(&L->open_top, track, b.prev) < 0)
                return fail_nomem(L);
            L->begins[top].prev = L->free_begin;
            L->free_begin = top;
            L->open_begins--;
            if (c->ts < b.ts) {
                skip(L, TRACE_SKIP_NEGATIVE_DUR);
                return 1;
            }
            return add_event(L, b.ts, c->ts - b.ts, b.name, b.cat, track, b.has_corr, b.corr);
        }
        if (!c->has_dur) {
            skip(L, TRACE_SKIP_MISSING_DUR);
            return 1;
        }
        if (!c->dur_ok || (dur > 0 && dur > TIME_MAX - c->ts)) {
            skip(L, TRACE_SKIP_BAD_NUMBER);
            return 1;
        }
        if (dur < 0) {
            skip(L, TRACE_SKIP_NEGATIVE_DUR);
            return 1;
        }
        if (cat == L->s_trace) {
            /* the profiler's own span over the whole window: not an operation */
            if (!t->has_window || c->ts < t->window_start)
                t->window_start = c->ts;
            if (!t->has_window || c->ts + dur > t->window_end)
                t->window_end = c->ts + dur;
            t->has_window = true;
            skip(L, TRACE_SKIP_WINDOW);
            return 1;
        }
        return add_event(L, c->ts, dur, name, cat, track, c->has_corr, c->corr);
    }
    case 'M': {
        skip(L, TRACE_SKIP_METADATA);
        if (name == L->s_process_name || name == L->s_process_labels ||
            name == L->s_process_sort) {
            uint32_t p = process_get(L, pid);
            if (p == UINT32_MAX)
                return fail_nomem(L);
            if (name == L->s_process_name && c->arg_name != STRTAB_NONE)
                t->processes[p].name = c->arg_name;
            else if (name == L->s_process_labels && c->arg_labels != STRTAB_NONE)
                t->processes[p].labels = c->arg_labels;
            else if (name == L->s_process_sort && c->has_sort)
                t->processes[p].sort_index = c->sort_index;
        } else if (name == L->s_thread_name || name == L->s_thread_sort) {
            uint32_t k = track_get(L, pid, tid);
            if (k == UINT32_MAX)
                return fail_nomem(L);
            if (name == L->s_thread_name && c->arg_name != STRTAB_NONE)
                t->tracks[k].name = c->arg_name;
            else if (name == L->s_thread_sort && c->has_sort)
                t->tracks[k].sort_index = c->sort_index;
        }
        return 1;
    }
    case 's':
    case 'f':
    case 't':
        skip(L, TRACE_SKIP_FLOW);
        if (c->ph != 't' && c->has_id && c->has_ts && c->ts_ok && time_ok(c->ts)) {
            uint32_t track = track_get(L, pid, tid);
            if (track == UINT32_MAX ||
                vec_grow((void **)&t->flows, &t->cap_flows, t->nflows, sizeof *t->flows) < 0)
                return fail_nomem(L);
            t->flows[t->nflows++] = (trace_flow){ c->ts, c->id, cat, track, c->ph };
        }
        return 1;
    case 'i':
    case 'I':
    case 'R':
        skip(L, TRACE_SKIP_INSTANT);
        return 1;
    case 'C':
        skip(L, TRACE_SKIP_COUNTER);
        return 1;
    case 'b': case 'e': case 'n': case 'S': case 'T': case 'p': case 'F':
    case 'N': case 'O': case 'D': case 'P': case 'c': case '(': case ')':
        skip(L, TRACE_SKIP_OTHER_PHASE);
        return 1;
    default:
        skip(L, TRACE_SKIP_UNKNOWN_PHASE);
        return 1;
    }
}

static enum key classify_event_key(const unsigned char *k, size_t n)
{
    switch (n) {
    case 2:
        if (k[0] == 'p' && k[1] == 'h') return K_PH;
        if (k[0] == 't' && k[1] == 's') return K_TS;
        if (k[0] == 'i' && k[1] == 'd') return K_ID;
        break;
    case 3:
        if (!memcmp(k, "cat", 3)) return K_CAT;
        if (!memcmp(k, "pid", 3)) return K_PID;
        if (!memcmp(k, "tid", 3)) return K_TID;
        if (!memcmp(k, "dur", 3)) return K_DUR;
        break;
    case 4:
        if (!memcmp(k, "name", 4)) return K_NAME;
        if (!memcmp(k, "args", 4)) return K_ARGS;
        break;
    }
    return K_OTHER;
}

static enum key classify_args_key(const unsigned char *k, size_t n)
{
    switch (n) {
    case 4:
        if (!memcmp(k, "name", 4)) return K_NAME;
        break;
    case 6:
        if (!memcmp(k, "labels", 6)) return K_LABELS;
        break;
    case 10:
        if (!memcmp(k, "sort_index", 10)) return K_SORT_INDEX;
        break;
    case 11:
        if (!memcmp(k, "correlation", 11)) return K_CORRELATION;
        break;
    }
    return K_OTHER;
}

/* A scalar value (number or string text). is_str tells which. */
static int on_value(struct loader *L, const char *s, size_t n, bool is_str)
{
    L->any_token = true;
    int d = L->depth;
    if (d == 0) {
        L->top = 's';
        return 1;
    }
    if (L->ev_depth && d == L->ev_depth) {
        L->t->events_read++;
        skip(L, TRACE_SKIP_NOT_EVENT);
        return 1;
    }
    if (L->in_event && d == L->ev_depth + 1) {
        struct cur *c = &L->c;
        switch (L->key) {
        case K_PH:
            if (is_str && n == 1) {
                c->ph = s[0];
                c->has_ph = true;
            } else {
                c->ph = '?';
                c->has_ph = true;
            }
            break;
        case K_NAME:
            if ((c->name = intern(L, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_CAT:
            if ((c->cat = intern_memo(L, 2, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_PID:
            if ((c->pid = intern_memo(L, 0, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_TID:
            if ((c->tid = intern_memo(L, 1, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_TS:
            c->has_ts = true;
            c->ts_ok = num_parse_us_to_ns(s, n, &c->ts);
            break;
        case K_DUR:
            c->has_dur = true;
            c->dur_ok = num_parse_us_to_ns(s, n, &c->dur);
            break;
        case K_ID:
            c->has_id = num_parse_id(s, n, &c->id);
            if (!c->has_id && is_str) {
                c->id = strtab_hash(s, n);
                c->has_id = true;
            }
            break;
        default:
            break;
        }
        return 1;
    }
    if (L->in_args && d == L->ev_depth + 2) {
        struct cur *c = &L->c;
        switch (L->args_key) {
        case K_CORRELATION:
            c->has_corr = num_parse_id(s, n, &c->corr);
            break;
        case K_NAME:
            if (is_str && (c->arg_name = intern(L, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_LABELS:
            if (is_str && (c->arg_labels = intern(L, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_SORT_INDEX:
            c->has_sort = num_parse_scaled(s, n, 0, &c->sort_index);
            break;
        default:
            break;
        }
        return 1;
    }
    if (d == 1 && L->top == 'm') {
        if (L->top_key == K_BASE_NS) {
            int64_t b;
            if (num_parse_scaled(s, n, 0, &b) && b >= TIME_MIN && b < TIME_MAX) {
                L->t->base_ns = b;
                L->t->has_base = true;
            }
        } else if (L->top_key == K_TRACE_EVENTS) {
            error_set(L->err, T2P_ERR_NOT_TRACE, L->path, -1,
                      "\"traceEvents\" is a %s, not an array of events", is_str ? "string" : "scalar");
            L->failed = true;
            return 0;
        }
    }
    return 1;
}

static int cb_null(void *ctx)
{
    return on_value(ctx, "null", 4, false);
}

static int cb_bool(void *ctx, int b)
{
    return on_value(ctx, b ? "true" : "false", b ? 4 : 5, false);
}

static int cb_number(void *ctx, const char *s, size_t n)
{
    return on_value(ctx, s, n, false);
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
    return on_value(ctx, (const char *)s, n, true);
}

static int cb_start_map(void *ctx)
{
    struct loader *L = ctx;
    L->any_token = true;
    L->depth++;
    int d = L->depth;
    if (d == 1) {
        L->top = 'm';
    } else if (L->ev_depth && d == L->ev_depth + 1) {
        L->in_event = true;
        L->key = K_OTHER;
        L->c = (struct cur){ .name = STRTAB_NONE, .cat = STRTAB_NONE, .pid = STRTAB_NONE,
                             .tid = STRTAB_NONE, .arg_name = STRTAB_NONE,
                             .arg_labels = STRTAB_NONE };
    } else if (L->in_event && d == L->ev_depth + 2 && L->key == K_ARGS) {
        L->in_args = true;
        L->args_key = K_OTHER;
    } else if (d == 2 && L->top == 'm' && L->top_key == K_TRACE_EVENTS) {
        error_set(L->err, T2P_ERR_NOT_TRACE, L->path, -1,
                  "\"traceEvents\" is an object, not an array of events");
        L->failed = true;
        return 0;
    }
    return 1;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t n)
{
    struct loader *L = ctx;
    int d = L->depth;
    if (L->in_event && d == L->ev_depth + 1) {
        L->key = classify_event_key(k, n);
    } else if (L->in_args && d == L->ev_depth + 2) {
        L->args_key = classify_args_key(k, n);
    } else if (d == 1 && L->top == 'm') {
        L->top_key = K_OTHER;
        if (n == 11 && !memcmp(k, "traceEvents", 11))
            L->top_key = K_TRACE_EVENTS;
        else if (n == 19 && !memcmp(k, "baseTimeNanoseconds", 19))
            L->top_key = K_BASE_NS;
        else if ((n == 5 && !memcmp(k, "nodes", 5)) || (n == 6 && !memcmp(k, "schema", 6)))
            L->saw_exec_graph = true;
    }
    return 1;
}

static int cb_end_map(void *ctx)
{
    struct loader *L = ctx;
    int d = L->depth;
    int r = 1;
    if (L->in_args && d == L->ev_depth + 2) {
        L->in_args = false;
    } else if (L->in_event && d == L->ev_depth + 1) {
        L->in_event = false;
        r = finish_event(L);
    }
    L->depth--;
    return r;
}

static int cb_start_array(void *ctx)
{
    struct loader *L = ctx;
    L->any_token = true;
    L->depth++;
    int d = L->depth;
    if (d == 1) {
        L->top = 'a';
        L->t->format = TRACE_FORMAT_ARRAY;
        L->ev_depth = 1;
        L->saw_events = true;
    } else if (d == 2 && L->top == 'm' && L->top_key == K_TRACE_EVENTS) {
        L->ev_depth = 2;
        L->saw_events = true;
        L->t->format = TRACE_FORMAT_KINETO;
    } else if (L->ev_depth && d == L->ev_depth + 1) {
        L->t->events_read++;
        skip(L, TRACE_SKIP_NOT_EVENT);
    }
    return 1;
}

static int cb_end_array(void *ctx)
{
    struct loader *L = ctx;
    if (L->ev_depth && L->depth == L->ev_depth)
        L->ev_depth = 0;
    L->depth--;
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array
};

/* ---- driving it ---- */

/* yajl does not check its allocations: a failed realloc of its token buffer
   or nesting stack is written through (a segfault on a long name or deep
   nesting near the memory limit). So its allocator jumps back to the parse
   call instead of returning NULL. yajl's structures stay consistent: the
   jump leaves from inside the allocation call, before yajl stores its
   result, so yajl_free still frees everything. */
struct ymem {
    jmp_buf jb;
    bool armed;    /* only inside yajl_alloc, yajl_parse and yajl_complete_parse */
    bool tracking; /* inside yajl_alloc: what it got so far is freed on a jump */
    int ntrack;
    void *track[8];
};

static void *ya_malloc(void *ctx, size_t n)
{
    struct ymem *ym = ctx;
    void *p = malloc(n);
    if (!p && ym->armed)
        longjmp(ym->jb, 1);
    if (ym->tracking && ym->ntrack < 8)
        ym->track[ym->ntrack++] = p;
    return p;
}

static void *ya_realloc(void *ctx, void *old, size_t n)
{
    struct ymem *ym = ctx;
    void *p = realloc(old, n);
    if (!p && n && ym->armed)
        longjmp(ym->jb, 1);
    if (ym->tracking && p) {
        int i = 0;
        while (i < ym->ntrack && ym->track[i] != old)
            i++;
        if (i < ym->ntrack && old)
            ym->track[i] = p;
        else if (ym->ntrack < 8)
            ym->track[ym->ntrack++] = p;
    }
    return p;
}

static void ya_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static yajl_handle alloc_guarded(struct ymem *ym, yajl_alloc_funcs *yaf, void *ctx)
{
    ym->ntrack = 0;
    if (setjmp(ym->jb)) {
        ym->armed = ym->tracking = false;
        for (int i = 0; i < ym->ntrack; i++)
            free(ym->track[i]);
        return NULL;
    }
    ym->armed = ym->tracking = true;
    yajl_handle h = yajl_alloc(&callbacks, yaf, ctx);
    /* yajl_parse allocates the lexer on its first call, and loses it when the
       allocation of the lexer's buffer fails: make that first call here */
    if (h)
        yajl_parse(h, (const unsigned char *)"", 0);
    ym->armed = ym->tracking = false;
    return h;
}

/* yajl_parse(buf, len), or yajl_complete_parse when buf is NULL; *oom set
   when yajl ran out of memory. */
static yajl_status parse_guarded(struct ymem *ym, yajl_handle h, const unsigned char *buf,
                                 size_t len, bool *oom)
{
    if (setjmp(ym->jb)) {
        ym->armed = false;
        *oom = true;
        return yajl_status_error;
    }
    ym->armed = true;
    yajl_status s = buf ? yajl_parse(h, buf, len) : yajl_complete_parse(h);
    ym->armed = false;
    return s;
}

static void yajl_reason(yajl_handle h, const unsigned char *buf, size_t len, char *out, size_t size)
{
    unsigned char *m = yajl_get_error(h, 0, buf, len);
    snprintf(out, size, "%s", m ? (const char *)m : "parse error");
    if (m)
        yajl_free_error(h, m);
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' ' || out[n - 1] == '.'))
        out[--n] = '\0';
}

void trace_free(trace *t)
{
    if (!t)
        return;
    free(t->path);
    strtab_free(t->strs);
    vec_free(t->events, t->cap_events, sizeof *t->events);
    free(t->processes);
    free(t->tracks);
    vec_free(t->corrs, t->cap_corrs, sizeof *t->corrs);
    vec_free(t->flows, t->cap_flows, sizeof *t->flows);
    free(t);
}

static bool label_is_device(const char *s)
{
    /* "GPU 0", "MTIA 17": any process label but the host's */
    return s[0] && strncmp(s, "CPU", 3) != 0;
}

static void finish_tracks(trace *t)
{
    for (size_t i = 0; i < t->ntracks; i++) {
        trace_track *k = &t->tracks[i];
        const trace_process *p = &t->processes[k->process];
        bool dev = false;
        if (p->labels != STRTAB_NONE)
            dev = label_is_device(trace_str(t, p->labels));
        if (!dev && k->name != STRTAB_NONE) {
            const char *n = trace_str(t, k->name);
            dev = strncmp(n, "stream ", 7) == 0 || strncmp(n, "Stream ", 7) == 0;
        }
        k->is_gpu = dev;
    }
}

static void *load_fail(trace *t, struct loader *L)
{
    trace_free(t);
    hmap_done(&L->tracks);
    hmap_done(&L->procs);
    hmap_done(&L->open_top);
    free(L->begins);
    return NULL;
}

static void reader_stop(struct reader *r, bool started)
{
    if (started) {
        pthread_mutex_lock(&r->mu);
        r->stop = true;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->th, NULL);
    }
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    for (int i = 0; i < NBUF; i++)
        free(r->bufs[i]);
    if (r->gz)
        gzclose(r->gz);
}

trace *trace_load(const char *path, const trace_load_opts *opts, t2p_error *err)
{
    static const trace_load_opts no_opts;
    struct loader L;
    struct reader R;
    yajl_handle h = NULL;
    bool started = false;
    uint64_t base = 0;
    char why[300];

    if (!opts)
        opts = &no_opts;
    error_clear(err);
    memset(&L, 0, sizeof L);
    memset(&R, 0, sizeof R);
    L.err = err;
    L.path = path;
    L.last_pid = L.last_tid = UINT32_MAX;
    L.free_begin = BEGIN_NONE;
    L.memo[0] = L.memo[1] = L.memo[2] = STRTAB_NONE;

    trace *t = calloc(1, sizeof *t);
    if (!t) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return NULL;
    }
    L.t = t;
    t->path = strdup(path);
    t->strs = strtab_new();
    if (!t->path || !t->strs || hmap_init(&L.tracks, 64) < 0 || hmap_init(&L.procs, 16) < 0) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return load_fail(t, &L);
    }
    L.s_empty = t->str_empty = strtab_intern(t->strs, "", 0);
    L.s_trace = strtab_intern(t->strs, "Trace", 5);
    L.s_process_name = strtab_intern(t->strs, "process_name", 12);
    L.s_process_labels = strtab_intern(t->strs, "process_labels", 14);
    L.s_process_sort = strtab_intern(t->strs, "process_sort_index", 18);
    L.s_thread_name = strtab_intern(t->strs, "thread_name", 11);
    L.s_thread_sort = strtab_intern(t->strs, "thread_sort_index", 17);
    if (L.s_empty == STRTAB_NONE || L.s_trace == STRTAB_NONE || L.s_process_name == STRTAB_NONE ||
        L.s_process_labels == STRTAB_NONE || L.s_process_sort == STRTAB_NONE ||
        L.s_thread_name == STRTAB_NONE || L.s_thread_sort == STRTAB_NONE) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return load_fail(t, &L);
    }

    /* a FIFO blocks in open() until its writer comes: a signal then (a
       resized terminal) is no reason to fail */
    int fd;
    do
        fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    struct stat st;
    if (fd < 0) {
        error_set(err, T2P_ERR_IO, path, -1, "%s", strerror(errno));
        return load_fail(t, &L);
    }
    if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
        error_set(err, T2P_ERR_IO, path, -1, "%s",
                  S_ISDIR(st.st_mode) ? "is a directory, not a trace file" : strerror(errno));
        close(fd);
        return load_fail(t, &L);
    }
    t->file_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    /* a pipe or a process substitution has no size to check: it streams */
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
        close(fd);
        error_set(err, T2P_ERR_EMPTY, path, -1,
                  "empty file (0 bytes); expected a PyTorch profiler trace (Chrome trace JSON)");
        return load_fail(t, &L);
    }
    unsigned char magic[2] = { 0, 0 };
    if (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
        t->gzip = true;
    R.gz = gzdopen(fd, "rb");
    if (!R.gz) {
        close(fd);
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return load_fail(t, &L);
    }
    gzbuffer(R.gz, BUFSZ < (1u << 18) ? BUFSZ : 1u << 18);
    pthread_mutex_init(&R.mu, NULL);
    pthread_cond_init(&R.cv, NULL);
    for (int i = 0; i < NBUF; i++)
        if (!(R.bufs[i] = malloc(BUFSZ))) {
            error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
            goto fail;
        }
    /* The reader starts with every signal blocked, so that a signal meant for
       the program (SIGWINCH from a resized terminal, above all) never lands
       in its read() and fails the load with EINTR; the main thread gets them. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int prc = pthread_create(&R.th, NULL, reader_main, &R);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (prc != 0) {
        /* EAGAIN: no memory for the thread's stack (e.g. under ulimit -v) */
        if (prc == EAGAIN || prc == ENOMEM)
            error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory (cannot start the reader thread)");
        else
            error_set(err, T2P_ERR_IO, path, -1, "cannot start the reader thread: %s", strerror(prc));
        goto fail;
    }
    started = true;

    struct ymem ym = { .armed = false };
    yajl_alloc_funcs yaf = { ya_malloc, ya_realloc, ya_free, &ym };
    bool yoom = false;
    h = alloc_guarded(&ym, &yaf, &L);
    if (!h) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        goto fail;
    }

    for (;;) {
        pthread_mutex_lock(&R.mu);
        while (R.count == 0 && !R.done)
            pthread_cond_wait(&R.cv, &R.mu);
        if (R.count == 0) {
            pthread_mutex_unlock(&R.mu);
            break;
        }
        int slot = R.head;
        unsigned char *buf = R.bufs[slot];
        size_t len = R.lens[slot];
        uint64_t off = R.offs[slot];
        pthread_mutex_unlock(&R.mu);

        yajl_status s = parse_guarded(&ym, h, buf, len, &yoom);
        if (yoom) {
            error_set(err, T2P_ERR_NOMEM, path, (int64_t)base, "out of memory");
            goto fail;
        }
        if (s != yajl_status_ok) {
            int64_t at = (int64_t)(base + yajl_get_bytes_consumed(h));
            if (!L.failed) {
                yajl_reason(h, buf, len, why, sizeof why);
                if (!L.any_token)
                    error_set(err, T2P_ERR_JSON, path, at,
                              "not JSON (%s); expected a PyTorch profiler trace (Chrome trace JSON)", why);
                else
                    error_set(err, T2P_ERR_JSON, path, at, "invalid JSON: %s", why);
            } else {
                err->offset = at;
            }
            goto fail;
        }
        base += len;
        t->bytes_in = base;

        pthread_mutex_lock(&R.mu);
        R.head = (R.head + 1) % NBUF;
        R.count--;
        pthread_cond_broadcast(&R.cv);
        pthread_mutex_unlock(&R.mu);

        if (opts->progress) {
            trace_progress p = { off, t->file_size, t->events_read };
            if (opts->progress(&p, opts->progress_ctx)) {
                error_set(err, T2P_ERR_CANCELLED, path, (int64_t)base, "cancelled");
                goto fail;
            }
        }
    }

    bool truncated = false;
    if (R.zerr != Z_OK && R.zerr != Z_STREAM_END) {
        if (R.zerr == Z_BUF_ERROR || R.zerr == Z_DATA_ERROR) {
            if (!opts->partial) {
                if (R.zerr == Z_BUF_ERROR)
                    error_set(err, T2P_ERR_TRUNCATED, path, (int64_t)base,
                              "truncated: the gzip data ends after %llu bytes of JSON (was the writer killed?)",
                              (unsigned long long)base);
                else
                    error_set(err, T2P_ERR_TRUNCATED, path, (int64_t)base,
                              "corrupt gzip data after %llu bytes of JSON (%s); --partial loads what precedes it",
                              (unsigned long long)base, R.zmsg);
                goto fail;
            }
            truncated = true;
            snprintf(t->truncated_reason, sizeof t->truncated_reason, "gzip data %s after %llu bytes",
                     R.zerr == Z_BUF_ERROR ? "ends" : "is corrupt", (unsigned long long)base);
        } else {
            error_set(err, T2P_ERR_IO, path, (int64_t)base, "read error: %s", R.zmsg);
            goto fail;
        }
    }
    if (!truncated) {
        yajl_status s = parse_guarded(&ym, h, NULL, 0, &yoom);
        if (yoom) {
            error_set(err, T2P_ERR_NOMEM, path, (int64_t)base, "out of memory");
            goto fail;
        }
        if (s != yajl_status_ok) {
            if (!L.any_token) {
                error_set(err, T2P_ERR_EMPTY, path, -1,
                          "holds only white space; expected a PyTorch profiler trace (Chrome trace JSON)");
                goto fail;
            }
            bool between_events = L.top == 'a' && L.depth == 1 && !L.in_event;
            if (!between_events) {
                if (!opts->partial) {
                    error_set(err, T2P_ERR_TRUNCATED, path, (int64_t)base,
                              "truncated: the JSON ends at byte %llu inside %s (was the writer killed?)",
                              (unsigned long long)base, L.in_event ? "an event" : "the document");
                    goto fail;
                }
                truncated = true;
                snprintf(t->truncated_reason, sizeof t->truncated_reason,
                         "JSON ends at byte %llu", (unsigned long long)base);
            }
            /* else: the array form may miss its closing ']' (a killed writer) */
        }
    }
    t->truncated = truncated;

    if (L.top == 's') {
        error_set(err, T2P_ERR_NOT_TRACE, path, -1,
                  "a single JSON value, not a trace; expected an object with \"traceEvents\" or an array of events");
        goto fail;
    }
    if (L.top == 'm' && !L.saw_events) {
        if (L.saw_exec_graph)
            error_set(err, T2P_ERR_NOT_TRACE, path, -1,
                      "a PyTorch execution trace (nodes/schema), not a timing trace; "
                      "expected a profiler trace with \"traceEvents\" (torch.profiler export_chrome_trace)");
        else
            error_set(err, T2P_ERR_NOT_TRACE, path, -1,
                      "a JSON object without \"traceEvents\"; expected a PyTorch profiler trace");
        goto fail;
    }
    if (t->events_read > 0 && !L.any_object) {
        error_set(err, T2P_ERR_NOT_TRACE, path, -1,
                  "a JSON array with no event objects; expected an array of trace events");
        goto fail;
    }
    t->skipped[TRACE_SKIP_UNMATCHED_BEGIN] += L.open_begins;
    finish_tracks(t);

    yajl_free(h);
    reader_stop(&R, started);
    hmap_done(&L.tracks);
    hmap_done(&L.procs);
    hmap_done(&L.open_top);
    free(L.begins);
    return t;

fail:
    if (err->kind == T2P_OK)
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
    if (h)
        yajl_free(h);
    reader_stop(&R, started);
    return load_fail(t, &L);
}

const char *trace_track_label(const trace *t, uint32_t track, char *buf, size_t size)
{
    const trace_track *k = &t->tracks[track];
    const trace_process *p = &t->processes[k->process];
    if (k->name != STRTAB_NONE) {
        const char *n = trace_str(t, k->name);
        size_t len = strtab_len(t->strs, k->name);
        while (len > 0 && n[len - 1] == ' ')
            len--;
        if (len > 0) {
            snprintf(buf, size, "%.*s", (int)len, n);
            return buf;
        }
    }
    if (k->is_gpu)
        snprintf(buf, size, "stream %s", trace_str(t, k->tid));
    else
        snprintf(buf, size, "%s/%s", trace_str(t, p->pid), trace_str(t, k->tid));
    return buf;
}
