/* Key dispatch: a key goes to the prompt, the help, the export's prompt or,
   through the one key table (ui/keys.h), to the shown view's action and
   then to the actions every view shares. It sits above the views and the
   view state (ui/view.h), which know nothing of it, and beside the screen
   and the export it opens. */
#include "config.h"

#include "ui/view_key.h"

#include <stdio.h>
#include <string.h>

#include "ui/view_export.h"
#include "ui/keys.h"
#include "ui/screen.h"
#include "ui/search.h"
#include "ui/view.h"
#include "ui/view_impl.h"

static const struct view_ops *cur_ops(const view *v)
{
    return v->ops[v->tab];
}

/* ---------------------------------------------------------------- search */

struct hit_ctx {
    view *v;
    const char *pat;
};

static bool row_hit(void *vc, size_t i)
{
    struct hit_ctx *c = vc;
    char buf[600];
    size_t len;
    return search_match(view_row_name(c->v, i, buf, sizeof buf, &len), c->pat);
}

/* Moves to the next row matching s after row `from` (dir > 0, at it too
   when `at`), or the previous one (dir < 0), wrapping; says which match of
   how many in the status line. */
static bool search_move(view *v, const char *s, size_t from, int dir, bool at)
{
    size_t n = view_nrows(v);
    if (!*s || n == 0)
        return false;
    if (from >= n)
        from = n - 1;
    const struct view_ops *o = cur_ops(v);
    struct hit_ctx c = { v, s };
    search_found f;
    if (o->search)
        o->search(v, s, from, dir, at, &f);
    else
        search_rows(n, from, dir, at, row_hit, &c, &f);
    if (f.row == SIZE_MAX)
        return false;
    v->cur[v->tab] = f.row;
    view_clamp(v);
    char msg[128];
    view_status_set(v, "%s", search_describe(&f, dir, msg, sizeof msg));
    return true;
}

/* ---------------------------------------------------------------- sort */

static bool sort_usable(const view *v, enum model_sort s)
{
    return v->gpu || (s != MODEL_SORT_DEVICE_SELF && s != MODEL_SORT_DEVICE_TOTAL);
}

/* A new order shows from its top: cursor and scroll go to the first row. */
static void sort_set(view *v, enum model_sort s, bool reverse)
{
    enum model_sort *so;
    bool *rev;
    view_sort_slot(v, &so, &rev);
    *so = s;
    *rev = reverse;
    v->order_gen++;
    view_all_stale(v);
    view_ensure_rows(v);
    v->cur[v->tab] = v->top[v->tab] = 0;
}

static void sort_step(view *v, int dir)
{
    const struct view_ops *o = cur_ops(v);
    const enum model_sort *l = o->sorts_of ? o->sorts_of(v) : o->sorts;
    int n = 0, at = -1;
    while (l && l[n] != MODEL_SORT_N)
        n++;
    if (n == 0) { /* a view with no sort keys (its rows have one order) */
        view_status_set(v, "%s has one order: < > r do not apply", o->label);
        return;
    }
    enum model_sort *so;
    bool *rev;
    view_sort_slot(v, &so, &rev);
    for (int i = 0; i < n; i++)
        if (l[i] == *so)
            at = i;
    int i = at;
    for (int k = 0; k < n; k++) {
        i = at < 0 ? (dir > 0 ? k : n - 1 - k) : ((i + dir) % n + n) % n;
        if (sort_usable(v, l[i]))
            break;
    }
    sort_set(v, l[i], false);
}

/* ---------------------------------------------------------------- keys */

