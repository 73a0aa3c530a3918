/* The moves every tree view shares (view_tree_move: Enter, arrows, +, -,
   *, E, C, Space) and the step from one search match to the next in a
   tree (view_tree_step); see ui/view_impl.h. Apart from ui/view.c, whose
   machinery they do not need. */
#include "config.h"

#include "ui/tree_moves.h"

#include "ui/tree_rows.h"
#include "ui/view_impl.h"

void view_tree_step(tree_rows *t, const uint32_t *m, size_t k, size_t from, int dir, bool at,
                    search_found *f)
{
    f->row = SIZE_MAX;
    f->index = 0;
    f->total = k == SIZE_MAX ? 0 : k;
    f->wrapped = false;
    if (k == SIZE_MAX || k == 0)
        return;
    uint32_t c = tree_rows_at(t, from);
    /* lo: the matches before the cursor's node; hi: those not after it */
    size_t lo = 0, hi = k;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tree_rows_before(t, m[mid], c))
            lo = mid + 1;
        else
            hi = mid;
    }
    bool on = lo < k && m[lo] == c;
    size_t j;
    if (dir > 0) {
        j = on && !at ? lo + 1 : lo;
        f->wrapped = j == k;
        if (f->wrapped)
            j = 0;
    } else {
        size_t le = on && at ? lo + 1 : lo; /* matches at or before: [0, le) */
        f->wrapped = le == 0;
        j = f->wrapped ? k - 1 : le - 1;
    }
    tree_rows_reveal(t, m[j]);
    tree_rows_dirty(t);
    f->row = tree_rows_index_of(t, m[j]);
    f->index = j + 1;
}

int view_tree_move(view *v, tree_rows *t, enum key_act act, uint32_t u, bool up)
{
    size_t *cur = &v->cur[v->tab];
    bool kids = tree_rows_has_kids(t, u);
    switch (act) {
    case ACT_OPEN:
        if (kids && !tree_rows_expanded(t, u))
            tree_rows_expand(t, u, true);
        else if (kids)
            (*cur)++;
        break;
    case ACT_CLOSE:
        if (kids && tree_rows_expanded(t, u)) {
            tree_rows_expand(t, u, false);
        } else if (up) {
            size_t p = tree_rows_index_of(t, tree_rows_parent(t, u));
            if (p != SIZE_MAX)
                *cur = p;
        }
        break;
    case ACT_EXPAND:
        if (kids)
            tree_rows_expand(t, u, true);
        break;
    case ACT_COLLAPSE: tree_rows_expand(t, u, false); break;
    case ACT_TOGGLE:
        if (!kids)
            return -1; /* a leaf: the caller does what Enter does */
        tree_rows_expand(t, u, !tree_rows_expanded(t, u));
        break;
    case ACT_EXPAND_SUBTREE: tree_rows_expand_subtree(t, u); break;
    case ACT_EXPAND_ALL: case ACT_COLLAPSE_ALL:
        tree_rows_expand_all(t, act == ACT_EXPAND_ALL);
        *cur = tree_rows_near(t, u);
        break;
    default:
        return -1;
    }
    tree_rows_dirty(t);
    view_clamp(v);
    return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;
}
