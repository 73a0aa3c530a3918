/* Inside ui/: struct view and the table of operations each view fills,
   and what ui/view.c offers the views beside ui/view.h. Included by
   ui/view.c, the view files (ui/views/view_*.c), the modules above them
   (ui/view_table.c, ui/view_key.c, ui/screen.c, ui/export.c, ui/mouse.c)
   and the white-box unit tests; nothing outside ui/ sees struct view.
   It declares only what ui/view.c defines: what the views share is in
   ui/views/view_util.h, ui/tree_moves.h and ui/cmp.h. */
#ifndef T2P_VIEW_IMPL_H
#define T2P_VIEW_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"
#include "core/model/scope.h"
#include "ui/cols.h"
#include "ui/keys.h"
#include "ui/search.h"
#include "ui/view_types.h"

/* Rows of a flat view, owned by ui/view.c: a view's rebuild fills ids
   (ui/views/view_util.h view_rows_push). */
typedef struct view_rows {
    uint32_t *ids;
    size_t n, cap;
} view_rows;

/* A view: one file, one table. Functions marked optional may be NULL. */
struct view_scope_args;

struct view_ops {
    const char *name;   /* --view name */
    const char *alias;  /* another --view name, or NULL */
    const char *label;  /* on its tab */
    const col *cols;    /* its columns, ended by title NULL */
    /* optional: the columns shown now, when they vary (NULL: cols) */
    const col *(*cols_of)(view *v);
    int namecap;        /* the name column's widest when columns follow it; 0: none */
    const enum model_sort *sorts; /* what < and > cycle through, ended by MODEL_SORT_N */
    /* optional: what < and > cycle through now, when it varies (NULL: sorts) */
    const enum model_sort *(*sorts_of)(view *v);
    /* optional: the name of a sort of the view's own (past MODEL_SORT_N), or NULL */
    const char *(*sort_name)(view *v, int sort);

    /* optional: allocates the view's state (view_set_state); 0 or -1 */
    int (*open)(view *v);
    /* optional: frees it */
    void (*close)(view *v);
    /* A flat view: fills r (emptied before) with its row ids in order. */
    int (*rebuild)(view *v, view_rows *r);
    /* A view with rows of its own (a tree), instead of rebuild: */
    size_t (*count)(view *v);         /* how many rows */
    uint32_t (*row)(view *v, size_t i); /* the id on row i, UINT32_MAX past the end */
    /* optional, with count: rows went stale (sort, scope); returns the
       cursor row to take (the same item, or the nearest one shown) */
    size_t (*refresh)(view *v);
    /* The full name of row id (into buf when it is not a model string). */
    const char *(*name_of)(view *v, uint32_t id, char *buf, size_t size, size_t *len);
    /* One cell of row id into l; namew is the name column's width. */
    void (*cell)(view *v, uint32_t id, const col *c, int namew, cols_line *l);
    /* optional: the row is GPU work (painted apart) */
    bool (*gpu)(view *v, uint32_t id);
    /* optional: how the row is painted (VIEW_STYLE_ROW, _ROW_GPU, _ROW_WORSE,
       _ROW_BETTER), instead of what gpu says */
    enum view_style (*style)(view *v, uint32_t id);
    /* optional: the view's own handling of an action (ui/keys.h) before the
       generic one: VIEW_DRAW_* bits or VIEW_QUIT, or -1 to leave it to
       the generic actions */
    int (*action)(view *v, enum key_act act, int arg);
    /* optional: the view's own search (the generic one tests every row's
       name): as search_rows (ui/search.h), the next match after row `from`
       (at it too when `at`) in direction dir, wrapping, into *f; it may
       unfold rows to show the match (f->row is then a row after that) */
    void (*search)(view *v, const char *pat, size_t from, int dir, bool at, search_found *f);
    /* optional: more text on the tab line after the sort */
    void (*tabinfo)(view *v, char *buf, size_t size);
    /* optional: after every key while the view is shown (to remember
       what the cursor is on before the rows change shape) */
    void (*after_key)(view *v);
    /* optional: actions the view answers from every view, after the shown
       view's own and the generic ones left them (the Steps view's [ and ],
       and Esc once no focus is left to pop): like action */
    int (*global)(view *v, enum key_act act, int arg);
    /* its state outlives view_set_model (only view_free closes it): for a
       view that owns the models it points the view at; its rebuild sees
       the new v->m */
    bool keeps_state;
    /* optional: 1 + the id of its column of role letters (K M S C R D P O),
       which the terminal paints in the roles' colours (view_bar_span) */
    int bar_col;
    /* optional: the view sorts apart from the tables (the Tree by total
       time whatever Ops shows): where its sort and direction live. < > r,
       the tab line and the column arrow then use them */
    void (*own_sort)(view *v, enum model_sort **sort, bool **reverse);
    /* optional: what Esc must restore when a focus is left from this view,
       and restoring it (after the scope popped) */
    uint64_t (*save)(view *v);
    void (*restore)(view *v, uint64_t saved);
    /* optional: the part of the scope this view sets for every view
       beside the model's own scope (the rank shown) as the scope line
       names it ("rank 3"), into buf; "" when it sets none. A step or a
       range the shown model is scoped to needs none: the line says
       model.scope_note */
    void (*scope_part)(view *v, char *buf, size_t size);
    /* optional: the same part as the command line says it, for the
       export's command (--step 1011, --rank 3); sets only what it owns */
    void (*scope_args)(view *v, struct view_scope_args *a);
    /* optional: the inverse, when the explorer opens with a scope (--step,
       --rank): shows the part it owns, if a asks for it. 0, or -1 with the
       reason in why (a step the trace lacks) */
    int (*set_scope_args)(view *v, const struct view_scope_args *a, char *why, size_t size);
    /* optional: actions the key table gives this view that it cannot do
       (a compare twin's), ended by ACT_NONE: kept off its hint bar */
    const enum key_act *off_acts;
    /* optional: the view that shows a focus (the Tree): pushes the scope
       entry and shows its stacks, for view_push_focus from any view */
    void (*focus)(view *v, enum scope_kind kind, uint32_t id);
};

