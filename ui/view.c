/* The explorer's view state: cursor, scrolling, flat rows, the scope and
   its focus stack, sorts, panes. What differs between views is in their
   files (ui/views/view_*.c) behind struct view_ops; nothing here branches
   on which view is shown, and nothing here knows the views: ui/view_table.c
   hands their tables in (view_new_with). Keys are dispatched above this, in
   ui/view_key.c. See ui/view.h. */
#include "config.h"

#include "ui/view.h"
#include "ui/view_impl.h"

#include "core/pprof/export.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/derived.h"
#include "core/model/shortname.h"

const struct view_ops *view_ops_of(const view *v, enum view_tab tab)
{
    return v->std[tab];
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

void view_ensure_rows(view *v)
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
    view_ensure_rows(v);
    const struct view_ops *o = cur_ops(v);
    return o->count ? o->count(v) : v->rows[v->tab].n;
}

uint32_t view_row(view *v, size_t i)
{
    view_ensure_rows(v);
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

view *view_new_with(const model *m, const view_opts *o, const struct view_ops *const *std,
                    const struct view_ops *const *shown)
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
    v->std = std;
    v->hta_opts = o ? o->hta_opts : NULL;
    for (int k = 0; k < VIEW_NVIEWS; k++)
        v->ops[k] = shown[k];
    v->cmp = o ? o->cmp : NULL;
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
    free(v->help);
    free(v->help_lines);
    derived_set_free(v->derived);
    free(v);
}

void view_resize(view *v, int width, int height)
{
    v->width = width < 20 ? 20 : width > 1000 ? 1000 : width;
    v->height = height;
    v->page = height - VIEW_CHROME > 1 ? height - VIEW_CHROME : 1;
    view_ensure_rows(v);
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
        if (v->std[k]->save)
            b->saved[k] = v->std[k]->save(v);
    scope_push(v->scope, kind, id);
    view_scope_changed(v);
    return true;
}

int view_apply_scope(view *v, const struct view_scope_args *a, const struct export_entry *entries,
                     size_t n, const char *filter, char *why, size_t size)
{
    why[0] = '\0';
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (v->std[k]->set_scope_args && v->std[k]->set_scope_args(v, a, why, size) < 0)
            return -1;
    for (size_t i = 0; i < n; i++) {
        int d = scope_depth(v->scope);
        view_back *b = &v->back[d < SCOPE_MAX ? d : SCOPE_MAX - 1];
        b->tab = v->tab;
        b->cursor = b->top = 0;
        for (int k = 0; k < VIEW_NVIEWS; k++)
            if (v->std[k]->save)
                b->saved[k] = v->std[k]->save(v);
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

bool view_scope_pop(view *v)
{
    int d = scope_depth(v->scope);
    if (d == 0)
        return false;
    view_back *b = &v->back[d - 1];
    scope_pop(v->scope);
    v->tab = b->tab;
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (v->std[k]->restore)
            v->std[k]->restore(v, b->saved[k]);
    view_scope_changed(v);
    view_ensure_rows(v);
    if (!cur_ops(v)->count)
        v->cur[v->tab] = b->cursor;
    v->top[v->tab] = b->top;
    view_clamp(v);
    return true;
}

void view_push_focus(view *v, enum scope_kind kind, uint32_t id)
{
    /* the view that shows a focus (the Tree) pushes it and shows it */
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (v->std[k]->focus) {
            v->std[k]->focus(v, kind, id);
            return;
        }
}
