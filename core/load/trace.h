/* A loaded trace: compact event records in arrays, strings interned.
   The loader streams the file (gzip or plain, by magic bytes) through yajl
   and never holds the JSON text or a DOM. */
#ifndef T2P_TRACE_H
#define T2P_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/strtab.h"

/* the records: trace, trace_event, ..., trace_str */
#include "core/load/trace_types.h"
/* the [memory] records' functions */
#include "core/load/trace_mem.h"

const char *trace_skip_name(enum trace_skip r);

/* Loads path ("-": standard input). Returns a new trace (free with
   trace_free) or NULL with err set. opts may be NULL. */
trace *trace_load(const char *path, const trace_load_opts *opts, t2p_error *err);
void trace_free(trace *t);

/* A trace without events named name: the stand-in the explorer shows when
   every rank of a job is an analysis file (its views need a model). NULL
   when out of memory. */
trace *trace_empty(const char *name);

/* Whether the file's first bytes (inflated when gzip) can start JSON: '{' or
   '[' after white space and a UTF-8 byte order mark. false for text, a
   pprof, an archive, an empty or unreadable file: told apart from a trace
   whose JSON breaks later on. */
bool trace_starts_json(const char *path);

/* A track's label for people and pprof: "thread 1262 (pt_main_thread)", "stream 7",
   or "pid/tid". Writes into buf, returns buf. */
const char *trace_track_label(const trace *t, uint32_t track, char *buf, size_t size);

/* The same with its process first, "PROCESS / THREAD" (the process name,
   else its labels, else its pid): how the explorer's Threads view and the
   comparison's thread rows name (and match) a track. Into buf, returns buf. */
const char *trace_track_fullname(const trace *t, uint32_t track, char *buf, size_t size);

#endif
