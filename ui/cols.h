/* Column layout and text cells: which of a view's columns fit the screen,
   and one screen line built cell by cell (cut with an ellipsis, padded,
   UTF-8). No curses and no view here: ui/view.c and the view files lay out
   their lines with it, ui/draw.c only paints the strings. */
#ifndef T2P_COLS_H
#define T2P_COLS_H

#include <stdbool.h>
#include <stddef.h>

/* One column of a view. A view's columns are an array ended by title NULL. */
typedef struct col {
    int id;            /* the view's own column id (what its cell function switches on) */
    const char *title;
    int width;         /* the name column: its least width */
    int sort;          /* the model_sort it shows, or -1 */
    int prio;          /* 0..4: lower stays longer when the screen is narrow */
    bool gpu;          /* only with GPU work */
    bool name;         /* the name column: gets the room the others leave */
    bool left;         /* left-aligned text (names, categories, kinds) */
} col;

#define COLS_MAX 16

/* A line being built in a caller's buffer. */
typedef struct cols_line {
    char *buf;
    size_t size, off;
    /* secondary text (a Python frame's file:line), bytes [sec_off, sec_end)
       of buf; sec_end 0: none. The terminal maps it to an attribute. */
    size_t sec_off, sec_end;
} cols_line;

void cols_line_init(cols_line *l, char *buf, size_t size);
/* Appends s in its visible form (core/base/textsafe.h): no control character
   reaches the screen, whatever a view puts. */
void cols_put(cols_line *l, const char *s, size_t len);
void cols_pad(cols_line *l, size_t n);
/* Blanks to width columns: a table narrower than the screen still paints
   whole lines (the cursor bar). */
void cols_pad_to(cols_line *l, int width);
/* s cut to width columns (with an ellipsis) and padded, left or right. */
void cols_cell(cols_line *l, const char *s, size_t len, int width, bool right);

/* A left-aligned cell like cols_cell whose bytes [split, len) of s are
   secondary text: marked in l when any of them shows (the cut keeps all of
   s[0, split)); a cut inside them marks the ellipsis too. */
void cols_cell_sec(cols_line *l, const char *s, size_t len, size_t split, int width);

/* The columns of cols (title-NULL terminated) that fit in width, in display
   order, into out (COLS_MAX); *namew gets the name column's width. Columns
   are dropped by priority; gpu says whether GPU columns may show; namecap
   caps the name's width when it is not the last column (0: no cap). */
int cols_layout(const col *cols, int width, bool gpu, int namecap, const col **out, int *namew);
/* The same, keeping first the column that shows the model_sort `sort`
   (-1: none), so that the order on screen is always explained at 80
   columns. */
int cols_layout_sorted(const col *cols, int width, bool gpu, int namecap, int sort,
                       const col **out, int *namew);

#endif
