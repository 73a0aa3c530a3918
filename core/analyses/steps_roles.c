/* Each event's role in the Steps split without the steps (see
   core/analyses/steps_roles.h). */
#include "config.h"

#include "core/analyses/steps_roles.h"

#include <stdlib.h>
#include <string.h>

#include "core/analyses/steps_types.h"
#include "core/base/vec.h"
#include "core/model/catkind.h"

static bool starts(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && memcmp(s, p, k) == 0;
}

/* the STEPS_NAME_* bits of the name s (n bytes) */
static unsigned name_class(const char *s, size_t n)
{
    static const char *const comm[] = { "broadcast", "reduce", "all_reduce", "all_gather",
                                        "reduce_scatter" };
    unsigned c = 0;
    if (catkind_step_name(s, n))
        c |= STEPS_NAME_STEP;
    if ((starts(s, n, "enumerate(DataLoader)#") && n >= 9 && !memcmp(s + n - 9, ".__next__", 9)) ||
        starts(s, n, "enumerate(DataPipe)#"))
        c |= STEPS_NAME_DATALOADER;
    if (starts(s, n, "nccl:") || starts(s, n, "gloo:"))
        for (size_t i = 0; i < sizeof comm / sizeof comm[0]; i++)
            if (n - 5 == strlen(comm[i]) && !memcmp(s + 5, comm[i], n - 5))
                c |= STEPS_NAME_COMM;
    if (n == 20 && !memcmp(s, "DataParallel.forward", 20))
        c |= STEPS_NAME_DP;
    return c;
}

static enum catkind kind_of(const steps_roles *r, uint32_t e)
{
    uint32_t cat = r->m->tr->events[e].cat;
    return cat < r->m->ncatkind ? (enum catkind)r->m->catkind[cat] : CATKIND_NONE;
}

static unsigned class_of(const steps_roles *r, uint32_t e)
{
    uint32_t name = r->m->tr->events[e].name;
    return name < r->nstr ? r->nclass[name] : 0;
}

int steps_roles_role(enum catkind k, unsigned nc)
{
    switch (k) {
    case CATKIND_KERNEL: return STEPS_KERNEL;
    case CATKIND_MEMCPY: return STEPS_MEMCPY;
    case CATKIND_MEMSET: return STEPS_MEMSET;
    case CATKIND_RUNTIME: return STEPS_RUNTIME;
    case CATKIND_CPU_OP:
    case CATKIND_USER_ANNOTATION:
    case CATKIND_GPU_ANNOTATION:
        if (nc & STEPS_NAME_DATALOADER)
            return STEPS_DATALOADER;
        if (nc & STEPS_NAME_STEP)
            return -1; /* a step, not a role */
        /* fallthrough */
    case CATKIND_PYTHON:
        return nc & STEPS_NAME_COMM ? STEPS_COMMUNICATION : STEPS_CPU_OP;
    default:
        return -1;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

struct step_key {
    int64_t ts;
    uint32_t e;
};

/* steps_build's order of its steps: start, then event index */
static int cmp_step(const void *a, const void *b)
{
    const struct step_key *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

/* appends v to a growing array; -1 when out of memory */
static int push(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
    if (vec_grow_heap((void **)a, cap, *n, sizeof **a) < 0)
        return -1;
    (*a)[(*n)++] = v;
    return 0;
}

/* whether an event of kind k whose name has bits nc is a step's
   ProfilerStep#N call */
static bool is_step(enum catkind k, unsigned nc)
{
    return (nc & STEPS_NAME_STEP) && catkind_is_step_kind(k);
}

int steps_roles_init(steps_roles *r, const model *m, t2p_error *err)
{
    const trace *tr = m->tr;
    memset(r, 0, sizeof *r);
    r->m = m;
    r->nstr = strtab_count(tr->strs);
    if (!(r->nclass = malloc(r->nstr ? r->nstr : 1)))
        goto nomem;
    unsigned any = 0;
    for (uint32_t i = 0; i < r->nstr; i++) {
        r->nclass[i] = (unsigned char)name_class(strtab_str(tr->strs, i), strtab_len(tr->strs, i));
        any |= r->nclass[i];
    }
    if (!(any & (STEPS_NAME_STEP | STEPS_NAME_COMM)))
        return 0; /* no step and no collective: no event to look at */
    size_t capc = 0, caps = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        unsigned nc = class_of(r, (uint32_t)e);
        if (!(nc & (STEPS_NAME_STEP | STEPS_NAME_COMM)))
            continue;
        enum catkind k = kind_of(r, (uint32_t)e);
        if (is_step(k, nc) && push(&r->step_ev, &r->nsteps, &caps, (uint32_t)e) < 0)
            goto nomem;
        /* a communication operator's id: its kernels are Communication */
        if ((nc & STEPS_NAME_COMM) && tr->events[e].ext && (catkind_is_step_kind(k) || k == CATKIND_PYTHON) &&
            push(&r->comm, &r->ncomm, &capc, tr->events[e].ext) < 0)
            goto nomem;
    }
    if (r->ncomm > 1)
        qsort(r->comm, r->ncomm, sizeof *r->comm, cmp_u32);
    if (r->nsteps > 1) {
        struct step_key *k = malloc(r->nsteps * sizeof *k);
        if (!k)
            goto nomem;
        for (size_t i = 0; i < r->nsteps; i++)
            k[i] = (struct step_key){ tr->events[r->step_ev[i]].ts, r->step_ev[i] };
        qsort(k, r->nsteps, sizeof *k, cmp_step);
        for (size_t i = 0; i < r->nsteps; i++)
            r->step_ev[i] = k[i].e;
        free(k);
    }
    return 0;
nomem:
    steps_roles_done(r);
    r->m = m;
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory classifying the events");
    return -1;
}

void steps_roles_done(steps_roles *r)
{
    if (!r)
        return;
    free(r->nclass);
    free(r->comm);
    free(r->step_ev);
    memset(r, 0, sizeof *r);
}

int steps_roles_of(const steps_roles *r, uint32_t e)
{
    enum catkind k = kind_of(r, e);
    int role = steps_roles_role(k, class_of(r, e));
    if (role == STEPS_KERNEL && steps_roles_comm_id(r, r->m->tr->events[e].ext))
        return STEPS_COMMUNICATION;
    return role;
}

bool steps_roles_comm_id(const steps_roles *r, uint32_t ext)
{
    return ext && r->ncomm && bsearch(&ext, r->comm, r->ncomm, sizeof *r->comm, cmp_u32);
}