static int prompt_key(view *v, int key)
{
    bool is_search = v->mode == VIEW_MODE_SEARCH;
    search *s = &v->srch;
    switch (key) {
    case VK_ENTER:
        v->mode = VIEW_MODE_NORMAL;
        if (is_search) {
            /* search_edit kept the text under SEARCH_TEXT */
            snprintf(s->last, sizeof s->last, "%.*s", (int)sizeof s->last - 1, s->prompt);
            if (s->prompt[0] && !search_move(v, s->last, s->from, 1, true))
                view_status_set(v, "not found: %s", s->last);
        } else {
            scope_set_filter(v->scope, s->prompt);
            view_scope_changed(v);
            const char *f = scope_filter(v->scope);
            view_status_set(v, f[0] ? "filter: %s" : "%sfilter cleared", f);
        }
        return VIEW_DRAW_ALL;
    case VK_ESC:
        v->mode = VIEW_MODE_NORMAL;
        if (is_search) {
            v->cur[v->tab] = s->from;
            view_clamp(v);
        } else if (scope_filter(v->scope)[0]) {
            scope_set_filter(v->scope, "");
            view_scope_changed(v);
            view_status_set(v, "filter cleared");
        }
        return VIEW_DRAW_ALL;
    default:
        if (!search_edit(s->prompt, SEARCH_TEXT, key))
            return 0;
    }
    if (is_search) {
        /* incremental: from where the search started, on every key */
        if (!s->prompt[0])
            v->status[0] = '\0';
        else if (!search_move(v, s->prompt, s->from, 1, true))
            view_status_set(v, "not found");
        return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;
    }
    return VIEW_DRAW_FOOTER;
}

/* The actions every view shares; after the view's own. */
static int generic_action(view *v, enum key_act act, int arg)
{
    int tab = v->tab;
    size_t n = view_nrows(v);
    size_t page = (size_t)v->page;
    size_t *c = &v->cur[tab];
    int redraw = VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;
    switch (act) {
    case ACT_QUIT: return VIEW_QUIT;
    case ACT_UP: if (*c > 0) (*c)--; break;
    case ACT_DOWN: if (*c + 1 < n) (*c)++; break;
    case ACT_PGUP:
        *c = *c > page ? *c - page : 0;
        v->top[tab] = v->top[tab] > page ? v->top[tab] - page : 0;
        break;
    case ACT_PGDN:
        *c = n == 0 ? 0 : *c + page < n ? *c + page : n - 1;
        v->top[tab] += page;
        break;
    case ACT_HOME: *c = 0; break;
    case ACT_END: *c = n ? n - 1 : 0; break;
    case ACT_VIEW:
        if (arg >= 0 && arg < VIEW_NTABS)
            v->tab = (enum view_tab)arg;
        redraw = VIEW_DRAW_ALL;
        break;
    case ACT_NEXT_VIEW: v->tab = (enum view_tab)((tab + 1) % VIEW_NTABS); redraw = VIEW_DRAW_ALL; break;
    case ACT_PREV_VIEW:
        v->tab = (enum view_tab)((tab + VIEW_NTABS - 1) % VIEW_NTABS);
        redraw = VIEW_DRAW_ALL;
        break;
    case ACT_SORT_PREV: sort_step(v, -1); redraw = VIEW_DRAW_ALL; break;
    case ACT_SORT_NEXT: sort_step(v, 1); redraw = VIEW_DRAW_ALL; break;
    case ACT_REVERSE: {
        enum model_sort *so;
        bool *rev;
        view_sort_slot(v, &so, &rev);
        sort_set(v, *so, !*rev);
        redraw = VIEW_DRAW_ALL;
        break;
    }
    case ACT_DRILL:
        if (n == 0)
            break;
        return VIEW_DRAW_ALL;
    case ACT_BACK:
        if (view_scope_pop(v))
            return VIEW_DRAW_ALL;
        break;
    case ACT_SEARCH:
        v->mode = VIEW_MODE_SEARCH;
        v->srch.prompt[0] = '\0';
        v->srch.from = *c;
        return VIEW_DRAW_FOOTER;
    case ACT_NEXT_MATCH: case ACT_PREV_MATCH: {
        bool next = act == ACT_NEXT_MATCH;
        if (!v->srch.last[0])
            view_status_set(v, "no search yet: / to search");
        else if (!search_move(v, v->srch.last, *c, next ? 1 : -1, false))
            view_status_set(v, "not found: %s", v->srch.last);
        break;
    }
    case ACT_FILTER:
        v->mode = VIEW_MODE_FILTER;
        snprintf(v->srch.prompt, sizeof v->srch.prompt, "%s", scope_filter(v->scope));
        return VIEW_DRAW_FOOTER;
    case ACT_SHORT_NAMES:
        v->short_names = !v->short_names;
        v->order_gen++; /* by name, the order may change */
        view_all_stale(v);
        view_status_set(v, "%s", v->short_names ? "short names (s: full names)" : "full names");
        redraw = VIEW_DRAW_ALL;
        break;
    case ACT_EXPORT:
        return view_export_begin(v);
    case ACT_PYTHON:
        v->hide_python = !v->hide_python;
        view_scope_changed(v);
        view_status_set(v, "%s", v->hide_python
                                     ? "Python frames hidden: their self time shows in their caller's"
                                     : "Python frames shown");
        redraw = VIEW_DRAW_ALL;
        break;
    case ACT_HELP:
        v->mode = VIEW_MODE_HELP;
        v->help_top = 0;
        return VIEW_DRAW_ALL;
    default:
        return 0;
    }
    view_ensure_rows(v);
    view_clamp(v);
    return redraw;
}

