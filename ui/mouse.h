/* The mouse: what a click, a double-click or the wheel at a screen cell
   does to the view, in plain C (no curses) so a test drives it without a
   terminal. ui/draw.c reads the terminal's mouse events; src/tui.c passes
   them here. Every effect goes through the keys a user would press, so a
   view's own handling of them applies. */
#ifndef T2P_MOUSE_H
#define T2P_MOUSE_H

#include "ui/view.h"

enum mouse_kind {
    MOUSE_CLICK,      /* button 1: a body row selects it, a tab shows its view */
    MOUSE_DOUBLE,     /* button 1 twice: selects, then expands or collapses a tree
                         node, or does what Enter does on the row */
    MOUSE_WHEEL_UP,   /* the cursor MOUSE_WHEEL_ROWS rows up */
    MOUSE_WHEEL_DOWN
};

#define MOUSE_WHEEL_ROWS 3

/* Applies an event at screen column x, line y (0-based, as view_screen_line
   numbers lines). Returns VIEW_DRAW_* bits (0: nothing changed) or VIEW_QUIT. */
int mouse_event(view *v, enum mouse_kind kind, int x, int y);

#endif
