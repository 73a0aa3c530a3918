/* The steps of a load, shared by trace.c (one thread) and trace_par.c
   (several): opens the input, runs the reader thread's chunks through yajl
   and the callbacks (trace_read.c, trace_yajl.c, trace_parse.c), and turns
   the way the stream ended into a trace or an error. */
#include "config.h"

#include "core/load/trace_feed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/sniff.h"
#include "core/base/vec.h"

static bool label_is_device(const char *s)
{
    /* "GPU 0", "MTIA 17": any process label but the host's */
    return s[0] && strncmp(s, "CPU", 3) != 0;
}

static void finish_tracks(trace *t)
{
    for (size_t i = 0; i < t->ntracks; i++) {
        trace_track *k = &t->tracks[i];
        const trace_process *p = &t->processes[k->process];
        bool dev = false;
        if (p->labels != STRTAB_NONE)
            dev = label_is_device(trace_str(t, p->labels));
        if (!dev && k->name != STRTAB_NONE) {
            const char *n = trace_str(t, k->name);
            dev = strncmp(n, "stream ", 7) == 0 || strncmp(n, "Stream ", 7) == 0;
        }
        k->is_gpu = dev;
    }
}

/* Opens path for reading (stdin when it is) ; sets t->file_size and
   t->gzip. Returns the fd or -1 with err set. */
