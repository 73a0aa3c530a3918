/* Search and the one-line prompt: the text being typed, the last search,
   and finding the next or previous matching row of any view. No curses and
   no view here: a view gives its rows through a callback. */
#ifndef T2P_SEARCH_H
#define T2P_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#define SEARCH_TEXT 256

typedef struct search {
    char prompt[SEARCH_TEXT]; /* the text being typed */
    char last[SEARCH_TEXT];   /* the last search */
    size_t from;              /* the row the search started at */
} search;

/* Ctrl-U: empties the text, as in a shell. */
#define SEARCH_KILL_LINE 0x15

/* Edits text with key: backspace (a view_keycode) removes the last UTF-8
   character, Ctrl-U empties it, a printable byte is appended. Returns false
   for any other key. */
bool search_edit(char *text, size_t size, int key);

/* Whether name holds pat, in any case. */
bool search_match(const char *name, const char *pat);

/* Whether row i matches. */
typedef bool (*search_hit_fn)(void *ctx, size_t i);

/* The first matching row at or after `from` (dir > 0), or the last one
   before it (dir < 0), wrapping; SIZE_MAX when none of n rows matches. */
size_t search_rows(size_t n, size_t from, int dir, search_hit_fn hit, void *ctx);

#endif
