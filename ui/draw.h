/* The terminal: the only module that calls curses. It paints what ui/view.c
   lays out, shows the load progress, and reads keys as view_keycodes. */
#ifndef T2P_DRAW_H
#define T2P_DRAW_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/view.h"

#define DRAW_RESIZE (-2) /* draw_key: the terminal changed size */
#define DRAW_MOUSE (-3)  /* draw_key: a mouse event, read with draw_mouse_event */

/* Takes the terminal (colours unless no_color or the terminal has none).
   Returns 0, or -1 when the terminal cannot be used. */
int draw_open(bool no_color);
/* Gives the terminal back; safe to call more than once and when never opened. */
void draw_close(void);
bool draw_is_open(void);
void draw_size(int *width, int *height);

/* The next key (a byte or a view_keycode), DRAW_RESIZE, DRAW_MOUSE, or -1
   after timeout_ms without one. */
int draw_key(int timeout_ms);

/* Reports clicks, double-clicks and the wheel as DRAW_MOUSE (after
   draw_open; --no-mouse leaves the terminal's own selection alone). */
void draw_mouse(bool on);
/* The event draw_key last reported as DRAW_MOUSE: an enum mouse_kind
   (ui/mouse.h) and its screen cell. */
void draw_mouse_event(int *kind, int *x, int *y);

void draw_screen(view *v);

/* The load screen: a bar with bytes of total, events and elapsed time. */
void draw_progress(const char *path, uint64_t done, uint64_t total, uint64_t events,
                   double seconds, const char *what);

/* A screen of text lines (each ended by '\n'), from the top left: the
   load screen of many ranks (ui/progress.h). */
void draw_text(const char *text);

/* The same for a pprof export: done of total stack entries written. */
void draw_export_progress(const char *path, uint64_t done, uint64_t total, double seconds);

#endif
