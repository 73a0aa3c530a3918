/* The reader thread: inflates the file (gzip or plain) on the second core
   into a ring of chunks while the parser runs on the first. The inflating
   is ISA-L's when the build has it, zlib's inflate otherwise. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/load/trace_read.h"
#include "core/base/vec.h"

/* What one inflate step came to. */
enum inflate_end {
    INFLATE_MORE,        /* room or input ran out: call again */
    INFLATE_MEMBER_END,  /* a gzip member ended, its trailer checked */
    INFLATE_BAD_TRAILER, /* the member's data ended as it should, its trailer does not match */
    INFLATE_CORRUPT,     /* the deflate data is invalid (msg says how) */
    INFLATE_NOMEM
};

#ifdef HAVE_ISAL
/* zlib's words for the same faults, so that messages do not depend on the build */
static const char *isal_reason(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block type";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    default: return "invalid deflate data";
    }
}

static int inflate_open(trace_reader *r)
{
    r->inf = malloc(sizeof *r->inf);
    return r->inf ? 0 : -1;
}

static void inflate_member(trace_reader *r)
{
    isal_inflate_init(r->inf);
    r->inf->crc_flag = ISAL_GZIP;
}

/* Inflates in[0..avail) into out[0..cap): *used and *got say how much of
   each; *back, at a bad trailer, how many of its bytes were read. */
static enum inflate_end inflate_step(trace_reader *r, const unsigned char *in, size_t avail,
                                     unsigned char *out, unsigned cap, size_t *used,
                                     unsigned *got, unsigned *back, char *msg, size_t msize)
{
    struct inflate_state *st = r->inf;
    st->next_in = (unsigned char *)in;
    st->avail_in = (uint32_t)avail;
    st->next_out = out;
    st->avail_out = cap;
    int rc = isal_inflate(st);
    *used = avail - st->avail_in;
    *got = cap - st->avail_out;
    if (rc >= 0 && st->block_state == ISAL_BLOCK_FINISH)
        return INFLATE_MEMBER_END;
    if (rc < 0)
        snprintf(msg, msize, "%s", isal_reason(rc));
    if (rc == ISAL_INCORRECT_CHECKSUM && st->block_state == ISAL_BLOCK_FINISH) {
        *back = 8; /* ISA-L reads the whole trailer before checking it */
        return INFLATE_BAD_TRAILER;
    }
    return rc < 0 ? INFLATE_CORRUPT : INFLATE_MORE;
}

static void inflate_close(trace_reader *r)
{
    free(r->inf);
    r->inf = NULL;
}
#else
static int inflate_open(trace_reader *r)
{
    /* 16 + 15: a gzip member, with the largest window */
    if (inflateInit2(&r->zs, 16 + MAX_WBITS) != Z_OK)
        return -1;
    r->zs_open = true;
    return 0;
}

static void inflate_member(trace_reader *r)
{
    inflateReset(&r->zs);
}

/* Inflates in[0..avail) into out[0..cap): *used and *got say how much of
   each; *back, at a bad trailer, how many of its bytes were read. zlib's
   inflate, not gzread: gzread drops what it inflated when the trailer
   then fails. */
static enum inflate_end inflate_step(trace_reader *r, const unsigned char *in, size_t avail,
                                     unsigned char *out, unsigned cap, size_t *used,
                                     unsigned *got, unsigned *back, char *msg, size_t msize)
{
    z_stream *zs = &r->zs;
    zs->next_in = (Bytef *)in;
    zs->avail_in = (uInt)avail;
    zs->next_out = out;
    zs->avail_out = cap;
    int rc = inflate(zs, Z_NO_FLUSH);
    *used = avail - zs->avail_in;
    *got = cap - zs->avail_out;
    if (rc == Z_STREAM_END)
        return INFLATE_MEMBER_END;
    if (rc == Z_MEM_ERROR) {
        snprintf(msg, msize, "out of memory");
        return INFLATE_NOMEM;
    }
    if (rc == Z_OK || rc == Z_BUF_ERROR)
        return INFLATE_MORE;
    snprintf(msg, msize, "%s", zs->msg ? zs->msg : "invalid deflate data");
    /* zlib fails the CRC-32 after its 4 bytes, the length after all 8 */
    if (zs->msg && strcmp(zs->msg, "incorrect data check") == 0) {
        *back = 4;
        return INFLATE_BAD_TRAILER;
    }
    if (zs->msg && strcmp(zs->msg, "incorrect length check") == 0) {
        *back = 8;
        return INFLATE_BAD_TRAILER;
    }
    return INFLATE_CORRUPT;
}

static void inflate_close(trace_reader *r)
{
    if (r->zs_open)
        inflateEnd(&r->zs);
    r->zs_open = false;
}
#endif

/* Reads more of the file into r->in, after the bytes not used yet (moved
   to its start: a gzip magic may come in two reads). Returns 0, or -1 with
   errno set. */
