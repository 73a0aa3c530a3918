#include "config.h"

#include "core/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hmap.h"
#include "core/vec.h"

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
    const trace_mem *r = ctx;
    if (r[a].ts != r[b].ts)
        return r[a].ts < r[b].ts ? -1 : 1;
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
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        memory_node *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        t->v = nv;
        t->cap = nc;
    }
    if (hmap_put(&t->map, key, (uint32_t)t->n) < 0)
        return NULL;
    memory_node *e = &t->v[t->n++];
    memset(e, 0, sizeof *e);
    e->node = node;
    e->device = dev;
    return e;
}

static void add_incl(memory_stat *to, const memory_stat *self)
{
    to->alloc_count += self->self_alloc_count;
    to->alloc_bytes += self->self_alloc_bytes;
    to->increase_bytes += self->self_increase_bytes;
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

static int cmp_node_entry(const void *pa, const void *pb)
{
    const memory_node *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return a->device < b->device ? -1 : (a->device > b->device);
}

static int cmp_op_entry(const void *pa, const void *pb)
{
    const memory_op *a = pa, *b = pb;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    return a->device < b->device ? -1 : (a->device > b->device);
}

/* ---- building ---- */

static int find_devices(memory *mem, const trace *tr)
{
    /* device values are int16: a bitmap of the ones used */
    static const size_t N = 65536;
    unsigned char *used = calloc(N, 1);
    if (!used)
        return -1;
    for (size_t i = 0; i < tr->nmems; i++)
        used[(uint16_t)(tr->mems[i].device - TRACE_MEM_CPU)] = 1;
    size_t n = 0;
    for (size_t d = 0; d < N; d++)
        n += used[d];
    mem->devices = calloc(n ? n : 1, sizeof *mem->devices);
    if (!mem->devices) {
        free(used);
        return -1;
    }
    for (size_t d = 0; d < N; d++) {
        if (!used[d])
            continue;
        memory_device *v = &mem->devices[mem->ndevices++];
        v->device = (int16_t)((int)d + TRACE_MEM_CPU);
        if (v->device == TRACE_MEM_CPU)
            snprintf(v->name, sizeof v->name, "CPU");
        else
            snprintf(v->name, sizeof v->name, "GPU%d", (int)v->device);
        v->peak_record = MEMORY_NONE;
        v->peak_node = MEMORY_NONE;
        v->reserved_at_peak = -1;
    }
    free(used);
    return 0;
}

static uint32_t device_index(const memory *mem, int16_t dev)
{
    for (size_t i = 0; i < mem->ndevices; i++)
        if (mem->devices[i].device == dev)
            return (uint32_t)i;
    return 0;
}

/* rec_node for every record: one sweep per track over its events in
   (ts asc, dur desc) order with a stack of the events that may still hold
   the next record. */
static int attribute(memory *mem)
{
    const model *m = mem->m;
    const trace *tr = m->tr;
    size_t nt = tr->ntracks;
    int rc = -1;
    size_t *es = calloc(nt + 1, sizeof *es), *rs = calloc(nt + 1, sizeof *rs);
    uint32_t *evs = NULL, *recs = NULL, *stack = NULL;
    size_t nev = 0;
    if (!es || !rs)
        goto out;
    for (size_t i = 0; i < tr->nmems; i++)
        rs[tr->mems[i].track + 1]++;
    for (size_t i = 0; i < tr->nevents; i++)
        if (rs[tr->events[i].track + 1]) {
            es[tr->events[i].track + 1]++;
            nev++;
        }
    for (size_t k = 0; k < nt; k++) {
        es[k + 1] += es[k];
        rs[k + 1] += rs[k];
    }
    evs = vec_alloc(nev, sizeof *evs);
    recs = vec_alloc(tr->nmems, sizeof *recs);
    if ((nev && !evs) || (tr->nmems && !recs))
        goto out;
    {
        size_t *fe = malloc((nt ? nt : 1) * sizeof *fe), *fr = malloc((nt ? nt : 1) * sizeof *fr);
        if (!fe || !fr) {
            free(fe);
            free(fr);
            goto out;
        }
        memcpy(fe, es, nt * sizeof *fe);
        memcpy(fr, rs, nt * sizeof *fr);
        for (size_t i = 0; i < tr->nevents; i++) {
            uint32_t k = tr->events[i].track;
            if (rs[k + 1] != rs[k])
                evs[fe[k]++] = (uint32_t)i;
        }
        for (size_t j = 0; j < tr->nmems; j++) {
            uint32_t r = mem->by_time[j];
            recs[fr[tr->mems[r].track]++] = r;
        }
        free(fe);
        free(fr);
    }
    size_t maxn = 0;
    for (size_t k = 0; k < nt; k++)
        if (es[k + 1] - es[k] > maxn)
            maxn = es[k + 1] - es[k];
    stack = malloc((maxn ? maxn : 1) * sizeof *stack);
    if (!stack)
        goto out;
    for (size_t k = 0; k < nt; k++) {
        if (rs[k + 1] == rs[k])
            continue;
        uint32_t *ev = evs + es[k];
        size_t n = es[k + 1] - es[k], depth = 0, e = 0;
        if (sort_idx(ev, n, cmp_ev, tr->events) < 0)
            goto out;
        uint32_t root = m->tracks[k].root;
        for (size_t j = rs[k]; j < rs[k + 1]; j++) {
            uint32_t r = recs[j];
            int64_t t = tr->mems[r].ts;
            for (; e < n && tr->events[ev[e]].ts <= t; e++) {
                int64_t s = tr->events[ev[e]].ts;
                /* what ended before this event starts holds no later record */
                while (depth && tr->events[stack[depth - 1]].ts + tr->events[stack[depth - 1]].dur <= s)
                    depth--;
                stack[depth++] = ev[e];
            }
            while (depth && tr->events[stack[depth - 1]].ts + tr->events[stack[depth - 1]].dur <= t)
                depth--;
            /* in a scoped model (model_opts.keep) records in or under events
               out of the scope, or outside every event, count for no node */
            uint32_t node = depth ? m->ev_node[stack[depth - 1]] : m->scoped ? MODEL_NONE : root;
            mem->rec_node[r] = node == MODEL_NONE ? MEMORY_NONE : node;
        }
    }
    rc = 0;
out:
    free(es);
    free(rs);
    vec_free(evs, nev, sizeof *evs);
    vec_free(recs, tr->nmems, sizeof *recs);
    free(stack);
    return rc;
}

/* Peaks, counts, and allocations matched to frees by address, in time order. */
static int device_figures(memory *mem, unsigned char *live_rec)
{
    const trace *tr = mem->m->tr;
    int rc = -1;
    hmap *live = calloc(mem->ndevices ? mem->ndevices : 1, sizeof *live);
    int64_t *run = calloc(mem->ndevices ? mem->ndevices : 1, sizeof *run);
    size_t ninit = 0;
    if (!live || !run)
        goto out;
    for (; ninit < mem->ndevices; ninit++)
        if (hmap_init(&live[ninit], 1024) < 0)
            goto out;
    for (size_t i = 0; i < tr->nmems; i++)
        if (tr->mems[i].flags & TRACE_MEM_TOTALS)
            mem->devices[mem->rec_dev[i]].has_totals = true;
    for (size_t j = 0; j < tr->nmems; j++) {
        uint32_t r = mem->by_time[j];
        const trace_mem *x = &tr->mems[r];
        uint32_t d = mem->rec_dev[r];
        memory_device *v = &mem->devices[d];
        v->records++;
        if (x->bytes > 0) {
            v->allocs++;
            v->alloc_bytes += x->bytes;
        } else if (x->bytes < 0) {
            v->frees++;
            v->free_bytes -= x->bytes;
        }
        if (mem->m->tracks[x->track].root == mem->rec_node[r])
            v->unattributed++;
        run[d] += x->bytes;
        int64_t level = -1;
        if (v->has_totals) {
            if (x->flags & TRACE_MEM_TOTALS)
                level = tr->mem_totals[r].allocated;
        } else {
            level = run[d];
        }
        if (level >= 0 && (v->peak_record == MEMORY_NONE || level > v->peak_bytes)) {
            v->peak_bytes = level;
            v->peak_record = r;
            v->peak_ns = x->ts;
            v->peak_node = mem->rec_node[r];
            v->reserved_at_peak = tr->mem_totals ? tr->mem_totals[r].reserved : -1;
        }
        if (!(x->flags & TRACE_MEM_ADDR))
            continue;
        v->has_addr = true;
        if (x->bytes > 0) {
            /* a second allocation at a live address forgets the first, as
               TensorBoard does: its free was not recorded */
            if (hmap_put(&live[d], x->addr, r) < 0)
                goto out;
        } else if (x->bytes < 0) {
            uint32_t a = hmap_get(&live[d], x->addr);
            if (a != UINT32_MAX && a != MEMORY_NONE - 1) {
                mem->free_of[a] = r;
                v->matched++;
                v->lifetime_ns += x->ts - tr->mems[a].ts;
                if (hmap_put(&live[d], x->addr, MEMORY_NONE - 1) < 0)
                    goto out;
            } else {
                v->unmatched_frees++;
                v->unmatched_free_bytes -= x->bytes;
            }
        }
    }
    /* live at the end: allocations the map still holds */
    for (size_t d = 0; d < mem->ndevices; d++) {
        memory_device *v = &mem->devices[d];
        if (!v->has_addr)
            v->live_bytes_at_end = run[d];
        for (size_t s = 0; s <= live[d].mask && live[d].keys; s++) {
            uint32_t val = live[d].vals[s];
            if (!val || val - 1 >= MEMORY_NONE - 1)
                continue;
            uint32_t a = val - 1;
            live_rec[a] = 1;
            v->live_allocs_at_end++;
            v->live_bytes_at_end += tr->mems[a].bytes;
        }
    }
    rc = 0;
out:
    for (size_t d = 0; d < ninit; d++)
        hmap_done(&live[d]);
    free(live);
    free(run);
    return rc;
}

static memory_op *op_entry(memory *mem, hmap *map, size_t *cap, uint32_t op, uint32_t dev)
{
    uint64_t key = (uint64_t)op << 8 | dev;
    uint32_t k = hmap_get(map, key);
    if (k != UINT32_MAX)
        return &mem->ops[k];
    if (mem->nops == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        memory_op *no = realloc(mem->ops, nc * sizeof *no);
        if (!no)
            return NULL;
        mem->ops = no;
        *cap = nc;
    }
    k = (uint32_t)mem->nops;
    if (hmap_put(map, key, k) < 0)
        return NULL;
    mem->nops++;
    mem->ops[k] = (memory_op){ .op = op, .device = dev };
    return &mem->ops[k];
}

static int node_figures(memory *mem, const unsigned char *live)
{
    const model *m = mem->m;
    const trace *tr = m->tr;
    struct table t = { 0 };
    hmap opmap;
    bool opmap_ok = false;
    size_t opcap = 0;
    uint32_t *stamp = NULL;
    int rc = -1;
    if (hmap_init(&t.map, 1024) < 0)
        goto out;
    for (size_t r = 0; r < tr->nmems; r++) {
        if (mem->rec_node[r] == MEMORY_NONE)
            continue;
        memory_node *e = entry(&t, mem->rec_node[r], mem->rec_dev[r]);
        if (!e)
            goto out;
        int64_t b = tr->mems[r].bytes;
        e->st.self_increase_bytes += b;
        if (b > 0) {
            e->st.self_alloc_count++;
            e->st.self_alloc_bytes += b;
        }
        if (live[r]) {
            e->st.live_count++;
            e->st.live_bytes += b;
        }
    }
    /* including children: each node's own figures go to it and its ancestors */
    size_t nself = t.n;
    for (size_t i = 0; i < nself; i++) {
        memory_stat self = t.v[i].st;
        uint32_t dev = t.v[i].device;
        for (uint32_t p = t.v[i].node; p != MODEL_NONE; p = m->nodes[p].parent) {
            memory_node *e = entry(&t, p, dev);
            if (!e)
                goto out;
            add_incl(&e->st, &self);
        }
    }
    qsort(t.v, t.n, sizeof *t.v, cmp_node_entry);
    mem->nodes = t.v;
    mem->nnodes = t.n;
    t.v = NULL;

    /* the merged tree adds up the per-track nodes */
    hmap_done(&t.map);
    t = (struct table){ 0 };
    if (hmap_init(&t.map, 1024) < 0)
        goto out;
    for (size_t i = 0; i < mem->nnodes; i++) {
        const memory_node *x = &mem->nodes[i];
        memory_node *e = entry(&t, m->node_merged[x->node], x->device);
        if (!e)
            goto out;
        add_all(&e->st, &x->st);
    }
    /* an operator: its own records, and each record under it once, however
       often the operator recurs on the stack (as device total time) */
    stamp = malloc((m->nops ? m->nops : 1) * sizeof *stamp);
    if (!stamp || hmap_init(&opmap, 256) < 0)
        goto out;
    opmap_ok = true;
    for (size_t i = 0; i < m->nops; i++)
        stamp[i] = UINT32_MAX;
    for (size_t i = 0; i < mem->nnodes; i++) {
        const memory_node *x = &mem->nodes[i];
        if (!x->st.self_alloc_count && !x->st.self_increase_bytes && !x->st.live_count)
            continue;
        for (uint32_t p = x->node; p != MODEL_NONE; p = m->nodes[p].parent) {
            uint32_t op = m->nodes[p].op;
            if (op == MODEL_NONE || stamp[op] == (uint32_t)i)
                continue;
            stamp[op] = (uint32_t)i;
            memory_op *o = op_entry(mem, &opmap, &opcap, op, x->device);
            if (!o)
                goto out;
            add_incl(&o->st, &x->st);
            if (p == x->node) {
                o->st.self_alloc_count += x->st.self_alloc_count;
                o->st.self_alloc_bytes += x->st.self_alloc_bytes;
                o->st.self_increase_bytes += x->st.self_increase_bytes;
                o->st.live_count += x->st.live_count;
                o->st.live_bytes += x->st.live_bytes;
            }
        }
    }
    qsort(t.v, t.n, sizeof *t.v, cmp_node_entry);
    if (mem->nops)
        qsort(mem->ops, mem->nops, sizeof *mem->ops, cmp_op_entry);
    mem->mnodes = t.v;
    mem->nmnodes = t.n;
    t.v = NULL;
    rc = 0;
out:
    if (opmap_ok)
        hmap_done(&opmap);
    free(stamp);
    hmap_done(&t.map);
    free(t.v);
    return rc;
}

memory *memory_build(const model *m, t2p_error *err)
{
    const trace *tr = m->tr;
    memory *mem = calloc(1, sizeof *mem);
    if (!mem)
        goto nomem;
    mem->m = m;
    mem->nrecords = tr->nmems;
    if (!tr->nmems)
        return mem;
    if (tr->nmems >= MEMORY_NONE - 1) {
        error_set(err, T2P_ERR_ARG, tr->path, -1, "too many memory records (%zu)", tr->nmems);
        memory_free(mem);
        return NULL;
    }
    mem->rec_node = vec_alloc(tr->nmems, sizeof *mem->rec_node);
    mem->rec_dev = vec_alloc(tr->nmems, sizeof *mem->rec_dev);
    mem->free_of = vec_alloc(tr->nmems, sizeof *mem->free_of);
    mem->by_time = vec_alloc(tr->nmems, sizeof *mem->by_time);
    if (!mem->rec_node || !mem->rec_dev || !mem->free_of || !mem->by_time)
        goto nomem;
    if (find_devices(mem, tr) < 0)
        goto nomem;
    if (mem->ndevices > 255) {
        error_set(err, T2P_ERR_ARG, tr->path, -1, "memory records on %zu devices (255 at most)",
                  mem->ndevices);
        memory_free(mem);
        return NULL;
    }
    for (size_t i = 0; i < tr->nmems; i++) {
        mem->by_time[i] = (uint32_t)i;
        mem->free_of[i] = MEMORY_NONE;
        int16_t dev = tr->mems[i].device;
        mem->rec_dev[i] = i && tr->mems[i - 1].device == dev ? mem->rec_dev[i - 1]
                                                              : device_index(mem, dev);
    }
    unsigned char *live = calloc(tr->nmems, 1);
    if (!live || sort_idx(mem->by_time, tr->nmems, cmp_rec, tr->mems) < 0 || attribute(mem) < 0 ||
        device_figures(mem, live) < 0 || node_figures(mem, live) < 0) {
        free(live);
        goto nomem;
    }
    free(live);
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
    size_t n = mem->nrecords;
    vec_free(mem->rec_node, n, sizeof *mem->rec_node);
    vec_free(mem->rec_dev, n, sizeof *mem->rec_dev);
    vec_free(mem->free_of, n, sizeof *mem->free_of);
    vec_free(mem->by_time, n, sizeof *mem->by_time);
    free(mem->devices);
    free(mem->ops);
    free(mem->nodes);
    free(mem->mnodes);
    free(mem);
}

/* ---- queries ---- */

const memory_stat *memory_node_stat(const memory *mem, bool merged, uint32_t node, uint32_t device)
{
    if (!mem)
        return NULL;
    const memory_node *v = merged ? mem->mnodes : mem->nodes;
    size_t lo = 0, hi = merged ? mem->nmnodes : mem->nnodes;
    memory_node key = { .node = node, .device = device };
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_node_entry(&v[mid], &key);
        if (c == 0)
            return &v[mid].st;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const memory_stat *memory_op_stat(const memory *mem, uint32_t op, uint32_t device)
{
    if (!mem)
        return NULL;
    size_t lo = 0, hi = mem->nops;
    memory_op key = { .op = op, .device = device };
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_op_entry(&mem->ops[mid], &key);
        if (c == 0)
            return &mem->ops[mid].st;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

size_t memory_curve(const memory *mem, uint32_t device, int64_t t0, int64_t t1, int64_t *out,
                    size_t ncols)
{
    for (size_t c = 0; c < ncols; c++)
        out[c] = -1;
    if (!mem || device >= mem->ndevices || !ncols || t1 <= t0)
        return 0;
    const trace *tr = mem->m->tr;
    bool totals = mem->devices[device].has_totals;
    int64_t level = -1, run = 0, span = t1 - t0;
    size_t seen = 0, col = 0;
    for (size_t j = 0; j < mem->nrecords; j++) {
        uint32_t r = mem->by_time[j];
        if (mem->rec_dev[r] != device)
            continue;
        const trace_mem *x = &tr->mems[r];
        if (x->ts >= t1)
            break;
        size_t c = x->ts < t0 ? 0 : (size_t)((__int128)(x->ts - t0) * (__int128)ncols / span);
        /* the slices up to this one start at the level the last record left */
        for (; col < c; col++)
            if (level > out[col + 1])
                out[col + 1] = level;
        run += x->bytes;
        if (totals) {
            if (x->flags & TRACE_MEM_TOTALS)
                level = tr->mem_totals[r].allocated;
        } else {
            level = run;
        }
        seen++;
        if (x->ts < t0)
            out[0] = level;
        else if (level > out[c])
            out[c] = level;
    }
    for (; seen && col + 1 < ncols; col++)
        if (level > out[col + 1])
            out[col + 1] = level;
    return seen;
}

uint32_t memory_step_at(const steps *s, int64_t ts)
{
    if (!s || s->whole_trace)
        return STEPS_NONE;
    for (size_t i = 0; i < s->nsteps; i++)
        if (s->steps[i].host_start <= ts && ts < s->steps[i].host_end)
            return (uint32_t)i;
    return STEPS_NONE;
}

/* ---- sorting ---- */

static const char *const sort_names[MEMORY_SORT_N] = { "alloc_size", "alloc_count",
                                                       "size_increase" };

const char *memory_sort_name(enum memory_sort s)
{
    return (unsigned)s < MEMORY_SORT_N ? sort_names[s] : "?";
}

int memory_sort_parse(const char *s)
{
    for (int i = 0; i < MEMORY_SORT_N; i++)
        if (strcmp(s, sort_names[i]) == 0)
            return i;
    return -1;
}

static _Thread_local struct {
    const memory *mem;
    enum memory_sort s;
    uint32_t device;
} sctx;

static void keys(const memory_op *o, enum memory_sort s, int64_t *k)
{
    switch (s) {
    case MEMORY_SORT_ALLOC_COUNT:
        k[0] = (int64_t)o->st.alloc_count;
        k[1] = (int64_t)o->st.self_alloc_count;
        break;
    case MEMORY_SORT_SIZE_INCREASE:
        k[0] = o->st.increase_bytes;
        k[1] = o->st.self_increase_bytes;
        break;
    default:
        k[0] = o->st.alloc_bytes;
        k[1] = o->st.self_alloc_bytes;
        break;
    }
}

static int cmp_sort(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const memory_op *x = &sctx.mem->ops[a], *y = &sctx.mem->ops[b];
    if (sctx.device != MEMORY_NONE && (x->device == sctx.device) != (y->device == sctx.device))
        return x->device == sctx.device ? -1 : 1;
    int64_t kx[2], ky[2];
    keys(x, sctx.s, kx);
    keys(y, sctx.s, ky);
    for (int i = 0; i < 2; i++)
        if (kx[i] != ky[i])
            return kx[i] > ky[i] ? -1 : 1;
    int c = strcmp(model_op_name(sctx.mem->m, x->op), model_op_name(sctx.mem->m, y->op));
    if (c)
        return c;
    return a < b ? -1 : (a > b);
}

size_t memory_sort_ops(const memory *mem, enum memory_sort s, uint32_t device, uint32_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < mem->nops; i++) {
        idx[i] = (uint32_t)i;
        if (device == MEMORY_NONE || mem->ops[i].device == device)
            n++;
    }
    sctx.mem = mem;
    sctx.s = s;
    sctx.device = device;
    qsort(idx, mem->nops, sizeof *idx, cmp_sort);
    return device == MEMORY_NONE ? mem->nops : n;
}
