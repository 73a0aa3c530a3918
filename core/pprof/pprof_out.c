/* The output side of a pprof export: packed bytes through a gzip stream into
   an output file (core/base/outfile.c: a temp file renamed into place, or linked
   to never replace a file; a FIFO or standard output in place), or into
   memory. The names of the files are core/pprof/pprof_path.c's. */
#include "config.h"

#include "core/pprof/pprof_out.h"
#include "core/base/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void pprof_sink_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
    struct pprof_sink *s = (struct pprof_sink *)buf;
    if (!s->failed && !s->cancelled && s->write(s, data, len) < 0)
        s->failed = true;
}

void pprof_sink_tag_len(struct pprof_sink *s, uint32_t field, size_t len)
{
    uint8_t v[16];
    size_t n = 0;
    v[n++] = (uint8_t)(field << 3 | 2); /* length-delimited */
    for (uint64_t x = len; ; x >>= 7) {
        v[n++] = (uint8_t)(x & 0x7f) | (x >= 0x80 ? 0x80 : 0);
        if (x < 0x80)
            break;
    }
    pprof_sink_append(&s->base, n, v);
}

/* The packed profile is compressed as it goes: it never sits in memory whole. */
struct gzsink {
    struct pprof_sink s;
    gzFile gz;
    int failed_errno; /* 0 while all is well */
};

static int gzsink_write(struct pprof_sink *s, const uint8_t *data, size_t len)
{
    struct gzsink *g = (struct gzsink *)s;
    while (len > 0) {
        unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;
        errno = 0;
        int w = gzwrite(g->gz, data, chunk);
        if (w <= 0) {
            g->failed_errno = errno;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

int pprof_out_write(pprof_pack_fn pack, void *ctx, const struct pprof_out_opts *opts,
                    const char *out, t2p_error *err)
{
    outfile of;
    if (outfile_open(&of, out, opts && opts->no_overwrite ? OUTFILE_NO_REPLACE : 0, err) < 0)
        return -1;
    gzFile gz = gzdopen(of.fd, "wb6");
    if (!gz) {
        error_set(err, T2P_ERR_NOMEM, out, -1, "out of memory opening the gzip stream");
        goto fail;
    }
    outfile_take_fd(&of); /* gzclose closes it */
    gzbuffer(gz, 1 << 17);
    struct gzsink sink = { .s = { .base = { .append = pprof_sink_append }, .write = gzsink_write,
                                  .progress = opts ? opts->progress : NULL,
                                  .progress_ctx = opts ? opts->progress_ctx : NULL },
                           .gz = gz };
    int prc = pack(ctx, &sink.s);
    errno = 0;
    int zrc = gzclose(gz); /* flushes and closes fd */
    if (prc < 0) {
        error_set(err, T2P_ERR_NOMEM, out, -1, "out of memory packing the profile");
        goto fail;
    }
    if (sink.s.cancelled) {
        error_set(err, T2P_ERR_CANCELLED, out, -1, "cancelled: nothing written");
        goto fail;
    }
    if (sink.s.failed || zrc != Z_OK) {
        int e = sink.s.failed ? sink.failed_errno : errno;
        if (e)
            error_set_errno(err, T2P_ERR_IO, out, -1, e, "cannot write");
        else
            error_set(err, T2P_ERR_IO, out, -1, "cannot write: %s",
                      zrc == Z_MEM_ERROR ? "out of memory in zlib" : "gzip error");
        goto fail;
    }
    return outfile_commit(&of, err);
fail:
    outfile_done(&of);
    return -1;
}

static int memsink_write(struct pprof_sink *s, const uint8_t *data, size_t len)
{
    struct pprof_memsink *ms = (struct pprof_memsink *)s;
    if (ms->len + len > ms->cap) {
        size_t nc = ms->cap ? ms->cap : 1 << 16;
        while (nc < ms->len + len)
            nc *= 2;
        uint8_t *p = realloc(ms->buf, nc);
        if (!p)
            return -1;
        ms->buf = p;
        ms->cap = nc;
    }
    memcpy(ms->buf + ms->len, data, len);
    ms->len += len;
    return 0;
}
void pprof_memsink_init(struct pprof_memsink *ms)
{
    *ms = (struct pprof_memsink){ .s = { .base = { .append = pprof_sink_append },
                                         .write = memsink_write } };
}

void pprof_memsink_done(struct pprof_memsink *ms)
{
    if (!ms)
        return;
    free(ms->buf);
    ms->buf = NULL;
    ms->len = ms->cap = 0;
}
