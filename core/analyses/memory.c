#include "config.h"

#include "core/analyses/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/hmap.h"
#include "core/base/vec.h"

/* ---- what memory_query.c shares (declared in memory.h) ---- */

void memory_add_incl(memory_stat *to, const memory_stat *self)
{
    to->alloc_count += self->self_alloc_count;
    to->alloc_bytes += self->self_alloc_bytes;
    to->increase_bytes += self->self_increase_bytes;
}

int memory_cmp_node(const void *pa, const void *pb)
{
    const memory_node *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return a->device < b->device ? -1 : (a->device > b->device);
}

int memory_cmp_op(const void *pa, const void *pb)
{
    const memory_op *a = pa, *b = pb;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    return a->device < b->device ? -1 : (a->device > b->device);
}

/* ---- sorting record and event indices ---- */

/* Bottom-up merge sort of idx[0..n) by less(a, b) with ties by index; a
   no-op when already sorted (traces are mostly in time order). */
typedef int (*cmp_fn)(const void *ctx, uint32_t a, uint32_t b);

static int sort_idx(uint32_t *idx, size_t n, cmp_fn cmp, const void *ctx)
{
    size_t i;
    for (i = 1; i < n; i++)
        if (cmp(ctx, idx[i - 1], idx[i]) > 0)
            break;
    if (i >= n)
        return 0;
    uint32_t *tmp = vec_alloc(n, sizeof *tmp);
    if (!tmp)
        return -1;
    uint32_t *src = idx, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                dst[k++] = cmp(ctx, src[a], src[b]) <= 0 ? src[a++] : src[b++];
            while (a < mid)
                dst[k++] = src[a++];
            while (b < hi)
                dst[k++] = src[b++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != idx)
        memcpy(idx, src, n * sizeof *idx);
    vec_free(tmp, n, sizeof *tmp);
    return 0;
}

static int cmp_rec(const void *ctx, uint32_t a, uint32_t b)
{
    const trace *t = ctx;
    int64_t x = trace_mem_ts(t, a), y = trace_mem_ts(t, b);
    if (x != y)
        return x < y ? -1 : 1;
    return a < b ? -1 : (a > b);
}

