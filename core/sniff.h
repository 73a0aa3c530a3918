/* What a file is, by its first bytes: a trace (JSON, plain or gzip), a pprof
   profile (protobuf, plain or gzip), something else, or empty. For the
   command lines that must tell an output from an input before writing
   anything (convert without -o), and for messages that say what a file is. */
#ifndef T2P_SNIFF_H
#define T2P_SNIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

enum sniff_kind {
    SNIFF_EMPTY,  /* no bytes at all */
    SNIFF_TRACE,  /* JSON: an object or an array (a BOM and white space skipped) */
    SNIFF_PPROF,  /* the protobuf of a pprof Profile */
    SNIFF_OTHER
};

/* The kind of the regular file at path (reads at most its first 64 KiB).
   Returns 0 with *kind set, or -1 with err set (cannot open or read). */
int sniff_file(const char *path, enum sniff_kind *kind, t2p_error *err);

/* The kind of the bytes buf[0..len), already inflated; complete tells that
   they are the whole content (not only its start). */
enum sniff_kind sniff_bytes(const unsigned char *buf, size_t len, bool complete);

/* Whether buf[0..len) reads as the start of a pprof Profile message:
   every field a known one with its wire type, lengths within bounds. */
bool sniff_is_pprof(const unsigned char *buf, size_t len, bool complete);

/* Whether a file name is a trace's (.json, .json.gz, .pt.trace.json, ...). */
bool sniff_trace_name(const char *path);

#endif
