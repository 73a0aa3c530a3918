/* Two models side by side: what changed between a base trace and a new one
   (or two steps of one). Operators are matched by their (name, category)
   strings (ProfilerStep#N already merged as ProfilerStep* by the models),
   categories by name, merged call-tree nodes by the path of operators from
   the root. Every figure is the models' own: a delta is new minus base. */
#ifndef T2P_COMPARE_H
#define T2P_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"
#include "core/base/strtab.h"

/* One side's figures of a row or node. calls is a double only because
   --per-step divides it; undivided it holds an exact integer. */
typedef struct compare_fig {
    double calls;
    int64_t self_ns, total_ns;
    int64_t dev_self_ns, dev_total_ns;
} compare_fig;

enum compare_status {
    COMPARE_BOTH,
    COMPARE_ADDED,   /* only in the new trace */
    COMPARE_REMOVED  /* only in the base trace */
};

/* An operator (or a category: cat is then STRTAB_NONE) of either trace. */
typedef struct compare_row {
    uint32_t name, cat;      /* ids in compare->strs */
    uint32_t base, new;      /* op (cat) index in each model, MODEL_NONE when absent */
    enum compare_status status;
    compare_fig b, n;        /* zero on the side where it is absent */
} compare_row;

/* A node of the two merged trees merged: the same path of operators. */
typedef struct compare_node {
    uint32_t row;            /* index into compare->ops; MODEL_NONE for the root */
    uint32_t base, new;      /* mnode index in each model, MODEL_NONE when absent */
    uint32_t parent, first_child, next_sibling; /* MODEL_NONE when none */
    uint32_t depth;
    bool gpu;
    enum compare_status status;
    compare_fig b, n;
} compare_node;

typedef struct compare_opts {
    /* divide each side's figures by these (--per-step: kept steps); 0 or 1
       leaves them as they are */
    uint64_t base_div, new_div;
} compare_opts;

typedef struct compare {
    const model *base, *new; /* not owned; must outlive the compare */
    strtab *strs;            /* owned: names and categories of both traces */
    compare_row *ops;
    size_t nops;
    compare_row *cats;
    size_t ncats;
    /* Tracks with events, matched by their label "PROCESS / THREAD"
       (trace_track_fullname); base/new are track indices. Figures:
       calls = events, self_ns = busy time (a GPU stream's: its GPU busy),
       total_ns = the longest idle gap. */
    compare_row *threads;
    size_t nthreads;
    compare_node *nodes;     /* nodes[0] is the root; a parent comes before its children */
    size_t nnodes;
    uint32_t *base_node, *new_node; /* per model mnode: its compare node */
    uint64_t base_div, new_div;     /* 1 when not dividing */
    compare_fig base_busy, new_busy; /* busy time (self_ns) and complete events (calls) */
} compare;

/* Matches base and new. NULL with err set when out of memory. opts may be NULL. */
compare *compare_build(const model *base, const model *new, const compare_opts *opts,
                       t2p_error *err);
void compare_free(compare *c);

/* Two other trees of the compared models (model_node arrays with one
   root at 0 and a parent before its children, e.g. core/callers' merged
   inverted trees of base and new) matched as compare_build matches the
   call trees: by the path of operators (c's rows) from the root, with
   their figures (divided as c's). Returns *n nodes (node 0 the root; the
   caller frees them) or NULL when out of memory. */
compare_node *compare_pair_trees(const compare *c, const model_node *base, size_t nbase,
                                 const model_node *new, size_t nnew, size_t *n);

/* new minus base, figure by figure */
compare_fig compare_delta(const compare_fig *b, const compare_fig *n);

/* Δ self as a percentage of base self; 0 when base self is 0. */
double compare_delta_pct(const compare_fig *b, const compare_fig *n);

enum compare_sort {
    COMPARE_SORT_DELTA_SELF,  /* |Δ self| descending: the default */
    COMPARE_SORT_DELTA_TOTAL,
    COMPARE_SORT_DELTA_CALLS,
    COMPARE_SORT_DELTA_DEVICE_SELF,
    COMPARE_SORT_DELTA_DEVICE_TOTAL,
    COMPARE_SORT_DELTA_PCT,   /* |Δ self %|, rows only in one trace first */
    COMPARE_SORT_SELF,        /* the new trace's figures (the base's for a removed row) */
    COMPARE_SORT_TOTAL,
    COMPARE_SORT_CALLS,
    COMPARE_SORT_NAME,
    COMPARE_SORT_DEVICE_SELF,
    COMPARE_SORT_DEVICE_TOTAL,
    COMPARE_SORT_N
};

/* "delta_self", ..., "self", ...; parse also takes "delta" (delta_self),
   "device" (device_total) and "delta_device"; -1 for an unknown name. */
const char *compare_sort_name(enum compare_sort s);
int compare_sort_parse(const char *s);

/* Fills idx[0..n) with indices into rows in sort order (descending for
   figures, ascending for names; reversed when reverse). Ties break by name,
   then category. */
void compare_sort_rows(const compare *c, const compare_row *rows, size_t n,
                       enum compare_sort s, bool reverse, uint32_t *idx);

const char *compare_str(const compare *c, uint32_t id);
size_t compare_strlen(const compare *c, uint32_t id);

#endif
