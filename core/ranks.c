#include "config.h"

#include "core/ranks.h"

#include <ctype.h>
#include <dirent.h>
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

#include "core/steps.h"
#include "core/hmap.h"
#include "core/vec.h"

/* ---- names ---- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && memcmp(s + n - k, suffix, k) == 0;
}

bool ranks_is_trace_name(const char *name)
{
    /* .pt.trace.json[.gz] ends in .json[.gz] too */
    return ends_with(name, ".json") || ends_with(name, ".json.gz");
}

bool ranks_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

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

int64_t ranks_trace_rank(const trace *tr)
{
    return tr->has_rank ? tr->rank : ranks_name_rank(tr->path);
}

/* ---- the list of files ---- */

static int cmp_names(const void *pa, const void *pb)
{
    const ranks_file *a = pa, *b = pb;
    int r = strverscmp(base_name(a->path), base_name(b->path));
    return r ? r : strcmp(a->path, b->path);
}

static int add_file(ranks_job *j, size_t *cap, const char *path, size_t len)
{
    if (j->nfiles == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        ranks_file *nf = realloc(j->files, nc * sizeof *nf);
        if (!nf)
            return -1;
        j->files = nf;
        *cap = nc;
    }
    ranks_file *f = &j->files[j->nfiles];
    memset(f, 0, sizeof *f);
    f->path = strndup(path, len);
    if (!f->path)
        return -1;
    f->trace_rank = -1;
    f->rank = -1;
    j->nfiles++;
    return 0;
}

static int add_dir(ranks_job *j, size_t *cap, const char *dir, t2p_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        error_set(err, T2P_ERR_IO, dir, -1, "cannot read the directory: %s", strerror(errno));
        return -1;
    }
    size_t before = j->nfiles, dlen = strlen(dir);
    bool slash = dlen && dir[dlen - 1] == '/';
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d))) {
        /* hidden files are editors' and our own temp files */
        if (de->d_name[0] == '.' || !ranks_is_trace_name(de->d_name))
            continue;
        size_t n = dlen + 1 + strlen(de->d_name) + 1;
        char *p = malloc(n);
        if (!p)
            goto nomem;
        snprintf(p, n, "%s%s%s", dir, slash ? "" : "/", de->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            free(p); /* not recursive */
            continue;
        }
        int a = add_file(j, cap, p, strlen(p));
        free(p);
        if (a < 0)
            goto nomem;
    }
    if (j->nfiles == before) {
        error_set(err, T2P_ERR_EMPTY, dir, -1,
                  "no trace files in the directory (.json, .json.gz, .pt.trace.json[.gz])");
        rc = -1;
    }
    closedir(d);
    return rc;
nomem:
    closedir(d);
    error_set(err, T2P_ERR_NOMEM, dir, -1, "out of memory listing the directory");
    return -1;
}

ranks_job *ranks_open(const char *const *args, size_t nargs, t2p_error *err)
{
    ranks_job *j = calloc(1, sizeof *j);
    size_t cap = 0;
    if (!j)
        goto nomem;
    j->straggler = -1;
    for (size_t i = 0; i < nargs; i++) {
        if (ranks_is_dir(args[i])) {
            if (add_dir(j, &cap, args[i], err) < 0)
                goto fail;
        } else if (add_file(j, &cap, args[i], strlen(args[i])) < 0) {
            goto nomem;
        }
    }
    if (!j->nfiles) {
        error_set(err, T2P_ERR_ARG, NULL, -1, "no trace named");
        goto fail;
    }
    qsort(j->files, j->nfiles, sizeof *j->files, cmp_names);
    for (size_t i = 0; i < j->nfiles; i++)
        j->files[i].position = i;
    return j;
nomem:
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory listing the traces");
fail:
    ranks_free(j);
    return NULL;
}

void ranks_free(ranks_job *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->nfiles; i++) {
        ranks_file *f = &j->files[i];
        free(f->path);
        model_free(f->m);
        trace_free(f->tr);
        strtab_free(f->names);
        free(f->ops);
        free(f->out);
    }
    free(j->files);
    strtab_free(j->strs);
    free(j->ops);
    free(j->self);
    free(j);
}

