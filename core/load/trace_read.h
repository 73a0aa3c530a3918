/* The loader's reader (core/load/trace_read.c): inflates the file on a
   second thread into a ring of chunks. Private to core/load/. */
#ifndef T2P_TRACE_READ_H
#define T2P_TRACE_READ_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <zlib.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "core/base/error.h"

#define TRACE_READ_NBUF 4
/* The fuzz build makes the chunks tiny: tokens then cross chunk boundaries,
   and each run does not map and clear megabytes. */
#ifndef T2P_READ_BUFSZ
#define T2P_READ_BUFSZ (1u << 20)
#endif
#define TRACE_READ_BUFSZ ((unsigned)T2P_READ_BUFSZ)

/* The compressed bytes read at a time. */
#define TRACE_READ_INSZ (TRACE_READ_BUFSZ < (1u << 18) ? TRACE_READ_BUFSZ : (1u << 18))

typedef struct trace_reader {
    int fd;
    bool fd_open;        /* fd is ours to close */
    unsigned char *in;   /* TRACE_READ_INSZ bytes read from fd */
    size_t in_pos, in_len;
    uint64_t in_total;   /* bytes read from fd so far */
    bool in_eof;
    int mode;            /* 0 not known yet, 'p' plain, 'z' gzip */
    bool member_end;     /* a gzip member ended: another may follow */
#ifdef HAVE_ISAL
    /* ISA-L inflates gzip 3.5x faster than zlib (0.08 s against 0.28 s for
       the 274 MB benchmark trace) */
    struct inflate_state *inf;
#else
    z_stream zs;
    bool zs_open;        /* inflateInit2 succeeded: inflateEnd is due */
#endif
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *bufs[TRACE_READ_NBUF];
    size_t lens[TRACE_READ_NBUF];
    uint64_t offs[TRACE_READ_NBUF]; /* compressed bytes consumed after this chunk */
    int head, count;
    bool done, stop;
    bool inited;         /* the mutex and condition exist */
    bool started;        /* the thread runs (or ran) and must be joined */
    int zerr;            /* Z_OK, or the zlib error that ended the stream */
    char zmsg[200];
    /* the stream ended on a gzip trailer whose CRC-32 or length does not
       match: the data before it inflated whole and was handed over */
    bool bad_trailer;
    uint64_t trailer_at; /* the compressed offset of that trailer */
} trace_reader;

/* Starts inflating fd (which it owns from now on, even on failure) on a new
   thread. r is zeroed caller storage. Returns 0, or -1 with err set; either
   way trace_read_stop(r) releases what was taken. */
int trace_read_start(trace_reader *r, int fd, const char *path, t2p_error *err);

/* Opens fd (which it owns from now on, even on failure) to be read by
   trace_read_sync on the caller's thread: no reader thread, no ring, so the
   JSON lands in the caller's buffers without a copy. r is zeroed caller
   storage; trace_read_stop releases what was taken. 0, or -1 with err set. */
int trace_read_open(trace_reader *r, int fd, const char *path, t2p_error *err);

/* Inflates up to cap bytes of JSON into out on this thread (after
   trace_read_open). Returns the bytes given; 0 at the end of the stream,
   and then, or with the last bytes, r->zerr and r->zmsg say how it ended.
   *off: the compressed bytes consumed so far. */
size_t trace_read_sync(trace_reader *r, unsigned char *out, size_t cap, uint64_t *off);

/* Waits for the next chunk. Returns false at the end of the stream (then
   r->zerr and r->zmsg tell how it ended). The chunk stays valid until
   trace_read_release. */
bool trace_read_next(trace_reader *r, const unsigned char **buf, size_t *len, uint64_t *off);
void trace_read_release(trace_reader *r);

/* After the parser failed on the chunk it holds (held) or on those it
   gathered: whether the stream ended right after them on a gzip trailer
   that condemns them, so that the corruption, not the garbage, is what to
   report. */
bool trace_read_ends_corrupt(trace_reader *r, bool held);

/* Stops and joins the thread, frees the buffers, closes the file. */
void trace_read_stop(trace_reader *r);

#endif
