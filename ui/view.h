/* The explorer's view state: which view is shown, its rows, the cursor and
   the scope, driven by keys. Plain C with no curses, so that unit tests and
   the headless --replay mode drive it exactly as the terminal does. It lays
   out every screen line as text; ui/draw.c only paints strings.

   Layout of ui/:
     view.c       the shared machinery: cursor, scrolling, flat rows, the
                  screen chrome, sort cycling, key dispatch
     view_*.c     one file per view, each filling one struct view_ops
                  (ui/view_impl.h) - the views are listed in VIEW_LIST below
     keys.c       the one key table: dispatch, help, hint bar, --replay names
     (core/model/scope.c: focus stack and filter, what every view shows)
     tree_rows.c  the rows of a call tree (expand, collapse, row at, index of)
     tree_moves.c the keys every tree view shares, and search steps in a tree
     search.c     the prompt and finding rows
     cols.c       column layout and text cells
     export.c     e: the scope to pprof
     draw.c       the terminal (the only file that calls curses)
     cmp.c, view_cmp_*.c  comparing two traces (--base): every view's
                  twin, put in place by view_new from view_opts.cmp

   How to add a view (say "steps"):
     1. Write ui/views/view_steps.c: its columns (a col array), its sort keys, and
        the functions of struct view_ops (ui/view_impl.h documents each; copy
        ui/views/view_threads.c for a flat table or ui/views/view_tree.c for a tree). It
        ends with `const struct view_ops view_steps_ops = { ... };`. Keep
        the view's own state behind view_state(v) (ops.open allocates it).
     2. Add one line to VIEW_LIST below: X(STEPS, steps). Its key is the
        next digit, its --view name is ops.name, the tab label ops.label.
     3. Its own keys, if any: rows in ui/keys.c's table (with a new
        key_act when no existing action fits) that name the view in their
        views mask; ops.action handles them. The help screen and the hint
        bar follow from the table.
     4. Add the file to libt2pui_a_SOURCES in Makefile.am, and golden
        screens tests/tui/steps-80x24.keys and steps-200x50.keys
        (T2P_GOLDEN_UPDATE=1 make check TESTS=tests/tui/run.sh writes
        the .screen files: read them before committing).
   Nothing else in ui/ or src/tui.c changes: dispatch, chrome, search,
   filter, scope and export work on every view through its ops.

   Cost model: a key press never walks the events. Flat views are small
   arrays from the model; call trees are walked only where the user looks
   (ui/tree_rows.h). A change of scope costs one pass over the nodes. */
#ifndef T2P_VIEW_H
#define T2P_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"
#include "core/model/select.h"
#include "ui/keys.h"
#include "core/model/scope.h"

/* Every view, in tab order: X(ENUM_SUFFIX, file_suffix). View `name` is
   ui/view_name.c and fills `const struct view_ops view_name_ops`. */
#define VIEW_LIST(X)     \
    X(OPS, ops)          \
    X(CATS, cats)        \
    X(TREE, tree)        \
    X(THREADS, threads)  \
    X(STEPS, steps)      \
    X(RANKS, ranks)      \
    X(ALLRANKS, allranks) \
    X(MEMORY, memory)     \
    X(TIMELINE, timeline) \
    X(GPU, gpu)           \
    X(KERNELS, kernels)   \
    X(MODULES, modules)   \
    X(COLLECTIVES, collectives)

/* Panes: views without a tab or a digit, opened by a key from another
   view, back to it with Esc or q (ui/views/view_source.c: v on a Python frame).
   Listed the same way; they come after the tabs. */
#define VIEW_PANES(X) \
    X(SOURCE, source) \
    X(CALLERS, callers) \
    X(CHOOSER, chooser)

#define VIEW_ENUM(E, n) VIEW_##E,
/* the panes number on from VIEW_NTABS: the first pane is VIEW_NTABS */
enum view_tab { VIEW_LIST(VIEW_ENUM) VIEW_NTABS, VIEW_PANE0 = VIEW_NTABS - 1,
                VIEW_PANES(VIEW_ENUM) VIEW_NVIEWS };
#undef VIEW_ENUM

/* What view_key changed: the parts of the screen to repaint, or quit. */
enum {
    VIEW_DRAW_TITLE = 1,  /* title and focus lines */
    VIEW_DRAW_TABS = 2,
    VIEW_DRAW_BODY = 4,   /* column header and rows */
    VIEW_DRAW_FOOTER = 8,
    VIEW_DRAW_ALL = 15,
    VIEW_QUIT = 0x100
};

/* Input modes: keys go to the view, or to a one-line prompt. */
enum view_mode { VIEW_MODE_NORMAL, VIEW_MODE_SEARCH, VIEW_MODE_FILTER, VIEW_MODE_HELP,
                 VIEW_MODE_EXPORT /* e: the path to write */ };