unsigned ranks_default_jobs(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* ---- one file's figures ---- */

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

/* The rank of f, once its trace_rank is known (or known to be absent). */
static void set_rank(ranks_file *f)
{
    int64_t r = ranks_name_rank(f->path);
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

/* f's figures and ops from its whole model m, over opts->step's steps when
   set; then opts->on_model. Returns 0, or -1 with f->err set. */
static int file_figures(ranks_file *f, const model *m, const ranks_load_opts *o)
{
    steps *st = steps_build(m, &f->err);
    if (!st)
        return -1;
    size_t first = 0, last = st->nsteps ? st->nsteps - 1 : 0;
    model *sm = NULL;
    int rc = -1;
    if (o->step) {
        t2p_error e;
        if (steps_parse_range(st, o->step, &first, &last, &e) < 0) {
            error_set(&f->err, T2P_ERR_ARG, f->path, -1, "--step: %s", e.reason);
            goto out;
        }
        if (!(sm = steps_scope(st, first, last, &o->mo, &f->err)))
            goto out;
        f->scoped = true;
        f->step_first = first;
        f->step_last = last;
    }
    fill_figures(sm ? sm : m, st, first, last, &f->st);
    if (file_ops(f, sm ? sm : m) < 0) {
        error_set(&f->err, T2P_ERR_NOMEM, f->path, -1, "out of memory computing its figures");
        goto out;
    }
    if (o->on_model && o->on_model(f, m, st, o->ctx, &f->err) < 0)
        goto out;
    rc = 0;
out:
    model_free(sm);
    steps_free(st);
    return rc;
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
    trace *tr = trace_load(f->path, &lo, &f->err);
    if (!tr)
        return;
    atomic_store(&live->done, tr->file_size);
    atomic_store(&live->size, tr->file_size);
    atomic_store(&live->stage, RANKS_BUILDING);
    f->trace_rank = tr->has_rank ? tr->rank : -1;
    set_rank(f);
    model *m = model_build(tr, &o->mo, &f->err);
    if (!m) {
        trace_free(tr);
        return;
    }
    f->truncated = tr->truncated;
    snprintf(f->truncated_reason, sizeof f->truncated_reason, "%s", tr->truncated_reason);
    if (file_figures(f, m, o) < 0)
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
        atomic_store(&p->live[k].stage, p->j->files[k].loaded ? RANKS_DONE : RANKS_FAILED);
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

static int load_all(ranks_job *j, const ranks_load_opts *o)
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

/* ---- ranks ---- */

static int cmp_rank(const void *pa, const void *pb)
{
    const ranks_file *a = pa, *b = pb;
    if (a->loaded != b->loaded)
        return a->loaded ? -1 : 1;
    if (a->loaded && a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return cmp_names(pa, pb);
}

static const char *from_name(enum ranks_from from)
{
    switch (from) {
    case RANKS_FROM_TRACE: return "distributedInfo.rank";
    case RANKS_FROM_NAME: return "its file name";
    case RANKS_FROM_POSITION: return "its position in name order";
    }
    return "?";
}

static int assign_ranks(ranks_job *j, t2p_error *err)
{
    for (size_t i = 0; i < j->nfiles; i++)
        if (!j->files[i].loaded)
            set_rank(&j->files[i]); /* a failed file still has a name to list it by */
    qsort(j->files, j->nfiles, sizeof *j->files, cmp_rank);
    for (size_t i = 0; i < j->nfiles; i++)
        if (j->files[i].loaded)
            j->nloaded++;
    j->nfailed = j->nfiles - j->nloaded;
    for (size_t i = 1; i < j->nloaded; i++) {
        const ranks_file *a = &j->files[i - 1], *b = &j->files[i];
        if (a->rank == b->rank) {
            error_set(err, T2P_ERR_ARG, b->path, -1,
                      "rank %lld (from %s) is also the rank of %s (from %s): "
                      "one file per rank", (long long)b->rank, from_name(b->from), a->path,
                      from_name(a->from));
            return -1;
        }
    }
    return 0;
}

/* ---- figures across ranks ---- */

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

int64_t ranks_median(int64_t *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    if (n % 2)
        return v[n / 2];
    int64_t a = v[n / 2 - 1], b = v[n / 2];
    /* floor((a + b) / 2) without overflow */
    return (a >> 1) + (b >> 1) + (a & b & 1);
}

static int merge_ops(ranks_job *j)
{
    hmap map;
    uint32_t **fmap = calloc(j->nloaded ? j->nloaded : 1, sizeof *fmap);
    size_t cap = 0;
    int rc = -1;
    int64_t *v = NULL;

    j->strs = strtab_new();
    if (!fmap || !j->strs || hmap_init(&map, 1024) < 0) {
        free(fmap);
        return -1;
    }
    for (size_t i = 0; i < j->nloaded; i++) {
        const ranks_file *f = &j->files[i];
        fmap[i] = malloc((f->nops ? f->nops : 1) * sizeof **fmap);
        if (!fmap[i])
            goto out;
        for (size_t k = 0; k < f->nops; k++) {
            const ranks_fop *p = &f->ops[k];
            uint32_t name = strtab_intern(j->strs, strtab_str(f->names, p->name),
                                          strtab_len(f->names, p->name));
            uint32_t cat = strtab_intern(j->strs, strtab_str(f->names, p->cat),
                                         strtab_len(f->names, p->cat));
            if (name == STRTAB_NONE || cat == STRTAB_NONE)
                goto out;
            uint64_t key = (uint64_t)name << 32 | cat;
            uint32_t op = hmap_get(&map, key);
            if (op == UINT32_MAX) {
                if (j->nops == cap) {
                    size_t nc = cap ? cap * 2 : 256;
                    ranks_op *no = realloc(j->ops, nc * sizeof *no);
                    if (!no)
                        goto out;
                    j->ops = no;
                    cap = nc;
                }
                op = (uint32_t)j->nops++;
                j->ops[op] = (ranks_op){ .name = name, .cat = cat };
                if (hmap_put(&map, key, op) < 0)
                    goto out;
            }
            ranks_op *o = &j->ops[op];
            o->calls += p->calls;
            o->self_ns += p->self_ns;
            o->total_ns += p->total_ns;
            o->dev_self_ns += p->dev_self_ns;
            o->dev_total_ns += p->dev_total_ns;
            fmap[i][k] = op;
        }
    }
    if (j->nops && j->nfiles > SIZE_MAX / sizeof *j->self / j->nops)
        goto out;
    j->self = calloc((j->nops ? j->nops : 1) * j->nfiles, sizeof *j->self);
    v = malloc((j->nloaded ? j->nloaded : 1) * sizeof *v);
    if (!j->self || !v)
        goto out;
    for (size_t i = 0; i < j->nloaded; i++)
        for (size_t k = 0; k < j->files[i].nops; k++)
            j->self[(size_t)fmap[i][k] * j->nfiles + i] += j->files[i].ops[k].self_ns;
    for (size_t op = 0; op < j->nops; op++) {
        ranks_op *o = &j->ops[op];
        const int64_t *row = &j->self[op * j->nfiles];
        o->min_ns = INT64_MAX;
        o->max_ns = INT64_MIN;
        for (size_t i = 0; i < j->nloaded; i++) {
            v[i] = row[i];
            if (row[i] < o->min_ns)
                o->min_ns = row[i];
            if (row[i] > o->max_ns) {
                o->max_ns = row[i];
                o->max_file = (uint32_t)i;
            }
        }
        o->max_rank = j->files[o->max_file].rank;
        o->median_ns = ranks_median(v, j->nloaded);
    }
    rc = 0;
out:
    for (size_t i = 0; i < j->nloaded; i++)
        free(fmap[i]);
    free(fmap);
    free(v);
    hmap_done(&map);
    return rc;
}

static int64_t rank_metric(const ranks_job *j, const ranks_file *f)
{
    return j->by_steps ? f->st.step_mean_ns : f->st.busy_ns;
}

static int find_straggler(ranks_job *j)
{
    if (!j->nloaded)
        return 0;
    int64_t *v = malloc(j->nloaded * sizeof *v);
    if (!v)
        return -1;
    j->by_steps = true;
    for (size_t i = 0; i < j->nloaded; i++)
        if (!j->files[i].st.steps)
            j->by_steps = false;
    for (size_t i = 0; i < j->nloaded; i++)
        v[i] = rank_metric(j, &j->files[i]);
    j->median_ns = ranks_median(v, j->nloaded);
    free(v);
    j->straggler = 0;
    for (size_t i = 0; i < j->nloaded; i++) {
        ranks_file *f = &j->files[i];
        int64_t x = rank_metric(j, f);
        f->st.skew = j->median_ns ? (double)(x - j->median_ns) / (double)j->median_ns : 0.0;
        if (x > rank_metric(j, &j->files[j->straggler]))
            j->straggler = (int64_t)i;
    }
    j->flagged = j->files[j->straggler].st.skew > RANKS_SKEW_FLAG;
    return 0;
}

int ranks_load(ranks_job *j, const ranks_load_opts *opts, t2p_error *err)
{
    ranks_load_opts none = { 0 };
    if (!opts)
        opts = &none;
    if (load_all(j, opts) < 0)
        goto nomem;
    if (assign_ranks(j, err) < 0)
        return -1;
    if (merge_ops(j) < 0 || find_straggler(j) < 0)
        goto nomem;
    return 0;
nomem:
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory loading the ranks");
    return -1;
}

/* ---- sorting merged ops ---- */

struct sort_ctx {
    const ranks_job *j;
    enum model_sort s;
    bool spread;
};

static int64_t sort_figure(const struct sort_ctx *c, const ranks_op *o)
{
    if (c->spread)
        return o->max_ns - o->min_ns;
    switch (c->s) {
    case MODEL_SORT_TOTAL: return o->total_ns;
    case MODEL_SORT_CALLS: return (int64_t)o->calls;
    case MODEL_SORT_AVG: return o->calls ? o->total_ns / (int64_t)o->calls : 0;
    case MODEL_SORT_DEVICE_SELF: return o->dev_self_ns;
    case MODEL_SORT_DEVICE_TOTAL: return o->dev_total_ns;
    default: return o->self_ns;
    }
}

static int cmp_str(const strtab *t, uint32_t a, uint32_t b)
{
    size_t la = strtab_len(t, a), lb = strtab_len(t, b);
    int r = memcmp(strtab_str(t, a), strtab_str(t, b), la < lb ? la : lb);
    return r ? r : (la > lb) - (la < lb);
}

static int cmp_op(const void *pa, const void *pb, void *arg)
{
    const struct sort_ctx *c = arg;
    const ranks_op *a = &c->j->ops[*(const uint32_t *)pa], *b = &c->j->ops[*(const uint32_t *)pb];
    if (c->spread || c->s != MODEL_SORT_NAME) {
        int64_t x = sort_figure(c, a), y = sort_figure(c, b);
        if (x != y)
            return x > y ? -1 : 1;
    }
    int r = cmp_str(c->j->strs, a->name, b->name);
    return r ? r : cmp_str(c->j->strs, a->cat, b->cat);
}

void ranks_sort_ops(const ranks_job *j, enum model_sort s, bool spread, uint32_t *idx)
{
    struct sort_ctx c = { j, s, spread };
    for (size_t i = 0; i < j->nops; i++)
        idx[i] = (uint32_t)i;
    qsort_r(idx, j->nops, sizeof *idx, cmp_op, &c);
}

ranks_cat *ranks_cats(const ranks_job *j, size_t *n)
{
    *n = 0;
    ranks_cat *c = malloc((j->nops ? j->nops : 1) * sizeof *c);
    uint32_t *of = malloc((j->nops ? j->nops : 1) * sizeof *of);
    int64_t *per = NULL, *v = malloc((j->nloaded ? j->nloaded : 1) * sizeof *v);
    hmap map;
    if (!c || !of || !v || hmap_init(&map, 64) < 0) {
        free(c);
        free(of);
        free(v);
        return NULL;
    }
    for (size_t op = 0; op < j->nops; op++) {
        const ranks_op *o = &j->ops[op];
        uint32_t k = hmap_get(&map, o->cat);
        if (k == UINT32_MAX) {
            k = (uint32_t)(*n)++;
            c[k] = (ranks_cat){ .name = o->cat };
            if (hmap_put(&map, o->cat, k) < 0)
                goto fail;
        }
        of[op] = k;
        c[k].nops++;
        c[k].calls += o->calls;
        c[k].self_ns += o->self_ns;
        c[k].dev_self_ns += o->dev_self_ns;
    }
    /* one rank's self time per category: its operators' */
    per = calloc((*n ? *n : 1) * (j->nfiles ? j->nfiles : 1), sizeof *per);
    if (!per)
        goto fail;
    for (size_t op = 0; op < j->nops; op++)
        for (size_t i = 0; i < j->nloaded; i++)
            per[(size_t)of[op] * j->nfiles + i] += j->self[op * j->nfiles + i];
    for (size_t k = 0; k < *n; k++) {
        ranks_cat *x = &c[k];
        const int64_t *row = &per[k * j->nfiles];
        x->min_ns = j->nloaded ? INT64_MAX : 0;
        x->max_ns = j->nloaded ? INT64_MIN : 0;
        for (size_t i = 0; i < j->nloaded; i++) {
            v[i] = row[i];
            if (row[i] < x->min_ns)
                x->min_ns = row[i];
            if (row[i] > x->max_ns) {
                x->max_ns = row[i];
                x->max_file = (uint32_t)i;
            }
        }
        x->max_rank = j->nloaded ? j->files[x->max_file].rank : -1;
        x->median_ns = ranks_median(v, j->nloaded);
    }
    free(per);
    free(of);
    free(v);
    hmap_done(&map);
    return c;
fail:
    free(per);
    free(c);
    free(of);
    free(v);
    hmap_done(&map);
    *n = 0;
    return NULL;
}
