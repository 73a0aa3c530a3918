#include "config.h"

#include "core/analyses/ranks.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/analyses/steps.h"
#include "core/base/hmap.h"
#include "core/base/vec.h"

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

static int add_file(ranks_job *j, size_t *cap, const char *path, size_t len, bool listed)
{
    if (vec_grow_heap((void **)&j->files, cap, j->nfiles, sizeof *j->files) < 0)
        return -1;
    ranks_file *f = &j->files[j->nfiles];
    memset(f, 0, sizeof *f);
    f->path = strndup(path, len);
    if (!f->path)
        return -1;
    f->listed = listed;
    f->trace_rank = -1;
    f->rank = -1;
    j->nfiles++;
    return 0;
}

/* Adds a note on path: "skipped..." as reason. Returns 0, or -1 when out of
   memory. */
static int add_note(ranks_job *j, const char *path, enum t2p_errkind kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int add_note(ranks_job *j, const char *path, enum t2p_errkind kind, const char *fmt, ...)
{
    /* a power of two: the count itself says when to grow */
    if ((j->nnotes & (j->nnotes - 1)) == 0) {
        t2p_error *nn = realloc(j->notes, (j->nnotes ? j->nnotes * 2 : 1) * sizeof *nn);
        if (!nn)
            return -1;
        j->notes = nn;
    }
    char reason[sizeof j->notes->reason];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    error_set(&j->notes[j->nnotes++], kind, path, -1, "%s", reason);
    return 0;
}

/* What a file that is not a regular one is, for its note. */
static const char *file_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return "not a regular file";
}

struct subdir {
    char *name;
    size_t traces;
};

static int cmp_subdir(const void *pa, const void *pb)
{
    const struct subdir *a = pa, *b = pb;
    return strverscmp(a->name, b->name);
}

/* The regular files with trace names in dir (not recursive). */
static size_t count_traces(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || !ranks_is_trace_name(de->d_name))
            continue;
        char p[4096];
        struct stat st;
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, de->d_name) < sizeof p &&
            stat(p, &st) == 0 && S_ISREG(st.st_mode))
            n++;
    }
    closedir(d);
    return n;
}

/* Into buf: where dir's traces are when it holds none itself, its
   subdirectories holding trace files ("; traces in subdirectories: D/run1
   (8 traces), ..."; what does not fit is counted, "and 3 more"), else "". */
static void where_traces(const char *dir, char *buf, size_t size)
{
    struct subdir *subs = NULL;
    size_t n = 0, cap = 0;
    size_t dlen = strlen(dir);
    bool slash = dlen && dir[dlen - 1] == '/';
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char p[4096];
        struct stat st;
        int w = snprintf(p, sizeof p, "%s%s%s", dir, slash ? "" : "/", de->d_name);
        if (w < 0 || (size_t)w >= sizeof p || stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        size_t k = count_traces(p);
        if (!k)
            continue;
        if (vec_grow_heap((void **)&subs, &cap, n, sizeof *subs) < 0)
            break; /* out of memory: name the ones found so far */
        if (!(subs[n].name = strdup(p)))
            break;
        subs[n++].traces = k;
    }
    if (d)
        closedir(d);
    if (size)
        buf[0] = '\0';
    if (n) {
        qsort(subs, n, sizeof *subs, cmp_subdir);
        size_t o = (size_t)snprintf(buf, size, "; traces in subdirectories:");
        size_t i = 0;
        for (; i < n && o < size; i++) {
            char one[4200];
            int w = snprintf(one, sizeof one, "%s %s (%zu trace%s)", i ? "," : "", subs[i].name,
                             subs[i].traces, subs[i].traces == 1 ? "" : "s");
            /* room for ", and N more" after it */
            if (i && o + (size_t)w + 24 > size)
                break;
            o += (size_t)snprintf(buf + o, size - o, "%s", one);
        }
        if (i < n && o < size)
            snprintf(buf + o, size - o, ", and %zu more", n - i);
    }
    for (size_t i = 0; i < n; i++)
        free(subs[i].name);
    free(subs);
}

/* err for dir holding no trace: why, then where traces are instead (else,
   when looked, the names looked for: tests/bad/run.sh pins that line). */
static void no_trace_error(const char *dir, const char *why, bool looked, t2p_error *err)
{
    char where[sizeof err->reason];
    where_traces(dir, where, sizeof where);
    error_set(err, T2P_ERR_EMPTY, dir, -1, "%s%s", why,
              where[0] ? where : looked ? " (.json, .json.gz, .pt.trace.json[.gz])" : "");
}

