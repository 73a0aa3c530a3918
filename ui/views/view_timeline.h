/* The Timeline view (ui/views/view_timeline.c). */
#ifndef T2P_VIEW_TIMELINE_H
#define T2P_VIEW_TIMELINE_H

#include <stdint.h>

#include "ui/view_types.h"

/* Every view covers [start, end) on the trace's clock (a time range,
   core/analyses/range.h), as the Timeline view's range keys do: for
   --range. 0, or -1 with the reason in the status line. */
int view_timeline_set_range(view *v, int64_t start, int64_t end);

#endif
