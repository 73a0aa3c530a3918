/* Memory columns in the Tree view (ui/views/view_memory.c): Enter on an operator
   in the Memory view focuses the Tree on it, and while that focus holds,
   the Tree shows per node the allocations on that row's device (TensorBoard's
   figures, core/analyses/memory.h: allocation size, count, size increase, own and
   including children) under the scope. */
#ifndef T2P_TREE_MEM_H
#define T2P_TREE_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model/model.h"
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

/* The memory columns sort too: their sorts are numbered from here on (past
   every model_sort), in the columns' order. */
enum { TREE_MEM_SORT0 = MODEL_SORT_N + 1, TREE_MEM_NSORTS = 6 };

/* What < and > cycle through in the Tree: base (ended by MODEL_SORT_N),
   then the memory columns' sorts while they are shown. Valid until the
   next call. */
const enum model_sort *tree_mem_sorts(view *v, const enum model_sort *base);

/* Tree node u's figure for memory sort `sort` (of the merged tree when
   merged); 0 when the Tree shows no memory. */
int64_t tree_mem_key(view *v, bool merged, uint32_t u, int sort);

/* A memory sort's name ("alloc_size", ...), or NULL for any other sort. */
const char *tree_mem_sort_name(int sort);

#endif