static int add_dir(ranks_job *j, size_t *cap, const char *dir, t2p_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        error_set(err, T2P_ERR_IO, dir, -1, "cannot read the directory: %s", strerror(errno));
        return -1;
    }
    size_t before = j->nfiles, notes = j->nnotes, dlen = strlen(dir);
    char odd[300] = ""; /* the first file that is not regular, for the error */
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
        int a = 0;
        bool known = stat(p, &st) == 0; /* else loading it says why */
        if (known && S_ISDIR(st.st_mode))
            ; /* not recursive */
        else if (known && !S_ISREG(st.st_mode)) {
            /* a FIFO's open() waits for a writer that never comes */
            a = add_note(j, p, T2P_ERR_IO, "skipped: %s, not a regular file",
                         file_kind(st.st_mode));
            if (!odd[0])
                snprintf(odd, sizeof odd, "%.200s: %s", de->d_name, file_kind(st.st_mode));
        } else
            a = add_file(j, cap, p, strlen(p), true);
        free(p);
        if (a < 0)
            goto nomem;
    }
    if (j->nfiles == before) {
        if (j->nnotes > notes) {
            /* the job and its notes are dropped: the reason says it all */
            char why[400];
            snprintf(why, sizeof why, "no trace files in the directory: %zu with a trace name, "
                     "none a regular file (%s)", j->nnotes - notes, odd);
            no_trace_error(dir, why, false, err);
        } else
            no_trace_error(dir, "no trace files in the directory", true, err);
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
        } else if (add_file(j, &cap, args[i], strlen(args[i]), false) < 0) {
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
        ranks_file_clear(&j->files[i]);
        free(j->files[i].path);
    }
    collectives_free(j->colls);
    free(j->files);
    free(j->notes);
    strtab_free(j->strs);
    free(j->ops);
    free(j->self);
    free(j);
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
            ranks_set_rank(&j->files[i]); /* a failed file still has a name to list it by */
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
                if (vec_grow_heap((void **)&j->ops, &cap, j->nops, sizeof *j->ops) < 0)
                    goto out;
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

int64_t ranks_metric(const ranks_job *j, const ranks_stat *s)
{
    bool by_steps = j ? j->by_steps : s->steps > 0;
    return by_steps ? s->step_mean_ns : s->busy_ns;
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
        v[i] = ranks_metric(j, &j->files[i].st);
    j->median_ns = ranks_median(v, j->nloaded);
    j->metric_max = 0;
    for (size_t i = 0; i < j->nloaded; i++)
        if (ranks_metric(j, &j->files[i].st) > j->metric_max)
            j->metric_max = ranks_metric(j, &j->files[i].st);
    free(v);
    j->straggler = 0;
    for (size_t i = 0; i < j->nloaded; i++) {
        ranks_file *f = &j->files[i];
        int64_t x = ranks_metric(j, &f->st);
        f->st.skew = j->median_ns ? (double)(x - j->median_ns) / (double)j->median_ns : 0.0;
        if (x > ranks_metric(j, &j->files[j->straggler].st))
            j->straggler = (int64_t)i;
    }
    j->flagged = j->files[j->straggler].st.skew > RANKS_SKEW_FLAG;
    return 0;
}

/* The loaded ranks' collectives matched across them. */
static int match_collectives(ranks_job *j)
{
    coll_rank_in *in = malloc((j->nloaded ? j->nloaded : 1) * sizeof *in);
    if (!in)
        return -1;
    j->nanalysis = 0;
    for (size_t i = 0; i < j->nloaded; i++) {
        const ranks_file *f = &j->files[i];
        in[i] = (coll_rank_in){ f->rank, f->names, f->colls, f->ncolls };
        j->nanalysis += f->analysis;
    }
    j->colls = collectives_match(in, j->nloaded);
    free(in);
    return j->colls ? 0 : -1;
}

/* A note on each loaded file whose world size differs from the one most
   ranks give (a rank of another job), or whose analysis covers other
   steps than the first rank's: kept in the report, said aloud. */
