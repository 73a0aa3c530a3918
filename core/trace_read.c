/* The reader thread: inflates the file (gzip or plain) on the second core
   into a ring of chunks while the parser runs on the first. The inflating
   is ISA-L's when the build has it, zlib's gzread otherwise. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/trace_int.h"

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
   Z_OK, Z_BUF_ERROR (the gzip data is cut short), Z_DATA_ERROR (corrupt) or
   Z_ERRNO, and msg saying why. */
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
                isal_inflate_init(r->inf);
                r->inf->crc_flag = ISAL_GZIP;
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
        struct inflate_state *st = r->inf;
        st->next_in = r->in + r->in_pos;
        st->avail_in = (uint32_t)avail;
        st->next_out = out + n;
        st->avail_out = cap - n;
        int rc = isal_inflate(st);
        unsigned got = (cap - n) - st->avail_out;
        bool stuck = !got && st->avail_in == avail && avail;
        r->in_pos = r->in_len - st->avail_in;
        n += got;
        if (rc >= 0 && st->block_state == ISAL_BLOCK_FINISH) {
            r->member_end = true; /* its trailer checked: the next member, or the end */
            continue;
        }
        if (rc == ISAL_INCORRECT_CHECKSUM && st->block_state == ISAL_BLOCK_FINISH) {
            /* only the trailer is wrong (a bad CRC-32 or length): the
               deflate data ended as it should, so what it gave is handed
               over; the error ends the stream after it. Dropping it threw
               away up to a chunk of good JSON and reported byte 0. */
            *zerr = Z_DATA_ERROR;
            snprintf(msg, msize, "%s", isal_reason(rc));
            r->bad_trailer = true;
            r->trailer_at = source_offset(r) - 8; /* ISA-L read the 8 trailer bytes */
            return (int)n;
        }
        if (rc < 0 || stuck) {
            /* corrupt data may inflate to garbage before the fault shows:
               drop the chunk, as gzread drops its buffer, so that the parser
               never reports the garbage instead of the corruption */
            *zerr = Z_DATA_ERROR;
            snprintf(msg, msize, "%s", rc < 0 ? isal_reason(rc) : "invalid deflate data");
            return 0;
        }
        if (r->in_eof && st->avail_in == 0 && !got) {
            if (n)
                return (int)n;
            *zerr = Z_BUF_ERROR; /* the stream stops inside a member */
            snprintf(msg, msize, "unexpected end of file");
            return 0;
        }
    }
    return (int)n;
}

#else
static int source_read(trace_reader *r, unsigned char *out, unsigned cap, int *zerr, char *msg,
                       size_t msize)
{
    int n = gzread(r->gz, out, cap);
    if (n < 0) {
        const char *m = gzerror(r->gz, zerr);
        snprintf(msg, msize, "%s", m ? m : "read error");
        if (*zerr == Z_ERRNO)
            snprintf(msg, msize, "%s", strerror(errno));
        n = 0;
    } else if (n == 0) {
        /* zlib reports a gzip stream cut short (Z_BUF_ERROR) only through
           gzerror after the last bytes were returned */
        const char *m = gzerror(r->gz, zerr);
        if (*zerr != Z_OK && *zerr != Z_STREAM_END)
            snprintf(msg, msize, "%s", m ? m : "read error");
    }
    return n;
}

static uint64_t source_offset(const trace_reader *r)
{
    return (uint64_t)gzoffset(r->gz);
}
#endif

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

        if (strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ": "))
            memmove(msg, strstr(msg, ": ") + 2, strlen(strstr(msg, ": ") + 2) + 1); /* gzdopen's name */

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

int trace_read_start(trace_reader *r, int fd, const char *path, t2p_error *err)
{
#ifdef HAVE_ISAL
    r->fd = fd;
    r->fd_open = true;
    r->inf = malloc(sizeof *r->inf);
    r->in = malloc(TRACE_READ_INSZ);
    if (!r->inf || !r->in) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
#else
    r->gz = gzdopen(fd, "rb");
    if (!r->gz) {
        close(fd);
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
    gzbuffer(r->gz, TRACE_READ_INSZ);
#endif
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->inited = true;
    for (int i = 0; i < TRACE_READ_NBUF; i++)
        if (!(r->bufs[i] = malloc(TRACE_READ_BUFSZ))) {
            error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
            return -1;
        }
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
    bool yes = r->done && r->zerr == Z_DATA_ERROR && r->count == (held ? 1 : 0);
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
    for (int i = 0; i < TRACE_READ_NBUF; i++) {
        free(r->bufs[i]);
        r->bufs[i] = NULL;
    }
#ifdef HAVE_ISAL
    if (r->fd_open)
        close(r->fd);
    r->fd_open = false;
    free(r->inf);
    free(r->in);
    r->inf = NULL;
    r->in = NULL;
#else
    if (r->gz)
        gzclose(r->gz);
    r->gz = NULL;
#endif
}
