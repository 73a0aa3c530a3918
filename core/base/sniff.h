/* What a file is, by its first bytes: a trace (JSON, plain or gzip), a pprof
   profile (protobuf, plain or gzip), something else, or empty. For the
   command lines that must tell an output from an input before writing
   anything (convert without -o), and for messages that say what a file is. */
#ifndef T2P_SNIFF_H
#define T2P_SNIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

enum sniff_kind {
    SNIFF_EMPTY,  /* no bytes at all */
    SNIFF_TRACE,  /* JSON: an object or an array (a BOM and white space skipped) */
    SNIFF_ANALYSIS, /* JSON whose first key is "analysis_format": analyze --json's output */
    SNIFF_PPROF,  /* the protobuf of a pprof Profile */
    SNIFF_OTHER
};

/* The kind of the regular file at path (reads at most its first 64 KiB).
   Returns 0 with *kind set, or -1 with err set (cannot open or read). */
int sniff_file(const char *path, enum sniff_kind *kind, t2p_error *err);

/* The kind of the bytes buf[0..len) (the start of a file, inflated). */
enum sniff_kind sniff_bytes(const unsigned char *buf, size_t len);

/* Whether the first (inflated) bytes b[0..n) are a pprof profile: the
   loader's refusal and convert's choice of OUT both ask this. */
bool sniff_is_pprof(const unsigned char *b, size_t n);

/* Whether path is a regular file that holds an analysis file (analyze
   --json's output): a FIFO, a device or standard input is never read, as
   the bytes read would be lost to the loader. */
bool sniff_is_analysis(const char *path);

/* Whether a file name is a trace's (.json, .json.gz, .pt.trace.json, ...). */
bool sniff_trace_name(const char *path);

#endif