/* The screen, top to bottom: four rows of chrome, the body (one row per
   table row), two rows of chrome. The body has height - VIEW_CHROME rows. */
enum view_style {
    VIEW_STYLE_TITLE,    /* file and the trace's figures */
    VIEW_STYLE_CRUMB,    /* the scope: focus breadcrumb, filter, its busy time */
    VIEW_STYLE_SCOPED,   /* the same while a scope is on */
    VIEW_STYLE_WARN,     /* the same over a truncated trace */
    VIEW_STYLE_TABS,     /* the views, the sort */
    VIEW_STYLE_HEADER,   /* column titles */
    VIEW_STYLE_ROW,      /* a body row */
    VIEW_STYLE_ROW_GPU,  /* a body row of GPU work */
    VIEW_STYLE_ROW_WORSE,  /* comparing: a row that got slower (red) */
    VIEW_STYLE_ROW_BETTER, /* comparing: a row that got faster (green) */
    VIEW_STYLE_CURSOR,   /* the body row under the cursor */
    VIEW_STYLE_EMPTY,    /* a body row past the last one */
    VIEW_STYLE_FOOTER,   /* prompt, or the selected row's full name */
    VIEW_STYLE_STATUS,   /* the footer holding a message */
    VIEW_STYLE_KEYS      /* the hint bar */
};
#define VIEW_CHROME_TOP 4
#define VIEW_CHROME 6

typedef struct view view;
struct compare;

typedef struct view_opts {
    enum view_tab tab;
    enum model_sort sort;
    const char *export_dir; /* NULL: "." */
    size_t top;             /* list only the first top operators; 0: all */
    /* where the source pane also looks for a Python frame's file (pprof's
       -source_path); NULL: only where the trace says. Not copied. */
    const char *source_path;
    /* the GPU view's cutoffs (--kernel-wait, --runtime-cutoff,
       --launch-delay-cutoff, as analyze takes them); NULL: HTA's defaults.
       Not copied. */
    const struct hta_opts *hta_opts;
    /* comparing two traces (--base): the Ops, Categories, Tree and Threads views
       become their compare twins (ui/cmp.h) over this, whose new model is
       m; NULL: one trace. Must outlive the view. */
    const struct compare *cmp;
    bool short_names;       /* names shortened as HTA's use_short_name (s toggles) */
    bool hide_python;       /* Python frames hidden from the start (--no-python; p toggles) */
    /* the traces (or directories) as the command line named them, and the
       compare base: what the export's recorded command names. Not copied. */
    const char *const *inputs;
    size_t ninputs;
    const char *base_path;
} view_opts;

struct export_entry;

/* The parts of the scope that views set for every view, as the command
   line spells them (ui/export.c builds `torch2pprof convert ...` from them). */
struct view_scope_args {
    char step[64];        /* --step: "1011", "1009-1011"; "" for every step */
    char range[96];       /* --range: "1204000000ns:1517000000ns"; "" for the whole trace */
    const model *whole;   /* the whole trace's model when v->m is a step's, else NULL */
    bool has_rank;        /* --rank: the rank shown, of a job */
    int64_t rank;
    bool all_ranks;       /* the whole job (All ranks) */
    /* focus entries a view keeps apart from the scope (the compare Tree's
       f), as --focus paths from the top of the stack */
    char focus[8][512];
    int nfocus;
    /* what the view shown exports instead of every stack (convert
       --kernels, --kernel NAME, --modules, --by-shape, --track LABEL): set by that view
       alone, when it is the one shown */
    bool kernels;
    const char *kernel; /* that kernel alone (a string of the model's trace); NULL: every one */
    bool modules;
    bool by_shape;
    char track[512];   /* "" none */
};

/* A view over m (which must outlive it). NULL when out of memory. */
view *view_new(const model *m, const view_opts *o);
void view_free(view *v);

/* Points the view at another model (which must outlive it): every view's
   rows are rebuilt and the scope starts empty. Returns 0 or -1 (out of
   memory: the view is then unusable and must be freed). */
int view_set_model(view *v, const model *m);
/* The same keeping the focus and the filter, carried to m by what they
   name (core/model/scope.h scope_carry; the old model must still be alive). 1, or
   0 when m lacks a focus entry (the focus then stops before it and the
   status says so), or -1 as view_set_model. */
int view_set_model_keep(view *v, const model *m);

/* The screen size; the body gets height - VIEW_CHROME rows. */
void view_resize(view *v, int width, int height);

/* Applies one key (a byte or a view_keycode). Returns VIEW_DRAW_* bits or VIEW_QUIT. */
int view_key(view *v, int key);

