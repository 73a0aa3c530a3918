/* The screen as lines of text (ui/screen.c): title, scope line, tabs and
   column header above the body, footer and hint bar below, and the help
   screen. ui/draw.c paints these lines, --replay prints them. */
#ifndef T2P_SCREEN_H
#define T2P_SCREEN_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/view_types.h"

/* Screen line y (0 .. height-1) as text of the screen's width, UTF-8 into
   buf, and how it is to be painted. In help mode use view_help_line. */
void view_screen_line(view *v, int y, char *buf, size_t size, enum view_style *style);
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

/* The screen column of the prompt's cursor (after the typed text) on the
   footer line, or -1 when no prompt is open. */
int view_prompt_col(view *v);
/* The view whose tab covers column x of the tab line (screen line 2) as
   drawn, or -1: what a click there selects. */
int view_tab_at(const view *v, int x);

/* A body row's text (any row, on screen or not); *gpu set for GPU work. */
void view_body_line(view *v, size_t i, char *buf, size_t size, bool *gpu);
/* The help's lines (building them on first use). */
size_t view_help_count(view *v);

#endif
