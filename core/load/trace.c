/* trace_load: the whole trace on several threads (trace_par.c) when it
   can, else on this one through the steps of core/load/trace_feed.c; and
   what else trace.h offers (trace_free, track labels). */
#include "config.h"

#include "core/load/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "core/load/trace_feed.h"
#include "core/load/trace_par.h"
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
    vec_free(t->kargs, t->cap_kargs, sizeof *t->kargs);
    vec_free(t->shapes, t->cap_shapes, sizeof *t->shapes);
    vec_free(t->pyids, t->cap_pyids, sizeof *t->pyids);
    vec_free(t->flows, t->cap_flows, sizeof *t->flows);
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

/* The single-thread load: every input, every error, --partial. */
static trace *load_one(const char *path, const trace_load_opts *opts, t2p_error *err)
{
    static const trace_load_opts no_opts;
    trace_parser L;
    trace_reader R;
    trace_yajl Y = { .h = NULL };
    uint64_t base = 0;
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
    int fd = trace_load_open(t, path, from_stdin, err);
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
        if (trace_load_feed(t, &Y, &L, buf, len, base, err) < 0) {
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

    if (trace_load_end(t, &Y, &L, &R, base, opts->partial, err) < 0)
        goto fail;

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
       single-thread load says what it is (a failed input costs two tries).
       With partial too: a file that loads whole on several threads is what
       a partial load of it gives (partial changes only how a file that ends
       early loads), and one that does not is loaded again on one thread,
       which keeps what was read. So the explorer (partial by default) loads
       on every core; only a cut file pays for the second try. */
    struct stat st;
    if (opts && opts->jobs > 1 && strcmp(path, "-") != 0 &&
        stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        t2p_error perr;
        trace *t = calloc(1, sizeof *t);
        if (!t) {
            error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
            return NULL;
        }
        int rc = trace_load_par(t, path, opts, &perr);
        if (rc < 0) {
            trace_free(t);
            t = NULL;
        }
        if (t || perr.kind == T2P_ERR_CANCELLED) {
            if (err)
                *err = perr;
            return t;
        }
    }
    return load_one(path, opts, err);
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
