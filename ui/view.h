/* The explorer's view state: which view is shown, its rows, the cursor and
   the scope, driven by keys. Plain C with no curses, so that unit tests and
   the headless --replay mode drive it exactly as the terminal does. It lays
   out every screen line as text; ui/draw.c only paints strings.

   Layout of ui/, each module using only those listed before it (no
   circles: tests/circles.py checks it):
     view_types.h the views in tab order (VIEW_LIST), modes, styles, options
     keys.c       the one key table: help, hint bar, --replay names
     search.c     the prompt and finding rows
     cols.c       column layout and text cells
     tree_rows.c  the rows of a call tree (expand, collapse, row at, index of)
     (core/model/scope.c: focus stack and filter, what every view shows)
     view.c       the view state: cursor, scrolling, flat rows, scope and
                  focus stack, sorts, panes; it knows no view (their tables
                  are handed in) and no key
     views/view_util.c  what views share: cells, sorting rows, names
     tree_moves.c the keys every tree view shares, and search steps in a tree
     cmp.c        what the compare twins share
     views/view_*.c  one file per view, each filling one struct view_ops
                  (ui/view_impl.h); views/view_cmp_*.c are the twins shown
                  when comparing two traces (--base)
     view_table.c every view's table; makes a view over them (view_table_new),
                  the compare twins in place when view_opts.cmp is set
     export.c     e: the scope to pprof
     screen.c     the screen as lines of text: chrome, body, help
     view_key.c   key dispatch: the view's action, then the generic ones
     mouse.c, draw.c  the terminal (draw.c is the only file calling curses)

   How to add a view (say "steps"):
     1. Write ui/views/view_steps.c: its columns (a col array), its sort keys, and
        the functions of struct view_ops (ui/view_impl.h documents each; copy
        ui/views/view_threads.c for a flat table or ui/views/view_tree.c for a tree). It
        ends with `const struct view_ops view_steps_ops = { ... };`. Keep
        the view's own state behind view_state(v) (ops.open allocates it).
     2. Add one line to VIEW_LIST (ui/view_types.h): X(STEPS, steps). Its key is the
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
#include "core/model/scope.h"
#include "ui/view_types.h"

/* A view is made over every view's table by ui/view_table.h's
   view_table_new. */
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

/* Accessors for the program, the terminal and the export. */
const model *view_model(const view *v);
scope *view_scope(view *v);
enum view_tab view_current(const view *v);
enum view_mode view_mode_of(const view *v);
const char *view_prompt(const view *v); /* the text typed in a prompt */
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

/* Called while e writes (ui/export.c); NULL: no progress. */
void view_set_export_progress(view *v, view_export_progress_fn fn, void *ctx);

/* Pushes a scope entry and shows the tree of its stacks, as Enter and f
   do (the view whose view_ops.focus does it: the Tree), from any view. */
void view_push_focus(view *v, enum scope_kind kind, uint32_t id);

/* Opens with a scope given on the command line: a's step and rank (the
   views that own them show them), then the focus entries (--focus,
   --category, --track, as core/model/scope.h reads them) and the filter.
   0, or -1 with the reason in why (a step, rank or name the trace lacks). */
int view_apply_scope(view *v, const struct view_scope_args *a, const struct export_entry *entries,
                     size_t n, const char *filter, char *why, size_t size);

#endif
