/* The loader's yajl callbacks (core/load/trace_parse.c) and the state they
   build a trace's records with. Private to core/load/. */
#ifndef T2P_TRACE_PARSE_H
#define T2P_TRACE_PARSE_H

#include <yajl/yajl_parse.h>

#include "core/base/error.h"
#include "core/load/trace_pstate.h"
#include "core/load/trace_types.h"

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

/* Applies the element recorded at r->v[*at] to L's trace as the callbacks
   would have, its string ids mapped through map (worker id -> L's table),
   and moves *at past it. Returns 0, or -1 with err set. */
int trace_parse_apply(trace_parser *L, const trace_recs *r, size_t *at, const uint32_t *map);

#endif