static int read_more(trace_reader *r)
{
    size_t keep = r->in_len - r->in_pos;
    memmove(r->in, r->in + r->in_pos, keep);
    r->in_pos = 0;
    r->in_len = keep;
    ssize_t k;
    do
        k = read(r->fd, r->in + keep, TRACE_READ_INSZ - keep);
    while (k < 0 && errno == EINTR);
    if (k < 0)
        return -1;
    r->in_len += (size_t)k;
    r->in_total += (uint64_t)k;
    r->in_eof = k == 0;
    return 0;
}

static uint64_t source_offset(const trace_reader *r)
{
    return r->in_total - (r->in_len - r->in_pos);
}

/* read_more when r->in is used up. */
static int fill_input(trace_reader *r)
{
    if (r->in_pos < r->in_len || r->in_eof)
        return 0;
    return read_more(r);
}

/* A read failed (errno): what source_read returns, the bytes it has, or 0
   with the error (which comes back on the next call when it had some). */
static int read_failed(unsigned n, int *zerr, char *msg, size_t msize)
{
    if (n)
        return (int)n;
    *zerr = Z_ERRNO;
    snprintf(msg, msize, "%s", strerror(errno));
    return 0;
}

/* Up to cap bytes of JSON into out, as gzread would give them: gzip members
   one after the other (trailing bytes that start no member are ignored),
   plain JSON as it is. Returns the bytes given; 0 at the end, with *zerr
   Z_OK, Z_BUF_ERROR (the gzip data is cut short), Z_DATA_ERROR (corrupt),
   Z_MEM_ERROR or Z_ERRNO, and msg saying why. A bad trailer gives its
   member's last bytes and Z_DATA_ERROR together. */
static int source_read(trace_reader *r, unsigned char *out, unsigned cap, int *zerr, char *msg,
                       size_t msize)
{
    unsigned n = 0;
    while (n < cap) {
        if (fill_input(r) < 0)
            return read_failed(n, zerr, msg, msize);
        size_t avail = r->in_len - r->in_pos;
        /* the gzip magic is two bytes, which may come in two reads */
        if ((!r->mode || r->member_end) && avail == 1 && !r->in_eof) {
            if (read_more(r) < 0)
                return read_failed(n, zerr, msg, msize);
            continue;
        }
        if (!r->mode || r->member_end) {
            bool magic = avail >= 2 && r->in[r->in_pos] == 0x1f && r->in[r->in_pos + 1] == 0x8b;
            if (r->member_end && !magic) {
                r->in_pos = r->in_len; /* what follows the last member is not ours */
                r->in_eof = true;
                return (int)n;
            }
            if (!r->mode && !magic) {
                r->mode = 'p';
            } else {
                r->mode = 'z';
                r->member_end = false;
                inflate_member(r);
            }
        }
        if (r->mode == 'p') {
            if (!avail)
                return (int)n;
            size_t k = avail < cap - n ? avail : cap - n;
            memcpy(out + n, r->in + r->in_pos, k);
            r->in_pos += k;
            n += (unsigned)k;
            continue;
        }
        size_t used = 0;
        unsigned got = 0, back = 0;
        enum inflate_end e = inflate_step(r, r->in + r->in_pos, avail, out + n, cap - n, &used,
                                          &got, &back, msg, msize);
        bool stuck = !got && !used && avail;
        r->in_pos += used;
        n += got;
        if (e == INFLATE_MEMBER_END) {
            r->member_end = true; /* its trailer checked: the next member, or the end */
            continue;
        }
        if (e == INFLATE_BAD_TRAILER) {
            /* only the trailer is wrong (a bad CRC-32 or length): the
               deflate data ended as it should, so what it gave is handed
               over; the error ends the stream after it. Dropping it threw
               away up to a chunk of good JSON and reported byte 0. */
            *zerr = Z_DATA_ERROR;
            r->bad_trailer = true;
            r->trailer_at = source_offset(r) - back;
            return (int)n;
        }
        if (e == INFLATE_NOMEM) {
            *zerr = Z_MEM_ERROR;
            return 0;
        }
        if (e == INFLATE_CORRUPT || stuck) {
            /* corrupt data may inflate to garbage before the fault shows:
               drop the chunk, as gzread drops its buffer, so that the parser
               never reports the garbage instead of the corruption */
            *zerr = Z_DATA_ERROR;
            if (e != INFLATE_CORRUPT)
                snprintf(msg, msize, "invalid deflate data");
            return 0;
        }
        if (r->in_eof && r->in_pos == r->in_len && !got) {
            if (n)
                return (int)n;
            *zerr = Z_BUF_ERROR; /* the stream stops inside a member */
            snprintf(msg, msize, "unexpected end of file");
            return 0;
        }
    }
    return (int)n;
}

