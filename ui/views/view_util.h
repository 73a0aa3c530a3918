/* What the views share (ui/views/view_util.c): op names as shown, sorting
   rows, figure cells, a track's busy time. Below every view and above the
   view state (ui/view_impl.h). */
#ifndef T2P_VIEW_UTIL_H
#define T2P_VIEW_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"
#include "ui/cols.h"
#include "ui/view_impl.h"

/* Adds id to rows; -1 when out of memory. */
int view_rows_push(view_rows *r, uint32_t id);

/* An op's name as the views show it: short when s is on (owned by the
   view or the model); its length in *len. Two ops with the same short name
   stay two rows: only the text changes. */
const char *view_op_name(view *v, uint32_t op, size_t *len);
/* An operator as the tree views show it: a Python frame event as "forward
   model.py:10" (into buf; *split where the file:line, secondary text,
   starts), any other by view_op_name (*split SIZE_MAX). */
const char *view_op_label(view *v, uint32_t op, char *buf, size_t size, size_t *len,
                          size_t *split);

/* Sorting rows by a key, then by name, then by id (the order of every view). */
typedef struct view_keyed {
    int64_t key;
    const char *name;
    uint32_t id;
    bool owned; /* name is a copy, freed by the sorter */
} view_keyed;
view_keyed *view_keyed_buf(view *v, size_t n);
void view_keyed_sort(view_keyed *k, size_t n, bool by_name, bool reverse);

/* A figure as a right-aligned cell. */
void view_cell_ms(cols_line *l, int64_t ns, int width);
void view_cell_count(cols_line *l, uint64_t n, int width);
void view_cell_pct(cols_line *l, int64_t part, int64_t whole, int width);
struct derived;
/* The analyses of m's trace, built once and shared by every view
   (core/analyses/derived.h); NULL when out of memory. */
struct derived *view_derived(view *v, const model *m);

#endif
