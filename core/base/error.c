#include "config.h"

#include "core/base/error.h"

#include "core/base/fmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void error_clear(t2p_error *e)
{
    if (!e)
        return;
    e->kind = T2P_OK;
    e->offset = -1;
    e->sys_errno = 0;
    e->file[0] = '\0';
    e->reason[0] = '\0';
}

/* The file as messages show it: the empty path "" (a real argument, which
   open refuses) as two quotes, so a message never loses its FILE. */
static const char *file_shown(const char *file)
{
    return !file ? "" : file[0] ? file : "\"\"";
}

void error_set(t2p_error *e, enum t2p_errkind kind, const char *file, int64_t offset,
               const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return;
    e->kind = kind;
    e->offset = offset;
    e->sys_errno = 0;
    snprintf(e->file, sizeof e->file, "%s", file_shown(file));
    va_start(ap, fmt);
    vsnprintf(e->reason, sizeof e->reason, fmt, ap);
    va_end(ap);
}

void error_set_errno(t2p_error *e, enum t2p_errkind kind, const char *file, int64_t offset,
                     int errnum, const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return;
    e->kind = kind;
    e->offset = offset;
    e->sys_errno = errnum;
    snprintf(e->file, sizeof e->file, "%s", file_shown(file));
    va_start(ap, fmt);
    int n = vsnprintf(e->reason, sizeof e->reason, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof e->reason)
        snprintf(e->reason + n, sizeof e->reason - (size_t)n, ": %s", strerror(errnum));
}

const char *error_format(const t2p_error *e, char *buf, size_t size)
{
    /* file and reason quote paths and names: shown in their visible form,
       so a message stays one line that a terminal cannot act on */
    char raw[sizeof e->file + sizeof e->reason + 64];
    if (e->offset >= 0 && e->file[0])
        snprintf(raw, sizeof raw, "%s: at byte %lld: %s", e->file, (long long)e->offset, e->reason);
    else if (e->file[0])
        snprintf(raw, sizeof raw, "%s: %s", e->file, e->reason);
    else
        snprintf(raw, sizeof raw, "%s", e->reason);
    return fmt_visible(raw, strlen(raw), buf, size);
}

const char *error_kind_name(enum t2p_errkind kind)
{
    switch (kind) {
    case T2P_OK: return "ok";
    case T2P_ERR_IO: return "I/O error";
    case T2P_ERR_EMPTY: return "empty";
    case T2P_ERR_JSON: return "not JSON";
    case T2P_ERR_NOT_TRACE: return "not a trace";
    case T2P_ERR_TRUNCATED: return "truncated";
    case T2P_ERR_NOMEM: return "out of memory";
    case T2P_ERR_CANCELLED: return "cancelled";
    case T2P_ERR_ARG: return "bad argument";
    case T2P_ERR_MISSING: return "not in the input";
    }
    return "error";
}