static int cmp_ev(const void *ctx, uint32_t a, uint32_t b)
{
    const trace_event *e = ctx;
    if (e[a].ts != e[b].ts)
        return e[a].ts < e[b].ts ? -1 : 1;
    if (e[a].dur != e[b].dur)
        return e[a].dur > e[b].dur ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* The j-th record in time order. */
static inline uint32_t at(const memory *mem, size_t j)
{
    return mem->by_time ? mem->by_time[j] : (uint32_t)j;
}

/* ---- the (node, device) table ---- */

struct table {
    hmap map; /* node << 8 | device -> entry */
    memory_node *v;
    size_t n, cap;
};

static memory_node *entry(struct table *t, uint32_t node, uint32_t dev)
{
    uint64_t key = (uint64_t)node << 8 | dev;
    uint32_t i = hmap_get(&t->map, key);
    if (i != UINT32_MAX)
        return &t->v[i];
    if (vec_grow_heap((void **)&t->v, &t->cap, t->n, sizeof *t->v) < 0)
        return NULL;
    if (hmap_put(&t->map, key, (uint32_t)t->n) < 0)
        return NULL;
    memory_node *e = &t->v[t->n++];
    memset(e, 0, sizeof *e);
    e->node = node;
    e->device = dev;
    return e;
}

static void add_all(memory_stat *to, const memory_stat *s)
{
    to->alloc_count += s->alloc_count;
    to->self_alloc_count += s->self_alloc_count;
    to->alloc_bytes += s->alloc_bytes;
    to->self_alloc_bytes += s->self_alloc_bytes;
    to->increase_bytes += s->increase_bytes;
    to->self_increase_bytes += s->self_increase_bytes;
    to->live_count += s->live_count;
    to->live_bytes += s->live_bytes;
}

/* ---- building ---- */

static int cmp_i16(const void *pa, const void *pb)
{
    int16_t a = *(const int16_t *)pa, b = *(const int16_t *)pb;
    return (a > b) - (a < b);
}

/* The devices in order (CPU first, then GPU0, GPU1, ...) and each stream's. */
static int find_devices(memory *mem, const trace *tr)
{
    size_t n = tr->nmem_devices;
    int16_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
    mem->devices = calloc(n ? n : 1, sizeof *mem->devices);
    mem->stream_dev = malloc((tr->nmem_streams ? tr->nmem_streams : 1) * sizeof *mem->stream_dev);
    if (!sorted || !mem->devices || !mem->stream_dev) {
        free(sorted);
        return -1;
    }
    if (n) {
        memcpy(sorted, tr->mem_devices, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, cmp_i16);
    }
    for (size_t d = 0; d < n; d++) {
        memory_device *v = &mem->devices[mem->ndevices++];
        v->device = sorted[d];
        if (v->device == TRACE_MEM_CPU)
            snprintf(v->name, sizeof v->name, "CPU");
        else
            snprintf(v->name, sizeof v->name, "GPU%d", (int)v->device);
        v->peak_record = MEMORY_NONE;
        v->peak_node = MEMORY_NONE;
        v->reserved_at_peak = -1;
    }
    free(sorted);
    for (size_t k = 0; k < tr->nmem_streams; k++)
        for (size_t d = 0; d < mem->ndevices; d++)
            if (mem->devices[d].device == tr->mem_streams[k].device)
                mem->stream_dev[k] = (uint32_t)d;
    return 0;
}

/* The index in devices of record r's device. */
static inline uint32_t rec_dev(const memory *mem, size_t r)
{
    return mem->stream_dev[trace_mem_stream_index(mem->m->tr, r)];
}

/* The allocated level of records in time order: Total Allocated where the
   device has totals (-1 for a record without), else the running sum of Bytes.
   The totals are read in file order: directly when the file is in time
   order, else from a scratch array of them. */
struct levels {
    const memory *mem;
    trace_mem_cursor cur;
    int64_t *alloc; /* per record (file order); INT64_MIN: none */
    int64_t *run;   /* per device */
};

static int levels_init(struct levels *l, const memory *mem)
{
    const trace *tr = mem->m->tr;
    *l = (struct levels){ .mem = mem };
    int rc = trace_mem_cursor_init(&l->cur, tr);
    l->run = calloc(mem->ndevices ? mem->ndevices : 1, sizeof *l->run);
    if (rc < 0 || !l->run)
        return -1;
    if (mem->by_time) {
        if (!(l->alloc = vec_alloc(tr->nmems, sizeof *l->alloc)))
            return -1;
        for (size_t r = 0; r < tr->nmems; r++) {
            int64_t a, res;
            l->alloc[r] = trace_mem_cursor_next(&l->cur, tr, &a, &res) ? a : INT64_MIN;
        }
    }
    return 0;
}

static void levels_done(struct levels *l)
{
    trace_mem_cursor_done(&l->cur);
    vec_free(l->alloc, l->mem->m->tr->nmems, sizeof *l->alloc);
    free(l->run);
}

/* The level after record r, the j-th in time order (called for j = 0, 1, ...),
   on its device d; -1 when it has none. */
static int64_t levels_next(struct levels *l, size_t r, uint32_t d, int64_t bytes)
{
    const memory *mem = l->mem;
    int64_t a = INT64_MIN, res;
    if (!l->alloc) {
        if (!trace_mem_cursor_next(&l->cur, mem->m->tr, &a, &res))
            a = INT64_MIN;
    } else {
        a = l->alloc[r];
    }
    l->run[d] += bytes;
    if (mem->devices[d].has_totals)
        return a != INT64_MIN ? a : -1;
    return l->run[d];
}

static inline void bit_set(unsigned char *b, size_t i)
{
    b[i >> 3] |= (unsigned char)(1u << (i & 7));
}

static inline bool bit_get(const unsigned char *b, size_t i)
{
    return b[i >> 3] >> (i & 7) & 1;
}

/* Peaks, counts, and allocations matched to frees by address, in time order.
   Sets a bit of live per allocation never freed. */
static int device_figures(memory *mem, unsigned char *live)
{
    const trace *tr = mem->m->tr;
    int rc = -1;
    struct levels lv;
    /* per address id: the live allocation there, MEMORY_NONE when none */
    uint32_t *at_addr = vec_alloc(tr->nmem_addrs, sizeof *at_addr);
    /* per device: allocated - freed in the window */
    int64_t *win_run = calloc(mem->ndevices ? mem->ndevices : 1, sizeof *win_run);
    if (levels_init(&lv, mem) < 0 || (tr->nmem_addrs && !at_addr) || !win_run)
        goto out;
    for (size_t a = 0; a < tr->nmem_addrs; a++)
        at_addr[a] = MEMORY_NONE;
    /* a device has totals when one of its records has a Total Allocated:
       the first such record of each device is an entry of mem_totals */
    for (size_t k = 0; k < tr->nmem_totals; k++)
        if (tr->mem_totals[k].has_alloc)
            mem->devices[rec_dev(mem, tr->mem_totals[k].rec)].has_totals = true;
    for (size_t j = 0; j < tr->nmems; j++) {
        uint32_t r = at(mem, j);
        int64_t ts = trace_mem_ts(tr, r), bytes = trace_mem_bytes(tr, r);
        uint32_t d = rec_dev(mem, r);
        memory_device *v = &mem->devices[d];
        if (ts >= mem->t1)
            break;
        /* before the window: the level moves on (Total Allocated and the
           running sum are levels since the trace's start), nothing counts */
        int64_t level = levels_next(&lv, r, d, bytes);
        if (ts < mem->t0)
            continue;
        v->records++;
        win_run[d] += bytes;
        if (bytes > 0) {
            v->allocs++;
            v->alloc_bytes += bytes;
        } else if (bytes < 0) {
            v->frees++;
            v->free_bytes -= bytes;
        }
        if (level >= 0 && (v->peak_record == MEMORY_NONE || level > v->peak_bytes)) {
            v->peak_bytes = level;
            v->peak_record = r;
            v->peak_ns = ts;
        }
        uint32_t addr = tr->mems[r].addr;
        if (addr == TRACE_MEM_NOADDR)
            continue;
        v->has_addr = true;
        if (bytes > 0) {
            /* a second allocation at a live address forgets the first, as
               TensorBoard does: its free was not recorded */
            at_addr[addr] = r;
        } else if (bytes < 0) {
            uint32_t a = at_addr[addr];
            if (a != MEMORY_NONE) {
                v->matched++;
                /* lifetimes have no bound but the times' (records 146 years
                   apart): their sum stops at INT64_MAX */
                int64_t life = ts - trace_mem_ts(tr, a);
                v->lifetime_ns = life > INT64_MAX - v->lifetime_ns ? INT64_MAX : v->lifetime_ns + life;
                at_addr[addr] = MEMORY_NONE;
            } else {
                v->unmatched_frees++;
                v->unmatched_free_bytes -= bytes;
            }
        }
    }
    for (size_t d = 0; d < mem->ndevices; d++) {
        memory_device *v = &mem->devices[d];
        if (!v->has_addr)
            v->live_bytes_at_end = win_run[d];
        int64_t a, res;
        if (v->peak_record != MEMORY_NONE) {
            if (trace_mem_totals_at(tr, v->peak_record, &a, &res) < 0)
                goto out;
            v->reserved_at_peak = res;
        }
    }
    /* live at the end: the allocations still at their address */
    for (size_t a = 0; a < tr->nmem_addrs; a++) {
        uint32_t r = at_addr[a];
        if (r == MEMORY_NONE)
            continue;
        memory_device *v = &mem->devices[rec_dev(mem, r)];
        bit_set(live, r);
        v->live_allocs_at_end++;
        v->live_bytes_at_end += trace_mem_bytes(tr, r);
    }
    rc = 0;
out:
    levels_done(&lv);
    vec_free(at_addr, tr->nmem_addrs, sizeof *at_addr);
    free(win_run);
    return rc;
}

/* One record's own figures on its (node, device). */
static int add_record(memory *mem, struct table *t, const unsigned char *live, uint32_t r,
                      uint32_t node)
{
    const trace *tr = mem->m->tr;
    uint32_t d = rec_dev(mem, r);
    memory_device *v = &mem->devices[d];
    if (r == v->peak_record)
        v->peak_node = node;
    if (node == MEMORY_NONE)
        return 0;
    if (node == mem->m->tracks[trace_mem_stream_of(tr, r)->track].root)
        v->unattributed++;
    memory_node *e = entry(t, node, d);
    if (!e)
        return -1;
    int64_t b = trace_mem_bytes(tr, r);
    e->st.self_increase_bytes += b;
    if (b > 0) {
        e->st.self_alloc_count++;
        e->st.self_alloc_bytes += b;
    }
    if (bit_get(live, r)) {
        e->st.live_count++;
        e->st.live_bytes += b;
    }
    return 0;
}

/* Per track being swept: its events in (ts asc, dur desc) order, the next one
   to push, and the stack of those that may still hold the next record. */
struct sweep {
    uint32_t *ev;
    size_t n, next;
    uint32_t *stack;
    size_t depth, cap;
};

/* Attributes every record and adds its own figures to its (node, device) in
   t: one pass over the records in time order, each track sweeping its events. */
static int attribute(memory *mem, struct table *t, const unsigned char *live)
{
    const model *m = mem->m;
    const trace *tr = m->tr;
    size_t nt = tr->ntracks;
    int rc = -1;
    uint32_t *sw_of = malloc((nt ? nt : 1) * sizeof *sw_of);
    struct sweep *sw = calloc(tr->nmem_streams ? tr->nmem_streams : 1, sizeof *sw);
    size_t nsw = 0, *es = NULL, nev = 0;
    uint32_t *evs = NULL;
    if (!sw_of || !sw)
        goto out;
    for (size_t k = 0; k < nt; k++)
        sw_of[k] = MEMORY_NONE;
    for (size_t s = 0; s < tr->nmem_streams; s++) {
        uint32_t k = tr->mem_streams[s].track;
        if (sw_of[k] == MEMORY_NONE)
            sw_of[k] = (uint32_t)nsw++;
    }
    /* the events of the tracks with records, grouped by track */
    if (!(es = calloc(nsw + 1, sizeof *es)))
        goto out;
    for (size_t i = 0; i < tr->nevents; i++) {
        uint32_t k = sw_of[tr->events[i].track];
        if (k != MEMORY_NONE) {
            es[k + 1]++;
            nev++;
        }
    }
    for (size_t k = 0; k < nsw; k++)
        es[k + 1] += es[k];
    if (!(evs = vec_alloc(nev, sizeof *evs)))
        goto out;
    for (size_t k = 0; k < nsw; k++) {
        sw[k].ev = evs + es[k];
        sw[k].n = es[k + 1] - es[k];
    }
    for (size_t i = 0; i < tr->nevents; i++) {
        uint32_t k = sw_of[tr->events[i].track];
        if (k != MEMORY_NONE)
            sw[k].ev[sw[k].next++] = (uint32_t)i;
    }
    for (size_t k = 0; k < nsw; k++) {
        sw[k].next = 0;
        if (sort_idx(sw[k].ev, sw[k].n, cmp_ev, tr->events) < 0)
            goto out;
    }
    for (size_t j = 0; j < tr->nmems; j++) {
        uint32_t r = at(mem, j);
        uint32_t track = trace_mem_stream_of(tr, r)->track;
        struct sweep *w = &sw[sw_of[track]];
        int64_t ts = trace_mem_ts(tr, r);
        if (ts >= mem->t1)
            break;
        if (ts < mem->t0)
            continue; /* the sweep catches up at the next record in the window */
        for (; w->next < w->n && tr->events[w->ev[w->next]].ts <= ts; w->next++) {
            const trace_event *x = &tr->events[w->ev[w->next]];
            /* what ended before this event starts holds no later record */
            while (w->depth && tr->events[w->stack[w->depth - 1]].ts +
                                       tr->events[w->stack[w->depth - 1]].dur <= x->ts)
                w->depth--;
            if (vec_grow_heap((void **)&w->stack, &w->cap, w->depth, sizeof *w->stack) < 0)
                goto out;
            w->stack[w->depth++] = w->ev[w->next];
        }
        while (w->depth && tr->events[w->stack[w->depth - 1]].ts +
                                   tr->events[w->stack[w->depth - 1]].dur <= ts)
            w->depth--;
        /* the innermost event holding the record whose node holds calls
           the model counts: with no_python a Python frame has no node (its
           time is its caller's); in a model of a window (a range, a step)
           an event begun before it counts for nothing (its node, if it
           calls counted ones, has no calls: no profile's stack ends
           there); no such event: the track's root. In a model scoped
           otherwise (a keep mask and no window) a record outside the
           scope's events counts for no node */
        uint32_t node = MODEL_NONE;
        for (size_t k = w->depth; k-- > 0 && node == MODEL_NONE;) {
            node = m->ev_node[w->stack[k]];
            if (node != MODEL_NONE && !m->nodes[node].calls)
                node = MODEL_NONE;
        }
        if (node == MODEL_NONE && (!model_is_scoped(m) || m->scope.kind != MODEL_SCOPE_NONE))
            node = m->tracks[track].root;
        if (add_record(mem, t, live, r, node == MODEL_NONE ? MEMORY_NONE : node) < 0)
            goto out;
    }
    rc = 0;
out:
    for (size_t k = 0; sw && k < nsw; k++)
        free(sw[k].stack);
    free(sw);
    free(sw_of);
    free(es);
    vec_free(evs, nev, sizeof *evs);
    return rc;
}

/* From the records' own figures in t: including children and the merged
   tree (the operators: memory_ops_scoped). */
static int node_figures(memory *mem, struct table *t)
{
    const model *m = mem->m;
    int rc = -1;
    /* including children: each node's own figures go to it and its ancestors */
    size_t nself = t->n;
    for (size_t i = 0; i < nself; i++) {
        memory_stat self = t->v[i].st;
        uint32_t dev = t->v[i].device;
        for (uint32_t p = m->nodes[t->v[i].node].parent; p != MODEL_NONE; p = m->nodes[p].parent) {
            memory_node *e = entry(t, p, dev);
            if (!e)
                goto out;
            memory_add_incl(&e->st, &self);
        }
        memory_add_incl(&t->v[i].st, &self);
    }
    if (t->n > 1) /* none in an empty range: t->v may be NULL, which qsort must not get */
        qsort(t->v, t->n, sizeof *t->v, memory_cmp_node);
    mem->nodes = t->v;
    mem->nnodes = t->n;
    t->v = NULL;

    /* the merged tree adds up the per-track nodes */
    hmap_done(&t->map);
    *t = (struct table){ 0 };
    if (hmap_init(&t->map, 1024) < 0)
        goto out;
    for (size_t i = 0; i < mem->nnodes; i++) {
        const memory_node *x = &mem->nodes[i];
        memory_node *e = entry(t, m->node_merged[x->node], x->device);
        if (!e)
            goto out;
        add_all(&e->st, &x->st);
    }
    if (t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, memory_cmp_node);
    mem->mnodes = t->v;
    mem->nmnodes = t->n;
    t->v = NULL;
    rc = 0;
out:
    return rc;
}

/* ---- the operator rows ---- */

int memory_ops_scoped(const memory *mem, const uint8_t *sel, memory_op **out, size_t *nout)
{
    const model *m = mem->m;
    memory_op *rows = NULL;
    size_t n = 0, cap = 0;
    hmap map; /* op << 8 | device -> row: ndevices is at most 255 */
    uint32_t *stamp = malloc((m->nops ? m->nops : 1) * sizeof *stamp);
    if (!stamp || hmap_init(&map, 256) < 0) {
        free(stamp);
        return -1;
    }
    for (size_t i = 0; i < m->nops; i++)
        stamp[i] = UINT32_MAX;
    for (size_t i = 0; i < mem->nnodes; i++) {
        const memory_node *x = &mem->nodes[i];
        if (sel && !sel[x->node])
            continue;
        if (!x->st.self_alloc_count && !x->st.self_increase_bytes && !x->st.live_count)
            continue;
        /* each operator on the stack once, however often it recurs (as
           device total time counts it) */
        for (uint32_t p = x->node; p != MODEL_NONE; p = m->nodes[p].parent) {
            uint32_t op = m->nodes[p].op;
            if (op == MODEL_NONE || stamp[op] == (uint32_t)i)
                continue;
            stamp[op] = (uint32_t)i;
            uint64_t key = (uint64_t)op << 8 | x->device;
            uint32_t k = hmap_get(&map, key);
            if (k == UINT32_MAX) {
                k = (uint32_t)n;
                if (vec_grow_heap((void **)&rows, &cap, n, sizeof *rows) < 0 ||
                    hmap_put(&map, key, k) < 0)
                    goto fail;
                rows[n++] = (memory_op){ .op = op, .device = x->device };
            }
            memory_op *o = &rows[k];
            memory_add_incl(&o->st, &x->st);
            if (p == x->node) {
                o->st.self_alloc_count += x->st.self_alloc_count;
                o->st.self_alloc_bytes += x->st.self_alloc_bytes;
                o->st.self_increase_bytes += x->st.self_increase_bytes;
                o->st.live_count += x->st.live_count;
                o->st.live_bytes += x->st.live_bytes;
            }
        }
    }
    if (n > 1) /* rows is NULL when none, which qsort must not get */
        qsort(rows, n, sizeof *rows, memory_cmp_op);
    hmap_done(&map);
    free(stamp);
    *out = rows;
    *nout = n;
    return 0;
fail:
    hmap_done(&map);
    free(stamp);
    free(rows);
    return -1;
}

memory *memory_build(const model *m, t2p_error *err)
{
    const trace *tr = m->tr;
    memory *mem = calloc(1, sizeof *mem);
    if (!mem)
        goto nomem;
    mem->m = m;
    mem->nrecords = tr->nmems;
    mem->windowed = m->scope.kind != MODEL_SCOPE_NONE;
    mem->t0 = m->scope.kind != MODEL_SCOPE_NONE ? m->scope.start : INT64_MIN;
    mem->t1 = m->scope.kind != MODEL_SCOPE_NONE ? m->scope.end : INT64_MAX;
    if (!tr->nmems)
        return mem;
    if (tr->nmems >= MEMORY_NONE - 1) {
        error_set(err, T2P_ERR_ARG, tr->path, -1, "too many memory records (%zu)", tr->nmems);
        memory_free(mem);
        return NULL;
    }
    if (find_devices(mem, tr) < 0)
        goto nomem;
    if (mem->ndevices > 255) {
        error_set(err, T2P_ERR_ARG, tr->path, -1, "memory records on %zu devices (255 at most)",
                  mem->ndevices);
        memory_free(mem);
        return NULL;
    }
    /* by_time only when the file is out of time order */
    size_t i;
    for (i = 1; i < tr->nmems; i++)
        if (trace_mem_ts(tr, i) < trace_mem_ts(tr, i - 1))
            break;
    if (i < tr->nmems) {
        if (!(mem->by_time = vec_alloc(tr->nmems, sizeof *mem->by_time)))
            goto nomem;
        for (size_t k = 0; k < tr->nmems; k++)
            mem->by_time[k] = (uint32_t)k;
        if (sort_idx(mem->by_time, tr->nmems, cmp_rec, tr) < 0)
            goto nomem;
    }
    /* which allocations are live at the end: a bit each, only while building */
    unsigned char *live = calloc(tr->nmems / 8 + 1, 1);
    struct table t = { 0 };
    int rc = live && hmap_init(&t.map, 1024) == 0 && device_figures(mem, live) == 0 &&
             attribute(mem, &t, live) == 0 && node_figures(mem, &t) == 0 &&
             memory_ops_scoped(mem, NULL, &mem->ops, &mem->nops) == 0
                 ? 0 : -1;
    hmap_done(&t.map);
    free(t.v);
    free(live);
    if (rc < 0)
        goto nomem;
    return mem;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory building the memory figures");
    memory_free(mem);
    return NULL;
}

void memory_free(memory *mem)
{
    if (!mem)
        return;
    vec_free(mem->by_time, mem->nrecords, sizeof *mem->by_time);
    free(mem->devices);
    free(mem->ops);
    free(mem->nodes);
    free(mem->mnodes);
    free(mem->stream_dev);
    free(mem);
}

/* ---- queries ---- */

size_t memory_curve(const memory *mem, uint32_t device, int64_t t0, int64_t t1, int64_t *out,
                    size_t ncols)
{
    for (size_t c = 0; c < ncols; c++)
        out[c] = -1;
    if (!mem || device >= mem->ndevices || !ncols || t1 <= t0)
        return 0;
    const trace *tr = mem->m->tr;
    struct levels lv;
    if (levels_init(&lv, mem) < 0) {
        levels_done(&lv);
        return 0;
    }
    int64_t level = -1, span = t1 - t0;
    size_t seen = 0, col = 0;
    for (size_t j = 0; j < mem->nrecords; j++) {
        uint32_t r = at(mem, j);
        uint32_t d = rec_dev(mem, r);
        int64_t ts = trace_mem_ts(tr, r);
        if (ts >= t1)
            break;
        /* every record moves the level source along, whatever its device */
        int64_t x = levels_next(&lv, r, d, trace_mem_bytes(tr, r));
        if (d != device)
            continue;
        size_t c = ts < t0 ? 0 : (size_t)((__int128)(ts - t0) * (__int128)ncols / span);
        /* the slices up to this one start at the level the last record left */
        for (; col < c; col++)
            if (level > out[col + 1])
                out[col + 1] = level;
        if (x >= 0 || !mem->devices[d].has_totals)
            level = x; /* a record without totals leaves the level as it was */
        seen++;
        if (ts < t0)
            out[0] = level;
        else if (level > out[c])
            out[c] = level;
    }
    levels_done(&lv);
    for (; seen && col + 1 < ncols; col++)
        if (level > out[col + 1])
            out[col + 1] = level;
    return seen;
}
