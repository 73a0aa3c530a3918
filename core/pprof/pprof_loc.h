/* The functions and locations of a pprof profile (for core/pprof/pprof.c): one
   function and location per operator, the category as its file name; Python
   frames (core/load/pyframe.h) as functions with their file, one location per
   line. Also each node's stack length, so stacks can be written into one
   path buffer. A plain record the caller owns; _init / _done. */
#ifndef T2P_PPROF_LOC_H
#define T2P_PPROF_LOC_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/hmap.h"
#include "core/model/model.h"
#include "core/pprof/profile.pb-c.h"
#include "core/model/shortname.h"
#include "core/base/strtab.h"

typedef struct pprof_locs {
    const model *m;
    strtab *strs;                  /* the profile's string table (not owned) */
    const shortnames *short_names; /* NULL: full operator names */
    /* per op: 1 when its frames are left out of every stack, as go tool
       pprof -hide does: a frame's time goes to its caller, and a shown frame
       has no Call stack frames (Python frames hidden, or every frame but the
       nn.Module calls); NULL: none (set after init, not owned) */
    const uint8_t *hide_op;
    Perftools__Profiles__Location *locs;  /* id = index + 1 */
    Perftools__Profiles__Location **loc_ptrs;
    Perftools__Profiles__Line *lines;     /* one per location */
    Perftools__Profiles__Line **line_ptrs;
    Perftools__Profiles__Function *funcs; /* id = index + 1 */
    Perftools__Profiles__Function **func_ptrs;
    size_t nlocs, nfuncs, loccap, funccap;
    uint32_t *oploc;    /* per op: its location id, 0 until a stack uses it */
    strtab *frames;     /* Call stack frames' text -> index into frameloc */
    uint32_t *frameloc; /* their location ids */
    size_t framecap;
    hmap funcmap;       /* Python frames: (name, file) string ids -> function id */
    uint32_t *outer;    /* per node: the Call stack in effect above it, STRTAB_NONE */
    uint32_t *ld;       /* per node: its stack's length in locations (0 for a root) */
} pprof_locs;

/* 0, or -1 when out of memory (pprof_locs_done is due either way). */
int pprof_locs_init(pprof_locs *L, const model *m, strtab *strs, const shortnames *sn);
void pprof_locs_done(pprof_locs *L);

/* Every node's outer Call stack, in index order (parents first). Linear. */
void pprof_locs_outer(pprof_locs *L);

/* Gives node (a non-root whose parent was done before it, or is a root)
   its stack length and makes the locations its stack adds. 0 or -1. */
int pprof_locs_node(pprof_locs *L, uint32_t node);

/* Writes the locations node adds to its stack at at[0..] (its operator,
   then its Call stack frames innermost first). Returns how many. */
size_t pprof_locs_fill(const pprof_locs *L, uint32_t node, uint64_t *at);

/* Links the structs protobuf-c packs once no more locations come. 0 or -1. */
int pprof_locs_finish(pprof_locs *L);

#endif
