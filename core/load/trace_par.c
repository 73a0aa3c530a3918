/* trace_load_par: one trace tokenised by yajl on several threads.

   This thread inflates (trace_read_sync) straight into the buffer of the
   chunk it fills: no reader thread and no copy of the text between them
   (the copy was a third of this thread's time). It runs the text before the
   events array through its own yajl parser (as the one-thread load does),
   then cuts the events array into chunks of whole events and hands them to
   workers. A worker runs yajl and the callbacks on its chunk
   wrapped in "[...]", with its own string table, and records each element
   (trace_rec) instead of applying it. This thread applies the chunks'
   records in file order (trace_parse_apply: B/E matching, tracks, memory
   records and string ids come out exactly as on one thread), then runs the
   text after the array through its parser.

   Cuts are guessed: at a '}' , '{' (white space allowed) near the end of the
   text gathered. The guess is checked by the worker's parse: a chunk that
   starts between two events and parses as a sequence of values ended where
   the wrapper closes is whole, so if every chunk before it was right, so is
   its end. A chunk in which the events array closes reports where; what
   follows goes to this thread's parser. Any error (a wrong guess, bad
   JSON, a truncated file, no memory) makes the load fail, and trace_load
   loads the file again on one thread, which names the error as always. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/trace_par.h"
#include "core/load/trace_feed.h"

#define PAR_CHUNK (1u << 20)
#define PAR_PREFIX_MAX (16u << 20) /* text before the events array, at most */
/* Text gathered without a cut, at most: an event this long holds a string
   near the loader's cap on one string's length (64 MiB), which one thread
   judges in bounded memory */
#define PAR_PENDING_MAX TRACE_MAX_STRING
/* Bytes inflated past a chunk's size before the cut is looked for: the
   text after the cut, moved to the next chunk, stays under it */
#define PAR_STEP (64u << 10)

enum slot_state { SLOT_FREE, SLOT_READY, SLOT_BUSY, SLOT_DONE };

struct slot {
    unsigned char *buf; /* the raw text: events, then the separator before the next chunk */
    size_t len, cap;
    size_t json_len;    /* what the worker parses: whole events */
    size_t scanned;     /* buf[scanned..len) not yet searched for a cut */
    uint64_t base;      /* offset of buf in the JSON */
    enum slot_state st;
    bool ok;            /* the worker parsed it */
    size_t end_at;      /* the events array's ']' is buf[end_at - 1]; SIZE_MAX: not here */
    strtab *strs;       /* the worker's table; trace_rec ids index it */
    trace_recs recs;
};

typedef struct par {
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    struct slot *slots;
    unsigned nslots;
    uint64_t submitted, taken, applied; /* slot i is slots[i % nslots] */
    bool stop;
    bool suffix;        /* the events array ended: raw text goes to the main parser */
    pthread_t *th;
    unsigned nth;
    const char *path;
    int ev_depth, top;
    enum trace_key top_key;
} par;

static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* ---- the workers ---- */

static void tokenise(par *p, struct slot *s)
{
    s->ok = false;
    s->end_at = SIZE_MAX;
    s->recs.n = 0;
    if (s->strs)
        strtab_clear(s->strs); /* its pages stay: no new faults per chunk */
    else if (!(s->strs = strtab_new()))
        return;
    trace lt;
    memset(&lt, 0, sizeof lt);
    lt.strs = s->strs;
    t2p_error err;
    trace_parser L;
    trace_yajl Y = { .h = NULL };
    if (trace_parse_init(&L, &lt, p->path, &err) < 0)
        goto out;
    /* the worker's parser stands where the main one stood at the '[' */
    L.recs = &s->recs;
    L.depth = p->ev_depth - 1;
    L.top = p->top;
    L.top_key = p->top_key;
    L.any_token = true;
    if (trace_yajl_init(&Y, &trace_parse_callbacks, &L) < 0)
        goto out;
    bool oom = false;
    if (trace_yajl_parse(&Y, (const unsigned char *)"[", 1, &oom) != yajl_status_ok)
        goto out;
    yajl_status st = trace_yajl_parse(&Y, s->buf, s->json_len, &oom);
    if (st == yajl_status_client_canceled && L.ended && !L.failed) {
        s->end_at = yajl_get_bytes_consumed(Y.h);
        s->ok = true;
    } else if (st == yajl_status_ok) {
        st = trace_yajl_parse(&Y, (const unsigned char *)"]", 1, &oom);
        s->ok = st == yajl_status_client_canceled && L.ended && !L.failed;
    }
out:
    trace_yajl_done(&Y);
    trace_parse_done(&L);
}

