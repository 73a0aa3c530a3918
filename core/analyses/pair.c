#include "config.h"

#include "core/analyses/pair.h"
#include "core/base/vec.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

struct shared {
    pthread_mutex_t mu;
    const pair_load_opts *o;
    trace_progress prog[2];
    bool stop; /* one side failed or the caller cancelled: the other stops too */
};

struct worker {
    struct shared *sh;
    int side;
    const char *path;
    pair_side out;
    t2p_error err;
    int rc;
};

static int on_progress(const trace_progress *p, void *ctx)
{
    struct worker *w = ctx;
    struct shared *sh = w->sh;
    int rc = 0;
    pthread_mutex_lock(&sh->mu);
    sh->prog[w->side] = *p;
    if (!sh->stop && sh->o->progress) {
        trace_progress sum = {
            .file_bytes = sh->prog[0].file_bytes + sh->prog[1].file_bytes,
            .file_size = sh->prog[0].file_size + sh->prog[1].file_size,
            .events = sh->prog[0].events + sh->prog[1].events,
        };
        if (sh->o->progress(&sum, sh->o->progress_ctx))
            sh->stop = true;
    }
    rc = sh->stop;
    pthread_mutex_unlock(&sh->mu);
    return rc;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    unsigned jobs = w->sh->o->jobs / 2; /* two sides share them */
    trace_load_opts lo = { .partial = w->sh->o->partial, .progress = on_progress,
                           .progress_ctx = w, .jobs = jobs > 1 ? jobs : 1 };
    w->rc = -1;
    vec_reuse_begin(); /* the model's and steps' scratch, freed, serves the next pass */
    w->out.tr = trace_load(w->path, &lo, &w->err);
    if (w->out.tr) {
        w->out.m = model_build(w->out.tr, &w->sh->o->mo, &w->err);
        if (w->out.m && (!w->sh->o->steps || (w->out.st = steps_build(w->out.m, &w->err))))
            w->rc = 0;
    }
    vec_reuse_end();
    if (w->rc < 0) {
        pthread_mutex_lock(&w->sh->mu);
        w->sh->stop = true;
        pthread_mutex_unlock(&w->sh->mu);
    }
    return NULL;
}

int pair_load(const char *const paths[2], const pair_load_opts *o, pair_side out[2],
              t2p_error *err)
{
    struct shared sh = { .o = o };
    struct worker w[2];
    pthread_t th;
    bool threaded = false;

    pthread_mutex_init(&sh.mu, NULL);
    for (int s = 0; s < 2; s++)
        w[s] = (struct worker){ .sh = &sh, .side = s, .path = paths[s], .rc = -1 };
    /* side 1 on a worker with signals blocked (the caller's handlers stay
       on its own thread), side 0 on the calling thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    threaded = o->jobs != 1 && pthread_create(&th, NULL, worker_main, &w[1]) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    worker_main(&w[0]);
    if (threaded)
        pthread_join(th, NULL);
    else
        worker_main(&w[1]); /* no thread to be had: one after the other */
    pthread_mutex_destroy(&sh.mu);

    if (w[0].rc == 0 && w[1].rc == 0) {
        out[0] = w[0].out;
        out[1] = w[1].out;
        return 0;
    }
    /* the first real failure, not the cancellation it caused on the other side */
    int bad = w[0].rc < 0 ? 0 : 1;
    if (w[0].rc < 0 && w[1].rc < 0 && w[0].err.kind == T2P_ERR_CANCELLED)
        bad = 1;
    *err = w[bad].err;
    for (int s = 0; s < 2; s++) {
        steps_free(w[s].out.st);
        model_free(w[s].out.m);
        trace_free(w[s].out.tr);
    }
    memset(out, 0, 2 * sizeof *out);
    return -1;
}
