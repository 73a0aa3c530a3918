/* Errors as values: what went wrong, in which file, at which byte.
   core/ never prints or exits; it fills a t2p_error and returns failure.
   Only src/ turns one into a message and an exit code. */
#ifndef T2P_ERROR_H
#define T2P_ERROR_H

#include <stddef.h>
#include <stdint.h>

enum t2p_errkind {
    T2P_OK = 0,
    T2P_ERR_IO,        /* open/read/write failed: missing file, directory, permission, disk full */
    T2P_ERR_EMPTY,     /* the file holds no bytes (or only white space) */
    T2P_ERR_JSON,      /* not valid JSON at some byte */
    T2P_ERR_NOT_TRACE, /* valid JSON but not a timing trace */
    T2P_ERR_TRUNCATED, /* the input ends early: killed writer, cut gzip */
    T2P_ERR_NOMEM,
    T2P_ERR_CANCELLED, /* a progress callback asked to stop */
    T2P_ERR_ARG,       /* a bad argument from the caller (bad regex, same in/out file) */
    T2P_ERR_MISSING    /* the input lacks what was asked for (a step, a rank) */
};

typedef struct t2p_error {
    enum t2p_errkind kind;
    int64_t offset;      /* byte offset in the (uncompressed) input, or -1 */
    int sys_errno;       /* the system's errno behind it (EEXIST, ENOSPC...), or 0:
                            test it rather than the text of reason */
    char file[512];
    char reason[512];
} t2p_error;

void error_clear(t2p_error *e);

/* Sets every field; file may be NULL, offset -1 when it has no meaning. */
void error_set(t2p_error *e, enum t2p_errkind kind, const char *file, int64_t offset,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* As error_set, with the system's errno: reason becomes "fmt: strerror(errnum)"
   and errnum is kept in sys_errno. */
void error_set_errno(t2p_error *e, enum t2p_errkind kind, const char *file, int64_t offset,
                     int errnum, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* One line without a trailing newline: "FILE: at byte N: reason", in its
   visible form (core/base/fmt.h: no control character reaches a terminal). Returns buf. */
const char *error_format(const t2p_error *e, char *buf, size_t size);

/* A short name for the kind ("truncated", "not JSON", ...). */
const char *error_kind_name(enum t2p_errkind kind);

#endif
