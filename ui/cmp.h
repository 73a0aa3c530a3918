/* The explorer comparing two traces (torch2pprof-tui --base BASE TRACE):
   the Ops, Categories, Tree and Threads views are replaced by their compare
   twins (ui/views/view_cmp_ops.c, _cats.c, _tree.c, _threads.c), which read one
   core/compare. This file holds what the three share: the figures shown
   (new, base or delta: key b), signed delta cells, the row colour (slower
   red, faster green), the title line and the export of the diff profile. */
#ifndef T2P_UI_CMP_H
#define T2P_UI_CMP_H

#include "core/analyses/compare.h"
#include "ui/view_impl.h"

extern const struct view_ops view_cmp_ops_ops, view_cmp_cats_ops, view_cmp_tree_ops,
    view_cmp_threads_ops, view_cmp_callers_ops, view_cmp_steps_ops, view_cmp_memory_ops;

/* What the compare tables and the compare tree cannot do (their
   view_ops.off_acts): no drill from a table, the tree is merged already
   and has no Python frames' sources. */
extern const enum key_act cmp_table_off[], cmp_tree_off[];

/* What the figure columns show; b cycles through them. */
enum cmp_fig { CMP_FIG_NEW, CMP_FIG_BASE, CMP_FIG_DELTA, CMP_FIG_N };

/* Puts the compare views in v->ops (view_new does, given view_opts.cmp). */
void cmp_install(view *v);

/* The figures a row shows under the current mode. */
compare_fig cmp_shown(const view *v, const compare_fig *b, const compare_fig *n);

/* A signed cell: "+1.234", "-0.250", "0.000" (ms) or "+3", "-1", "0" (calls). */
void cmp_cell_dms(cols_line *l, int64_t ns, int width);
void cmp_cell_dcount(cols_line *l, double n, int width);
void cmp_cell_count(cols_line *l, double n, int width);
/* Δ self as a % of base self: "+12.5", "new" (only in new), "gone" (only in base). */
void cmp_cell_dpct(cols_line *l, enum compare_status st, const compare_fig *b,
                   const compare_fig *n, int width);
/* The name cell with its status mark: "+ name" (only in new), "- name" (only in base). */
void cmp_cell_name(cols_line *l, enum compare_status st, const char *s, size_t len, int width);

/* Slower (the delta is positive) red, faster green. */
enum view_style cmp_style(int64_t delta);

/* The core/compare sort for a view's model_sort: figures sort by |delta|. */
enum compare_sort cmp_sort_of(enum model_sort s);

/* Trees of compare nodes (the Tree Δ, the Callers Δ): their columns, a
   node's sort key (|Δ| of the sorted figure), its name and its cells; t
   holds its rows, whose top is at depth top_depth (the indent). */
struct tree_rows;
extern const col cmp_node_cols[];
extern const enum model_sort cmp_node_sorts[];
int64_t cmp_node_key(const compare_node *n, enum model_sort s);
const char *cmp_node_name(const view *v, const compare_node *n, size_t *len);
void cmp_node_cell(view *v, const compare_node *n, const struct tree_rows *t, uint32_t u,
                   uint32_t top_depth, const col *c, int namew, cols_line *l);

/* The three flat compare tables (Ops, Categories, Threads) share their
   rows' code: each is core/compare's rows of one kind, sorted, filtered by
   name, drawn from one set of figure columns. A Threads row's calls are its
   events, self its busy time, total its longest idle gap (core/compare). */
enum cmp_col {
    CMP_COL_NAME, CMP_COL_CAT, CMP_COL_CALLS, CMP_COL_SELF, CMP_COL_TOTAL, CMP_COL_DEV_SELF,
    CMP_COL_DEV_TOTAL, CMP_COL_D_CALLS, CMP_COL_D_SELF, CMP_COL_D_TOTAL, CMP_COL_D_PCT,
    CMP_COL_D_DEV_SELF, CMP_COL_D_DEV_TOTAL,
    CMP_COL_OWN /* first id a view may use for a column of its own */
};

/* The rows of tab (VIEW_OPS, VIEW_CATS or VIEW_THREADS) in v->cmp; *n their count. */
const compare_row *cmp_table_rows(const view *v, enum view_tab tab, size_t *n);
/* The view state of a table (its sort order); 0 or -1. */
int cmp_table_open(view *v, enum view_tab tab);
void cmp_table_close(view *v, enum view_tab tab);
/* The rows sorted and filtered by name, at most v->top_ops when limit. */
int cmp_table_rebuild(view *v, enum view_tab tab, view_rows *r, bool limit);
/* The row's name; "(none)" for the empty category (operators without one). */
const char *cmp_table_name(const view *v, enum view_tab tab, uint32_t id, size_t *len);
/* A shared column's cell; false for an id of the view's own. */
bool cmp_table_cell(view *v, enum view_tab tab, uint32_t id, const col *c, int namew,
                    cols_line *l);
/* Slower red, faster green, by Δ self. */
enum view_style cmp_table_style(view *v, enum view_tab tab, uint32_t id);

/* e: the name the prompt offers, TRACE-diff.pb.gz free in dir (malloc'd,
   the caller frees; NULL when out of memory). */
char *cmp_export_name(view *v, const char *dir);
/* The actions every compare view shares: b, and refusing a focus.
   -1 for the others. */
int cmp_action(view *v, enum key_act act);

/* ", showing new (b: base, delta)" after the sort on the tab line. */
void cmp_tabinfo(view *v, char *buf, size_t size);

/* The title line: both traces and their busy times. */
void cmp_title(const view *v, char *buf, size_t size);

#endif
