/* File kinds by content (core/base/sniff.h). */
#include "config.h"

#include "core/base/sniff.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define SNIFF_IN (64 * 1024)
#define SNIFF_OUT (16 * 1024)

/* A protobuf varint at b[*i]: false when it runs past n or 10 bytes. */
static bool pb_varint(const unsigned char *b, size_t n, size_t *i, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 70 && *i < n; shift += 7) {
        unsigned char c = b[(*i)++];
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return true;
    }
    return false;
}

/* Whether b[0..n) is one whole protobuf message: each field of a wire type
   proto3 writes (varint, 64-bit, length-delimited, 32-bit), the last
   ending at n. */
static bool pb_message(const unsigned char *b, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint64_t tag, v;
        if (!pb_varint(b, n, &i, &tag) || tag >> 3 == 0)
            return false;
        unsigned wt = (unsigned)(tag & 7);
        if (wt == 0 && !pb_varint(b, n, &i, &v))
            return false;
        if (wt == 1 || wt == 5) {
            size_t k = wt == 1 ? 8 : 4;
            if (n - i < k)
                return false;
            i += k;
        }
        if (wt == 2) {
            if (!pb_varint(b, n, &i, &v) || v > n - i)
                return false;
            i += (size_t)v;
        }
        if (wt != 0 && wt != 1 && wt != 2 && wt != 5)
            return false;
    }
    return true;
}

/* Whether the first (inflated) bytes are a pprof profile, as convert and
   go tool pprof write it: profile.proto's top-level fields, each with the
   wire type the schema gives it, the messages among them well formed, two
   at least (or all the bytes). JSON cannot pass: it never holds the
   control bytes (0x04, 0x08, 0x12...) a profile's first fields hold. */
bool sniff_is_pprof(const unsigned char *b, size_t n)
{
    /* wire type of Profile's fields 1-14: 2 messages, strings, packed; 0 varints */
    static const signed char wire[15] = { -1, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 2, 0, 0, 0 };
    bool control = false;
    for (size_t k = 0; k < n && k < 64 && !control; k++)
        control = b[k] < 0x20 && b[k] != '\t' && b[k] != '\n' && b[k] != '\r';
    if (!control)
        return false;
    size_t i = 0;
    int fields = 0;
    while (i < n && fields < 16) {
        uint64_t tag, v;
        if (!pb_varint(b, n, &i, &tag))
            break; /* cut where the chunk ends: judged on the fields before */
        uint64_t f = tag >> 3;
        unsigned wt = (unsigned)(tag & 7);
        if (f == 0 || f > 14 || (wt != (unsigned)wire[f] && !(f == 13 && wt == 2)))
            return false; /* comment (13) may come packed or not */
        if (!pb_varint(b, n, &i, &v))
            break;
        if (wt == 2) {
            if (v > n - i)
                break;
            if (f != 6 && f != 13 && !pb_message(b + i, (size_t)v))
                return false; /* string_table (6) holds text */
            i += (size_t)v;
        }
        fields++;
    }
    return fields >= 2 || (fields == 1 && i == n);
}

enum sniff_kind sniff_bytes(const unsigned char *buf, size_t len)
{
    if (len == 0)
        return SNIFF_EMPTY;
    size_t i = 0;
    if (len >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF)
        i = 3;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i < len && buf[i] == '{') {
        /* analyze --json writes this key first: the map of a large job */
        static const char key[] = "\"analysis_format\"";
        size_t k = i + 1;
        while (k < len && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\n' || buf[k] == '\r'))
            k++;
        if (len - k >= sizeof key - 1 && memcmp(buf + k, key, sizeof key - 1) == 0)
            return SNIFF_ANALYSIS;
    }
    if (i < len && (buf[i] == '{' || buf[i] == '['))
        return SNIFF_TRACE;
    if (sniff_is_pprof(buf, len))
        return SNIFF_PPROF;
    return SNIFF_OTHER;
}

/* The first bytes of a gzip stream inflated into out. Returns how many, or
   0 when it does not inflate. */
static size_t inflate_start(const unsigned char *in, size_t inlen, unsigned char *out,
                            size_t cap)
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
    if (n >= 2 && in[0] == 0x1f && in[1] == 0x8b) {
        size_t got = inflate_start(in, n, out, sizeof out);
        *kind = got ? sniff_bytes(out, got) : SNIFF_OTHER;
        return 0;
    }
    *kind = sniff_bytes(in, n);
    return 0;
}

bool sniff_is_analysis(const char *path)
{
    struct stat st;
    enum sniff_kind kind;
    t2p_error err;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           sniff_file(path, &kind, &err) == 0 && kind == SNIFF_ANALYSIS;
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
