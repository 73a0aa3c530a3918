/* NCCL collectives of a rank and across ranks (see collectives.h). */
#include "config.h"

#include "core/analyses/collectives.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/hmap.h"
#include "core/base/vec.h"

/* ---- one rank ---- */

static bool starts(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && memcmp(s, p, k) == 0;
}

/* The collective in an NCCL kernel's name, after its prefix: "AllReduce"
   of ncclKernel_AllReduce_RING_LL_Sum_float(...); len 0 when none. */
static const char *kernel_coll(const char *name, size_t len, size_t *k)
{
    if (starts(name, len, "void ")) {
        name += 5;
        len -= 5;
    }
    static const char *const prefix[] = { "ncclKernel_", "ncclDevKernel_", "ncclKernel",
                                          "ncclDevKernel" };
    for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++)
        if (starts(name, len, prefix[i])) {
            const char *s = name + strlen(prefix[i]);
            const char *e = s;
            while (e < name + len && *e != '_' && *e != '(' && *e != '<')
                e++;
            *k = (size_t)(e - s);
            return s;
        }
    *k = 0;
    return NULL;
}

bool collectives_is_nccl_kernel(const char *name, size_t len)
{
    size_t k;
    return kernel_coll(name, len, &k) != NULL;
}

int collectives_dtype_size(const char *s, size_t n)
{
    static const struct { const char *name; int size; } t[] = {
        { "Float", 4 }, { "float", 4 }, { "float32", 4 }, { "Int", 4 }, { "int", 4 },
        { "int32", 4 }, { "UInt32", 4 }, { "ComplexHalf", 4 },
        { "Double", 8 }, { "double", 8 }, { "float64", 8 }, { "Long", 8 }, { "long", 8 },
        { "int64", 8 }, { "UInt64", 8 }, { "ComplexFloat", 8 }, { "ComplexDouble", 16 },
        { "Half", 2 }, { "half", 2 }, { "float16", 2 }, { "BFloat16", 2 }, { "bfloat16", 2 },
        { "Short", 2 }, { "short", 2 }, { "int16", 2 }, { "UInt16", 2 },
        { "Byte", 1 }, { "Char", 1 }, { "Bool", 1 }, { "bool", 1 }, { "int8", 1 },
        { "uint8", 1 }, { "QInt8", 1 }, { "QUInt8", 1 },
        { "Float8_e4m3fn", 1 }, { "Float8_e5m2", 1 }, { "Float8_e4m3fnuz", 1 },
        { "Float8_e5m2fnuz", 1 },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strlen(t[i].name) == n && memcmp(t[i].name, s, n) == 0)
            return t[i].size;
    return 0;
}

/* A trace string interned into names; STRTAB_NONE when out of memory. */
static uint32_t copy_str(const trace *tr, uint32_t id, strtab *names, const char *dflt)
{
    if (id == STRTAB_NONE)
        return strtab_intern(names, dflt, strlen(dflt));
    return strtab_intern(names, strtab_str(tr->strs, id), strtab_len(tr->strs, id));
}

static int64_t coll_bytes(const trace *tr, const trace_coll *c)
{
    if (!c || c->in_nelems < 0 || c->dtype == STRTAB_NONE)
        return -1;
    int size = collectives_dtype_size(strtab_str(tr->strs, c->dtype),
                                      strtab_len(tr->strs, c->dtype));
    if (!size || c->in_nelems > INT64_MAX / size)
        return -1;
    return c->in_nelems * size;
}

