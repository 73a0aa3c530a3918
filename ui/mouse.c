/* The mouse; see ui/mouse.h. */
#include "config.h"

#include "ui/mouse.h"

#include "ui/screen.h"
#include "ui/tree_moves.h"
#include "ui/view_impl.h"
#include "ui/view_key.h"

/* Selects body row i as the arrow keys would have. */
static int select_row(view *v, size_t i)
{
    v->cur[v->tab] = i;
    view_clamp(v);
    if (v->ops[v->tab]->after_key)
        v->ops[v->tab]->after_key(v);
    return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;
}

/* Double-click on the selected row: a tree view folds or unfolds a node
   with children (ACT_TOGGLE, every tree view's share of view_tree_move),
   any other row does what Enter does. */
static int activate(view *v)
{
    const struct view_ops *o = v->ops[v->tab];
    int r = o->action ? o->action(v, ACT_TOGGLE, 0) : -1;
    if (r < 0)
        return view_key(v, VK_ENTER);
    if (o->after_key)
        o->after_key(v);
    return r;
}

int mouse_event(view *v, enum mouse_kind kind, int x, int y)
{
    enum view_mode mode = view_mode_of(v);
    if (mode == VIEW_MODE_HELP)
        return kind == MOUSE_CLICK || kind == MOUSE_DOUBLE ? view_key(v, VK_ESC) : 0;
    if (mode != VIEW_MODE_NORMAL)
        return 0; /* a prompt is open: the keyboard finishes it */
    if (kind == MOUSE_WHEEL_UP || kind == MOUSE_WHEEL_DOWN) {
        int r = 0;
        for (int i = 0; i < MOUSE_WHEEL_ROWS; i++) {
            int k = view_key(v, kind == MOUSE_WHEEL_UP ? VK_UP : VK_DOWN);
            if (k == VIEW_QUIT)
                return k;
            r |= k;
        }
        return r;
    }
    if (y == 2) { /* the tab line */
        int t = view_tab_at(v, x);
        return t >= 0 && t < 9 ? view_key(v, '1' + t) : 0;
    }
    if (y < VIEW_CHROME_TOP || y >= VIEW_CHROME_TOP + v->page)
        return 0;
    size_t i = v->top[v->tab] + (size_t)(y - VIEW_CHROME_TOP);
    if (i >= view_nrows(v))
        return 0;
    int r = select_row(v, i);
    if (kind == MOUSE_DOUBLE) {
        int k = activate(v);
        return k == VIEW_QUIT ? k : r | k;
    }
    return r;
}
