/* The shared machinery of the explorer's views: cursor, scrolling, flat
   rows, the screen chrome, sort cycling and key dispatch. What differs
   between views is in their files (ui/view_*.c) behind struct view_ops;
   nothing here branches on which view is shown. See ui/view.h. */
#include "config.h"

#include "ui/view_impl.h"

#include "core/pprof/export.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/derived.h"
#include "core/model/shortname.h"
#include "ui/cmp.h"

#define VIEW_ENTRY(E, n) [VIEW_##E] = &view_##n##_ops,
static const struct view_ops *const views[VIEW_NVIEWS] = { VIEW_LIST(VIEW_ENTRY)
                                                           VIEW_PANES(VIEW_ENTRY) };
#undef VIEW_ENTRY

const struct view_ops *view_ops_of(enum view_tab tab)
{
    return views[tab];
}

int view_by_name(const char *name)
{
    for (int i = 0; i < VIEW_NTABS; i++)
        if (!strcmp(name, views[i]->name) || (views[i]->alias && !strcmp(name, views[i]->alias)))
            return i;
    return -1;
}

const char *view_names(char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < VIEW_NTABS && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", views[i]->name);
    return buf;
}

static const struct view_ops *cur_ops(const view *v)
{
    return v->ops[v->tab];
}

void *view_state(view *v, enum view_tab tab)
{
    return v->state[tab];
}

void view_set_state(view *v, enum view_tab tab, void *state)
{
    v->state[tab] = state;
}

void *view_state_new(view *v, enum view_tab tab, size_t size)
{
    void *s = calloc(1, size);
    if (s)
        view_set_state(v, tab, s);
    return s;
}

void view_prefault(void *p, size_t size)
{
    volatile unsigned char *b = p;
    for (size_t i = 0; i < size; i += 4096)
        b[i] = 0;
}

