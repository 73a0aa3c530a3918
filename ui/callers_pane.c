#include "config.h"

#include "ui/callers_pane.h"

#include "ui/tree_moves.h"
#include "ui/view.h"
#include "ui/view_impl.h"

void callers_pane_done(callers_pane *p)
{
    if (p->has_rows)
        tree_rows_done(&p->rows);
    p->has_rows = false;
}

void callers_pane_fold(callers_pane *p, bool all)
{
    if (all)
        for (size_t i = 0; i < p->rows.ntops; i++)
            tree_rows_expand(&p->rows, p->rows.tops[i], false);
}

void callers_pane_place(view *v, callers_pane *p, uint32_t op, const char *none)
{
    v->cur[VIEW_CALLERS] = v->top[VIEW_CALLERS] = 0;
    if (p->has_rows && op != MODEL_NONE)
        for (size_t i = 0; i < p->rows.ntops; i++)
            if (p->rows.nodes[p->rows.tops[i]].op == op) {
                size_t r = tree_rows_index_of(&p->rows, p->rows.tops[i]);
                v->cur[VIEW_CALLERS] = r == SIZE_MAX ? 0 : r;
                break;
            }
    if (p->has_rows && p->rows.ntops == 0)
        view_status_set(v, "%s", none);
    view_clamp(v);
}

int callers_pane_action(view *v, callers_pane *p, enum key_act act)
{
    switch (act) {
    case ACT_BACK: case ACT_QUIT: case ACT_CALLERS:
        view_pane_close(v);
        return VIEW_DRAW_ALL;
    case ACT_DRILL: case ACT_FOCUS: case ACT_MERGE: case ACT_SOURCE: case ACT_EXPORT:
        view_status_set(v, "the Callers pane only shows: i or Esc goes back");
        return VIEW_DRAW_FOOTER;
    case ACT_OPEN: case ACT_CLOSE: case ACT_EXPAND: case ACT_COLLAPSE:
    case ACT_EXPAND_SUBTREE: case ACT_EXPAND_ALL: case ACT_COLLAPSE_ALL: case ACT_TOGGLE:
        break;
    default:
        return -1;
    }
    /* the pane's own count first: it rebuilds the rows when the scope changed */
    const struct view_ops *o = v->ops[VIEW_CALLERS];
    if (o->count(v) == 0 || !p->has_rows)
        return VIEW_DRAW_FOOTER;
    uint32_t u = o->row(v, v->cur[VIEW_CALLERS]);
    if (u == UINT32_MAX)
        return VIEW_DRAW_FOOTER;
    return view_tree_move(v, &p->rows, act, u, p->rows.nodes[u].depth > 1);
}

void callers_pane_own_sort(view *v, enum model_sort **sort, bool **reverse)
{
    callers_pane *p = view_state(v, VIEW_CALLERS);
    *sort = &p->sort;
    *reverse = &p->reverse;
}
