/* The role each event has in the Steps split (core/analyses/steps.h:
   Kernel, Memcpy, ..., CPU Exec) and the ProfilerStep# events, without
   building the steps: a front that draws events by role (the Timeline)
   needs these alone, and steps_build's windows, lists and split cost
   several times more on a large trace.

   The rules (TensorBoard's) live here and steps_build reads them from
   here: the role from the event's category (core/model/catkind.h) and what
   its name says (ProfilerStep#, DataLoader, nccl:/gloo: collectives); a
   kernel whose External id is a communication operator's is Communication.
   tests/unit/test_timeline checks steps_ev_role equal on every event of
   the fixtures.

   Costs one pass over the trace's strings and, only when some name is a
   ProfilerStep# or a collective, one pass over the events. */
#ifndef T2P_STEPS_ROLES_H
#define T2P_STEPS_ROLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/catkind.h"
#include "core/model/model.h"

typedef struct steps_roles {
    const model *m;        /* not owned */
    unsigned char *nclass; /* per strtab id: what the name says */
    uint32_t nstr;
    uint32_t *comm;        /* External ids of communication operators, sorted */
    size_t ncomm;
    /* The ProfilerStep# events steps_build makes its steps of, in its order
       (by start, then event index) */
    uint32_t *step_ev;
    size_t nsteps;
} steps_roles;

/* What a name says (steps_roles.nclass bits). */
enum {
    STEPS_NAME_STEP = 1,       /* ProfilerStep#N */
    STEPS_NAME_DATALOADER = 2, /* enumerate(DataLoader)#...__next__, enumerate(DataPipe)#... */
    STEPS_NAME_COMM = 4,       /* nccl:/gloo: broadcast, reduce, all_reduce, all_gather, reduce_scatter */
    STEPS_NAME_DP = 8          /* DataParallel.forward */
};

/* The role of an event of kind k whose name has bits nc, by category and
   name alone (a kernel of a communication operator: see steps_roles_of),
   or -1 for none (a ProfilerStep# is a step, not a role). */
int steps_roles_role(enum catkind k, unsigned nc);

/* Whether ext is the External id of a communication operator (its kernels
   are Communication). */
bool steps_roles_comm_id(const steps_roles *r, uint32_t ext);


/* Fills r for m (a model of the whole trace; it must outlive r). 0, or -1
   with err set when out of memory; r is then empty (steps_roles_done is
   still fine). */
int steps_roles_init(steps_roles *r, const model *m, t2p_error *err);
void steps_roles_done(steps_roles *r);

/* The role of trace event e (an enum steps_role below STEPS_OTHER), or -1
   for none: steps_ev_role's answer. */
int steps_roles_of(const steps_roles *r, uint32_t e);

#endif