static void *read_main(void *arg)
{
    trace_reader *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (r->count == TRACE_READ_NBUF && !r->stop)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->stop) {
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
        int slot = (r->head + r->count) % TRACE_READ_NBUF;
        pthread_mutex_unlock(&r->mu);

        int zerr = Z_OK;
        char msg[200] = "";
        int n = source_read(r, r->bufs[slot], TRACE_READ_BUFSZ, &zerr, msg, sizeof msg);
        uint64_t off = source_offset(r);

        pthread_mutex_lock(&r->mu);
        /* bytes and an error together (a bad gzip trailer): the chunk and
           the end are posted at once, so the parser knows the chunk it
           takes is the last and is followed by the error */
        bool end = n == 0 || zerr != Z_OK;
        if (n > 0) {
            r->lens[slot] = (size_t)n;
            r->offs[slot] = off;
            r->count++;
        }
        if (end) {
            r->done = true;
            r->zerr = zerr;
            snprintf(r->zmsg, sizeof r->zmsg, "%s", msg);
        }
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (end)
            return NULL;
    }
}

int trace_read_open(trace_reader *r, int fd, const char *path, t2p_error *err)
{
    r->fd = fd;
    r->fd_open = true;
    r->in = malloc(TRACE_READ_INSZ);
    if (!r->in || inflate_open(r) < 0) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
    return 0;
}

size_t trace_read_sync(trace_reader *r, unsigned char *out, size_t cap, uint64_t *off)
{
    if (r->done)
        return 0;
    int zerr = Z_OK;
    char msg[200] = "";
    unsigned c = cap > (1u << 30) ? 1u << 30 : (unsigned)cap;
    int n = source_read(r, out, c, &zerr, msg, sizeof msg);
    *off = source_offset(r);
    if (n == 0 || zerr != Z_OK) {
        /* as read_main ends the stream: the bytes given (a bad trailer's
           member) are the last */
        r->done = true;
        r->zerr = zerr;
        snprintf(r->zmsg, sizeof r->zmsg, "%s", msg);
    }
    return n > 0 ? (size_t)n : 0;
}

int trace_read_start(trace_reader *r, int fd, const char *path, t2p_error *err)
{
    if (trace_read_open(r, fd, path, err) < 0)
        return -1;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->inited = true;
    /* the ring in one mapping on huge pages (4 MB: two faults), not four
       blocks of malloc's 4 KiB pages (1,000 faults a load, ~14 ms of CPU on
       the bench's VM; two at once with analyze --base) */
    unsigned char *ring = vec_alloc(TRACE_READ_NBUF, TRACE_READ_BUFSZ);
    if (!ring) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
    for (int i = 0; i < TRACE_READ_NBUF; i++)
        r->bufs[i] = ring + (size_t)i * TRACE_READ_BUFSZ;
    /* The reader starts with every signal blocked, so that a signal meant for
       the program (SIGWINCH from a resized terminal, above all) never lands
       in its read() and fails the load with EINTR; the main thread gets them. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int prc = pthread_create(&r->th, NULL, read_main, r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (prc != 0) {
        /* EAGAIN: no memory for the thread's stack (e.g. under ulimit -v) */
        if (prc == EAGAIN || prc == ENOMEM)
            error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory (cannot start the reader thread)");
        else
            error_set(err, T2P_ERR_IO, path, -1, "cannot start the reader thread: %s", strerror(prc));
        return -1;
    }
    r->started = true;
    return 0;
}

bool trace_read_next(trace_reader *r, const unsigned char **buf, size_t *len, uint64_t *off)
{
    pthread_mutex_lock(&r->mu);
    while (r->count == 0 && !r->done)
        pthread_cond_wait(&r->cv, &r->mu);
    if (r->count == 0) {
        pthread_mutex_unlock(&r->mu);
        return false;
    }
    int slot = r->head;
    *buf = r->bufs[slot];
    *len = r->lens[slot];
    *off = r->offs[slot];
    pthread_mutex_unlock(&r->mu);
    return true;
}

void trace_read_release(trace_reader *r)
{
    pthread_mutex_lock(&r->mu);
    r->head = (r->head + 1) % TRACE_READ_NBUF;
    r->count--;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

bool trace_read_ends_corrupt(trace_reader *r, bool held)
{
    pthread_mutex_lock(&r->mu);
    bool yes = r->done && r->bad_trailer && r->count == (held ? 1 : 0);
    pthread_mutex_unlock(&r->mu);
    return yes;
}

void trace_read_stop(trace_reader *r)
{
    if (r->started) {
        pthread_mutex_lock(&r->mu);
        r->stop = true;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->th, NULL);
        r->started = false;
    }
    if (r->inited) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->cv);
        r->inited = false;
    }
    vec_free(r->bufs[0], TRACE_READ_NBUF, TRACE_READ_BUFSZ); /* the ring's one mapping */
    for (int i = 0; i < TRACE_READ_NBUF; i++)
        r->bufs[i] = NULL;
    if (r->fd_open)
        close(r->fd);
    r->fd_open = false;
    inflate_close(r);
    free(r->in);
    r->in = NULL;
}