static int open_input(trace *t, const char *path, bool stdin_, t2p_error *err)
{
    /* a FIFO blocks in open() until its writer comes: a signal then (a
       resized terminal) is no reason to fail */
    int fd;
    if (stdin_)
        fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    else
        do
            fd = open(path, O_RDONLY | O_CLOEXEC);
        while (fd < 0 && errno == EINTR);
    struct stat st;
    if (fd < 0) {
        error_set(err, T2P_ERR_IO, path, -1, "%s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) < 0) {
        error_set(err, T2P_ERR_IO, path, -1, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        error_set(err, T2P_ERR_IO, path, -1, "is a directory, not a trace file");
        close(fd);
        return -1;
    }
    t->file_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    /* a pipe or a process substitution has no size to check: it streams */
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
        close(fd);
        error_set(err, T2P_ERR_EMPTY, path, -1,
                  "empty file (0 bytes); expected a PyTorch profiler trace (Chrome trace JSON)");
        return -1;
    }
    unsigned char magic[2] = { 0, 0 };
    if (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
        t->gzip = true;
    return fd;
}

/* The stream ended (r->zerr says how) after base bytes: a cut or corrupt
   gzip stream is an error, or with partial a truncated trace. Returns 0 or
   -1 with err set; *truncated set when the trace is cut. */
static int check_stream_end(trace *t, const trace_reader *r, uint64_t base, bool partial,
                            bool *truncated, t2p_error *err)
{
    const char *path = t->path;
    if (r->zerr == Z_OK || r->zerr == Z_STREAM_END)
        return 0;
    if (r->zerr == Z_MEM_ERROR) {
        error_set(err, T2P_ERR_NOMEM, path, (int64_t)base, "out of memory");
        return -1;
    }
    if (r->zerr != Z_BUF_ERROR && r->zerr != Z_DATA_ERROR) {
        error_set(err, T2P_ERR_IO, path, (int64_t)base, "read error: %s", r->zmsg);
        return -1;
    }
    if (r->bad_trailer) {
        if (!partial) {
            error_set(err, T2P_ERR_TRUNCATED, path, (int64_t)base,
                      "corrupt gzip data: the trailer at compressed byte %llu does not match "
                      "the data (its CRC-32 or length is wrong); --partial loads the %llu bytes "
                      "of JSON read",
                      (unsigned long long)r->trailer_at, (unsigned long long)base);
            return -1;
        }
        *truncated = true;
        snprintf(t->truncated_reason, sizeof t->truncated_reason,
                 "gzip trailer at compressed byte %llu is wrong, after %llu bytes",
                 (unsigned long long)r->trailer_at, (unsigned long long)base);
        return 0;
    }
    if (!partial) {
        if (r->zerr == Z_BUF_ERROR)
            error_set(err, T2P_ERR_TRUNCATED, path, (int64_t)base,
                      "truncated: the gzip data ends after %llu bytes of JSON (was the writer killed?)",
                      (unsigned long long)base);
        else
            error_set(err, T2P_ERR_TRUNCATED, path, (int64_t)base,
                      "corrupt gzip data after %llu bytes of JSON (%s); --partial loads what precedes it",
                      (unsigned long long)base, r->zmsg);
        return -1;
    }
    *truncated = true;
    snprintf(t->truncated_reason, sizeof t->truncated_reason, "gzip data %s after %llu bytes",
             r->zerr == Z_BUF_ERROR ? "ends" : "is corrupt", (unsigned long long)base);
    return 0;
}

/* The last yajl call, once the whole stream was parsed. Returns 0 or -1 with
   err set; *truncated set when the JSON is cut and partial allows it. */
static int complete_parse(trace *t, trace_yajl *y, const trace_parser *L, uint64_t base,
                          bool partial, bool *truncated, t2p_error *err)
{
    const char *path = t->path;
    bool oom = false;
    yajl_status s = trace_yajl_parse(y, NULL, 0, &oom);
    if (oom) {
        error_set(err, T2P_ERR_NOMEM, path, (int64_t)base, "out of memory");
        return -1;
    }
    if (s == yajl_status_ok)
        return 0;
    if (!L->any_token) {
        /* a regular file of 0 bytes was refused on opening; this is an
           empty gzip stream or pipe, or white space */
        if (base == 0)
            error_set(err, T2P_ERR_EMPTY, path, -1,
                      "empty (%s); expected a PyTorch profiler trace (Chrome trace JSON)",
                      t->gzip ? "the gzip data holds 0 bytes" : "0 bytes read");
        else
            error_set(err, T2P_ERR_EMPTY, path, -1,
                      "holds only white space; expected a PyTorch profiler trace (Chrome trace JSON)");
        return -1;
    }
    /* the array form may miss its closing ']' (a killed writer) */
    if (L->top == 'a' && L->depth == 1 && !L->in_event)
        return 0;
    if (!partial) {
        error_set(err, T2P_ERR_TRUNCATED, path, (int64_t)base,
                  "truncated: the JSON ends at byte %llu inside %s (was the writer killed?)",
                  (unsigned long long)base, L->in_event ? "an event" : "the document");
        return -1;
    }
    *truncated = true;
    snprintf(t->truncated_reason, sizeof t->truncated_reason,
             "JSON ends at byte %llu", (unsigned long long)base);
    return 0;
}

static bool json_first(unsigned char c)
{
    return c == '[' || c == '{' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* What the first bytes of the (inflated) input are when they cannot start
   JSON: a compressed file or archive, or text in UTF-16/32. NULL otherwise. */
static const char *sniff_format(const unsigned char *b, size_t n, bool gzip)
{
    static const struct {
        const char *magic;
        size_t len;
        const char *what;
    } magics[] = {
        { "\x1f\x8b", 2, "gzip-compressed" },
        { "\xfd" "7zXZ\0", 6, "xz-compressed: decompress it first (unxz)" },
        { "\x28\xb5\x2f\xfd", 4, "zstd-compressed: decompress it first (unzstd)" },
        { "BZh", 3, "bzip2-compressed: decompress it first (bunzip2)" },
        { "\x04\x22\x4d\x18", 4, "lz4-compressed: decompress it first (unlz4)" },
        { "PK\x03\x04", 4, "a zip archive: extract the trace first (unzip)" },
        { "PK\x05\x06", 4, "an empty zip archive" },
        { "7z\xbc\xaf\x27\x1c", 6, "a 7-Zip archive: extract the trace first" },
        { "\xff\xfe\0\0", 4, "UTF-32 text (little-endian): convert it to UTF-8 first (iconv)" },
        { "\0\0\xfe\xff", 4, "UTF-32 text (big-endian): convert it to UTF-8 first (iconv)" },
        { "\xff\xfe", 2, "UTF-16 text (little-endian): convert it to UTF-8 first (iconv)" },
        { "\xfe\xff", 2, "UTF-16 text (big-endian): convert it to UTF-8 first (iconv)" },
    };
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
        if (n >= magics[i].len && memcmp(b, magics[i].magic, magics[i].len) == 0) {
            if (i == 0)
                return gzip ? "gzip inside gzip (compressed twice): decompress it once first (gunzip)"
                            : "gzip-compressed";
            return magics[i].what;
        }
    /* without a byte order mark: the JSON's first characters with zero
       bytes between */
    if (n < 4)
        return NULL;
    if (json_first(b[0]) && !b[1] && !b[2] && !b[3])
        return "UTF-32 text (little-endian): convert it to UTF-8 first (iconv)";
    if (!b[0] && !b[1] && !b[2] && json_first(b[3]))
        return "UTF-32 text (big-endian): convert it to UTF-8 first (iconv)";
    if (json_first(b[0]) && !b[1] && b[2] && !b[3])
        return "UTF-16 text (little-endian): convert it to UTF-8 first (iconv)";
    if (!b[0] && json_first(b[1]) && !b[2] && b[3])
        return "UTF-16 text (big-endian): convert it to UTF-8 first (iconv)";
    return NULL;
}

/* Runs buf through yajl; base is the offset of buf in the JSON. Returns 0,
   or -1 with err set. */
static int feed(trace *t, trace_yajl *y, const trace_parser *L, const unsigned char *buf,
                size_t len, uint64_t base, t2p_error *err)
{
    const char *path = t->path;
    if (base == 0) {
        /* the first bytes: a UTF-8 byte order mark is skipped; other
           formats are named rather than reported as a lexical error */
        const char *what = sniff_format(buf, len, t->gzip);
        if (what) {
            error_set(err, T2P_ERR_JSON, path, -1,
                      "not JSON: %s; expected a PyTorch profiler trace (Chrome trace JSON)", what);
            return -1;
        }
        if (sniff_is_pprof(buf, len)) {
            error_set(err, T2P_ERR_NOT_TRACE, path, -1,
                      "a pprof profile (%s), not a trace: open it with go tool pprof",
                      t->gzip ? "gzip-compressed protobuf" : "protobuf");
            return -1;
        }
        if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
            return feed(t, y, L, buf + 3, len - 3, 3, err);
    }
    bool oom = false;
    yajl_status s = trace_yajl_parse(y, buf, len, &oom);
    if (oom) {
        error_set(err, T2P_ERR_NOMEM, path, (int64_t)base, "out of memory");
        return -1;
    }
    if (y->too_long) {
        /* found as the string grows past the cap, at the end of buf */
        char where[100];
        trace_parse_where(L, where, sizeof where);
        error_set(err, T2P_ERR_JSON, path, (int64_t)(base + len),
                  "a string longer than %zu MiB%s%s (the limit; a trace's strings are far shorter)",
                  TRACE_MAX_STRING >> 20, where[0] ? ", " : "", where);
        return -1;
    }
    if (s == yajl_status_ok)
        return 0;
    int64_t at = (int64_t)(base + yajl_get_bytes_consumed(y->h));
    if (!L->failed) {
        char why[300];
        trace_yajl_reason(y, buf, len, why, sizeof why);
        if (!L->any_token)
            error_set(err, T2P_ERR_JSON, path, at,
                      "not JSON (%s); expected a PyTorch profiler trace (Chrome trace JSON)", why);
        else
            error_set(err, T2P_ERR_JSON, path, at, "invalid JSON: %s", why);
    } else {
        err->offset = at;
    }
    return -1;
}

/* ---- the steps trace.c and trace_par.c share ---- */

int trace_load_open(trace *t, const char *path, bool stdin_, t2p_error *err)
{
    return open_input(t, path, stdin_, err);
}

int trace_load_feed(trace *t, trace_yajl *y, const trace_parser *L, const unsigned char *buf,
                    size_t len, uint64_t base, t2p_error *err)
{
    return feed(t, y, L, buf, len, base, err);
}

int trace_load_end(trace *t, trace_yajl *y, trace_parser *L, const trace_reader *r,
                   uint64_t base, bool partial, t2p_error *err)
{
    bool truncated = false;
    if (check_stream_end(t, r, base, partial, &truncated, err) < 0)
        return -1;
    if (!truncated && complete_parse(t, y, L, base, partial, &truncated, err) < 0)
        return -1;
    t->truncated = truncated;
    if (trace_parse_finish(L) < 0)
        return -1;
    finish_tracks(t);
    return 0;
}

