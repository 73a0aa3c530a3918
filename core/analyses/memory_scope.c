#include "config.h"

#include "core/analyses/memory_scope.h"

#include <stdlib.h>
#include <string.h>

/* Adds node record x's own figures to op's row on its device: the row is
   found or made in rows[0..*n) through slot[op * ndev + dev]. */
static memory_op *row_of(memory_op **rows, size_t *n, size_t *cap, uint32_t *slot,
                         size_t ndev, uint32_t op, uint32_t dev)
{
    uint32_t *s = &slot[(size_t)op * ndev + dev];
    if (*s != UINT32_MAX)
        return &(*rows)[*s];
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        memory_op *nr = realloc(*rows, nc * sizeof *nr);
        if (!nr)
            return NULL;
        *rows = nr;
        *cap = nc;
    }
    *s = (uint32_t)*n;
    (*rows)[*n] = (memory_op){ .op = op, .device = dev };
    return &(*rows)[(*n)++];
}

memory_scoped *memory_scope_build(const memory *mem, const uint8_t *sel, t2p_error *err)
{
    const model *m = mem->m;
    memory_scoped *ms = calloc(1, sizeof *ms);
    uint32_t *slot = NULL, *stamp = NULL;
    memory_op *rows = NULL;
    size_t n = 0, cap = 0, ndev = mem->ndevices ? mem->ndevices : 1;
    if (!ms)
        goto nomem;
    ms->view = *mem;
    ms->view.ops = NULL;
    ms->view.nops = 0;
    ms->sel = sel;
    ms->devs = calloc(ndev, sizeof *ms->devs);
    /* one slot per (op, device): a few devices, so a flat table */
    slot = malloc((m->nops ? m->nops : 1) * ndev * sizeof *slot);
    stamp = malloc((m->nops ? m->nops : 1) * sizeof *stamp);
    if (!ms->devs || !slot || !stamp)
        goto nomem;
    memset(slot, 0xff, (m->nops ? m->nops : 1) * ndev * sizeof *slot);
    memset(stamp, 0xff, (m->nops ? m->nops : 1) * sizeof *stamp);
    for (size_t i = 0; i < mem->nnodes; i++) {
        const memory_node *x = &mem->nodes[i];
        if (sel && !sel[x->node])
            continue;
        if (!x->st.self_alloc_count && !x->st.self_increase_bytes && !x->st.live_count)
            continue;
        memory_scope_dev *d = &ms->devs[x->device];
        d->allocs += x->st.self_alloc_count;
        d->alloc_bytes += x->st.self_alloc_bytes;
        d->increase_bytes += x->st.self_increase_bytes;
        d->live_allocs += x->st.live_count;
        d->live_bytes += x->st.live_bytes;
        /* each operator on the stack once, however often it recurs (as
           memory_build and device total time count it) */
        for (uint32_t p = x->node; p != MODEL_NONE; p = m->nodes[p].parent) {
            uint32_t op = m->nodes[p].op;
            if (op == MODEL_NONE || stamp[op] == (uint32_t)i)
                continue;
            stamp[op] = (uint32_t)i;
            memory_op *o = row_of(&rows, &n, &cap, slot, ndev, op, x->device);
            if (!o)
                goto nomem;
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
    if (n > 1)
        qsort(rows, n, sizeof *rows, memory_cmp_op);
    ms->view.ops = rows;
    ms->view.nops = n;
    free(slot);
    free(stamp);
    return ms;
nomem:
    free(rows);
    free(slot);
    free(stamp);
    memory_scope_free(ms);
    error_set(err, T2P_ERR_NOMEM, m->tr->path, -1, "out of memory counting a scope's memory");
    return NULL;
}

void memory_scope_free(memory_scoped *ms)
{
    if (!ms)
        return;
    free(ms->view.ops);
    free(ms->devs);
    free(ms);
}
