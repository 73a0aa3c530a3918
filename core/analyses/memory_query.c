/* Lookups into a built memory model, its sort orders and the step
   recommendation (core/analyses/memory.c builds it). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/memory.h"

const memory_stat *memory_node_stat(const memory *mem, bool merged, uint32_t node, uint32_t device)
{
    if (!mem)
        return NULL;
    const memory_node *v = merged ? mem->mnodes : mem->nodes;
    size_t lo = 0, hi = merged ? mem->nmnodes : mem->nnodes;
    memory_node key = { .node = node, .device = device };
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = memory_cmp_node(&v[mid], &key);
        if (c == 0)
            return &v[mid].st;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int memory_node_scoped(const memory *mem, bool merged, uint32_t device, const uint8_t *sel,
                       memory_stat *out)
{
    const model *m = mem->m;
    const model_node *nodes = merged ? m->mnodes : m->nodes;
    size_t n = merged ? m->nmnodes : m->nnodes;
    memset(out, 0, n * sizeof *out);
    if (device >= mem->ndevices)
        return -1;
    const memory_node *v = merged ? mem->mnodes : mem->nodes;
    size_t nv = merged ? mem->nmnodes : mem->nnodes;
    for (size_t i = 0; i < nv; i++) {
        uint32_t u = v[i].node;
        if (v[i].device != device || (sel && !sel[u]))
            continue;
        memory_stat *o = &out[u];
        o->self_alloc_count = v[i].st.self_alloc_count;
        o->self_alloc_bytes = v[i].st.self_alloc_bytes;
        o->self_increase_bytes = v[i].st.self_increase_bytes;
        o->live_count = v[i].st.live_count;
        o->live_bytes = v[i].st.live_bytes;
    }
    /* a node's index is above its parent's: children are done first */
    for (size_t u = n; u-- > 0;) {
        memory_add_incl(&out[u], &out[u]);
        /* add_incl added u's own; its children added theirs before */
        if (nodes[u].parent != MODEL_NONE) {
            memory_stat *p = &out[nodes[u].parent];
            p->alloc_count += out[u].alloc_count;
            p->alloc_bytes += out[u].alloc_bytes;
            p->increase_bytes += out[u].increase_bytes;
        }
    }
    return 0;
}

const memory_stat *memory_op_stat(const memory *mem, uint32_t op, uint32_t device)
{
    if (!mem)
        return NULL;
    size_t lo = 0, hi = mem->nops;
    memory_op key = { .op = op, .device = device };
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = memory_cmp_op(&mem->ops[mid], &key);
        if (c == 0)
            return &mem->ops[mid].st;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
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
    if (mem->nops > 1)
        qsort(idx, mem->nops, sizeof *idx, cmp_sort);
    return device == MEMORY_NONE ? mem->nops : n;
}

bool memory_recommend(const memory *mem, steps *st)
{
    const trace *tr = st->m->tr;
    for (size_t i = 0; mem && i < mem->ndevices; i++) {
        const memory_device *d = &mem->devices[i];
        if (d->device < 0 || d->device >= 16)
            continue; /* the CPU, or a device deviceProperties cannot name */
        if (steps_recommend_memory(st, d->device, d->peak_bytes, tr->gpu_total_mem[d->device]))
            return true;
    }
    return false;
}
