/* The reader thread: inflates the file (gzip or plain) on the second core
   into a ring of chunks while the parser runs on the first. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/trace_int.h"

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

        int n = gzread(r->gz, r->bufs[slot], TRACE_READ_BUFSZ);
        int zerr = Z_OK;
        char msg[200] = "";
        if (n < 0) {
            const char *m = gzerror(r->gz, &zerr);
            snprintf(msg, sizeof msg, "%s", m ? m : "read error");
            if (zerr == Z_ERRNO)
                snprintf(msg, sizeof msg, "%s", strerror(errno));
            n = 0;
        } else if (n == 0) {
            /* zlib reports a gzip stream cut short (Z_BUF_ERROR) only through
               gzerror after the last bytes were returned */
            const char *m = gzerror(r->gz, &zerr);
            if (zerr != Z_OK && zerr != Z_STREAM_END)
                snprintf(msg, sizeof msg, "%s", m ? m : "read error");
        }
        uint64_t off = (uint64_t)gzoffset(r->gz);

        if (strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ": "))
            memmove(msg, strstr(msg, ": ") + 2, strlen(strstr(msg, ": ") + 2) + 1); /* gzdopen's name */

        pthread_mutex_lock(&r->mu);
        if (n > 0) {
            r->lens[slot] = (size_t)n;
            r->offs[slot] = off;
            r->count++;
        }
        if (n == 0) {
            r->done = true;
            r->zerr = zerr;
            snprintf(r->zmsg, sizeof r->zmsg, "%s", msg);
        }
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (n == 0)
            return NULL;
    }
}

int trace_read_start(trace_reader *r, int fd, const char *path, t2p_error *err)
{
    r->gz = gzdopen(fd, "rb");
    if (!r->gz) {
        close(fd);
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
    gzbuffer(r->gz, TRACE_READ_BUFSZ < (1u << 18) ? TRACE_READ_BUFSZ : 1u << 18);
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
    if (r->gz)
        gzclose(r->gz);
    r->gz = NULL;
}
