/* A selection of call-tree stacks: what `convert --focus/--ignore/--thread`
   keeps, and what the TUI's focus and filter put on screen. One mechanism,
   so that the export of "what is on screen" and the CLI agree. */
#ifndef T2P_SELECT_H
#define T2P_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"

typedef struct select_spec {
    const char *focus_re;  /* keep stacks with a frame matching this POSIX ERE; NULL: no test */
    const char *ignore_re; /* drop stacks with a frame matching; NULL: no test */
    const char *thread_re; /* keep stacks whose track label matches; NULL: no test */
    uint32_t focus_op;     /* keep stacks holding this op (model->ops index); MODEL_NONE: no test */
    uint32_t focus_mnode;  /* keep stacks at or below this merged-tree node; MODEL_NONE: no test */
    const char *filter;    /* keep stacks with a frame whose name contains this (smart
                              case: select_name_has); NULL: no test */
} select_spec;

/* Whether name[0..len) contains pat[0..plen), smart case as in less and
   vim: in any case unless pat holds a capital letter, then exactly. The
   TUI's filter and search, and the filter here, all test names this way. */
bool select_name_has(const char *name, size_t len, const char *pat, size_t plen);

/* Sets every test off. */
void select_init(select_spec *s);

/* A mask over model->nodes: keep[i] is 1 when the stack ending at node i is
   selected (roots are 0). Returns a new array (caller frees) or NULL with err
   set (bad regex: T2P_ERR_ARG; no memory). */
uint8_t *select_nodes(const model *m, const select_spec *s, t2p_error *err);

/* Per op, its cum within the selection keep (NULL: every stack): the self
   time of the kept stacks that hold the op at least once, as go tool pprof's
   cum of the selected profile. Fills cum[0..model->nops). With keep NULL it
   equals model_op.cum_ns. O(total length of the kept stacks). Returns 0, or
   -1 with err set when out of memory. */
int select_cum(const model *m, const uint8_t *keep, int64_t *cum, t2p_error *err);

/* Compiles the spec's regular expressions and reports the first bad one
   (T2P_ERR_ARG), so that a front can refuse it before loading a trace.
   Returns 0 or -1 with err set. */
int select_check(const select_spec *s, t2p_error *err);

#endif
