/* Every view's table (ui/view_table.c): the views of VIEW_LIST and
   VIEW_PANES (ui/view_types.h) by their struct view_ops, and a view made
   over them. Above the views, which it lists, and below the program. */
#ifndef T2P_VIEW_TABLE_H
#define T2P_VIEW_TABLE_H

#include <stddef.h>

#include "core/model/model.h"
#include "ui/view_types.h"

/* A view over m (which must outlive it) showing every view; comparing
   (o->cmp) the Ops, Categories, Tree, Threads and Callers views are their
   compare twins (ui/cmp.h). o NULL: the defaults. NULL when out of memory. */
view *view_table_new(const model *m, const view_opts *o);

/* View tab's table. */
const struct view_ops *view_table_ops(enum view_tab tab);

/* The view called name (its --view name or alias), or -1. */
int view_table_by_name(const char *name);
/* Every view's --view name in tab order, ", " between them, into buf. */
const char *view_table_names(char *buf, size_t size);

#endif