static void *worker_main(void *arg)
{
    par *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->taken == p->submitted && !p->stop)
            pthread_cond_wait(&p->cv_work, &p->mu);
        if (p->stop)
            break;
        struct slot *s = &p->slots[p->taken++ % p->nslots];
        s->st = SLOT_BUSY;
        bool skip = p->suffix; /* past the array: its text goes to the main parser */
        pthread_mutex_unlock(&p->mu);
        if (!skip)
            tokenise(p, s);
        pthread_mutex_lock(&p->mu);
        s->st = SLOT_DONE;
        pthread_cond_broadcast(&p->cv_done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int par_start(par *p, unsigned jobs, const char *path)
{
    p->path = path;
    p->nth = 0;
    p->nslots = jobs + 3; /* one filling, one applying, a spare: each slot faults in its buffers once */
    p->slots = calloc(p->nslots, sizeof *p->slots);
    p->th = calloc(jobs, sizeof *p->th);
    if (!p->slots || !p->th)
        return -1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv_work, NULL);
    pthread_cond_init(&p->cv_done, NULL);
    /* no signal lands in a worker (see trace_read_start) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (unsigned i = 0; i < jobs; i++) {
        if (pthread_create(&p->th[i], NULL, worker_main, p) != 0)
            break;
        p->nth++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return p->nth ? 0 : -1;
}

static void par_stop(par *p)
{
    if (p->th && p->slots) {
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_broadcast(&p->cv_work);
        pthread_mutex_unlock(&p->mu);
        for (unsigned i = 0; i < p->nth; i++)
            pthread_join(p->th[i], NULL);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv_work);
        pthread_cond_destroy(&p->cv_done);
    }
    if (p->slots)
        for (unsigned i = 0; i < p->nslots; i++) {
            free(p->slots[i].buf);
            free(p->slots[i].recs.v);
            strtab_free(p->slots[i].strs);
        }
    free(p->slots);
    free(p->th);
}

/* ---- this thread ---- */

typedef struct load {
    par p;
    trace *t;
    trace_parser L;
    trace_yajl Y;
    t2p_error *err;
    size_t chunk;
    uint32_t *map;
    size_t mapcap;
    struct slot *cur;  /* the slot being filled, NULL before the events array */
    unsigned char *pre; /* the text before the events array */
    size_t prelen, precap, prescan;
    int pdepth;        /* the prefix scan: nesting, string state, key seen */
    bool pstr, pesc, pkey, pcolon;
    size_t pstr_at;
} load;

/* Room for n more bytes after len in *b. */
static int text_reserve(unsigned char **b, size_t len, size_t *cap, size_t n)
{
    if (*cap - len < n) {
        size_t nc = *cap ? *cap : 1 << 16;
        while (nc - len < n)
            nc *= 2;
        unsigned char *nb = realloc(*b, nc);
        if (!nb)
            return -1;
        *b = nb;
        *cap = nc;
    }
    return 0;
}

/* The main parser takes raw text (the prefix, the text after the array). */
static int main_feed(load *ld, const unsigned char *b, size_t n, uint64_t base)
{
    if (!n)
        return 0;
    if (trace_load_feed(ld->t, &ld->Y, &ld->L, b, n, base, ld->err) < 0)
        return -1;
    ld->t->bytes_in = base + n;
    return 0;
}

/* Applies slot s (the oldest) once its worker is done. */
static int apply(load *ld, struct slot *s)
{
    par *p = &ld->p;
    pthread_mutex_lock(&p->mu);
    while (s->st != SLOT_DONE)
        pthread_cond_wait(&p->cv_done, &p->mu);
    bool suffix = p->suffix;
    pthread_mutex_unlock(&p->mu);
    int rc = 0;
    if (suffix) {
        rc = main_feed(ld, s->buf, s->len, s->base);
    } else if (!s->ok) {
        error_set(ld->err, T2P_ERR_JSON, ld->t->path, (int64_t)s->base, "chunk not parsed");
        rc = -1;
    } else {
        /* worker ids -> ours, in the worker's order: ids come out as one
           thread assigns them (first appearance in the file) */
        uint32_t n = strtab_count(s->strs);
        if (n > ld->mapcap) {
            free(ld->map);
            ld->mapcap = n * 2;
            ld->map = malloc(ld->mapcap * sizeof *ld->map);
            if (!ld->map) {
                ld->mapcap = 0;
                error_set(ld->err, T2P_ERR_NOMEM, ld->t->path, -1, "out of memory");
                return -1;
            }
        }
        for (uint32_t i = 0; i < n && rc == 0; i++) {
            ld->map[i] = strtab_intern(ld->t->strs, strtab_str(s->strs, i), strtab_len(s->strs, i));
            if (ld->map[i] == STRTAB_NONE) {
                error_set(ld->err, T2P_ERR_NOMEM, ld->t->path, -1, "out of memory");
                rc = -1;
            }
        }
        for (size_t at = 0; at < s->recs.n && rc == 0;)
            rc = trace_parse_apply(&ld->L, &s->recs, &at, ld->map);
        ld->t->bytes_in = s->base + s->len;
        if (rc == 0 && s->end_at != SIZE_MAX) {
            pthread_mutex_lock(&p->mu);
            p->suffix = true;
            pthread_mutex_unlock(&p->mu);
            rc = main_feed(ld, s->buf + s->end_at - 1, s->len - (s->end_at - 1),
                           s->base + s->end_at - 1);
        }
    }
    pthread_mutex_lock(&p->mu);
    s->st = SLOT_FREE;
    p->applied++;
    pthread_mutex_unlock(&p->mu);
    return rc;
}

/* Applies every chunk handed out; more: only those already parsed. */
static int apply_done(load *ld, bool all)
{
    par *p = &ld->p;
    while (p->applied < p->submitted) {
        struct slot *s = &p->slots[p->applied % p->nslots];
        if (!all) {
            pthread_mutex_lock(&p->mu);
            bool done = s->st == SLOT_DONE;
            pthread_mutex_unlock(&p->mu);
            if (!done)
                break;
        }
        if (apply(ld, s) < 0)
            return -1;
    }
    return 0;
}

/* A free slot to fill, starting at base; waits for the oldest when all are out. */
static struct slot *slot_next(load *ld, uint64_t base)
{
    par *p = &ld->p;
    if (p->submitted - p->applied == p->nslots &&
        apply(ld, &p->slots[p->applied % p->nslots]) < 0)
        return NULL;
    struct slot *s = &p->slots[p->submitted % p->nslots];
    s->len = s->json_len = s->scanned = 0;
    s->base = base;
    s->st = SLOT_FREE;
    return s;
}

static void submit(load *ld, struct slot *s)
{
    par *p = &ld->p;
    pthread_mutex_lock(&p->mu);
    s->st = SLOT_READY;
    p->submitted++;
    pthread_cond_signal(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
}

/* The first "} , {" in s's text whose '{' lies at or after lo and not yet
   searched: sets *end past the '}' and *next at the '{'. */
static bool find_cut(struct slot *s, size_t lo, size_t *end, size_t *next)
{
    size_t i = lo > s->scanned ? lo : s->scanned;
    while (i < s->len) {
        const unsigned char *q = memchr(s->buf + i, '{', s->len - i);
        if (!q)
            break;
        size_t k = (size_t)(q - s->buf);
        i = k + 1;
        while (k > 0 && is_ws(s->buf[k - 1]))
            k--;
        if (k == 0 || s->buf[k - 1] != ',')
            continue;
        k--;
        while (k > 0 && is_ws(s->buf[k - 1]))
            k--;
        if (k == 0 || s->buf[k - 1] != '}')
            continue;
        *end = k;
        *next = (size_t)(q - s->buf);
        s->scanned = i;
        return true;
    }
    s->scanned = s->len;
    return false;
}

/* After the events array: the chunks handed out and cur's text go to the
   main parser, in order, then b. */
static int suffix_add(load *ld, const unsigned char *b, size_t n)
{
    struct slot *s = ld->cur;
    if (apply_done(ld, true) < 0 || main_feed(ld, s->buf, s->len, s->base) < 0)
        return -1;
    s->base += s->len;
    s->len = 0;
    if (main_feed(ld, b, n, s->base) < 0)
        return -1;
    s->base += n;
    return 0;
}

/* Events text: n more bytes inflated into cur's buffer after its text,
   cut into chunks for the workers; the text after a cut (less than a read)
   moves to the next slot's buffer. */
static int events_grew(load *ld, size_t n)
{
    struct slot *s = ld->cur;
    s->len += n;
    if (ld->p.suffix)
        return suffix_add(ld, NULL, 0);
    size_t end, next;
    /* a chunk per cut; several only when chunks are smaller than reads (tests) */
    while (s->len >= ld->chunk && find_cut(s, ld->chunk, &end, &next)) {
        s->json_len = end;
        size_t tail = s->len - next;
        s->len = next;
        submit(ld, s);
        struct slot *ns = slot_next(ld, s->base + next);
        if (!ns)
            return -1;
        ld->cur = ns;
        if (text_reserve(&ns->buf, 0, &ns->cap, tail) < 0)
            goto nomem;
        memcpy(ns->buf, s->buf + next, tail);
        ns->len = tail;
        s = ns;
    }
    if (s->len > PAR_PENDING_MAX) {
        error_set(ld->err, T2P_ERR_JSON, ld->t->path, (int64_t)s->base, "an event too long");
        return -1;
    }
    return apply_done(ld, false);
nomem:
    error_set(ld->err, T2P_ERR_NOMEM, ld->t->path, -1, "out of memory");
    return -1;
}

/* The text before the events array: scanned for the array's '[' (a bare
   array's first '[', or the value of the top object's "traceEvents"),
   keys compared as written; n more bytes were inflated into ld->pre after
   its text. Returns 1 when found (the text after it handed on), 0 when not
   yet, -1 on error or when there is too much. */
static int prefix_grew(load *ld, size_t n)
{
    ld->prelen += n;
    if (ld->prelen > PAR_PREFIX_MAX) {
        error_set(ld->err, T2P_ERR_NOMEM, ld->t->path, -1, "too much text before the events");
        return -1;
    }
    const unsigned char *x = ld->pre;
    size_t i = ld->prescan;
    for (; i < ld->prelen; i++) {
        unsigned char c = x[i];
        if (ld->pstr) {
            if (ld->pesc)
                ld->pesc = false;
            else if (c == '\\')
                ld->pesc = true;
            else if (c == '"') {
                ld->pstr = false;
                ld->pkey = ld->pdepth == 1 && i - ld->pstr_at == 11 &&
                           memcmp(x + ld->pstr_at, "traceEvents", 11) == 0;
                ld->pcolon = false;
            }
            continue;
        }
        if (c == '"') {
            ld->pstr = true;
            ld->pstr_at = i + 1;
        } else if (c == ':') {
            ld->pcolon = ld->pdepth == 1;
        } else if (c == '[' && (ld->pdepth == 0 || (ld->pdepth == 1 && ld->pkey && ld->pcolon))) {
            break;
        } else if (c == '{' || c == '[') {
            ld->pdepth++;
            ld->pkey = false;
        } else if (c == '}' || c == ']') {
            ld->pdepth--;
            ld->pkey = false;
        } else if (c == ',') {
            ld->pkey = false;
        }
    }
    ld->prescan = i;
    if (i == ld->prelen)
        return 0;
    /* the main parser takes the text through the '[' and must agree */
    if (main_feed(ld, x, i + 1, 0) < 0)
        return -1;
    if (!ld->L.ev_depth || ld->L.depth != ld->L.ev_depth) {
        error_set(ld->err, T2P_ERR_JSON, ld->t->path, (int64_t)i, "events array not found");
        return -1;
    }
    par *p = &ld->p;
    p->ev_depth = ld->L.ev_depth;
    p->top = ld->L.top;
    p->top_key = ld->L.top_key;
    ld->cur = slot_next(ld, i + 1);
    size_t rest = ld->prelen - i - 1;
    if (!ld->cur)
        return -1;
    if (text_reserve(&ld->cur->buf, 0, &ld->cur->cap, rest) < 0) {
        error_set(ld->err, T2P_ERR_NOMEM, ld->t->path, -1, "out of memory");
        return -1;
    }
    memcpy(ld->cur->buf, x + i + 1, rest);
    if (events_grew(ld, rest) < 0)
        return -1;
    return 1;
}

int trace_load_par(trace *t, const char *path, const trace_load_opts *opts, t2p_error *err)
{
    trace_reader R;
    load *ld = calloc(1, sizeof *ld);
    error_clear(err);
    memset(&R, 0, sizeof R);
    if (!ld) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
    ld->t = t;
    ld->err = err;
    ld->chunk = opts->chunk_bytes ? opts->chunk_bytes : PAR_CHUNK;
    t->path = strdup(path);
    t->strs = strtab_new();
    bool inited = false;
    if (!t->path || !t->strs || trace_parse_init(&ld->L, t, path, err) < 0)
        goto fail;
    inited = true;
    int fd = trace_load_open(t, path, false, err);
    if (fd < 0 || trace_read_open(&R, fd, path, err) < 0)
        goto fail;
    if (trace_yajl_init(&ld->Y, &trace_parse_callbacks, &ld->L) < 0)
        goto fail;
    unsigned jobs = opts->jobs > 64 ? 64 : opts->jobs;
    if (par_start(&ld->p, jobs, t->path) < 0)
        goto fail;

    /* this thread inflates straight into the buffer it cuts: a slot's
       buffer up to a chunk and a step past it (the cut's tail, under a
       step, is all that is copied), or the prefix's */
    size_t step = TRACE_READ_BUFSZ < PAR_STEP ? TRACE_READ_BUFSZ : PAR_STEP;
    uint64_t off = 0, total = 0;
    for (;;) {
        unsigned char **b = ld->cur ? &ld->cur->buf : &ld->pre;
        size_t *cap = ld->cur ? &ld->cur->cap : &ld->precap;
        size_t have = ld->cur ? ld->cur->len : ld->prelen;
        size_t want = (ld->cur && have < ld->chunk ? ld->chunk - have : 0) + step;
        if (text_reserve(b, have, cap, want) < 0) {
            error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
            goto fail;
        }
        size_t len = trace_read_sync(&R, *b + have, want, &off);
        if (!len)
            break;
        total += len;
        if ((ld->cur ? events_grew(ld, len) : prefix_grew(ld, len)) < 0)
            goto fail;
        if (opts->progress) {
            trace_progress pr = { off, t->file_size, t->events_read };
            if (opts->progress(&pr, opts->progress_ctx)) {
                error_set(err, T2P_ERR_CANCELLED, path, (int64_t)total, "cancelled");
                goto fail;
            }
        }
    }
    if (R.zerr != Z_OK) {
        /* a damaged or cut stream: the one-thread load says how */
        error_set(err, T2P_ERR_TRUNCATED, path, (int64_t)total, "the stream ended badly");
        goto fail;
    }
    if (!ld->cur) {
        error_set(err, T2P_ERR_JSON, path, -1, "no events array");
        goto fail;
    }
    if (ld->p.suffix) {
        if (suffix_add(ld, NULL, 0) < 0)
            goto fail;
    } else if (ld->cur->len) {
        ld->cur->json_len = ld->cur->len;
        submit(ld, ld->cur);
    }
    if (apply_done(ld, true) < 0)
        goto fail;
    if (!ld->p.suffix) {
        /* the array never closed: the one-thread load says how it ends */
        error_set(err, T2P_ERR_TRUNCATED, path, (int64_t)total, "events array not closed");
        goto fail;
    }
    if (trace_load_end(t, &ld->Y, &ld->L, &R, total, false, err) < 0)
        goto fail;
    t->bytes_in = total;
    par_stop(&ld->p);
    trace_yajl_done(&ld->Y);
    trace_read_stop(&R);
    trace_parse_done(&ld->L);
    free(ld->map);
    free(ld->pre);
    free(ld);
    return 0;

fail:
    if (err->kind == T2P_OK)
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
    par_stop(&ld->p);
    trace_yajl_done(&ld->Y);
    trace_read_stop(&R);
    if (inited)
        trace_parse_done(&ld->L);
    free(ld->map);
    free(ld->pre);
    free(ld);
    return -1; /* t is the caller's to free */
}
