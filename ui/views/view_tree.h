/* The Tree view (ui/views/view_tree.c): what other views and the tests
   read of it. */
#ifndef T2P_VIEW_TREE_H
#define T2P_VIEW_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/view_types.h"

/* The figures a tree row shows: the model's, or under a scope those of
   the selected stacks only. */
typedef struct view_fig {
    uint64_t calls;
    int64_t self_ns, total_ns, dev_self_ns, dev_total_ns;
} view_fig;

/* ui/views/view_tree.c: the tree shown (merged or per track), its rows, and a
   node's figures, for the tests and for views that show tree figures. */
struct tree_rows;
bool view_tree_merged(view *v);
const struct tree_rows *view_tree_rows(view *v);
void view_tree_fig(view *v, uint32_t node, view_fig *f);

#endif
