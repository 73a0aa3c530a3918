/* The Ranks view (ui/views/view_ranks.c): the ranks of a job. */
#ifndef T2P_VIEW_RANKS_H
#define T2P_VIEW_RANKS_H

#include "ui/view_types.h"

/* The ranks of a job opened together (ui/views/view_ranks.c): the Ranks view lists
   them and Enter on one points every view at its model; the All ranks view
   shows their operators merged. j is not owned and outlives v; the view's
   model must be one of j's. Without it the Ranks view shows the one trace. */
struct ranks_job;
void view_attach_ranks(view *v, const struct ranks_job *j);

#endif