/* Screen line y (0 .. height-1) as text of the screen's width, UTF-8 into
   buf, and how it is to be painted. In help mode use view_help_line. */
void view_screen_line(view *v, int y, char *buf, size_t size, enum view_style *style);
/* Display columns [x0, x0 + w) of a screen line; w 0: none. */
typedef struct view_span {
    int x0, w;
} view_span;
/* view_screen_line, and where the line holds secondary text (the file:line
   of a Python frame row), which the terminal paints dimmed. */
void view_screen_line_sec(view *v, int y, char *buf, size_t size, enum view_style *style,
                          view_span *sec);
/* The display columns [*x0, *x0 + *w) of screen line y that hold a bar of
   role letters (the Steps view's, view_ops.bar_col): the terminal
   paints each letter in its role's colour. false when line y has none. */
bool view_bar_span(view *v, int y, int *x0, int *w);
/* Help screen lines (a page of the help from where it is scrolled to, then
   a line saying where and how to scroll); NULL after the screen's last. */
const char *view_help_line(view *v, size_t i);

/* The view called name (its --view name or alias), or -1. */
int view_by_name(const char *name);
/* Every view's --view name in tab order, ", " between them, into buf. */
const char *view_names(char *buf, size_t size);

/* Accessors for the program, the terminal and the export. */
const model *view_model(const view *v);
scope *view_scope(view *v);
enum view_tab view_current(const view *v);
enum view_mode view_mode_of(const view *v);
const char *view_prompt(const view *v); /* the text typed in a prompt */
/* The screen column of the prompt's cursor (after the typed text) on the
   footer line, or -1 when no prompt is open. */
int view_prompt_col(view *v);
/* The view whose tab covers column x of the tab line (screen line 2) as
   drawn, or -1: what a click there selects. */
int view_tab_at(const view *v, int x);
const char *view_status(const view *v); /* the last message, "" for none */
void view_set_status(view *v, const char *msg);
int view_width(const view *v);
int view_height(const view *v);
const char *view_export_dir(const view *v);
void view_set_export_dir(view *v, const char *dir); /* not copied */
enum model_sort view_sort(const view *v); /* the current view's */
bool view_short_names(const view *v);

/* The rows of the current view (rebuilt when stale). */
size_t view_nrows(view *v);
uint32_t view_row(view *v, size_t i); /* UINT32_MAX past the end */
size_t view_cursor(const view *v);
size_t view_top(const view *v);
/* The name a row shows in full (op, category, node or track label). */
const char *view_row_name(view *v, size_t i, char *buf, size_t size, size_t *len);

/* Writes the scope to pprof in the export dir under the name e offers
   (never overwriting) and sets the status line. Returns 0 or -1. (ui/export.c) */
int view_export(view *v);
/* Writes the scope to path (a directory: the offered name in it; ~/ is
   $HOME) and sets the status line. Returns 0, -1 when the write failed or
   was cancelled, or VIEW_EXPORT_RETRY when path exists or its directory
   cannot be written (by its mode bits or a read-only mount, even for root):
   nothing was written and another path may be tried. */
#define VIEW_EXPORT_RETRY 1
int view_export_to(view *v, const char *path);

/* Called every few million stack entries while e writes path (done of
   total); non-zero cancels the export, which then leaves nothing behind. */
typedef int (*view_export_progress_fn)(const char *path, uint64_t done, uint64_t total,
                                       void *ctx);
void view_set_export_progress(view *v, view_export_progress_fn fn, void *ctx);

/* The ranks of a job opened together (ui/views/view_ranks.c): the Ranks view lists
   them and Enter on one points every view at its model; the All ranks view
   shows their operators merged. j is not owned and outlives v; the view's
   model must be one of j's. Without it the Ranks view shows the one trace. */
struct ranks_job;
void view_attach_ranks(view *v, const struct ranks_job *j);

/* Every view covers [start, end) on the trace's clock (a time range,
   core/analyses/range.h), as the Timeline view's range keys do: for
   --range. 0, or -1 with the reason in the status line. */
int view_timeline_set_range(view *v, int64_t start, int64_t end);

/* Pushes a scope entry and shows the tree of its stacks, as Enter and f
   do: for tests and scripts. */
void view_push_focus(view *v, enum scope_kind kind, uint32_t id);

/* Opens with a scope given on the command line: a's step and rank (the
   views that own them show them), then the focus entries (--focus,
   --category, --track, as core/model/scope.h reads them) and the filter.
   0, or -1 with the reason in why (a step, rank or name the trace lacks). */
int view_apply_scope(view *v, const struct view_scope_args *a, const struct export_entry *entries,
                     size_t n, const char *filter, char *why, size_t size);

#endif
