/* The moves and the search every tree view shares (ui/tree_moves.c). */
#ifndef T2P_TREE_MOVES_H
#define T2P_TREE_MOVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/keys.h"
#include "ui/search.h"
#include "ui/view_types.h"

struct tree_rows;
/* The moves every tree view shares (Enter/l, h, +, -, *, E, C, and
   ACT_TOGGLE for a double-click: -1 on a leaf) on node u,
   the row under the cursor of the current view: open expands u or steps to
   its first child, close collapses it or, when up, goes to its parent on
   screen. VIEW_DRAW_* bits, or -1 when act is not one of them. */
int view_tree_move(view *v, struct tree_rows *t, enum key_act act, uint32_t u, bool up);

/* Search in a tree: the k matches m (tree_rows_find's, in row order; k
   SIZE_MAX: none, out of memory), the next after row `from` (at it too
   when `at`) or the previous one, wrapping, into f as search_rows does;
   a match under a folded node unfolds the way to it. Binary search for
   the cursor's node: n and N cost O(log k). */
void view_tree_step(struct tree_rows *t, const uint32_t *m, size_t k, size_t from, int dir,
                    bool at, search_found *f);

#endif