void view_status_set(view *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->status, sizeof v->status, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- accessors */

const model *view_model(const view *v) { return v->m; }
scope *view_scope(view *v) { return v->scope; }
enum view_tab view_current(const view *v) { return v->tab; }
enum view_mode view_mode_of(const view *v) { return v->mode; }
const char *view_prompt(const view *v) { return v->srch.prompt; }
const char *view_status(const view *v) { return v->status; }
int view_width(const view *v) { return v->width; }
int view_height(const view *v) { return v->height; }
const char *view_export_dir(const view *v) { return v->export_dir; }
void view_set_export_dir(view *v, const char *dir) { v->export_dir = dir ? dir : "."; }
void view_set_export_progress(view *v, view_export_progress_fn fn, void *ctx)
{
    v->export_progress = fn;
    v->export_ctx = ctx;
}
enum model_sort view_sort(const view *v)
{
    enum model_sort *so;
    bool *rev;
    view_sort_slot((view *)v, &so, &rev);
    return *so;
}
bool view_short_names(const view *v) { return v->short_names; }

void view_set_status(view *v, const char *msg)
{
    snprintf(v->status, sizeof v->status, "%s", msg ? msg : "");
}

void view_sort_slot(view *v, enum model_sort **sort, bool **reverse)
{
    *sort = &v->sort;
    *reverse = &v->reverse;
    if (cur_ops(v)->own_sort)
        cur_ops(v)->own_sort(v, sort, reverse);
}

bool view_sorts(view *v)
{
    const struct view_ops *o = cur_ops(v);
    const enum model_sort *l = o->sorts_of ? o->sorts_of(v) : o->sorts;
    return l && l[0] != MODEL_SORT_N;
}

const char *view_sort_name(view *v)
{
    const struct view_ops *o = cur_ops(v);
    enum model_sort so = view_sort(v);
    const char *own = o->sort_name ? o->sort_name(v, (int)so) : NULL;
    return own ? own : model_sort_name(so);
}

const char *view_sort_arrow(const view *v)
{
    enum model_sort *so;
    bool *rev;
    view_sort_slot((view *)v, &so, &rev);
    bool up = *so == MODEL_SORT_NAME ? !*rev : *rev;
    return up ? "\xe2\x96\xb2" : "\xe2\x96\xbc"; /* ▲ ▼ */
}

/* ---------------------------------------------------------------- rows */

void view_all_stale(view *v)
{
    for (int k = 0; k < VIEW_NVIEWS; k++)
        v->stale[k] = true;
}

static void ensure_rows(view *v)
{
    const struct view_ops *o = cur_ops(v);
    if (!v->stale[v->tab])
        return;
    v->stale[v->tab] = false;
    if (o->count) {
        if (o->refresh)
            v->cur[v->tab] = o->refresh(v);
        return;
    }
    view_rows *r = &v->rows[v->tab];
    /* keep the cursor on the same item when it is still there */
    uint32_t keep = v->cur[v->tab] < r->n ? r->ids[v->cur[v->tab]] : UINT32_MAX;
    r->n = 0;
    if (o->rebuild(v, r) < 0)
        view_status_set(v, "out of memory building the rows");
    size_t n = r->n;
    size_t c = v->cur[v->tab] < n ? v->cur[v->tab] : n ? n - 1 : 0;
    for (size_t i = 0; i < n && keep != UINT32_MAX; i++)
        if (r->ids[i] == keep) {
            c = i;
            break;
        }
    v->cur[v->tab] = c;
}

size_t view_nrows(view *v)
{
    ensure_rows(v);
    const struct view_ops *o = cur_ops(v);
    return o->count ? o->count(v) : v->rows[v->tab].n;
}

uint32_t view_row(view *v, size_t i)
{
    ensure_rows(v);
    const struct view_ops *o = cur_ops(v);
    if (o->count)
        return i < o->count(v) ? o->row(v, i) : UINT32_MAX;
    return i < v->rows[v->tab].n ? v->rows[v->tab].ids[i] : UINT32_MAX;
}

size_t view_cursor(const view *v)
{
    return v->cur[v->tab];
}

size_t view_top(const view *v)
{
    return v->top[v->tab];
}

void view_clamp(view *v)
{
    size_t n = view_nrows(v);
    size_t *c = &v->cur[v->tab], *t = &v->top[v->tab];
    size_t page = v->page > 0 ? (size_t)v->page : 1;
    if (n == 0) {
        *c = *t = 0;
        return;
    }
    if (*c >= n)
        *c = n - 1;
    if (*c < *t)
        *t = *c;
    if (*c >= *t + page)
        *t = *c - page + 1;
    if (*t + page > n)
        *t = n > page ? n - page : 0;
}

const char *view_row_name(view *v, size_t i, char *buf, size_t size, size_t *len)
{
    uint32_t id = view_row(v, i);
    *len = 0;
    if (id == UINT32_MAX) {
        if (size)
            buf[0] = '\0';
        return buf;
    }
    return cur_ops(v)->name_of(v, id, buf, size, len);
}

/* ---------------------------------------------------------------- life */

/* freeing: the view goes, so do the states that outlive a model change */
static void close_all(view *v, bool freeing)
{
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (v->ops[k]->close && (freeing || !v->ops[k]->keeps_state))
            v->ops[k]->close(v);
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (freeing || !v->ops[k]->keeps_state)
            v->state[k] = NULL;
    scope_free(v->scope);
    v->scope = NULL;
    shortname_free(v->sn); /* of the old model */
    v->sn = NULL;
}

static int open_all(view *v)
{
    v->gpu = v->m->gpu_events > 0;
    v->scope = scope_new(v->m);
    if (!v->scope)
        return -1;
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (v->ops[k]->open && !v->state[k] && v->ops[k]->open(v) < 0)
            return -1;
    for (int k = 0; k < VIEW_NVIEWS; k++) {
        if (!v->ops[k]->keeps_state)
            v->cur[k] = v->top[k] = 0;
        v->rows[k].n = 0;
    }
    v->order_gen++;
    view_all_stale(v);
    return 0;
}

view *view_new(const model *m, const view_opts *o)
{
    view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->m = m;
    v->export_dir = o && o->export_dir ? o->export_dir : ".";
    v->tab = o ? o->tab : VIEW_OPS;
    v->sort = o ? o->sort : MODEL_SORT_SELF;
    v->top_ops = o ? o->top : 0;
    v->short_names = o && o->short_names;
    v->hide_python = o && o->hide_python;
    if (o) {
        v->inputs = o->inputs;
        v->ninputs = o->ninputs;
        v->base_path = o->base_path;
    }
    v->source_path = o ? o->source_path : NULL;
    for (int k = 0; k < VIEW_NVIEWS; k++)
        v->ops[k] = views[k];
    if (o && o->cmp) {
        v->cmp = o->cmp;
        cmp_install(v);
    }
    if (open_all(v) < 0) {
        view_free(v);
        return NULL;
    }
    view_resize(v, 80, 24);
    return v;
}

int view_set_model(view *v, const model *m)
{
    close_all(v, false);
    v->m = m;
    v->mode = VIEW_MODE_NORMAL;
    v->status[0] = '\0';
    if (open_all(v) < 0)
        return -1;
    view_resize(v, v->width, v->height);
    return 0;
}

int view_set_model_keep(view *v, const model *m)
{
    scope *from = v->scope;
    v->scope = NULL; /* kept from close_all: it is carried over */
    if (view_set_model(v, m) < 0) {
        scope_free(from);
        return -1;
    }
    int n = scope_carry(v->scope, from), depth = scope_depth(from);
    char lost[SCOPE_TEXT];
    lost[0] = '\0';
    if (n < depth)
        scope_entry_text(from, scope_entry_at(from, n), lost, sizeof lost);
    scope_free(from);
    view_scope_changed(v);
    if (n < depth)
        view_status_set(v, "focus %s is not here: the focus stops before it", lost);
    return n < depth ? 0 : 1;
}

void view_free(view *v)
{
    if (!v)
        return;
    close_all(v, true);
    for (int k = 0; k < VIEW_NVIEWS; k++)
        free(v->rows[k].ids);
    free(v->kbuf);
    derived_set_free(v->derived);
    free(v);
}

void view_resize(view *v, int width, int height)
{
    v->width = width < 20 ? 20 : width > 1000 ? 1000 : width;
    v->height = height;
    v->page = height - VIEW_CHROME > 1 ? height - VIEW_CHROME : 1;
    ensure_rows(v);
    view_clamp(v);
}

void view_pane_open(view *v, enum view_tab pane)
{
    if (v->tab < VIEW_NTABS)
        v->pane_from = v->tab;
    v->tab = pane;
    v->stale[pane] = true;
}

void view_pane_close(view *v)
{
    v->tab = v->pane_from;
    v->status[0] = '\0';
}

/* ---------------------------------------------------------------- scope */

/* A sort a view no longer offers (the Tree's memory columns leave with the
   focus they came with) falls back to the view's first one. */
static void check_sorts(view *v)
{
    for (int k = 0; k < VIEW_NVIEWS; k++) {
        const struct view_ops *o = v->ops[k];
        if (!o->own_sort || !o->sorts_of)
            continue;
        enum model_sort *so;
        bool *rev;
        o->own_sort(v, &so, &rev);
        const enum model_sort *l = o->sorts_of(v);
        size_t i = 0;
        while (l[i] != MODEL_SORT_N && l[i] != *so)
            i++;
        if (l[i] == MODEL_SORT_N) {
            *so = o->sorts[0];
            *rev = false;
        }
    }
}

void view_scope_changed(view *v)
{
    check_sorts(v);
    v->order_gen++;
    view_all_stale(v);
}

bool view_scope_push(view *v, enum scope_kind kind, uint32_t id)
{
    int d = scope_depth(v->scope);
    if (d >= SCOPE_MAX - 1) {
        view_status_set(v, "focus is %d levels deep: Esc goes back", d);
        return false;
    }
    view_back *b = &v->back[d];
    b->tab = v->tab;
    b->cursor = v->cur[v->tab];
    b->top = v->top[v->tab];
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (views[k]->save)
            b->saved[k] = views[k]->save(v);
    scope_push(v->scope, kind, id);
    view_scope_changed(v);
    return true;
}

int view_apply_scope(view *v, const struct view_scope_args *a, const struct export_entry *entries,
                     size_t n, const char *filter, char *why, size_t size)
{
    why[0] = '\0';
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (views[k]->set_scope_args && views[k]->set_scope_args(v, a, why, size) < 0)
            return -1;
    for (size_t i = 0; i < n; i++) {
        int d = scope_depth(v->scope);
        view_back *b = &v->back[d < SCOPE_MAX ? d : SCOPE_MAX - 1];
        b->tab = v->tab;
        b->cursor = b->top = 0;
        for (int k = 0; k < VIEW_NVIEWS; k++)
            if (views[k]->save)
                b->saved[k] = views[k]->save(v);
        int r = scope_push_arg(v->scope, entries[i].opt, entries[i].val);
        if (r != 0) {
            snprintf(why, size, r > 0 ? "--%s %s: the trace has no such %s"
                                      : "--%s %s: the focus is too deep",
                     entries[i].opt, entries[i].val,
                     !strcmp(entries[i].opt, "track") ? "thread or stream"
                     : !strcmp(entries[i].opt, "category") ? "category"
                                                           : "operator or call path");
            return -1;
        }
    }
    if (filter)
        scope_set_filter(v->scope, filter);
    view_scope_changed(v);
    return 0;
}

static bool pop_focus(view *v)
{
    int d = scope_depth(v->scope);
    if (d == 0)
        return false;
    view_back *b = &v->back[d - 1];
    scope_pop(v->scope);
    v->tab = b->tab;
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (views[k]->restore)
            views[k]->restore(v, b->saved[k]);
    view_scope_changed(v);
    ensure_rows(v);
    if (!cur_ops(v)->count)
        v->cur[v->tab] = b->cursor;
    v->top[v->tab] = b->top;
    view_clamp(v);
    return true;
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
    ensure_rows(v);
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
        if (pop_focus(v))
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
    ensure_rows(v);
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
    ensure_rows(v);
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
    if (o->action) {
        int r = o->action(v, act, arg);
        if (r >= 0)
            return r;
    }
    /* Esc with nothing to go back to clears the filter */
    if (act == ACT_BACK && key == VK_ESC && scope_depth(v->scope) == 0 &&
        scope_filter(v->scope)[0]) {
        scope_set_filter(v->scope, "");
        view_scope_changed(v);
        view_status_set(v, "filter cleared");
        ensure_rows(v);
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
    return r;
}

int view_key(view *v, int key)
{
    int r = key_apply(v, key);
    if (cur_ops(v)->after_key)
        cur_ops(v)->after_key(v);
    return r;
}

