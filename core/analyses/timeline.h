/* The timeline: each track's time as stretches labelled by what ran, for
   the explorer's Timeline view (and any front that draws time along an
   axis). No curses.

   Rows: the GPU streams first, grouped by device, each device's streams
   after a utilisation strip (the union of its GPU work); then the CPU
   threads. A stream's row holds its GPU work alone (kernels, memcpy,
   memset: annotations on a GPU row are no work), so that it and its
   device's strip tell the same busy time. At each instant of a track the
   innermost open event, and the role the Steps view gives that instant
   (core/analyses/steps.h: of the open events, the role first in the
   split's priority order, Kernel before Memcpy ... before CPU Exec). Per
   row and per role, the stretches of that role and their running sum: the
   time of a role in any window [a, b) is two binary searches, so a screen
   costs O(columns x rows x roles x log stretches) whatever the zoom, never
   O(events). (The equivalent of a summary at every power-of-two
   resolution, exact at every zoom.)

   Built in one sweep of each track's events, the tracks on m->opts.jobs
   threads, the roles from core/analyses/steps_roles.h (not steps_build:
   the timeline needs no step's split). 8 bytes an event besides the
   stretches: the innermost event at a time is found from the events in
   order and, per event, the one open under it (no array of segments). */
#ifndef T2P_TIMELINE_H
#define T2P_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analyses/steps.h" /* the roles */
#include "core/base/error.h"
#include "core/model/model.h"

#define TIMELINE_NONE UINT32_MAX

/* A stretch of one role on a row starts at s; cum: the time of the
   stretches before it. It ends at s + (the next one's cum - cum): each
   role's stretches are followed by one more entry, {the last one's end,
   their total}. 16 bytes a stretch (an end of its own made the timeline a
   third bigger, and writing fresh memory is most of its build). */
typedef struct timeline_run {
    int64_t s, cum;
} timeline_run;

/* The stretches of one role on a row, in time order, disjoint, none
   touching the next: r[0 .. n), and r[n] the end entry when n > 0. */
typedef struct timeline_runs {
    timeline_run *r;
    size_t n, cap;
} timeline_runs;

enum timeline_kind {
    TIMELINE_STREAM, /* a GPU stream */
    TIMELINE_UTIL,   /* a device's utilisation strip: runs[0] holds its busy time */
    TIMELINE_THREAD  /* a CPU thread */
};

typedef struct timeline_row {
    enum timeline_kind kind;
    uint32_t track;  /* the trace track; for a strip, its device's first stream's */
    int device;      /* the GPU device (from the process's label or name), -1: none */
    /* runs[r] for r < STEPS_OTHER: the role's stretches; runs[STEPS_OTHER]:
       the busy time (any event open) */
    timeline_runs runs[STEPS_NROLES];
    /* its events, by (ts, dur desc): order[first .. first + nev) */
    size_t first, nev;
    /* the runs' memory, owned: one block (NULL: none, or a strip sharing
       its one stream's busy stretches), mapped by vec_alloc or malloc'd */
    timeline_run *block;
    size_t nblock;
    bool mapped;
} timeline_row;

/* A step's mark on the ruler: a ProfilerStep# event's [start, end), the
   steps' host windows (steps_step.host_start, host_end) in steps_build's
   order. */
typedef struct timeline_mark {
    int64_t start, end;
    uint32_t event, name;
} timeline_mark;

typedef struct timeline {
    const model *m;  /* the whole trace's, not owned */
    timeline_row *rows;
    size_t nrows;
    /* the events of the rows' tracks, each row's run sorted: the model's
       nest_order when it kept it (then not owned), else the timeline's */
    uint32_t *order;
    bool own_order;
    bool sorted; /* the model's order: sorted already */
    /* per position j in order: the position of the event open under it when
       it was drawn (the sweep's stack below it), TIMELINE_NONE: none; for an
       event that fills no time of its row (an instant, a stream's
       annotation), the innermost open then */
    uint32_t *under;
    timeline_mark *marks; /* none when the trace has no ProfilerStep# */
    size_t nmarks;
    int64_t start, end; /* the window drawn: the model's window */
} timeline;

/* The timeline of m (a model of the whole trace, which must outlive it).
   NULL with err set when out of memory. */
timeline *timeline_build(const model *m, t2p_error *err);
void timeline_free(timeline *t);

/* The step number text of mark i: "1011" for ProfilerStep#1011 (as
   steps_label). Owned by the trace's strings. */
const char *timeline_mark_label(const timeline *t, size_t i);

/* The mark whose window holds time x, or SIZE_MAX: the step steps_at(...,
   x, true) gives, by its rule (core/analyses/steps.h: steps_window_at),
   without building the steps. */
size_t timeline_mark_at(const timeline *t, int64_t x);

/* Time of role r on row i within [a, b). */
int64_t timeline_role_ns(const timeline *t, size_t i, int r, int64_t a, int64_t b);

/* What filled most of [a, b) on row i: a role, or -1 when idle time did;
   *busy (may be NULL) gets the time some event was open. A strip: role 0
   when busy more than idle, *busy its GPU busy time. */
int timeline_cell(const timeline *t, size_t i, int64_t a, int64_t b, int64_t *busy);

/* The innermost event open at time x on row i, or TIMELINE_NONE. */
uint32_t timeline_event_at(const timeline *t, size_t i, int64_t x);

/* The first event of row i starting after x (dir > 0), or the last one
   starting before x (dir < 0); TIMELINE_NONE when there is none. */
uint32_t timeline_step_event(const timeline *t, size_t i, int64_t x, int dir);

/* The launch (a CPU runtime event) of GPU event e, by correlation, or
   TIMELINE_NONE. O(log correlations). */
uint32_t timeline_launch_of(const timeline *t, uint32_t e);

/* The row showing track k (not a strip), or SIZE_MAX. */
size_t timeline_row_of_track(const timeline *t, uint32_t k);

#endif
