/* A Python frame's source file on this machine: found where the trace
   recorded it, or under a directory given by the user the way pprof's
   -source_path and -trim_path look (DIR + path, then DIR + the path less
   its leading components), read whole and split into lines. Plain C: no
   printing, errors are values. */
#ifndef T2P_SRCFILE_H
#define T2P_SRCFILE_H

#include <stddef.h>

#include "core/base/error.h"

typedef struct srcfile {
    char *path;    /* where it was found (owned) */
    char *text;    /* the bytes read, each line ended by '\0' in place of '\n' (owned) */
    size_t *line;  /* nlines offsets into text: line i + 1 starts at text + line[i] (owned) */
    size_t nlines;
} srcfile;

/* The candidates for file[0, len) in the order they are tried: the path as
   recorded, then with dir (NULL or "": none) dir/path and dir/ + path with 1,
   2, ... leading components stripped. Calls fn(ctx, candidate) for each until
   it returns non-zero; returns that value, or 0 when none did. */
int srcfile_candidates(const char *file, size_t len, const char *dir,
                       int (*fn)(void *ctx, const char *path), void *ctx);

/* Finds and reads file[0, len) into sf (srcfile_done after, even on error).
   Returns 0, or -1 with err set: not found (T2P_ERR_IO, the reason naming
   every path tried, separated by ", "), unreadable, or out of memory. */
int srcfile_load(srcfile *sf, const char *file, size_t len, const char *dir, t2p_error *err);
void srcfile_done(srcfile *sf);

/* Line n (1-based) of sf, without its end of line; NULL past the end. */
const char *srcfile_line(const srcfile *sf, size_t n);

#endif
