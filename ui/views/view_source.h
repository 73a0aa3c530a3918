/* The source pane (ui/views/view_source.c). */
#ifndef T2P_VIEW_SOURCE_H
#define T2P_VIEW_SOURCE_H

#include <stddef.h>

#include "ui/view_types.h"

/* ui/views/view_source.c: the source pane on file[0, len) at line (a Python
   frame's), with the time per line of core/pylines. */
void view_source_open(view *v, const char *file, size_t len, unsigned line);

#endif
