/* The scope: what every view shows. A stack of focus entries (Enter on an
   operator or a category, f on a tree node) and a name filter; a stack of
   the model's call tree is in the scope when it passes every entry. The
   scope computes, per call tree (per-track or merged), which stacks are
   selected and the selected time at or below each node, once per change.
   No curses and no view here.

   Extending: a new kind of entry (a step selection, ...) is a new
   scope_kind plus its test in scope.c's kind_hit and its text in
   scope_entry_text. */
#ifndef T2P_SCOPE_H
#define T2P_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"
#include "core/model/select.h"

enum scope_kind {
    SCOPE_OP,    /* stacks through an operator (Enter in Ops) */
    SCOPE_CAT,   /* stacks through any operator of a category (Enter in Categories) */
    SCOPE_NODE,  /* stacks at or below a per-track node (f in the per-track tree) */
    SCOPE_MNODE, /* stacks at or below a merged node (f in the merged tree) */
    SCOPE_TRACK  /* stacks on a track, and GPU work that ran on it (Enter in Threads) */
};

typedef struct scope_entry {
    enum scope_kind kind;
    uint32_t id;
} scope_entry;

#define SCOPE_MAX 16
#define SCOPE_TEXT 256

/* The scope over one call tree: all arrays have one entry per node. */
typedef struct scope_mask {
    bool active;     /* false: no scope, every stack selected (arrays unused) */
    uint8_t *shown;  /* the node is on a path to a selected stack */
    uint8_t *sel;    /* the stack ending at the node is selected */
    int64_t *scum;   /* self time of the selected stacks at or below the node */
    int64_t *sdev;   /* device time of the selected stacks at or below */
    uint64_t *scalls; /* calls of the shown nodes at or below the node (a root: the
                         scope's calls on its track) */
    uint32_t *bits;  /* scratch: which entries the stack to each node passes */
    uint32_t gen;    /* the scope_gen it was computed for */
} scope_mask;

typedef struct scope scope;

/* A scope over m (which must outlive it): empty. NULL when out of memory. */
scope *scope_new(const model *m);
void scope_free(scope *s);

/* Pushes an entry; -1 when SCOPE_MAX deep. */
int scope_push(scope *s, enum scope_kind kind, uint32_t id);
/* Pops the last entry; false when there is none. */
bool scope_pop(scope *s);
int scope_depth(const scope *s);
const scope_entry *scope_entry_at(const scope *s, int i);

/* The name filter ("" for none); copied. */
void scope_set_filter(scope *s, const char *text);
const char *scope_filter(const scope *s);
/* Whether a name passes the filter (true without one). */
bool scope_name_passes(const scope *s, const char *name);

/* Sets to (an empty scope over another model of the same trace, e.g. a
   step's) to from's filter and entries, each found by what it names (an
   operator or category by name, a node by its path of operators). Stops
   at the first entry to's model lacks; returns how many entries carried. */
int scope_carry(scope *to, const scope *from);

/* Whether an entry can only be told in the per-track trees (a per-track
   node, a track): the merged tree then selects nothing. */
bool scope_per_track(const scope *s);

/* Whether there is any entry, filter or restriction. */
bool scope_active(const scope *s);

/* Narrows the per-track selection to the stacks keep selects (a mask over
   model->nodes as export_select and select_nodes give; NULL: no
   restriction), on top of the entries and the filter: for selections the
   entries cannot say (a --focus regular expression, --ignore, --thread),
   so that analyze's figures (scope_ops, scope_cats, scope_tracks,
   scope_busy) count exactly the stacks convert writes. keep is borrowed: it
   must outlive its use. The merged tree's mask does not see it (a merged
   node holds stacks of several tracks): scope_mask_of(s, true) ignores it. */
void scope_restrict(scope *s, const uint8_t *keep);
/* Bumped on every change. */
uint32_t scope_gen(const scope *s);

/* The mask over the per-track (merged false) or merged call tree, computed
   when stale. NULL when out of memory. */
const scope_mask *scope_mask_of(scope *s, bool merged);

/* Self time of the scope's stacks (the model's busy time without a scope). */
int64_t scope_busy(scope *s);

/* The figures of an operator, category or track within the scope, from
   the per-track call trees: calls of the frames on the scope's stacks,
   self time of the selected stacks ending at the op, total (the selected
   time at or below its frames, recursion counted again as PyTorch does),
   cum (the same counting each stack once: pprof's cum), device figures
   likewise. For a track: calls its frames' calls, self_ns its CPU time in
   the scope, dev_total_ns the GPU time of the scope's stacks that ran on
   it (a stream), dev_events their count. */
typedef struct scope_fig {
    uint64_t calls;
    int64_t self_ns, total_ns, cum_ns, dev_self_ns, dev_total_ns;
    uint64_t dev_events;
} scope_fig;

/* Per op (model->ops order), per category (model->cats) and per track
   (model->tracks): NULL when the scope is empty (the model's figures hold)
   or out of memory. Computed once per scope change, in one pass. */
const scope_fig *scope_ops(scope *s);
const scope_fig *scope_cats(scope *s);
const scope_fig *scope_tracks(scope *s);
/* The ops on the scope's stacks (a call, time or GPU work in it) into
   order, sorted by their figures in the scope (key, largest first; ties
   and MODEL_SORT_NAME by name; reverse flips), as the Ops view and analyze
   list them. Without a scope: every op by model_sort_ops. order has room
   for model->nops. Returns how many. */
size_t scope_sort_ops(scope *s, enum model_sort key, bool reverse, uint32_t *order);

/* The category index of op (for views that group ops). */
uint32_t scope_op_cat(scope *s, uint32_t op);

/* One entry as text: "aten::mm", "category cuda", ... */
void scope_entry_text(const scope *s, const scope_entry *e, char *buf, size_t size);

/* The scope as a select_spec (tests off when empty). Returns false when the
   scope has a part select_spec cannot say (a category or per-track node);
   scope_keep then gives the mask. s->filter points into the scope. */
bool scope_spec(const scope *s, select_spec *spec);

/* The scope as a mask over model->nodes, like select_nodes: 1 for a
   selected stack, roots 0. NULL when out of memory. Caller frees. */
uint8_t *scope_keep(scope *s);

/* ---- the scope on a command line: one spelling for analyze, convert and
   the explorer (#23). Each entry is one option:
     --focus OP          stacks through operator OP (Enter in Ops)
     --focus A>B>C       stacks at or below the call path A>B>C from the top
                         of a stack (f in the Tree); ">A" is a path of one
     --category CAT      stacks through any operator of category CAT
     --track LABEL       stacks on one thread or stream, as the Threads view
                         names it (a per-track node is --track + its path)
   and --filter TEXT is the name filter. Entries stack (every one must pass),
   in the order given. */

/* The option (without "--") and the value that say entry e: "focus" and
   "aten::mm". Entry NODE needs two options: *opt2/val2 get the second
   (--focus PATH after --track LABEL), "" when there is none. Returns 0, or
   -1 when a buffer is too small. */
int scope_entry_arg(const scope *s, const scope_entry *e, const char **opt, char *val,
                    size_t size, const char **opt2, char *val2, size_t size2);

/* Pushes the entry that option opt ("focus", "category", "track") with
   value val names in s's model. Returns 0; 1 when val names nothing in the
   model (the caller decides: --focus then falls back to a regular
   expression); -1 when the scope is full. */
int scope_push_arg(scope *s, const char *opt, const char *val);

#endif