/* The help scrolls with the moving keys; any other key closes it. */
static int help_key(view *v, int key)
{
    size_t n = view_help_count(v);
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    size_t max = n > page ? n - page : 0, *t = &v->help_top;
    switch (key) {
    case VK_DOWN: case 'j': *t += 1; break;
    case VK_UP: case 'k': *t = *t ? *t - 1 : 0; break;
    case VK_PGDN: case ' ': *t += page; break;
    case VK_PGUP: *t = *t > page ? *t - page : 0; break;
    case VK_HOME: case 'g': *t = 0; break;
    case VK_END: case 'G': *t = max; break;
    default:
        v->mode = VIEW_MODE_NORMAL;
        return VIEW_DRAW_ALL;
    }
    if (*t > max)
        *t = max;
    return VIEW_DRAW_ALL;
}

static int key_apply(view *v, int key)
{
    view_ensure_rows(v);
    if (v->mode == VIEW_MODE_HELP)
        return help_key(v, key);
    if (v->mode == VIEW_MODE_SEARCH || v->mode == VIEW_MODE_FILTER)
        return prompt_key(v, key);
    if (v->mode == VIEW_MODE_EXPORT)
        return view_export_key(v, key);
    v->status[0] = '\0';
    int arg;
    enum key_act act = keys_action(key, v->tab, VIEW_NTABS, &arg);
    if (act == ACT_NONE)
        return 0;
    /* the view first, then what every view shares */
    const struct view_ops *o = cur_ops(v);
    uint32_t gen = scope_gen(v->scope);
    if (o->action) {
        int r = o->action(v, act, arg);
        if (r >= 0)
            return r;
    }
    /* a view may set the scope and leave the rest to the generic action
       (the GPU view's e: its stream's scope, then the usual export); the
       scope shows on every line, so everything is to be redrawn */
    int rescoped = scope_gen(v->scope) != gen ? VIEW_DRAW_ALL : 0;
    /* Esc with nothing to go back to clears the filter */
    if (act == ACT_BACK && key == VK_ESC && scope_depth(v->scope) == 0 &&
        scope_filter(v->scope)[0]) {
        scope_set_filter(v->scope, "");
        view_scope_changed(v);
        view_status_set(v, "filter cleared");
        view_ensure_rows(v);
        view_clamp(v);
        return VIEW_DRAW_ALL;
    }
    int r = generic_action(v, act, arg);
    if (r == 0 || (act == ACT_BACK && r == (VIEW_DRAW_BODY | VIEW_DRAW_FOOTER)))
        for (int k = 0; k < VIEW_NVIEWS; k++)
            if (v->ops[k]->global) {
                int g = v->ops[k]->global(v, act, arg);
                if (g >= 0)
                    return g;
            }
    return r > 0 && r != VIEW_QUIT ? r | rescoped : r;
}

int view_key(view *v, int key)
{
    int r = key_apply(v, key);
    if (cur_ops(v)->after_key)
        cur_ops(v)->after_key(v);
    return r;
}