static int note_other_jobs(ranks_job *j)
{
    int64_t world = 0;
    size_t best = 0;
    for (size_t i = 0; i < j->nloaded; i++) {
        int64_t w = j->files[i].world_size;
        size_t n = 0;
        if (!w || w == world)
            continue;
        for (size_t k = 0; k < j->nloaded; k++)
            n += j->files[k].world_size == w;
        if (n > best) {
            best = n;
            world = w;
        }
        if (best * 2 > j->nloaded)
            break;
    }
    for (size_t i = 0; i < j->nloaded; i++) {
        const ranks_file *f = &j->files[i];
        if (world && f->world_size && f->world_size != world &&
            add_note(j, f->path, T2P_ERR_ARG, "rank %lld says a world size of %lld where "
                     "%zu ranks say %lld: a rank of another job? (kept in the report)",
                     (long long)f->rank, (long long)f->world_size, best, (long long)world) < 0)
            return -1;
        if (f->analysis && j->files[0].analysis && strcmp(f->step, j->files[0].step) != 0 &&
            add_note(j, f->path, T2P_ERR_ARG, "its figures cover %s%s where rank %lld's cover "
                     "%s%s (kept in the report)", f->step[0] ? "steps " : "the whole trace",
                     f->step, (long long)j->files[0].rank,
                     j->files[0].step[0] ? "steps " : "the whole trace", j->files[0].step) < 0)
            return -1;
    }
    return 0;
}

/* f's load undone, to load it again. */
static void file_reset(ranks_file *f)
{
    size_t position = f->position;
    bool listed = f->listed;
    ranks_file_clear(f);
    f->position = position;
    f->listed = listed;
    f->rank = -1;
    f->trace_rank = -1;
}

/* Loads files[at[0..n)] of j again (a sub-job of them). Returns 0, or -1
   when out of memory. */
static int load_again(ranks_job *j, const size_t *at, size_t n, const ranks_load_opts *o)
{
    ranks_file *sub = malloc(n * sizeof *sub);
    if (!sub)
        return -1;
    for (size_t i = 0; i < n; i++)
        sub[i] = j->files[at[i]];
    ranks_job sj = { .files = sub, .nfiles = n, .straggler = -1 };
    int rc = ranks_load_files(&sj, o);
    for (size_t i = 0; i < n; i++)
        j->files[at[i]] = sub[i];
    free(sub);
    return rc;
}

/* Moves the files found to hold no trace to the notes, and numbers the
   others in name order again: a non-trace must not take a position, or
   shift the ranks of the traces after it. A loaded trace ranked by its
   position takes the new one; when a ranks_model_fn saw the old one
   (convert labels each sample with it), the trace is loaded again, which
   only happens with a non-trace before traces that say no rank. Returns
   0, or -1 with err set: out of memory, or no trace left. */
static int drop_skipped(ranks_job *j, const ranks_load_opts *o, t2p_error *err)
{
    size_t nskip = 0, first = 0;
    for (size_t i = 0; i < j->nfiles; i++) {
        const ranks_file *f = &j->files[i];
        if (!f->skipped)
            continue;
        if (!nskip++)
            first = i;
        if (add_note(j, f->path, f->err.kind, "skipped, not a trace: %s", f->err.reason) < 0)
            goto nomem;
    }
    if (!nskip)
        return 0;
    if (nskip == j->nfiles) {
        /* every file came from a directory: only those are skipped */
        const char *path = j->files[first].path, *slash = strrchr(path, '/');
        char dir[4096];
        if (slash)
            snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        else
            snprintf(dir, sizeof dir, ".");
        no_trace_error(dir, "no trace files in the directory: none of its .json files holds a "
                       "trace (see the notes)", false, err);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < j->nfiles; i++) {
        ranks_file *f = &j->files[i];
        if (f->skipped) {
            free(f->path);
            continue;
        }
        j->files[k++] = *f;
    }
    j->nfiles = k;
    size_t *redo = malloc(k * sizeof *redo), nredo = 0;
    if (!redo)
        goto nomem;
    for (size_t i = 0; i < k; i++) {
        ranks_file *f = &j->files[i];
        if (f->position == i)
            continue;
        f->position = i;
        if (!f->loaded || f->from != RANKS_FROM_POSITION)
            continue; /* a failed file is ranked by assign_ranks */
        if (!o->on_model) {
            f->rank = (int64_t)i;
            continue;
        }
        file_reset(f);
        redo[nredo++] = i;
    }
    int rc = nredo ? load_again(j, redo, nredo, o) : 0;
    free(redo);
    if (rc < 0)
        goto nomem;
    return 0;
nomem:
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory loading the ranks");
    return -1;
}

int ranks_load(ranks_job *j, const ranks_load_opts *opts, t2p_error *err)
{
    ranks_load_opts none = { 0 };
    if (!opts)
        opts = &none;
    if (ranks_load_files(j, opts) < 0)
        goto nomem;
    if (drop_skipped(j, opts, err) < 0)
        return -1;
    if (assign_ranks(j, err) < 0)
        return -1;
    if (merge_ops(j) < 0 || find_straggler(j) < 0 || match_collectives(j) < 0 ||
        note_other_jobs(j) < 0)
        goto nomem;
    return 0;
nomem:
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory loading the ranks");
    return -1;
}
