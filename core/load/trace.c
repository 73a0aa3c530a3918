/* trace_load: opens the file, runs the reader thread's chunks through yajl
   and the callbacks (trace_read.c, trace_yajl.c, trace_parse.c), and turns
   the way the stream ended into a trace or an error. */
#include "config.h"

#include "core/load/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/sniff.h"
#include "core/load/trace_int.h"
#include "core/base/vec.h"

const char *trace_skip_name(enum trace_skip r)
{
    static const char *const names[TRACE_SKIP_N] = {
        [TRACE_SKIP_METADATA] = "metadata",
        [TRACE_SKIP_INSTANT] = "instant",
        [TRACE_SKIP_FLOW] = "flow",
        [TRACE_SKIP_COUNTER] = "counter",
        [TRACE_SKIP_OTHER_PHASE] = "other_phase",
        [TRACE_SKIP_UNKNOWN_PHASE] = "unknown_phase",
        [TRACE_SKIP_MISSING_TS] = "missing_ts",
        [TRACE_SKIP_BAD_NUMBER] = "bad_number",
        [TRACE_SKIP_BAD_BYTES] = "bad_bytes",
        [TRACE_SKIP_MISSING_DUR] = "missing_dur",
        [TRACE_SKIP_NEGATIVE_DUR] = "negative_dur",
        [TRACE_SKIP_UNMATCHED_BEGIN] = "unmatched_begin",
        [TRACE_SKIP_UNMATCHED_END] = "unmatched_end",
        [TRACE_SKIP_WINDOW] = "window_span",
        [TRACE_SKIP_NOT_EVENT] = "not_an_object",
    };
    return (unsigned)r < TRACE_SKIP_N ? names[r] : "?";
}

trace *trace_empty(const char *name)
{
    trace *t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(name)) || !(t->strs = strtab_new()) ||
        (t->str_empty = strtab_intern(t->strs, "", 0)) == STRTAB_NONE) {
        trace_free(t);
        return NULL;
    }
    return t;
}

void trace_free(trace *t)
{
    if (!t)
        return;
    free(t->path);
    strtab_free(t->strs);
    vec_free(t->events, t->cap_events, sizeof *t->events);
    free(t->processes);
    free(t->tracks);
    vec_free(t->corrs, t->cap_corrs, sizeof *t->corrs);
    vec_free(t->stacks, t->cap_stacks, sizeof *t->stacks);
    vec_free(t->colls, t->cap_colls, sizeof *t->colls);
    trace_mem_free(t);
    free(t);
}