/* Where Esc returns to after a focus. */
typedef struct view_back {
    enum view_tab tab;
    size_t cursor, top;
    uint64_t saved[VIEW_NVIEWS]; /* each view's save() */
} view_back;

struct view {
    const model *m;
    const struct view_ops *ops[VIEW_NVIEWS]; /* the views shown: the standard ones, or
                                                the compare twins (ui/view_table.c) */
    const struct view_ops *const *std; /* every standard view's (VIEW_NVIEWS), whatever
                                          is shown: what save, restore, focus and the
                                          command-line scope go through */
    const struct compare *cmp; /* comparing: what ui/cmp.h's views read; else NULL */
    int cmp_fig;               /* comparing: the figures shown (enum cmp_fig) */
    const char *export_dir;
    view_export_progress_fn export_progress; /* NULL: none */
    void *export_ctx;
    size_t top_ops;         /* --top: 0 for all */
    const char *source_path; /* view_opts.source_path */
    const struct hta_opts *hta_opts; /* view_opts.hta_opts */
    enum view_tab pane_from; /* the view a pane returns to */
    bool hide_python;        /* p: Python frames left out of the tree and the tables */
    const char *const *inputs; /* view_opts.inputs, ninputs, base_path */
    size_t ninputs;
    const char *base_path;

    enum view_tab tab;
    enum view_mode mode;
    enum model_sort sort;
    bool reverse;
    uint32_t order_gen;     /* bumped when the sort or the scope change an order */
    bool gpu;               /* the trace has GPU work: device columns shown */
    int width, height, page; /* screen size and body rows */

    view_rows rows[VIEW_NVIEWS]; /* flat views' rows */
    size_t cur[VIEW_NVIEWS], top[VIEW_NVIEWS];
    bool stale[VIEW_NVIEWS];  /* rows must be rebuilt before use */
    void *state[VIEW_NVIEWS]; /* each view's own */

    scope *scope;
    view_back back[SCOPE_MAX];
    search srch;
    char status[1024];
    char *help;               /* the help screen (ui/keys.c), lines split; owned */
    const char **help_lines;  /* nhelp of them, into help; owned */
    size_t nhelp;
    size_t help_top;          /* the first help line on screen */
    char help_foot[160];
    struct view_keyed *kbuf; /* sort keys */
    size_t kcap;
    const struct ranks_job *ranks; /* view_attach_ranks: kept across view_set_model */
    bool short_names;        /* s: op names as core/model/shortname.h cuts them */
    struct shortnames *sn;   /* built on first use, per model */
    struct derived_set *derived; /* each trace's steps and memory (view_derived), freed by view_free */
};

/* A view over m with the views' tables (made by ui/view_table.c, which
   knows them): std holds every standard view's, shown the ones to show
   (the same, or compare twins in their place); both VIEW_NVIEWS long, std
   outliving the view. NULL when out of memory. */
view *view_new_with(const model *m, const view_opts *o, const struct view_ops *const *std,
                    const struct view_ops *const *shown);

/* The standard table of view tab (its label, its key), whatever is shown. */
const struct view_ops *view_ops_of(const view *v, enum view_tab tab);


/* The current view's state, as its open() set it. */
void *view_state(view *v, enum view_tab tab);
void view_set_state(view *v, enum view_tab tab, void *state);
/* A zeroed state of size bytes, set as tab's (the view's close frees it).
   NULL when out of memory. */
void *view_state_new(view *v, enum view_tab tab, size_t size);

void view_status_set(view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rebuilds the current view's rows when they are stale, keeping the cursor
   on its item. */
void view_ensure_rows(view *v);
/* The rows of every view go stale (sort or scope changed). */
void view_all_stale(view *v);
/* Keeps the cursor in the rows and on the page. */
void view_clamp(view *v);
/* The scope changed: rows, figures and orders go stale. */
void view_scope_changed(view *v);
/* Pushes a scope entry, remembering where Esc returns to; the caller then
   shows what it wants. false when the scope is full (status set). */
bool view_scope_push(view *v, enum scope_kind kind, uint32_t id);
/* Pops the last scope entry and goes back where it was pushed (Esc):
   false when there is none. */
bool view_scope_pop(view *v);

/* Where the current view's sort and direction live: v->sort and
   v->reverse, or the view's own (own_sort). */
void view_sort_slot(view *v, enum model_sort **sort, bool **reverse);
/* The sort's arrow: ▲ or ▼ */
const char *view_sort_arrow(const view *v);
/* Whether the current view has sort keys (< > r); false: its rows have one order. */
bool view_sorts(view *v);
/* The current view's sort by name: a model_sort's, or the view's own. */
const char *view_sort_name(view *v);

/* A pane (VIEW_PANES) opens over the current view, which it returns to. */
void view_pane_open(view *v, enum view_tab pane);
void view_pane_close(view *v);

/* Writes to every page of a fresh allocation, so that a key press later
   does not take thousands of page faults. */
void view_prefault(void *p, size_t size);

#endif
