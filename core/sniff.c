/* File kinds by content (core/sniff.h). */
#include "config.h"

#include "core/sniff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define SNIFF_IN (64 * 1024)
#define SNIFF_OUT (16 * 1024)

/* A varint at *p (below end) into *v. False when cut or longer than 10 bytes. */
static bool varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*p >= end)
            return false;
        unsigned char b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

bool sniff_is_pprof(const unsigned char *buf, size_t len, bool complete)
{
    const unsigned char *p = buf, *end = buf + len;
    size_t fields = 0;
    while (p < end) {
        uint64_t tag, v;
        if (!varint(&p, end, &tag))
            return !complete && fields > 0; /* cut at the end of what was read */
        uint64_t field = tag >> 3, wire = tag & 7;
        /* profile.proto's Profile: 1-6 and 11 are messages or strings
           (length-delimited), 7-10, 12 and 14 int64, 13 int64 packed or not */
        bool lenfield = field <= 6 || field == 11 || field == 13;
        bool intfield = (field >= 7 && field <= 10) || field == 12 || field == 13 || field == 14;
        if (field == 0 || field > 14 || !((wire == 2 && lenfield) || (wire == 0 && intfield)))
            return false;
        if (wire == 0) {
            if (!varint(&p, end, &v))
                return !complete && fields > 0;
        } else {
            if (!varint(&p, end, &v))
                return !complete && fields > 0;
            if (v > (uint64_t)(end - p)) {
                /* a field that runs past what was read: fine unless the
                   content ends here */
                return !complete && (fields > 0 || v < ((uint64_t)1 << 31));
            }
            p += v;
        }
        fields++;
    }
    return fields > 0;
}

enum sniff_kind sniff_bytes(const unsigned char *buf, size_t len, bool complete)
{
    if (len == 0)
        return SNIFF_EMPTY;
    size_t i = 0;
    if (len >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF)
        i = 3;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i < len && (buf[i] == '{' || buf[i] == '['))
        return SNIFF_TRACE;
    if (sniff_is_pprof(buf, len, complete))
        return SNIFF_PPROF;
    return SNIFF_OTHER;
}

/* The first bytes of a gzip stream inflated into out. Returns how many, or
   0 when it does not inflate; *complete when the stream ended there. */
static size_t inflate_start(const unsigned char *in, size_t inlen, unsigned char *out,
                            size_t cap, bool *complete)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return 0;
    z.next_in = (unsigned char *)in;
    z.avail_in = (uInt)inlen;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = inflate(&z, Z_SYNC_FLUSH);
    size_t got = cap - z.avail_out;
    *complete = rc == Z_STREAM_END;
    inflateEnd(&z);
    return rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR ? got : 0;
}

int sniff_file(const char *path, enum sniff_kind *kind, t2p_error *err)
{
    static const size_t insz = SNIFF_IN;
    unsigned char in[SNIFF_IN], out[SNIFF_OUT];
    int fd;
    do
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        error_set_errno(err, T2P_ERR_IO, path, -1, errno, "cannot open");
        return -1;
    }
    size_t n = 0;
    while (n < insz) {
        ssize_t k = read(fd, in + n, insz - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            error_set_errno(err, T2P_ERR_IO, path, -1, e, "cannot read");
            return -1;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    bool complete = n < insz;
    if (n >= 2 && in[0] == 0x1f && in[1] == 0x8b) {
        bool ended = false;
        size_t got = inflate_start(in, n, out, sizeof out, &ended);
        *kind = got ? sniff_bytes(out, got, ended) : SNIFF_OTHER;
        return 0;
    }
    *kind = sniff_bytes(in, n, complete);
    return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

bool sniff_trace_name(const char *path)
{
    static const char *const names[] = { ".json", ".json.gz", ".json.gzip", ".pt.trace",
                                         ".pt.trace.gz", ".JSON", ".JSON.GZ" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (ends_with(path, names[i]))
            return true;
    return false;
}