bool trace_starts_json(const char *path)
{
    gzFile gz = gzopen(path, "rb"); /* reads a file that is not gzip as it is */
    if (!gz)
        return false;
    unsigned char b[4096];
    int n = gzread(gz, b, sizeof b);
    gzclose(gz);
    int i = n >= 3 && memcmp(b, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    return i < n && (b[i] == '{' || b[i] == '[');
}

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

/* A token longer than a chunk (a 400 MB name, a 100 MB number) waits in
   yajl's lexer, which reads what it holds again from its start on every
   yajl_parse call: fed a chunk at a time, such a token took time quadratic
   in its length. Once yajl's buffers have outgrown a chunk, chunks are
   gathered into a piece at least half as large as those buffers before
   yajl sees them, so that each re-read is paid for by as many new bytes. */
struct piece {
    unsigned char *p;
    size_t len, cap;
};

static int piece_add(struct piece *pc, const unsigned char *buf, size_t len)
{
    if (pc->cap - pc->len < len) {
        size_t ncap = pc->cap ? pc->cap : TRACE_READ_BUFSZ;
        while (ncap - pc->len < len) {
            if (ncap > SIZE_MAX / 2)
                return -1;
            ncap *= 2;
        }
        unsigned char *np = realloc(pc->p, ncap);
        if (!np)
            return -1;
        pc->p = np;
        pc->cap = ncap;
    }
    memcpy(pc->p + pc->len, buf, len);
    pc->len += len;
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

/* The single-thread load: every input, every error, --partial. */
static trace *load_one(const char *path, const trace_load_opts *opts, t2p_error *err)
{
    static const trace_load_opts no_opts;
    trace_parser L;
    trace_reader R;
    trace_yajl Y = { .h = NULL };
    uint64_t base = 0;
    bool truncated = false;
    struct piece pc = { NULL, 0, 0 };

    if (!opts)
        opts = &no_opts;
    error_clear(err);
    /* "-" is standard input, gzip or plain (told by content, as a file) */
    bool from_stdin = strcmp(path, "-") == 0;
    if (from_stdin)
        path = TRACE_STDIN_NAME;
    memset(&L, 0, sizeof L);
    memset(&R, 0, sizeof R);

    trace *t = calloc(1, sizeof *t);
    if (!t)
        goto fail;
    t->path = strdup(path);
    t->strs = strtab_new();
    if (!t->path || !t->strs || trace_parse_init(&L, t, path, err) < 0)
        goto fail;
    int fd = open_input(t, path, from_stdin, err);
    if (fd < 0 || trace_read_start(&R, fd, path, err) < 0)
        goto fail;
    if (trace_yajl_init(&Y, &trace_parse_callbacks, &L) < 0)
        goto fail;

    const unsigned char *buf;
    size_t len;
    uint64_t off = 0;
    for (;;) {
        bool more = trace_read_next(&R, &buf, &len, &off);
        bool held = more; /* buf is the reader's chunk, released once parsed */
        if (more && (pc.len || Y.big > TRACE_READ_BUFSZ)) {
            /* a long token: gather a piece (see struct piece) */
            if (piece_add(&pc, buf, len) < 0) {
                error_set(err, T2P_ERR_NOMEM, path, (int64_t)base, "out of memory");
                goto fail;
            }
            trace_read_release(&R);
            held = false;
            if (pc.len < Y.big / 2)
                continue;
        }
        if (!held) {
            if (!pc.len)
                break;
            buf = pc.p;
            len = pc.len;
            pc.len = 0;
        }
        if (feed(t, &Y, &L, buf, len, base, err) < 0) {
            /* invalid JSON (yajl's own error, at a byte) in bytes a gzip
               check then condemns: the corruption is what went wrong,
               found at the JSON's fault */
            if (L.failed || Y.too_long || err->kind != T2P_ERR_JSON || err->offset < 0 ||
                !trace_read_ends_corrupt(&R, held))
                goto fail;
            base = (uint64_t)err->offset;
            t->bytes_in = base;
            error_clear(err);
            if (held)
                trace_read_release(&R);
            break;
        }
        base += len;
        t->bytes_in = base;
        if (held)
            trace_read_release(&R);

        if (opts->progress) {
            trace_progress p = { off, t->file_size, t->events_read };
            if (opts->progress(&p, opts->progress_ctx)) {
                error_set(err, T2P_ERR_CANCELLED, path, (int64_t)base, "cancelled");
                goto fail;
            }
        }
        if (!more)
            break;
    }
    free(pc.p);
    pc.p = NULL;

    if (check_stream_end(t, &R, base, opts->partial, &truncated, err) < 0)
        goto fail;
    if (!truncated && complete_parse(t, &Y, &L, base, opts->partial, &truncated, err) < 0)
        goto fail;
    t->truncated = truncated;
    if (trace_parse_finish(&L) < 0)
        goto fail;
    finish_tracks(t);

    trace_yajl_done(&Y);
    trace_read_stop(&R);
    trace_parse_done(&L);
    return t;

fail:
    if (err && err->kind == T2P_OK)
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
    free(pc.p);
    trace_yajl_done(&Y);
    trace_read_stop(&R);
    trace_parse_done(&L);
    trace_free(t);
    return NULL;
}

trace *trace_load(const char *path, const trace_load_opts *opts, t2p_error *err)
{
    /* several threads for a whole regular file; any error there, and the
       single-thread load says what it is (a failed input costs two tries) */
    struct stat st;
    if (opts && opts->jobs > 1 && !opts->partial && strcmp(path, "-") != 0 &&
        stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        t2p_error perr;
        trace *t = trace_load_par(path, opts, &perr);
        if (t || perr.kind == T2P_ERR_CANCELLED) {
            if (err)
                *err = perr;
            return t;
        }
    }
    return load_one(path, opts, err);
}

/* ---- the steps trace_par.c shares ---- */

int trace_load_open(trace *t, const char *path, t2p_error *err)
{
    return open_input(t, path, false, err);
}

int trace_load_feed(trace *t, trace_yajl *y, const trace_parser *L, const unsigned char *buf,
                    size_t len, uint64_t base, t2p_error *err)
{
    return feed(t, y, L, buf, len, base, err);
}

int trace_load_end(trace *t, trace_yajl *y, trace_parser *L, const trace_reader *r,
                   uint64_t base, t2p_error *err)
{
    bool truncated = false;
    if (check_stream_end(t, r, base, false, &truncated, err) < 0 ||
        complete_parse(t, y, L, base, false, &truncated, err) < 0 || trace_parse_finish(L) < 0)
        return -1;
    finish_tracks(t);
    return 0;
}

const char *trace_track_label(const trace *t, uint32_t track, char *buf, size_t size)
{
    const trace_track *k = &t->tracks[track];
    const trace_process *p = &t->processes[k->process];
    if (k->name != STRTAB_NONE) {
        const char *n = trace_str(t, k->name);
        size_t len = strtab_len(t->strs, k->name);
        while (len > 0 && n[len - 1] == ' ')
            len--;
        if (len > 0) {
            snprintf(buf, size, "%.*s", (int)len, n);
            return buf;
        }
    }
    if (k->is_gpu)
        snprintf(buf, size, "stream %s", trace_str(t, k->tid));
    else
        snprintf(buf, size, "%s/%s", trace_str(t, p->pid), trace_str(t, k->tid));
    return buf;
}

const char *trace_track_fullname(const trace *t, uint32_t track, char *buf, size_t size)
{
    const trace_process *p = &t->processes[t->tracks[track].process];
    char lab[256];
    trace_track_label(t, track, lab, sizeof lab);
    const char *pn = p->name != STRTAB_NONE     ? trace_str(t, p->name)
                     : p->labels != STRTAB_NONE ? trace_str(t, p->labels)
                                                : trace_str(t, p->pid);
    snprintf(buf, size, "%s / %s", pn, lab);
    return buf;
}