static int cmp_call(const void *pa, const void *pb)
{
    const coll_call *a = pa, *b = pb;
    if (a->arrival_ns != b->arrival_ns)
        return a->arrival_ns < b->arrival_ns ? -1 : 1;
    return (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
}

/* Adds one call; -1 when out of memory. */
static int push(coll_call **v, size_t *n, size_t *cap, coll_call c)
{
    if (vec_grow_heap((void **)v, cap, *n, sizeof **v) < 0)
        return -1;
    (*v)[(*n)++] = c;
    return 0;
}

static bool is_param_comms(const trace *tr, uint32_t name)
{
    return strtab_len(tr->strs, name) == 18 &&
           memcmp(strtab_str(tr->strs, name), "record_param_comms", 18) == 0;
}

int collectives_of_trace(const trace *tr, int64_t from, int64_t to, strtab *names,
                         coll_call **out, size_t *n)
{
    coll_call *v = NULL;
    size_t cap = 0;
    hmap by_ext;                  /* External id + 1 -> trace_coll of a CPU operator */
    *out = NULL;
    *n = 0;
    if (hmap_init(&by_ext, 64) < 0)
        return -1;
    for (size_t i = 0; i < tr->ncolls; i++) {
        const trace_event *e = &tr->events[tr->colls[i].event];
        if (!tr->tracks[e->track].is_gpu && e->ext &&
            hmap_put(&by_ext, e->ext, (uint32_t)i) < 0)
            goto nomem;
    }
    /* the kernels that carry their own metadata, by event (a sorted walk) */
    size_t ci = 0;
    for (size_t i = 0; i < tr->nevents; i++) {
        const trace_event *e = &tr->events[i];
        while (ci < tr->ncolls && tr->colls[ci].event < i)
            ci++;
        const char *name = strtab_str(tr->strs, e->name);
        size_t len = strtab_len(tr->strs, e->name), klen;
        const char *kc = kernel_coll(name, len, &klen);
        if (!kc || e->ts < from || e->ts >= to)
            continue;
        const trace_coll *c = ci < tr->ncolls && tr->colls[ci].event == i ? &tr->colls[ci] : NULL;
        if (!c && e->ext) {
            uint32_t k = hmap_get(&by_ext, e->ext);
            if (k != UINT32_MAX)
                c = &tr->colls[k];
        }
        coll_call x = { .seq = c ? c->seq : -1, .bytes = coll_bytes(tr, c),
                        .arrival_ns = tr->base_ns + e->ts, .end_ns = tr->base_ns + e->ts + e->dur };
        x.name = c && c->name != STRTAB_NONE
                     ? copy_str(tr, c->name, names, "")
                     : strtab_intern(names, klen ? kc : "nccl", klen ? klen : 4);
        x.pg = copy_str(tr, c ? c->pg : STRTAB_NONE, names, "");
        if (x.name == STRTAB_NONE || x.pg == STRTAB_NONE || push(&v, n, &cap, x) < 0)
            goto nomem;
    }
    if (!*n) {
        /* no kernel (a CPU-only trace): the operators, outermost of a nest */
        ci = 0;
        int64_t end = INT64_MIN;
        uint32_t track = UINT32_MAX;
        for (size_t i = 0; i < tr->nevents; i++) {
            const trace_event *e = &tr->events[i];
            if (!is_param_comms(tr, e->name) || tr->tracks[e->track].is_gpu)
                continue;
            if (e->ts < from || e->ts >= to)
                continue;
            if (e->track == track && e->ts < end)
                continue; /* inside the one kept: the same call */
            track = e->track;
            end = e->ts + e->dur;
            while (ci < tr->ncolls && tr->colls[ci].event < i)
                ci++;
            const trace_coll *c = ci < tr->ncolls && tr->colls[ci].event == i ? &tr->colls[ci]
                                                                              : NULL;
            if (c && c->name != STRTAB_NONE && strtab_len(tr->strs, c->name) == 4 &&
                !memcmp(strtab_str(tr->strs, c->name), "wait", 4))
                continue; /* work.wait(): waits on a call, is none */
            coll_call x = { .seq = c ? c->seq : -1, .bytes = coll_bytes(tr, c),
                            .arrival_ns = tr->base_ns + e->ts, .end_ns = tr->base_ns + end };
            x.name = copy_str(tr, c ? c->name : STRTAB_NONE, names, "record_param_comms");
            x.pg = copy_str(tr, c ? c->pg : STRTAB_NONE, names, "");
            if (x.name == STRTAB_NONE || x.pg == STRTAB_NONE || push(&v, n, &cap, x) < 0)
                goto nomem;
        }
    }
    hmap_done(&by_ext);
    if (*n) /* qsort takes no NULL array, even empty */
        qsort(v, *n, sizeof *v, cmp_call);
    *out = v;
    return 0;
nomem:
    hmap_done(&by_ext);
    free(v);
    *n = 0;
    return -1;
}

/* ---- across ranks ---- */

/* One rank's call on its way to a match. */
struct tup {
    uint32_t match, file;
    uint32_t name;
    int64_t bytes, arrival_ns, end_ns;
};

void collectives_free(collectives *c)
{
    if (!c)
        return;
    strtab_free(c->strs);
    free(c->calls);
    free(c->entries);
    free(c->wait_ns);
    free(c->count);
    free(c->rank);
    free(c);
}

static int cmp_match(const void *pa, const void *pb)
{
    const coll_match *a = pa, *b = pb;
    if (a->first_arrival_ns != b->first_arrival_ns)
        return a->first_arrival_ns < b->first_arrival_ns ? -1 : 1;
    if (a->pg != b->pg)
        return a->pg < b->pg ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The key of a call: its group, and its sequence number or position. */
static uint64_t call_key(uint32_t pg, bool by_seq, uint64_t x)
{
    return (uint64_t)pg << 40 | (uint64_t)by_seq << 39 | (x & ((1ull << 39) - 1));
}

collectives *collectives_match(const coll_rank_in *r, size_t n)
{
    collectives *c = calloc(1, sizeof *c);
    struct tup *tups = NULL;
    size_t ntups = 0, total = 0, *at = NULL;
    uint32_t *seen = NULL; /* per match: the last rank in it, + 1 */
    hmap keys, pos;
    bool keys_ok = false, pos_ok = false;
    if (!c || !(c->strs = strtab_new()))
        goto nomem;
    c->nranks = n;
    c->wait_ns = calloc(n ? n : 1, sizeof *c->wait_ns);
    c->count = calloc(n ? n : 1, sizeof *c->count);
    c->rank = calloc(n ? n : 1, sizeof *c->rank);
    for (size_t i = 0; i < n; i++)
        total += r[i].ncalls;
    tups = malloc((total ? total : 1) * sizeof *tups);
    if (!c->wait_ns || !c->count || !c->rank || !tups || hmap_init(&keys, total ? total : 16) < 0)
        goto nomem;
    keys_ok = true;
    for (size_t i = 0; i < n; i++)
        c->rank[i] = r[i].rank;
    if (hmap_init(&pos, 64) < 0)
        goto nomem;
    pos_ok = true;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        /* positions count per group on each rank */
        hmap_done(&pos);
        pos_ok = false;
        if (hmap_init(&pos, 64) < 0)
            goto nomem;
        pos_ok = true;
        for (size_t k = 0; k < r[i].ncalls; k++) {
            const coll_call *x = &r[i].calls[k];
            uint32_t pg = strtab_intern(c->strs, strtab_str(r[i].names, x->pg),
                                        strtab_len(r[i].names, x->pg));
            uint32_t name = strtab_intern(c->strs, strtab_str(r[i].names, x->name),
                                          strtab_len(r[i].names, x->name));
            if (pg == STRTAB_NONE || name == STRTAB_NONE)
                goto nomem;
            uint32_t p = hmap_get(&pos, pg);
            uint64_t index = p == UINT32_MAX ? 0 : p;
            if (hmap_put(&pos, pg, (uint32_t)(index + 1)) < 0)
                goto nomem;
            bool by_seq = x->seq >= 0;
            uint64_t key = call_key(pg, by_seq, by_seq ? (uint64_t)x->seq : index);
            uint32_t m = hmap_get(&keys, key);
            if (m == UINT32_MAX) {
                if (c->ncalls == cap) {
                    size_t nc = cap ? cap * 2 : 256;
                    coll_match *nm = realloc(c->calls, nc * sizeof *nm);
                    if (!nm)
                        goto nomem;
                    c->calls = nm;
                    uint32_t *ns = realloc(seen, nc * sizeof *ns);
                    if (!ns)
                        goto nomem;
                    seen = ns;
                    cap = nc;
                }
                m = (uint32_t)c->ncalls++;
                c->calls[m] = (coll_match){ .name = name, .pg = pg, .seq = by_seq ? x->seq : -1,
                                            .index = index, .bytes = x->bytes };
                seen[m] = 0;
                if (by_seq)
                    c->by_seq++;
                else
                    c->by_order++;
                if (hmap_put(&keys, key, m) < 0)
                    goto nomem;
            } else if (seen[m] == i + 1) {
                /* one rank, one (group, sequence): a second one is dropped */
                c->dup++;
                continue;
            }
            seen[m] = (uint32_t)i + 1;
            tups[ntups++] = (struct tup){ m, (uint32_t)i, name, x->bytes, x->arrival_ns,
                                          x->end_ns };
        }
    }
    /* counting sort by match: each match's ranks stay in input order */
    at = calloc(c->ncalls + 1, sizeof *at);
    c->entries = malloc((ntups ? ntups : 1) * sizeof *c->entries);
    if (!at || !c->entries)
        goto nomem;
    for (size_t t = 0; t < ntups; t++)
        at[tups[t].match + 1]++;
    for (size_t m = 0; m < c->ncalls; m++) {
        at[m + 1] += at[m];
        c->calls[m].first = at[m];
        c->calls[m].n = at[m + 1] - at[m];
    }
    for (size_t t = 0; t < ntups; t++) {
        const struct tup *x = &tups[t];
        coll_match *m = &c->calls[x->match];
        c->entries[at[x->match]++] = (coll_entry){ x->file, x->arrival_ns, x->end_ns, 0 };
        if (x->name != m->name || x->bytes != m->bytes)
            m->mixed = true;
    }
    c->nentries = ntups;
    for (size_t k = 0; k < c->ncalls; k++) {
        coll_match *m = &c->calls[k];
        coll_entry *e = &c->entries[m->first];
        int64_t last = INT64_MIN, first = INT64_MAX, end = INT64_MIN;
        for (size_t i = 0; i < m->n; i++) {
            if (e[i].arrival_ns > last) {
                last = e[i].arrival_ns;
                m->last_file = e[i].file;
            }
            if (e[i].arrival_ns < first)
                first = e[i].arrival_ns;
            if (e[i].end_ns > end)
                end = e[i].end_ns;
        }
        m->last_rank = r[m->last_file].rank;
        m->first_arrival_ns = first;
        m->last_arrival_ns = last;
        m->transfer_ns = end > last ? end - last : 0;
        for (size_t i = 0; i < m->n; i++) {
            e[i].wait_ns = last - e[i].arrival_ns;
            m->sum_wait_ns += e[i].wait_ns;
            if (e[i].wait_ns > m->max_wait_ns)
                m->max_wait_ns = e[i].wait_ns;
            c->wait_ns[e[i].file] += e[i].wait_ns;
            c->count[e[i].file]++;
        }
        m->mean_wait_ns = m->n ? m->sum_wait_ns / (int64_t)m->n : 0;
    }
    if (c->ncalls)
        qsort(c->calls, c->ncalls, sizeof *c->calls, cmp_match);
    c->npgs = 0;
    {
        /* groups: the distinct pg ids among the calls */
        hmap g;
        if (hmap_init(&g, 16) < 0)
            goto nomem;
        for (size_t k = 0; k < c->ncalls; k++)
            if (hmap_get(&g, c->calls[k].pg) == UINT32_MAX) {
                if (hmap_put(&g, c->calls[k].pg, 0) < 0) {
                    hmap_done(&g);
                    goto nomem;
                }
                c->npgs++;
            }
        hmap_done(&g);
    }
    free(at);
    free(seen);
    free(tups);
    hmap_done(&keys);
    hmap_done(&pos);
    return c;
nomem:
    free(at);
    free(seen);
    free(tups);
    if (keys_ok)
        hmap_done(&keys);
    if (pos_ok)
        hmap_done(&pos);
    collectives_free(c);
    return NULL;
}

coll_kind *collectives_kinds(const collectives *c, size_t *n)
{
    size_t nc = c->ncalls ? c->ncalls : 1, nr = c->nranks ? c->nranks : 1;
    coll_kind *k = calloc(nc, sizeof *k);
    uint32_t *of = malloc(nc * sizeof *of), *lastc = NULL;
    hmap map;
    *n = 0;
    if (!k || !of || hmap_init(&map, 16) < 0) {
        free(k);
        free(of);
        return NULL;
    }
    for (size_t i = 0; i < c->ncalls; i++) {
        const coll_match *m = &c->calls[i];
        uint64_t key = (uint64_t)m->pg << 32 | m->name;
        uint32_t at = hmap_get(&map, key);
        if (at == UINT32_MAX) {
            at = (uint32_t)(*n)++;
            k[at] = (coll_kind){ .name = m->name, .pg = m->pg, .bytes = -1 };
            if (hmap_put(&map, key, at) < 0)
                goto fail;
        }
        of[i] = at;
        coll_kind *x = &k[at];
        x->calls++;
        if (m->bytes >= 0)
            x->bytes = (x->bytes < 0 ? 0 : x->bytes) + m->bytes;
        for (size_t e = 0; e < m->n; e++) {
            const coll_entry *y = &c->entries[m->first + e];
            x->time_ns += y->end_ns - y->arrival_ns;
            x->wait_ns += y->wait_ns;
            x->entries++;
        }
    }
    /* kinds x ranks: a few kinds, so small */
    if (!(lastc = calloc((*n ? *n : 1) * nr, sizeof *lastc)))
        goto fail;
    for (size_t i = 0; i < c->ncalls; i++)
        lastc[(size_t)of[i] * nr + c->calls[i].last_file]++;
    for (size_t i = 0; i < *n; i++)
        for (size_t r = 0; r < c->nranks; r++)
            if (lastc[i * nr + r] > k[i].last_count) {
                k[i].last_count = lastc[i * nr + r];
                k[i].last_rank = c->rank[r];
            }
    free(lastc);
    free(of);
    hmap_done(&map);
    return k;
fail:
    free(lastc);
    free(of);
    free(k);
    hmap_done(&map);
    *n = 0;
    return NULL;
}
