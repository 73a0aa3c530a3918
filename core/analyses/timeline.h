/* The timeline: each track's time as stretches labelled by what ran, for
   the explorer's Timeline view (and any front that draws time along an
   axis). No curses.

   Rows: the GPU streams first, grouped by device, each device's streams
   after a utilisation strip (the union of its GPU work); then the CPU
   threads. A stream's row holds its GPU work alone (kernels, memcpy,
   memset: annotations on a GPU row are no work), so that it and its
   device's strip tell the same busy time. Each track's time is cut into segments: at each instant the
   innermost open event, and the role the Steps view gives that instant
   (core/analyses/steps.h: of the open events, the role first in the
   split's priority order, Kernel before Memcpy ... before CPU Exec). Per
   row and per role, the stretches of that role and their running sum: the
   time of a role in any window [a, b) is two binary searches, so a screen
   costs O(columns x rows x roles x log segments) whatever the zoom, never
   O(events). (The equivalent of a summary at every power-of-two
   resolution, exact at every zoom.) */
#ifndef T2P_TIMELINE_H
#define T2P_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analyses/steps.h"
#include "core/base/error.h"
#include "core/model/model.h"

#define TIMELINE_NONE UINT32_MAX

/* A row's segment: [start, the next one's start) (the last ends at the
   row's end); event: the innermost event open there (TIMELINE_NONE: idle),
   role: its steps_role or -1. */
typedef struct timeline_seg {
    int64_t start;
    uint32_t event;
    int32_t role;
} timeline_seg;

/* The stretches of one role on a row, in time order, disjoint; cum[i]: the
   time of stretches 0..i-1. */
typedef struct timeline_runs {
    int64_t *s, *e, *cum;
    size_t n;
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
    timeline_seg *seg;
    size_t nseg;
    int64_t end;     /* the end of the last segment */
    timeline_runs runs[STEPS_NROLES];
    /* its events, by (ts, dur desc): order[first .. first + nev) */
    size_t first, nev;
} timeline_row;

typedef struct timeline {
    const model *m;  /* the whole trace's, not owned */
    const steps *st; /* not owned */
    timeline_row *rows;
    size_t nrows;
    uint32_t *order; /* the events of the rows' tracks, each row's run sorted */
    int64_t start, end; /* the window drawn: the model's window */
} timeline;

/* The timeline of m (a model of the whole trace) with st's roles. Both
   must outlive it. NULL with err set when out of memory. */
timeline *timeline_build(const model *m, const steps *st, t2p_error *err);
void timeline_free(timeline *t);

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
