/* Loading a job's files: one worker per core, each file into its own
   trace and model, kept as its figures and ops (core/analyses/ranks.c puts the
   ranks together). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/analyses/ranks_load.h"
#include "core/analyses/collectives.h"
#include "core/analyses/steps.h"
#include "core/base/sniff.h"
#include "core/base/vec.h"

/* ---- the rank of a file ---- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The number after word (and an optional '-' or '_') at s, or -1. */
static int64_t number_after(const char *s, const char *word)
{
    size_t k = strlen(word);
    if (strncasecmp(s, word, k) != 0)
        return -1;
    s += k;
    if (*s == '-' || *s == '_')
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    int64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

int64_t ranks_name_rank(const char *path)
{
    const char *name = base_name(path);
    static const char *const words[] = { "rank", "worker" };
    for (size_t w = 0; w < 2; w++)
        for (const char *s = name; *s; s++) {
            /* a word of its own: "rank3", "job_rank-3", not "frank3" */
            if (s > name && isalpha((unsigned char)s[-1]))
                continue;
            int64_t r = number_after(s, words[w]);
            if (r >= 0)
                return r;
        }
    return -1;
}

void ranks_set_rank(ranks_file *f)
{
    /* an analysis file: its trace's name first, as the job of traces does */
    int64_t r = f->trace_path ? ranks_name_rank(f->trace_path) : -1;
    if (r < 0)
        r = ranks_name_rank(f->path);
    if (f->trace_rank >= 0) {
        f->rank = f->trace_rank;
        f->from = RANKS_FROM_TRACE;
    } else if (r >= 0) {
        f->rank = r;
        f->from = RANKS_FROM_NAME;
    } else {
        f->rank = (int64_t)f->position;
        f->from = RANKS_FROM_POSITION;
    }
}

unsigned ranks_default_jobs(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* ---- a file's figures ---- */

/* The step figures over steps first..last of st: steps kept for the
   average (TensorBoard's rules, core/steps), their mean and longest
   duration, the role split and the communication and overlap, each
   averaged over the kept steps. Without ProfilerStep# the whole-trace step
   still gives communication and overlap. Over every step, the mean and role
   split are steps_build's own averages. */
static void step_figures(const steps *st, size_t first, size_t last, ranks_stat *s)
{
    int64_t comm = 0, overlap = 0, dur = 0, roles[STEPS_NROLES] = { 0 };
    size_t n = 0;
    for (size_t i = first; i <= last && i < st->nsteps; i++) {
        const steps_step *x = &st->steps[i];
        if (!x->kept)
            continue;
        n++;
        comm += x->overlap.communication_ns;
        overlap += x->overlap.overlap_ns;
        dur += x->end - x->start;
        for (int r = 0; r < STEPS_NROLES; r++)
            roles[r] += x->role_ns[r];
        if (!st->whole_trace && x->end - x->start > s->step_max_ns)
            s->step_max_ns = x->end - x->start;
    }
    if (n) {
        s->communication_ns = comm / (int64_t)n;
        s->overlap_ns = overlap / (int64_t)n;
    }
    if (!st->whole_trace && n) {
        s->steps = n;
        s->step_mean_ns = dur / (int64_t)n;
        for (int r = 0; r < STEPS_NROLES; r++)
            s->role_ns[r] = roles[r] / (int64_t)n;
    }
}

/* m's figures, the steps' from st (steps first..last of the whole trace's
   model; m may be the model of those steps alone). */
static void fill_figures(const model *m, const steps *st, size_t first, size_t last,
                         ranks_stat *s)
{
    const trace *tr = m->tr;
    memset(s, 0, sizeof *s);
    s->events = tr->events_read;
    s->complete_events = m->complete_events;
    s->window_ns = m->window_ns;
    s->busy_ns = m->busy_ns;
    s->cpu_ns = m->cpu_ns;
    s->gpu_events = m->gpu_events;
    s->gpu_busy_ns = m->gpu_busy_ns;
    step_figures(st, first, last, s);
}

int ranks_figures(const model *m, ranks_stat *s)
{
    t2p_error err;
    steps *st = steps_build(m, &err);
    if (!st)
        return -1;
    fill_figures(m, st, 0, st->nsteps ? st->nsteps - 1 : 0, s);
    steps_free(st);
    return 0;
}

/* f's ops from m, with their names copied: the trace may be dropped next. */
static int file_ops(ranks_file *f, const model *m)
{
    const trace *tr = m->tr;
    f->names = strtab_new();
    f->ops = malloc((m->nops ? m->nops : 1) * sizeof *f->ops);
    if (!f->names || !f->ops)
        return -1;
    for (size_t i = 0; i < m->nops; i++) {
        const model_op *o = &m->ops[i];
        ranks_fop *p = &f->ops[i];
        p->name = strtab_intern(f->names, trace_str(tr, o->name), strtab_len(tr->strs, o->name));
        p->cat = strtab_intern(f->names, trace_str(tr, o->cat), strtab_len(tr->strs, o->cat));
        if (p->name == STRTAB_NONE || p->cat == STRTAB_NONE)
            return -1;
        p->calls = o->calls;
        p->self_ns = o->self_ns;
        p->total_ns = o->total_ns;
        p->dev_self_ns = o->dev_self_ns;
        p->dev_total_ns = o->dev_total_ns;
    }
    f->nops = m->nops;
    return 0;
}

/* One file's progress, written by its worker, read by ranks_load's thread. */
struct live {
    atomic_int stage;
    _Atomic uint64_t done, size;
};

struct load_ctx {
    const volatile sig_atomic_t *cancel;
    struct live *live;
};

static int on_trace_progress(const trace_progress *p, void *ctx)
{
    struct load_ctx *c = ctx;
    atomic_store(&c->live->done, p->file_bytes);
    atomic_store(&c->live->size, p->file_size);
    return c->cancel && *c->cancel != 0;
}

/* f's figures and ops from its whole model m and its steps st, over the
   steps sm (a model of m's trace scoped to steps, model.scope) holds when
   sm is not NULL, and its collectives (in the same steps); then
   opts->on_model. Returns 0, or -1 with f->err set. */
static int figures_of(ranks_file *f, const model *m, const steps *st, const model *sm,
                      const ranks_load_opts *o)
{
    size_t first = 0, last = st->nsteps ? st->nsteps - 1 : 0;
    int64_t from = INT64_MIN, to = INT64_MAX;
    if (sm) {
        first = sm->scope.first;
        last = sm->scope.last;
        f->scoped = true;
        f->step_first = first;
        f->step_last = last;
        from = st->steps[first].start;
        to = st->steps[last].end;
    }
    fill_figures(sm ? sm : m, st, first, last, &f->st);
    if (file_ops(f, sm ? sm : m) < 0 ||
        collectives_of_trace(m->tr, from, to, f->names, &f->colls, &f->ncolls) < 0) {
        error_set(&f->err, T2P_ERR_NOMEM, f->path, -1, "out of memory computing its figures");
        return -1;
    }
    if (o->on_model && o->on_model(f, m, st, o->ctx, &f->err) < 0)
        return -1;
    return 0;
}

/* The same from m alone: its steps, and the model of o->step's steps when
   set, built here. */
static int file_figures(ranks_file *f, const model *m, const ranks_load_opts *o)
{
    steps *st = steps_build(m, &f->err);
    if (!st)
        return -1;
    model *sm = NULL;
    int rc = -1;
    if (o->step) {
        t2p_error e;
        size_t first, last;
        if (steps_parse_range(st, o->step, &first, &last, &e) < 0) {
            error_set(&f->err, e.kind, f->path, -1, "--step: %s", e.reason);
            goto out;
        }
        if (!(sm = steps_scope(st, first, last, &o->mo, &f->err)))
            goto out;
    }
    rc = figures_of(f, m, st, sm, o);
out:
    model_free(sm);
    steps_free(st);
    return rc;
}

static void file_of_trace(ranks_file *f, const trace *tr)
{
    f->trace_rank = tr->has_rank ? tr->rank : -1;
    f->world_size = tr->world_size;
    ranks_set_rank(f);
    f->truncated = tr->truncated;
    snprintf(f->truncated_reason, sizeof f->truncated_reason, "%s", tr->truncated_reason);
}

int ranks_file_from_model(ranks_file *f, const model *whole, const ranks_load_opts *o)
{
    ranks_load_opts none = { 0 };
    file_of_trace(f, whole->tr);
    return file_figures(f, whole, o ? o : &none);
}

int ranks_file_from_built(ranks_file *f, const model *whole, const steps *st,
                          const model *scoped, const ranks_load_opts *o)
{
    ranks_load_opts none = { 0 };
    if (scoped && (scoped->scope.kind != MODEL_SCOPE_STEPS || scoped->scope.last >= st->nsteps)) {
        error_set(&f->err, T2P_ERR_ARG, f->path, -1, "a rank's figures scope to steps alone");
        return -1;
    }
    file_of_trace(f, whole->tr);
    return figures_of(f, whole, st, scoped, o ? o : &none);
}

const char *ranks_file_shown(const ranks_file *f)
{
    return f->trace_path ? f->trace_path : f->path;
}

void ranks_file_clear(ranks_file *f)
{
    char *path = f->path;
    model_free(f->m);
    trace_free(f->tr);
    strtab_free(f->names);
    free(f->ops);
    free(f->out);
    free(f->colls);
    free(f->trace_path);
    memset(f, 0, sizeof *f);
    f->path = path;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Whether f, a directory's file that failed to load, holds no trace at all
   (another JSON document, text, a pprof) rather than a broken trace: a
   name that says trace (a rank in it, the profiler's .pt.trace.json) is a
   trace that broke. */
static bool holds_no_trace(const ranks_file *f)
{
    if (!f->listed || ranks_name_rank(f->path) >= 0 || ends_with(f->path, ".pt.trace.json") ||
        ends_with(f->path, ".pt.trace.json.gz"))
        return false;
    /* JSON broken past its first bytes is a cut or damaged trace */
    return f->err.kind == T2P_ERR_NOT_TRACE ||
           (f->err.kind == T2P_ERR_JSON && !trace_starts_json(f->path));
}

static void load_one(ranks_file *f, const ranks_load_opts *o, struct live *live)
{
    struct load_ctx lc = { o->cancel, live };
    trace_load_opts lo = { .partial = o->partial, .progress = on_trace_progress, .progress_ctx = &lc };
    if (o->cancel && *o->cancel) {
        error_set(&f->err, T2P_ERR_CANCELLED, f->path, -1, "cancelled");
        return;
    }
    atomic_store(&live->stage, RANKS_READING);
    if (sniff_is_analysis(f->path)) {
        /* one rank summed up already (the map of a large job) */
        if (ranks_read_analysis(f) < 0)
            return;
        if (o->step && strcmp(o->step, f->step) != 0) {
            /* its figures are fixed: they cannot be scoped again */
            error_set(&f->err, T2P_ERR_ARG, f->path, -1, "--step %s: this analysis file covers "
                      "%s%s; make it with analyze --json -top 0 --step %s", o->step,
                      f->step[0] ? "steps " : "the whole trace", f->step, o->step);
            return;
        }
        ranks_set_rank(f);
        f->loaded = true;
        return;
    }
    trace *tr = trace_load(f->path, &lo, &f->err);
    if (!tr) {
        f->skipped = holds_no_trace(f);
        return;
    }
    atomic_store(&live->done, tr->file_size);
    atomic_store(&live->size, tr->file_size);
    atomic_store(&live->stage, RANKS_BUILDING);
    f->trace_rank = tr->has_rank ? tr->rank : -1;
    ranks_set_rank(f);
    if (o->rank_only) {
        f->loaded = true;
        if (f->rank == o->pick_rank)
            f->tr = tr; /* the caller's report reads it: not loaded twice */
        else
            trace_free(tr);
        return;
    }
    model *m = model_build(tr, &o->mo, &f->err);
    if (!m) {
        trace_free(tr);
        return;
    }
    if (ranks_file_from_model(f, m, o) < 0)
        goto drop;
    f->loaded = true;
    if (o->keep_models) {
        f->tr = tr;
        f->m = m;
        return;
    }
drop:
    model_free(m);
    trace_free(tr);
}

struct pool {
    ranks_job *j;
    const ranks_load_opts *o;
    size_t *order; /* files, largest first: the long loads start early */
    size_t next;
    struct live *live; /* by file */
    unsigned running;  /* workers not yet finished */
    pthread_mutex_t mu;
    pthread_cond_t done;
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    vec_reuse_begin(); /* each file takes the last one's pages back */
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->j->nfiles)
            break;
        size_t k = p->order[i];
        load_one(&p->j->files[k], p->o, &p->live[k]);
        const ranks_file *f = &p->j->files[k];
        atomic_store(&p->live[k].stage, f->loaded ? RANKS_DONE : f->skipped ? RANKS_SKIPPED
                                                                             : RANKS_FAILED);
    }
    vec_reuse_end();
    pthread_mutex_lock(&p->mu);
    p->running--;
    pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void report(struct pool *p, ranks_file_progress *snap)
{
    for (size_t i = 0; i < p->j->nfiles; i++) {
        snap[i].stage = (enum ranks_stage)atomic_load(&p->live[i].stage);
        snap[i].done = atomic_load(&p->live[i].done);
        snap[i].size = atomic_load(&p->live[i].size);
    }
    p->o->progress(p->j, snap, p->o->progress_ctx);
}

/* Until every worker has finished: the progress callback ten times a second. */
static void wait_workers(struct pool *p, ranks_file_progress *snap)
{
    pthread_mutex_lock(&p->mu);
    while (p->running > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->done, &p->mu, &ts);
        if (p->running > 0 && p->o->progress) {
            pthread_mutex_unlock(&p->mu);
            report(p, snap);
            pthread_mutex_lock(&p->mu);
        }
    }
    pthread_mutex_unlock(&p->mu);
    if (p->o->progress)
        report(p, snap);
}

static int cmp_size(const void *pa, const void *pb, void *arg)
{
    const off_t *sizes = arg;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    off_t x = sizes[a], y = sizes[b];
    return x > y ? -1 : x < y ? 1 : (a > b) - (a < b);
}

int ranks_load_files(ranks_job *j, const ranks_load_opts *o)
{
    struct pool p = { .j = j, .o = o };
    off_t *sizes = calloc(j->nfiles, sizeof *sizes);
    p.order = malloc(j->nfiles * sizeof *p.order);
    p.live = calloc(j->nfiles, sizeof *p.live);
    ranks_file_progress *snap = calloc(j->nfiles, sizeof *snap);
    unsigned n = o->jobs ? o->jobs : ranks_default_jobs();
    if (n > j->nfiles)
        n = (unsigned)j->nfiles;
    pthread_t *th = malloc(n * sizeof *th);
    if (!sizes || !p.order || !th || !p.live || !snap) {
        free(sizes);
        free(p.order);
        free(p.live);
        free(snap);
        free(th);
        return -1;
    }
    for (size_t i = 0; i < j->nfiles; i++) {
        struct stat st;
        sizes[i] = stat(j->files[i].path, &st) == 0 ? st.st_size : 0;
        p.order[i] = i;
        atomic_init(&p.live[i].stage, RANKS_WAITING);
        atomic_init(&p.live[i].done, 0);
        atomic_init(&p.live[i].size, (uint64_t)sizes[i]);
    }
    qsort_r(p.order, j->nfiles, sizeof *p.order, cmp_size, sizes);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.done, NULL);
    unsigned started = 0;
    p.running = n;
    for (; started < n; started++)
        if (pthread_create(&th[started], NULL, worker, &p) != 0)
            break;
    pthread_mutex_lock(&p.mu);
    p.running -= n - started; /* the threads that could not be made */
    pthread_mutex_unlock(&p.mu);
    if (started == 0) {
        p.running = 1;
        worker(&p); /* no thread to be had: load them here, one by one */
    } else {
        wait_workers(&p, snap);
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_cond_destroy(&p.done);
    pthread_mutex_destroy(&p.mu);
    free(sizes);
    free(p.order);
    free(p.live);
    free(snap);
    free(th);
    return 0;
}
