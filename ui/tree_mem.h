/* Memory columns in the Tree view (ui/view_memory.c): Enter on an operator
   in the Memory view focuses the Tree on it, and while that focus holds,
   the Tree shows per node the allocations on that row's device (TensorBoard's
   figures, core/memory.h: allocation size, count, size increase, own and
   including children) under the scope. */
#ifndef T2P_TREE_MEM_H
#define T2P_TREE_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/cols.h"
#include "ui/view.h"

/* The Tree's columns with the memory ones after base's, or NULL when the
   Tree shows no memory. The array is the Memory view's, valid until the
   next call. */
const col *tree_mem_cols(view *v, const col *base);

/* Draws a memory column's cell of tree node u (of the merged tree when
   merged); false when c is none of them. */
bool tree_mem_cell(view *v, bool merged, uint32_t u, const col *c, cols_line *l);

/* The device whose memory the Tree shows ("GPU0"), or NULL. */
const char *tree_mem_device(view *v);

#endif
