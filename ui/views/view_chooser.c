/* The view chooser: a pane listing every view of the view table (VIEW_LIST),
   with its key: the digits reach the first nine, Tab and this list every
   one. Enter shows the view under the cursor; Esc or q go back. Opened by
   V from every view; it grows with the table and needs no change when a
   view is added. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

enum { C_KEY, C_NAME, C_OPT };

static const col cols[] = {
    { C_KEY, "Key", 3, -1, 0, false, false, true },
    { C_NAME, "View", 16, -1, 0, false, true, true },
    { C_OPT, "--view", 12, -1, 1, false, false, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_N };

static int chooser_rebuild(view *v, view_rows *r)
{
    (void)v;
    for (uint32_t i = 0; i < VIEW_NTABS; i++)
        if (view_rows_push(r, i) < 0)
            return -1;
    return 0;
}

static const char *chooser_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    (void)v;
    snprintf(buf, size, "%s", view_ops_of(v, (enum view_tab)id)->label);
    *len = strlen(buf);
    return buf;
}

static void chooser_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    (void)v;
    const struct view_ops *o = view_ops_of(v, (enum view_tab)id);
    char t[16];
    switch (c->id) {
    case C_KEY:
        /* the digits stop at nine */
        if (id < 9)
            snprintf(t, sizeof t, "%u", id + 1);
        else
            snprintf(t, sizeof t, "-");
        cols_cell(l, t, strlen(t), c->width, false);
        break;
    case C_NAME: cols_cell(l, o->label, strlen(o->label), namew, false); break;
    case C_OPT: cols_cell(l, o->name, strlen(o->name), c->width, false); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static int chooser_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    switch (act) {
    case ACT_DRILL:
        if (view_nrows(v) == 0)
            return VIEW_DRAW_FOOTER;
        v->status[0] = '\0';
        v->tab = (enum view_tab)view_row(v, view_cursor(v));
        return VIEW_DRAW_ALL;
    case ACT_BACK: case ACT_QUIT: case ACT_CHOOSE:
        view_pane_close(v);
        return VIEW_DRAW_ALL;
    default:
        return -1;
    }
}

/* V from every view: the list, its cursor on the view shown */
static int chooser_global(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act != ACT_CHOOSE)
        return -1;
    enum view_tab from = v->tab < VIEW_NTABS ? v->tab : v->pane_from;
    view_pane_open(v, VIEW_CHOOSER);
    v->cur[VIEW_CHOOSER] = from;
    v->top[VIEW_CHOOSER] = 0;
    view_status_set(v, "every view: Enter shows it, Esc back");
    return VIEW_DRAW_ALL;
}

const struct view_ops view_chooser_ops = {
    .name = "chooser",
    .label = "Views",
    .cols = cols,
    .namecap = 30,
    .sorts = sorts,
    .rebuild = chooser_rebuild,
    .name_of = chooser_name,
    .cell = chooser_cell,
    .action = chooser_action,
    .global = chooser_global,
};
