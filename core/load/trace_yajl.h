/* The loader's yajl (core/load/trace_yajl.c): yajl that cannot crash on a
   failed allocation. Private to core/load/. */
#ifndef T2P_TRACE_YAJL_H
#define T2P_TRACE_YAJL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

#include <yajl/yajl_parse.h>

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

#endif
