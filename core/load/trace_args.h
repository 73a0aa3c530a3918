/* The args of an event (core/load/trace_args.c). Private to core/load/. */
#ifndef T2P_TRACE_ARGS_H
#define T2P_TRACE_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/load/trace_pstate.h"

/* The key of an event's member ("ph", "ts", ...), K_OTHER for the rest. */
enum trace_key trace_args_event_key(const unsigned char *k, size_t n);

/* The key of a member of args that the loader keeps, K_OTHER for the rest. */
enum trace_key trace_args_key(const unsigned char *k, size_t n);

/* A scalar inside args, or an element of args.grid / args.block. Returns 1,
   or 0 with err set (yajl's stop). */
int trace_args_value(trace_parser *L, const char *s, size_t n, bool is_str);

/* args["Input Dims"] as Python's str(): a scalar of it, an object or array
   opening (-1 when it is not a shape's) and closing (-1 likewise). Return 1,
   or 0 with err set. */
int trace_args_dims_value(trace_parser *L, const char *s, size_t n, bool is_str);
int trace_args_dims_open(trace_parser *L, bool object);
int trace_args_dims_close(trace_parser *L);

#endif
