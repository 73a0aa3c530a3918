/* The steps of a load (core/load/trace_feed.c), shared by the single-thread
   load (trace.c) and the one on several threads (trace_par.c): open the
   input, run bytes through yajl and the callbacks, and turn the way the
   stream ended into a trace or an error. Private to core/load/. */
#ifndef T2P_TRACE_FEED_H
#define T2P_TRACE_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/load/trace_parse.h"
#include "core/load/trace_read.h"
#include "core/load/trace_types.h"
#include "core/load/trace_yajl.h"

/* Opens path (standard input when stdin_, named path in messages); the
   file descriptor, or -1 with err set. */
int trace_load_open(trace *t, const char *path, bool stdin_, t2p_error *err);
/* Runs buf (at offset base of the JSON) through yajl; 0 or -1 with err set. */
int trace_load_feed(trace *t, trace_yajl *y, const trace_parser *L, const unsigned char *buf,
                    size_t len, uint64_t base, t2p_error *err);
/* After the last byte (base bytes in all): the stream's end, the last yajl
   call (unless the stream ended early and partial keeps what was read: then
   t->truncated), the checks of trace_parse_finish, the tracks' kinds. 0 or
   -1 with err set. */
int trace_load_end(trace *t, trace_yajl *y, trace_parser *L, const trace_reader *r,
                   uint64_t base, bool partial, t2p_error *err);

#endif
