/* Every view's table, in tab order, and the compare twins: the one place
   that knows all the views. The view state (ui/view.c) gets these tables
   from here when a view is made, so that it never names a view and the
   views, which call it, are not called back by name. */
#include "config.h"

#include "ui/view_table.h"

#include <stdio.h>
#include <string.h>

#include "ui/view_impl.h"

/* each view's file defines its table; only this file names them */
#define VIEW_DECL(E, n) extern const struct view_ops view_##n##_ops;
VIEW_LIST(VIEW_DECL)
VIEW_PANES(VIEW_DECL)
#undef VIEW_DECL
extern const struct view_ops view_cmp_ops_ops, view_cmp_cats_ops, view_cmp_tree_ops,
    view_cmp_threads_ops, view_cmp_callers_ops, view_cmp_steps_ops, view_cmp_memory_ops;

#define VIEW_ENTRY(E, n) [VIEW_##E] = &view_##n##_ops,
static const struct view_ops *const views[VIEW_NVIEWS] = { VIEW_LIST(VIEW_ENTRY)
                                                           VIEW_PANES(VIEW_ENTRY) };
#undef VIEW_ENTRY

view *view_table_new(const model *m, const view_opts *o)
{
    const struct view_ops *shown[VIEW_NVIEWS];
    for (int k = 0; k < VIEW_NVIEWS; k++)
        shown[k] = views[k];
    if (o && o->cmp) {
        /* comparing: the twins that read the compare (ui/cmp.h) */
        shown[VIEW_OPS] = &view_cmp_ops_ops;
        shown[VIEW_CATS] = &view_cmp_cats_ops;
        shown[VIEW_TREE] = &view_cmp_tree_ops;
        shown[VIEW_THREADS] = &view_cmp_threads_ops;
        shown[VIEW_CALLERS] = &view_cmp_callers_ops;
        shown[VIEW_STEPS] = &view_cmp_steps_ops;
        shown[VIEW_MEMORY] = &view_cmp_memory_ops;
    }
    return view_new_with(m, o, views, shown);
}

const struct view_ops *view_table_ops(enum view_tab tab)
{
    return views[tab];
}

int view_table_by_name(const char *name)
{
    for (int i = 0; i < VIEW_NTABS; i++)
        if (!strcmp(name, views[i]->name) || (views[i]->alias && !strcmp(name, views[i]->alias)))
            return i;
    return -1;
}

const char *view_table_names(char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < VIEW_NTABS && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", views[i]->name);
    return buf;
}
