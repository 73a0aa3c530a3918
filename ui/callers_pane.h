/* What the two Callers panes share (i in the Tree or Ops: of one trace,
   ui/views/view_callers.c, and of a comparison, view_cmp_callers.c): their
   rows, their own sort, where the cursor lands on opening and the keys they
   take. Each pane builds its own inverted tree; this knows only its rows. */
#ifndef T2P_CALLERS_PANE_H
#define T2P_CALLERS_PANE_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/keys.h"
#include "ui/tree_rows.h"
#include "ui/view_types.h"

/* The first member of each pane's state (view_state(v, VIEW_CALLERS)), so
   that callers_pane_own_sort finds it. */
typedef struct callers_pane {
    tree_rows rows;       /* over the pane's nodes; each top an operator */
    bool has_rows;
    enum model_sort sort; /* its own sort: by time from the start */
    bool reverse;
} callers_pane;

/* The rows freed (none: nothing); the pane keeps its sort. */
void callers_pane_done(callers_pane *p);

/* Rows just built: with all (every operator on top) each top folded, a list
   of operators; one operator alone shows its callers. */
void callers_pane_fold(callers_pane *p, bool all);

/* On opening: the cursor on the top row of operator op (as rows.nodes[].op
   names it; MODEL_NONE: the first row), and none in the status line when no
   stack ends there. */
void callers_pane_place(view *v, callers_pane *p, uint32_t op, const char *none);

/* The keys of a pane: i, Esc and q close it, the keys that would act on a
   stack (Enter's drill, focus, merge, source, export) say it only shows, the
   tree moves move. VIEW_DRAW_* bits, or -1 for any other key (sorting is the
   generic cycling on own_sort). */
int callers_pane_action(view *v, callers_pane *p, enum key_act act);

/* The view_ops.own_sort of both panes. */
void callers_pane_own_sort(view *v, enum model_sort **sort, bool **reverse);

#endif
