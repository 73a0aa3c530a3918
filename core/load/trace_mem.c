/* The compact store of a trace's [memory] records (see trace_mem_rec in
   core/load/trace.h): the loader appends, every reader decodes. A 3 M record trace
   used to hold 48 bytes a record; this holds 12 (14 with several streams). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/hmap.h"
#include "core/load/trace_mem.h"
#include "core/base/vec.h"

/* a block's base lies this far before its first record's ts: records a
   little out of order still fit (and 3 s after it) */
#define BASE_BACK (INT64_C(1) << 30)

struct trace_mem_load {
    hmap streams;       /* track << 16 | device index -> stream */
    hmap *addrs;        /* per device index: Addr -> addr id */
    int64_t *alloc, *res; /* per device index: the last record's totals (the prediction) */
    bool *has;
    size_t cap_dev, ndev; /* ndev: addrs[0 .. ndev) are initialised */
    uint32_t last_track, last_stream; /* most records come from the stream of the one before */
    int16_t last_device;
    bool any;
};

int64_t trace_mem_wide_get(const trace *t, size_t i, uint32_t field)
{
    size_t lo = 0, hi = t->nmem_wide;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const trace_mem_wide *w = &t->mem_wide[mid];
        if (w->rec < i || (w->rec == i && w->field < field))
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the loader wrote one for every escaped field */
    return lo < t->nmem_wide ? t->mem_wide[lo].value : 0;
}

static int add_wide(trace *t, size_t i, uint32_t field, int64_t value)
{
    if (vec_grow((void **)&t->mem_wide, &t->cap_mem_wide, t->nmem_wide, sizeof *t->mem_wide) < 0)
        return -1;
    t->mem_wide[t->nmem_wide++] = (trace_mem_wide){ (uint32_t)i, field, value };
    return 0;
}

/* The index of device in t->mem_devices, added when new; -1 when out of memory. */
static int device_index(trace *t, struct trace_mem_load *L, int16_t device)
{
    for (size_t d = 0; d < t->nmem_devices; d++)
        if (t->mem_devices[d] == device)
            return (int)d;
    size_t d = t->nmem_devices;
    if (d == t->cap_mem_devices) {
        size_t nc = d ? d * 2 : 4;
        int16_t *nd = realloc(t->mem_devices, nc * sizeof *nd);
        if (!nd)
            return -1;
        t->mem_devices = nd;
        t->cap_mem_devices = nc;
    }
    if (d == L->cap_dev) {
        size_t nc = d ? d * 2 : 4;
        hmap *na = realloc(L->addrs, nc * sizeof *na);
        if (!na)
            return -1;
        L->addrs = na;
        int64_t *a = realloc(L->alloc, nc * sizeof *a);
        if (!a)
            return -1;
        L->alloc = a;
        int64_t *r = realloc(L->res, nc * sizeof *r);
        if (!r)
            return -1;
        L->res = r;
        bool *h = realloc(L->has, nc * sizeof *h);
        if (!h)
            return -1;
        L->has = h;
        L->cap_dev = nc;
    }
    if (hmap_init(&L->addrs[d], 64) < 0)
        return -1;
    L->ndev = d + 1;
    L->alloc[d] = L->res[d] = -1;
    L->has[d] = false;
    t->mem_devices[t->nmem_devices++] = device;
    return (int)d;
}

static int64_t stream_of(trace *t, struct trace_mem_load *L, uint32_t track, int16_t device)
{
    if (L->any && L->last_track == track && L->last_device == device)
        return L->last_stream;
    int d = device_index(t, L, device);
    if (d < 0)
        return -1;
    uint64_t key = (uint64_t)track << 16 | (uint64_t)d;
    uint32_t s = hmap_get(&L->streams, key);
    if (s == UINT32_MAX) {
        if (vec_grow_heap((void **)&t->mem_streams, &t->cap_mem_streams, t->nmem_streams,
                          sizeof *t->mem_streams) < 0)
            return -1;
        s = (uint32_t)t->nmem_streams;
        if (hmap_put(&L->streams, key, s) < 0)
            return -1;
        t->mem_streams[t->nmem_streams++] = (trace_mem_stream){ track, device, (uint16_t)d };
    }
    L->any = true;
    L->last_track = track;
    L->last_device = device;
    L->last_stream = s;
    return s;
}

