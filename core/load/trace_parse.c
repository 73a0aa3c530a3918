/* The yajl callbacks: they turn the token stream into the trace's compact
   records (events, processes, tracks, correlations), matching B/E
   pairs on the way, and keep nothing of the JSON text. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "core/base/num.h"
#include "core/load/trace_args.h"
#include "core/load/trace_parse.h"
#include "core/load/trace_mem.h"
#include "core/base/vec.h"

#define BEGIN_NONE (UINT32_MAX - 1) /* hmap cannot hold UINT32_MAX as a value */

static uint32_t process_get(trace_parser *L, uint32_t pid)
{
    uint32_t p = hmap_get(&L->procs, pid);
    if (p != UINT32_MAX)
        return p;
    trace *t = L->t;
    if (vec_grow_heap((void **)&t->processes, &L->proccap, t->nprocesses, sizeof *t->processes) < 0)
        return UINT32_MAX;
    p = (uint32_t)t->nprocesses++;
    t->processes[p] = (trace_process){ pid, STRTAB_NONE, STRTAB_NONE, INT64_MIN };
    if (hmap_put(&L->procs, pid, p) < 0)
        return UINT32_MAX;
    return p;
}

static uint32_t track_get(trace_parser *L, uint32_t pid, uint32_t tid)
{
    if (pid == L->last_pid && tid == L->last_tid)
        return L->last_track;
    uint64_t key = (uint64_t)pid << 32 | tid;
    uint32_t k = hmap_get(&L->tracks, key);
    if (k == UINT32_MAX) {
        trace *t = L->t;
        uint32_t p = process_get(L, pid);
        if (p == UINT32_MAX ||
            vec_grow_heap((void **)&t->tracks, &L->trackcap, t->ntracks, sizeof *t->tracks) < 0)
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
/* The same for the [memory] records' |Bytes| (4 EiB: no allocator is near) */
#define MEM_SUM_MAX (UINT64_C(1) << 62)

static bool time_ok(int64_t ts)
{
    return ts >= TIME_MIN && ts <= TIME_MAX;
}

static void skip(trace_parser *L, enum trace_skip r);

static int add_event(trace_parser *L, int64_t ts, int64_t dur, uint32_t name, uint32_t cat,
                     uint32_t track, bool has_corr, uint64_t corr, uint32_t ext)
{
    trace *t = L->t;
    if (dur > TIME_SUM_MAX - L->dur_sum) {
        skip(L, TRACE_SKIP_BAD_NUMBER);
        return 1;
    }
    L->dur_sum += dur;
    if (vec_grow((void **)&t->events, &t->cap_events, t->nevents, sizeof *t->events) < 0)
        return trace_pstate_nomem(L);
    uint32_t idx = (uint32_t)t->nevents++;
    t->events[idx] = (trace_event){ ts, dur, name, cat, track, ext };
    t->complete_events++;
    if (has_corr) {
        if (vec_grow((void **)&t->corrs, &t->cap_corrs, t->ncorrs, sizeof *t->corrs) < 0)
            return trace_pstate_nomem(L);
        t->corrs[t->ncorrs++] = (trace_corr){ idx, 0, corr };
    }
    return 1;
}

static void skip(trace_parser *L, enum trace_skip r)
{
    L->t->skipped[r]++;
}

/* A [memory] instant: kept when it has a time, a size and a CPU or CUDA
   device (what TensorBoard's memory view can name); skipped as an instant
   otherwise. Early Kineto writes neither cat nor Addr nor the totals. */
static int add_mem(trace_parser *L, uint32_t pid, uint32_t tid)
{
    struct trace_cur *c = &L->c;
    trace *t = L->t;
    if (!c->has_ts || !c->has_bytes || !c->has_dev_type || (c->dev_type != 0 && c->dev_type != 1)) {
        skip(L, TRACE_SKIP_INSTANT);
        return 1;
    }
    if (!c->ts_ok || !time_ok(c->ts)) {
        skip(L, TRACE_SKIP_BAD_NUMBER);
        return 1;
    }
    int16_t dev = TRACE_MEM_CPU;
    if (c->dev_type == 1) {
        if (c->dev_id < 0 || c->dev_id > INT16_MAX) {
            skip(L, TRACE_SKIP_INSTANT);
            return 1;
        }
        dev = (int16_t)c->dev_id;
    }
    /* refused rather than saturated: a value this size is no allocation,
       and one such record would make every sum over the device wrong */
    uint64_t mag = c->bytes < 0 ? 0 - (uint64_t)c->bytes : (uint64_t)c->bytes;
    if (mag > MEM_SUM_MAX - L->mem_bytes_sum) {
        skip(L, TRACE_SKIP_BAD_BYTES);
        return 1;
    }
    L->mem_bytes_sum += mag;
    uint32_t track = track_get(L, pid, tid);
    if (track == UINT32_MAX)
        return trace_pstate_nomem(L);
    trace_mem_in in = { .ts = c->ts, .bytes = c->bytes, .track = track, .device = dev,
                        .has_addr = c->has_addr, .addr = c->addr,
                        .has_alloc = c->has_total_alloc, .allocated = c->total_alloc,
                        .has_res = c->has_total_res, .reserved = c->total_res };
    if (trace_mem_append(t, &L->mem, &in) < 0)
        return trace_pstate_nomem(L);
    return 1;
}

static int finish_event(trace_parser *L)
{
    struct trace_cur *c = &L->c;
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
            return trace_pstate_nomem(L);
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
                    vec_grow_heap((void **)&L->begins, &L->begincap, L->nbegins, sizeof *L->begins) < 0)
                    return trace_pstate_nomem(L);
                slot = (uint32_t)L->nbegins++;
            }
            L->begins[slot] = (struct trace_begin){ c->ts, name, cat, track, top, c->has_corr, c->corr,
                                                    c->ext };
            if (hmap_put(&L->open_top, track, slot) < 0) {
                L->begins[slot].prev = L->free_begin;
                L->free_begin = slot;
                return trace_pstate_nomem(L);
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
            struct trace_begin b = L->begins[top];
            if (hmap_put(&L->open_top, track, b.prev) < 0)
                return trace_pstate_nomem(L);
            L->begins[top].prev = L->free_begin;
            L->free_begin = top;
            L->open_begins--;
            if (c->ts < b.ts) {
                skip(L, TRACE_SKIP_NEGATIVE_DUR);
                return 1;
            }
            return add_event(L, b.ts, c->ts - b.ts, b.name, b.cat, track, b.has_corr, b.corr,
                             b.ext);
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
        size_t before = t->nevents;
        if (add_event(L, c->ts, dur, name, cat, track, c->has_corr, c->corr, c->ext) == 0)
            return 0;
        if (c->stack != STRTAB_NONE && t->nevents > before) {
            if (vec_grow((void **)&t->stacks, &t->cap_stacks, t->nstacks, sizeof *t->stacks) < 0)
                return trace_pstate_nomem(L);
            t->stacks[t->nstacks++] = (trace_stack){ (uint32_t)(t->nevents - 1), c->stack };
        }
        if (c->kflags && t->nevents > before) {
            if (vec_grow((void **)&t->kargs, &t->cap_kargs, t->nkargs, sizeof *t->kargs) < 0)
                return trace_pstate_nomem(L);
            trace_karg *k = &t->kargs[t->nkargs++];
            *k = (trace_karg){ .event = (uint32_t)(t->nevents - 1), .flags = c->kflags,
                               .device = (c->kflags & TRACE_KARG_DEVICE) ? (int16_t)c->k_dev : -1,
                               .blocks_per_sm = c->k_bps, .occupancy = c->k_occ,
                               .registers = c->k_regs, .shared_memory = c->k_smem };
            memcpy(k->grid, c->k_grid, sizeof k->grid);
            memcpy(k->block, c->k_block, sizeof k->block);
        }
        uint32_t shape = c->dims != STRTAB_NONE ? c->dims : c->dims_lc;
        if (shape != STRTAB_NONE && t->nevents > before) {
            if (vec_grow((void **)&t->shapes, &t->cap_shapes, t->nshapes, sizeof *t->shapes) < 0)
                return trace_pstate_nomem(L);
            t->shapes[t->nshapes++] = (trace_shape){ (uint32_t)(t->nevents - 1), shape };
        }
        if (c->py_has && t->nevents > before) {
            if (vec_grow((void **)&t->pyids, &t->cap_pyids, t->npyids, sizeof *t->pyids) < 0)
                return trace_pstate_nomem(L);
            t->pyids[t->npyids++] = (trace_pyid){ (uint32_t)(t->nevents - 1), c->py_has,
                                                  c->py_id, c->py_parent, c->py_module };
        }
        if (c->has_coll && t->nevents > before) {
            if (vec_grow((void **)&t->colls, &t->cap_colls, t->ncolls, sizeof *t->colls) < 0)
                return trace_pstate_nomem(L);
            t->colls[t->ncolls++] = (trace_coll){ (uint32_t)(t->nevents - 1), c->coll_name,
                                                  c->coll_pg, c->coll_dtype, c->in_nelems,
                                                  c->out_nelems, c->group_size, c->seq };
        }
        return 1;
    }
    case 'M': {
        skip(L, TRACE_SKIP_METADATA);
        if (name == L->s_process_name || name == L->s_process_labels ||
            name == L->s_process_sort) {
            uint32_t p = process_get(L, pid);
            if (p == UINT32_MAX)
                return trace_pstate_nomem(L);
            if (name == L->s_process_name && c->arg_name != STRTAB_NONE)
                t->processes[p].name = c->arg_name;
            else if (name == L->s_process_labels && c->arg_labels != STRTAB_NONE)
                t->processes[p].labels = c->arg_labels;
            else if (name == L->s_process_sort && c->has_sort)
                t->processes[p].sort_index = c->sort_index;
        } else if (name == L->s_thread_name || name == L->s_thread_sort) {
            uint32_t k = track_get(L, pid, tid);
            if (k == UINT32_MAX)
                return trace_pstate_nomem(L);
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
        /* counted as skipped (no time of their own); the GPU links come from
           args.correlation, which every launch and its GPU work carry
           (trace-format.md); a flow with an id and a time still names its
           track, as it always did, and a fwdbwd end is kept (trace_flow) */
        skip(L, TRACE_SKIP_FLOW);
        if (c->ph != 't' && c->has_id && c->has_ts && c->ts_ok && time_ok(c->ts)) {
            uint32_t track = track_get(L, pid, tid);
            if (track == UINT32_MAX)
                return trace_pstate_nomem(L);
            if (strtab_len(t->strs, cat) == 6 && !memcmp(trace_str(t, cat), "fwdbwd", 6)) {
                if (vec_grow((void **)&t->flows, &t->cap_flows, t->nflows, sizeof *t->flows) < 0)
                    return trace_pstate_nomem(L);
                t->flows[t->nflows++] = (trace_flow){ c->ts, c->flow_id, track, c->ph, c->bp_e,
                                                      c->id_str, 0 };
            }
        }
        return 1;
    case 'i':
    case 'I':
        if (name == L->s_memory)
            return add_mem(L, pid, tid);
        skip(L, TRACE_SKIP_INSTANT);
        return 1;
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

/* trace_cur at an event's start: every id none, the NCCL counts -1, the
   rest (and the padding, which record compares) zero */
static void cur_init(struct trace_cur *c)
{
    memset(c, 0, sizeof *c);
    c->name = c->cat = c->pid = c->tid = c->arg_name = c->arg_labels = STRTAB_NONE;
    c->stack = c->dims = c->dims_lc = STRTAB_NONE;
    c->coll_name = c->coll_pg = c->coll_dtype = STRTAB_NONE;
    c->in_nelems = c->out_nelems = c->group_size = c->seq = -1;
}

/* A record (trace_recs): the header's byte 0 holds REC_NOT_EVENT, or which
   groups follow the common fields (bit 1 << g for rec_at[g]..rec_at[g+1]). */
#define REC_HEAD 8
#define REC_NOT_EVENT 1u
#define REC_GROUPS 3
static const size_t rec_at[REC_GROUPS + 1] = {
    offsetof(struct trace_cur, has_bytes), /* [memory] args */
    offsetof(struct trace_cur, kflags),    /* kernel args */
    offsetof(struct trace_cur, has_coll),  /* NCCL args */
    sizeof(struct trace_cur),
};
_Static_assert(offsetof(struct trace_cur, has_bytes) < offsetof(struct trace_cur, kflags) &&
                   offsetof(struct trace_cur, kflags) < offsetof(struct trace_cur, has_coll),
               "trace_cur's arg groups lie in rec_at's order, after the common fields");
/* the longest record: every group, each rounded up */
#define REC_MAX (REC_HEAD + sizeof(struct trace_cur) + 7 * (REC_GROUPS + 1))

static size_t rec_round(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* Record mode: keeps the element just read (see trace_parser.recs). */
static int record(trace_parser *L, bool not_event)
{
    trace_recs *r = L->recs;
    if (vec_grow_heap((void **)&r->v, &r->cap, r->n + REC_MAX, 1) < 0)
        return trace_pstate_nomem(L);
    unsigned char *p = r->v + r->n;
    size_t len = REC_HEAD;
    memset(p, 0, REC_HEAD);
    if (not_event) {
        p[0] = REC_NOT_EVENT;
    } else {
        const unsigned char *c = (const unsigned char *)&L->c, *c0 = (const unsigned char *)&L->c0;
        memcpy(p + len, c, rec_at[0]);
        len += rec_round(rec_at[0]);
        for (unsigned g = 0; g < REC_GROUPS; g++) {
            size_t a = rec_at[g], n = rec_at[g + 1] - a;
            if (memcmp(c + a, c0 + a, n)) {
                p[0] |= (unsigned char)(2u << g);
                memcpy(p + len, c + a, n);
                len += rec_round(n);
            }
        }
    }
    r->n += len;
    return 1;
}

/* A scalar value (number or string text). is_str tells which. */
static int on_value(trace_parser *L, const char *s, size_t n, bool is_str)
{
    L->any_token = true;
    int d = L->depth;
    if (d == 0) {
        L->top = 's';
        return 1;
    }
    if (L->dims_key != K_OTHER)
        return trace_args_dims_value(L, s, n, is_str);
    if (L->ev_depth && d == L->ev_depth) {
        if (L->recs)
            return record(L, true);
        L->t->events_read++;
        skip(L, TRACE_SKIP_NOT_EVENT);
        return 1;
    }
    if (L->in_event && d == L->ev_depth + 1) {
        struct trace_cur *c = &L->c;
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
            if ((c->name = trace_pstate_intern(L, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_CAT:
            if ((c->cat = trace_pstate_intern_memo(L, 2, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_PID:
            if ((c->pid = trace_pstate_intern_memo(L, 0, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_TID:
            if ((c->tid = trace_pstate_intern_memo(L, 1, s, n)) == STRTAB_NONE)
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
            /* ids sit on flow and async events only: a string one is interned */
            c->id_str = is_str;
            if (is_str) {
                uint32_t sid = trace_pstate_intern(L, s, n);
                if (sid == STRTAB_NONE)
                    return 0;
                c->flow_id = sid;
                c->has_id = true;
            } else {
                c->has_id = num_parse_id(s, n, &c->flow_id);
            }
            break;
        case K_BP:
            c->bp_e = is_str && n == 1 && s[0] == 'e';
            break;
        default:
            break;
        }
        return 1;
    }
    if (L->in_args && (d == L->ev_depth + 2 || (d == L->ev_depth + 3 && L->c.k_arr)))
        return trace_args_value(L, s, n, is_str);
    if (L->in_props && d == 3) {
        int64_t x;
        if (L->prop_key != K_OTHER && num_parse_scaled(s, n, 0, &x)) {
            if (L->prop_key == K_PROP_ID)
                L->prop_id = x;
            else if (L->prop_key == K_PROP_MAJOR)
                L->prop_major = x;
            else
                L->prop_mem = x;
        }
        return 1;
    }
    if (L->in_dist && d == 2) {
        int64_t r;
        if (L->dist_key == K_RANK && num_parse_scaled(s, n, 0, &r) && r >= 0) {
            L->t->rank = r;
            L->t->has_rank = true;
        }
        if (L->dist_key == K_WORLD_SIZE && num_parse_scaled(s, n, 0, &r) && r > 0)
            L->t->world_size = r;
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

/* Opens an object or array: refused past TRACE_MAX_DEPTH levels, at once
   (2.2 billion '[' overflowed an int after 2 GB of input). Returns 0 then. */
static int open_level(trace_parser *L)
{
    L->any_token = true;
    if (L->depth >= TRACE_MAX_DEPTH) {
        error_set(L->err, T2P_ERR_NOT_TRACE, L->path, -1,
                  "JSON nested deeper than %d levels (the limit; a trace nests a few)",
                  TRACE_MAX_DEPTH);
        L->failed = true;
        return 0;
    }
    L->depth++;
    return 1;
}

static int cb_start_map(void *ctx)
{
    trace_parser *L = ctx;
    if (!open_level(L))
        return 0;
    int dr = trace_args_dims_open(L, true);
    if (dr >= 0)
        return dr;
    int d = L->depth;
    if (d == 1) {
        L->top = 'm';
    } else if (L->ev_depth && d == L->ev_depth + 1) {
        L->in_event = true;
        L->key = K_OTHER;
        L->c = L->c0;

    } else if (L->in_event && d == L->ev_depth + 2 && L->key == K_ARGS) {
        L->in_args = true;
        L->args_key = K_OTHER;
    } else if (d == 2 && L->top == 'm' && L->top_key == K_TRACE_EVENTS) {
        error_set(L->err, T2P_ERR_NOT_TRACE, L->path, -1,
                  "\"traceEvents\" is an object, not an array of events");
        L->failed = true;
        return 0;
    } else if (d == 2 && L->top == 'm' && L->top_key == K_DIST_INFO) {
        L->in_dist = true;
        L->dist_key = K_OTHER;
    } else if (L->in_props && d == 3) {
        L->prop_key = K_OTHER;
        L->prop_id = -1;
        L->prop_mem = 0;
        L->prop_major = 0;
    }
    return 1;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t n)
{
    trace_parser *L = ctx;
    int d = L->depth;
    L->last_key_len = n < sizeof L->last_key ? n : sizeof L->last_key;
    memcpy(L->last_key, k, L->last_key_len);
    if (L->dims_key != K_OTHER)
        return pyrepr_key(&L->dims, (const char *)k, n) < 0 ? trace_pstate_nomem(L) : 1;
    if (L->in_event && d == L->ev_depth + 1) {
        L->key = trace_args_event_key(k, n);
    } else if (L->in_args && d == L->ev_depth + 2) {
        L->args_key = trace_args_key(k, n);
    } else if (L->in_dist && d == 2) {
        L->dist_key = n == 4 && !memcmp(k, "rank", 4)         ? K_RANK
                      : n == 10 && !memcmp(k, "world_size", 10) ? K_WORLD_SIZE
                                                                 : K_OTHER;
    } else if (L->in_props && d == 3) {
        L->prop_key = n == 2 && !memcmp(k, "id", 2)                ? K_PROP_ID
                      : n == 14 && !memcmp(k, "totalGlobalMem", 14) ? K_PROP_MEM
                      : n == 12 && !memcmp(k, "computeMajor", 12)   ? K_PROP_MAJOR
                                                                   : K_OTHER;
    } else if (d == 1 && L->top == 'm') {
        L->top_key = K_OTHER;
        if (n == 11 && !memcmp(k, "traceEvents", 11))
            L->top_key = K_TRACE_EVENTS;
        else if (n == 19 && !memcmp(k, "baseTimeNanoseconds", 19))
            L->top_key = K_BASE_NS;
        else if (n == 15 && !memcmp(k, "distributedInfo", 15))
            L->top_key = K_DIST_INFO;
        else if (n == 16 && !memcmp(k, "deviceProperties", 16))
            L->top_key = K_DEV_PROPS;
        else if ((n == 5 && !memcmp(k, "nodes", 5)) || (n == 6 && !memcmp(k, "schema", 6)))
            L->saw_exec_graph = true;
    }
    return 1;
}

static int cb_end_map(void *ctx)
{
    trace_parser *L = ctx;
    int d = L->depth;
    int r = trace_args_dims_close(L);
    if (r >= 0) {
        L->depth--;
        return r;
    }
    r = 1;
    if (L->in_args && d == L->ev_depth + 2) {
        L->in_args = false;
    } else if (L->in_event && d == L->ev_depth + 1) {
        L->in_event = false;
        r = L->recs ? record(L, false) : finish_event(L);
    } else if (L->in_dist && d == 2) {
        L->in_dist = false;
    } else if (L->in_props && d == 3) {
        /* a device's memory, for the steps' memory recommendation */
        if (L->prop_id >= 0 && L->prop_id < 16 && L->prop_mem > 0)
            L->t->gpu_total_mem[L->prop_id] = L->prop_mem;
        /* its compute capability, for the tensor-core (AMP) recommendation */
        if (L->prop_id >= 0 && L->prop_id < 16 && L->prop_major > 0 && L->prop_major < 1000)
            L->t->gpu_compute_major[L->prop_id] = (int)L->prop_major;
    }
    L->depth--;
    return r;
}

static int cb_start_array(void *ctx)
{
    trace_parser *L = ctx;
    if (!open_level(L))
        return 0;
    int dr = trace_args_dims_open(L, false);
    if (dr >= 0)
        return dr;
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
    } else if (d == 2 && L->top == 'm' && L->top_key == K_DEV_PROPS) {
        L->in_props = true;
    } else if (L->in_args && d == L->ev_depth + 3 &&
               (L->args_key == K_KGRID || L->args_key == K_KBLOCK)) {
        L->c.k_arr = (uint8_t)L->args_key;
        L->c.k_n = 0;
        L->c.k_bad = false;
    } else if (L->ev_depth && d == L->ev_depth + 1) {
        if (L->recs)
            return record(L, true);
        L->t->events_read++;
        skip(L, TRACE_SKIP_NOT_EVENT);
    }
    return 1;
}

static int cb_end_array(void *ctx)
{
    trace_parser *L = ctx;
    int dr = trace_args_dims_close(L);
    if (dr >= 0) {
        L->depth--;
        return dr;
    }
    if (L->recs && L->ev_depth && L->depth == L->ev_depth) {
        /* a worker's chunk holds no more events: stop where the array ends */
        L->ended = true;
        L->depth--;
        return 0;
    }
    if (L->in_args && L->depth == L->ev_depth + 3 && L->c.k_arr) {
        struct trace_cur *c = &L->c;
        if (!c->k_bad && c->k_n == 3)
            c->kflags |= c->k_arr == K_KGRID ? TRACE_KARG_GRID : TRACE_KARG_BLOCK;
        c->k_arr = 0;
    }
    if (L->ev_depth && L->depth == L->ev_depth)
        L->ev_depth = 0;
    if (L->in_props && L->depth == 2)
        L->in_props = false;
    L->depth--;
    return 1;
}

const yajl_callbacks trace_parse_callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array
};

int trace_parse_init(trace_parser *L, trace *t, const char *path, t2p_error *err)
{
    memset(L, 0, sizeof *L);
    L->t = t;
    L->err = err;
    L->path = path;
    L->last_pid = L->last_tid = UINT32_MAX;
    L->free_begin = BEGIN_NONE;
    L->memo[0] = L->memo[1] = L->memo[2] = L->memo[3] = STRTAB_NONE;
    cur_init(&L->c0);
    if (hmap_init(&L->tracks, 64) < 0 || hmap_init(&L->procs, 16) < 0) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
    L->s_empty = t->str_empty = strtab_intern(t->strs, "", 0);
    L->s_trace = strtab_intern(t->strs, "Trace", 5);
    L->s_process_name = strtab_intern(t->strs, "process_name", 12);
    L->s_process_labels = strtab_intern(t->strs, "process_labels", 14);
    L->s_process_sort = strtab_intern(t->strs, "process_sort_index", 18);
    L->s_thread_name = strtab_intern(t->strs, "thread_name", 11);
    L->s_thread_sort = strtab_intern(t->strs, "thread_sort_index", 17);
    L->s_memory = strtab_intern(t->strs, "[memory]", 8);
    if (L->s_memory == STRTAB_NONE ||
        L->s_empty == STRTAB_NONE || L->s_trace == STRTAB_NONE || L->s_process_name == STRTAB_NONE ||
        L->s_process_labels == STRTAB_NONE || L->s_process_sort == STRTAB_NONE ||
        L->s_thread_name == STRTAB_NONE || L->s_thread_sort == STRTAB_NONE) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
    return 0;
}

int trace_parse_finish(trace_parser *L)
{
    trace *t = L->t;
    if (L->top == 's') {
        error_set(L->err, T2P_ERR_NOT_TRACE, L->path, -1,
                  "a single JSON value, not a trace; expected an object with \"traceEvents\" or an array of events");
        return -1;
    }
    if (L->top == 'm' && !L->saw_events) {
        if (L->saw_exec_graph)
            error_set(L->err, T2P_ERR_NOT_TRACE, L->path, -1,
                      "a PyTorch execution trace (nodes/schema), not a timing trace; "
                      "expected a profiler trace with \"traceEvents\" (torch.profiler export_chrome_trace)");
        else
            error_set(L->err, T2P_ERR_NOT_TRACE, L->path, -1,
                      "a JSON object without \"traceEvents\"; expected a PyTorch profiler trace");
        return -1;
    }
    if (t->events_read > 0 && !L->any_object) {
        error_set(L->err, T2P_ERR_NOT_TRACE, L->path, -1,
                  "a JSON array with no event objects; expected an array of trace events");
        return -1;
    }
    t->skipped[TRACE_SKIP_UNMATCHED_BEGIN] += L->open_begins;
    return 0;
}

int trace_parse_apply(trace_parser *L, const trace_recs *r, size_t *at, const uint32_t *map)
{
    const unsigned char *p = r->v + *at;
    size_t len = REC_HEAD;
    if (p[0] & REC_NOT_EVENT) {
        *at += len;
        L->t->events_read++;
        skip(L, TRACE_SKIP_NOT_EVENT);
        return 0;
    }
    unsigned char *b = (unsigned char *)&L->c;
    const unsigned char *b0 = (const unsigned char *)&L->c0;
    memcpy(b, p + len, rec_at[0]);
    len += rec_round(rec_at[0]);
    for (unsigned g = 0; g < REC_GROUPS; g++) {
        size_t a = rec_at[g], n = rec_at[g + 1] - a;
        if (p[0] & (2u << g)) {
            memcpy(b + a, p + len, n);
            len += rec_round(n);
        } else {
            memcpy(b + a, b0 + a, n);
        }
    }
    *at += len;
    struct trace_cur *c = &L->c;
    uint32_t *ids[] = { &c->name, &c->cat, &c->pid, &c->tid, &c->arg_name, &c->arg_labels,
                        &c->stack, &c->dims, &c->dims_lc,
                        &c->coll_name, &c->coll_pg, &c->coll_dtype };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (*ids[i] != STRTAB_NONE)
            *ids[i] = map[*ids[i]];
    if (c->has_id && c->id_str)
        c->flow_id = map[c->flow_id];
    return finish_event(L) ? 0 : -1;
}

void trace_parse_where(const trace_parser *L, char *buf, size_t size)
{
    int k = (int)L->last_key_len;
    const char *more = L->last_key_len == sizeof L->last_key ? "..." : "";
    if (L->in_event && L->last_key_len)
        snprintf(buf, size, "in event %llu after the key \"%.*s%s\"",
                 (unsigned long long)L->t->events_read + 1, k, L->last_key, more);
    else if (L->in_event)
        snprintf(buf, size, "in event %llu", (unsigned long long)L->t->events_read + 1);
    else if (L->last_key_len)
        snprintf(buf, size, "after the key \"%.*s%s\"", k, L->last_key, more);
    else
        snprintf(buf, size, "%s", "");
}

void trace_parse_done(trace_parser *L)
{
    hmap_done(&L->tracks);
    hmap_done(&L->procs);
    hmap_done(&L->open_top);
    trace_mem_load_done(L->mem);
    L->mem = NULL;
    pyrepr_done(&L->dims);
    free(L->begins);
    L->begins = NULL;
}
