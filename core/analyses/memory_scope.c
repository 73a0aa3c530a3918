#include "config.h"

#include "core/analyses/memory_scope.h"

#include <stdlib.h>

memory_scoped *memory_scope_build(const memory *mem, const uint8_t *sel, t2p_error *err)
{
    size_t ndev = mem->ndevices ? mem->ndevices : 1;
    memory_scoped *ms = calloc(1, sizeof *ms);
    if (!ms)
        goto nomem;
    ms->view = *mem;
    ms->view.ops = NULL;
    ms->view.nops = 0;
    ms->sel = sel;
    if (!(ms->devs = calloc(ndev, sizeof *ms->devs)))
        goto nomem;
    for (size_t i = 0; i < mem->nnodes; i++) {
        const memory_node *x = &mem->nodes[i];
        if (sel && !sel[x->node])
            continue;
        memory_scope_dev *d = &ms->devs[x->device];
        d->allocs += x->st.self_alloc_count;
        d->alloc_bytes += x->st.self_alloc_bytes;
        d->increase_bytes += x->st.self_increase_bytes;
        d->live_allocs += x->st.live_count;
        d->live_bytes += x->st.live_bytes;
    }
    /* the operator rows: memory_build's computation, with sel */
    if (memory_ops_scoped(mem, sel, &ms->view.ops, &ms->view.nops) < 0)
        goto nomem;
    return ms;
nomem:
    memory_scope_free(ms);
    error_set(err, T2P_ERR_NOMEM, mem->m->tr->path, -1, "out of memory counting a scope's memory");
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