int trace_mem_append(trace *t, struct trace_mem_load **state, const trace_mem_in *in)
{
    struct trace_mem_load *L = *state;
    if (!L) {
        if (!(L = calloc(1, sizeof *L)) || hmap_init(&L->streams, 16) < 0) {
            free(L);
            return -1;
        }
        *state = L;
    }
    size_t i = t->nmems;
    if (i >= UINT32_MAX - 1)
        return -1; /* record indices are 32 bits */
    int64_t st = stream_of(t, L, in->track, in->device);
    if (st < 0)
        return -1;
    const trace_mem_stream *s = &t->mem_streams[st];
    if (vec_grow((void **)&t->mems, &t->cap_mems, i, sizeof *t->mems) < 0)
        return -1;
    /* a stream per record only once there are two */
    if (st && !t->mem_stream) {
        if (vec_grow((void **)&t->mem_stream, &t->cap_mem_stream, i, sizeof *t->mem_stream) < 0)
            return -1;
        memset(t->mem_stream, 0, i * sizeof *t->mem_stream);
    }
    if (t->mem_stream) {
        if (vec_grow((void **)&t->mem_stream, &t->cap_mem_stream, i, sizeof *t->mem_stream) < 0)
            return -1;
        t->mem_stream[i] = st < UINT16_MAX ? (uint16_t)st : UINT16_MAX;
        if (st >= UINT16_MAX && add_wide(t, i, TRACE_MEM_WIDE_STREAM, st) < 0)
            return -1;
    }
    if (i % TRACE_MEM_BLOCK == 0) {
        size_t b = i / TRACE_MEM_BLOCK;
        if (vec_grow((void **)&t->mem_ts_base, &t->cap_mem_ts_base, b, sizeof *t->mem_ts_base) < 0)
            return -1;
        t->mem_ts_base[b] = (int64_t)((uint64_t)in->ts - (uint64_t)BASE_BACK);
    }
    trace_mem_rec *r = &t->mems[i];
    uint64_t off = (uint64_t)in->ts - (uint64_t)t->mem_ts_base[i / TRACE_MEM_BLOCK];
    r->ts = off < UINT32_MAX ? (uint32_t)off : UINT32_MAX;
    if (off >= UINT32_MAX && add_wide(t, i, TRACE_MEM_WIDE_TS, in->ts) < 0)
        return -1;
    bool narrow = in->bytes > INT32_MIN && in->bytes <= INT32_MAX;
    r->bytes = narrow ? (int32_t)in->bytes : INT32_MIN;
    if (!narrow && add_wide(t, i, TRACE_MEM_WIDE_BYTES, in->bytes) < 0)
        return -1;
    r->addr = TRACE_MEM_NOADDR;
    if (in->has_addr) {
        hmap *a = &L->addrs[s->dev];
        uint32_t id = hmap_get(a, in->addr);
        if (id == UINT32_MAX) {
            id = t->nmem_addrs;
            if (id >= TRACE_MEM_NOADDR - 1 || hmap_put(a, in->addr, id) < 0)
                return -1;
            t->nmem_addrs++;
        }
        r->addr = id;
    }
    /* the totals, unless the device's previous record predicts them */
    uint16_t d = s->dev;
    int64_t alloc = in->has_alloc ? in->allocated : -1, res = in->has_res ? in->reserved : -1;
    int64_t pred = L->has[d] ? (int64_t)((uint64_t)L->alloc[d] + (uint64_t)in->bytes) : -1;
    if (in->has_alloc != L->has[d] || alloc != pred || res != L->res[d]) {
        if (vec_grow((void **)&t->mem_totals, &t->cap_mem_totals, t->nmem_totals,
                     sizeof *t->mem_totals) < 0)
            return -1;
        t->mem_totals[t->nmem_totals++] = (trace_mem_total){ (uint32_t)i, in->has_alloc, alloc, res };
    }
    L->has[d] = in->has_alloc;
    L->alloc[d] = alloc;
    L->res[d] = res;
    t->nmems++;
    return 0;
}

void trace_mem_load_done(struct trace_mem_load *L)
{
    if (!L)
        return;
    hmap_done(&L->streams);
    for (size_t d = 0; d < L->ndev; d++)
        hmap_done(&L->addrs[d]);
    free(L->addrs);
    free(L->alloc);
    free(L->res);
    free(L->has);
    free(L);
}

void trace_mem_free(trace *t)
{
    vec_free(t->mems, t->cap_mems, sizeof *t->mems);
    vec_free(t->mem_stream, t->cap_mem_stream, sizeof *t->mem_stream);
    free(t->mem_streams);
    free(t->mem_devices);
    vec_free(t->mem_ts_base, t->cap_mem_ts_base, sizeof *t->mem_ts_base);
    vec_free(t->mem_wide, t->cap_mem_wide, sizeof *t->mem_wide);
    vec_free(t->mem_totals, t->cap_mem_totals, sizeof *t->mem_totals);
}

/* ---- reading the totals ---- */

int trace_mem_cursor_init(trace_mem_cursor *c, const trace *t)
{
    size_t n = t->nmem_devices ? t->nmem_devices : 1;
    *c = (trace_mem_cursor){ 0 };
    c->alloc = malloc(n * sizeof *c->alloc);
    c->res = malloc(n * sizeof *c->res);
    c->has = calloc(n, sizeof *c->has);
    if (!c->alloc || !c->res || !c->has)
        return -1;
    for (size_t d = 0; d < n; d++)
        c->alloc[d] = c->res[d] = -1;
    return 0;
}

void trace_mem_cursor_done(trace_mem_cursor *c)
{
    free(c->alloc);
    free(c->res);
    free(c->has);
    *c = (trace_mem_cursor){ 0 };
}

bool trace_mem_cursor_next(trace_mem_cursor *c, const trace *t, int64_t *alloc, int64_t *res)
{
    size_t i = c->next++;
    uint16_t d = trace_mem_stream_of(t, i)->dev;
    if (c->total < t->nmem_totals && t->mem_totals[c->total].rec == i) {
        const trace_mem_total *x = &t->mem_totals[c->total++];
        c->has[d] = x->has_alloc;
        c->alloc[d] = x->allocated;
        c->res[d] = x->reserved;
    } else if (c->has[d]) {
        c->alloc[d] = (int64_t)((uint64_t)c->alloc[d] + (uint64_t)trace_mem_bytes(t, i));
    }
    *alloc = c->alloc[d];
    *res = c->res[d];
    return c->has[d];
}

int trace_mem_totals_at(const trace *t, size_t i, int64_t *alloc, int64_t *res)
{
    trace_mem_cursor c;
    int has = -1;
    *alloc = *res = -1;
    if (trace_mem_cursor_init(&c, t) == 0)
        for (has = 0; c.next <= i;)
            has = trace_mem_cursor_next(&c, t, alloc, res);
    trace_mem_cursor_done(&c);
    return has;
}
