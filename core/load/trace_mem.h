/* A trace's [memory] records (core/load/trace_mem.c): the loader appends
   them, analyses read them. Included by core/load/trace.h. */
#ifndef T2P_TRACE_MEM_H
#define T2P_TRACE_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/load/trace_types.h"

/* A field of record i kept in mem_wide. */
int64_t trace_mem_wide_get(const trace *t, size_t i, uint32_t field);

static inline int64_t trace_mem_ts(const trace *t, size_t i)
{
    uint32_t off = t->mems[i].ts;
    if (off == UINT32_MAX)
        return trace_mem_wide_get(t, i, TRACE_MEM_WIDE_TS);
    return (int64_t)((uint64_t)t->mem_ts_base[i / TRACE_MEM_BLOCK] + off);
}

static inline int64_t trace_mem_bytes(const trace *t, size_t i)
{
    int32_t b = t->mems[i].bytes;
    return b == INT32_MIN ? trace_mem_wide_get(t, i, TRACE_MEM_WIDE_BYTES) : b;
}

/* The index in mem_streams of record i's stream. */
static inline size_t trace_mem_stream_index(const trace *t, size_t i)
{
    if (!t->mem_stream)
        return 0;
    uint16_t s = t->mem_stream[i];
    return s != UINT16_MAX ? s : (size_t)trace_mem_wide_get(t, i, TRACE_MEM_WIDE_STREAM);
}

static inline const trace_mem_stream *trace_mem_stream_of(const trace *t, size_t i)
{
    return &t->mem_streams[trace_mem_stream_index(t, i)];
}

/* Reads the allocator's totals of records 0, 1, 2, ... in file order. */
typedef struct trace_mem_cursor {
    size_t next;    /* the record next() reads */
    size_t total;   /* the next entry of mem_totals */
    int64_t *alloc, *res; /* per mem_devices: the last record's totals */
    bool *has;
} trace_mem_cursor;

/* 0, or -1 when out of memory; trace_mem_cursor_done is due either way. */
int trace_mem_cursor_init(trace_mem_cursor *c, const trace *t);
void trace_mem_cursor_done(trace_mem_cursor *c);

/* The totals of record c->next (-1 when absent), then moves to the next one.
   Returns whether it has a Total Allocated. */
bool trace_mem_cursor_next(trace_mem_cursor *c, const trace *t, int64_t *alloc, int64_t *res);

/* One record's totals (reads from the start: for a single record). Returns
   1 when it has a Total Allocated, 0 when not, -1 when out of memory. */
int trace_mem_totals_at(const trace *t, size_t i, int64_t *alloc, int64_t *res);

/* A [memory] record as the loader read it. */
typedef struct trace_mem_in {
    int64_t ts, bytes;
    uint32_t track;
    int16_t device;
    bool has_addr, has_alloc, has_res;
    uint64_t addr;
    int64_t allocated, reserved;
} trace_mem_in;

/* The loader's side: appends a record to t. *state (NULL at first) holds the
   interning tables until trace_mem_load_done. Returns 0, or -1 when out of memory. */
struct trace_mem_load;
int trace_mem_append(trace *t, struct trace_mem_load **state, const trace_mem_in *in);
void trace_mem_load_done(struct trace_mem_load *state);
void trace_mem_free(trace *t);

#endif
