/* Search and the one-line prompt: the text being typed, the last search,
   and finding the next or previous matching row of any view. No curses and
   no view here: a view gives its rows through a callback.

   Matching is smart case (select_name_has): "relu" finds ReLU and relu,
   "ReLU" only ReLU. A search reports which match it found of how many
   ("match 3 of 17") and whether it went round the end ("search wrapped"). */
#ifndef T2P_SEARCH_H
#define T2P_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#define SEARCH_TEXT 256    /* a search or filter text: at most this, with its NUL */
#define SEARCH_PROMPT 4096 /* the prompt's room: an export path (PATH_MAX) too */

typedef struct search {
    char prompt[SEARCH_PROMPT]; /* the text being typed */
    char last[SEARCH_TEXT];     /* the last search */
    size_t from;              /* the row the search started at */
} search;

/* Ctrl-U: empties the text, as in a shell. */
#define SEARCH_KILL_LINE 0x15

/* Where a search landed. */
typedef struct search_found {
    size_t row;     /* the matching row; SIZE_MAX when nothing matches */
    size_t index;   /* 1-based: which match, in row order */
    size_t total;   /* how many rows match (a tree: how many nodes, shown or folded) */
    bool wrapped;   /* it went past the last (first) row to find it */
} search_found;

/* Edits text with key: backspace (a view_keycode) removes the last UTF-8
   character, Ctrl-U empties it, a printable byte is appended. Returns false
   for any other key. */
bool search_edit(char *text, size_t size, int key);

/* Whether name holds pat, smart case. */
bool search_match(const char *name, const char *pat);

/* Whether row i matches. */
typedef bool (*search_hit_fn)(void *ctx, size_t i);

/* Of n rows, the first matching one after `from` (dir > 0), or the last one
   before it (dir < 0), wrapping; `from` itself counts when at is true
   (the incremental search from where it started). Fills *f. */
void search_rows(size_t n, size_t from, int dir, bool at, search_hit_fn hit, void *ctx,
                 search_found *f);

/* The status line for f: "match 3 of 17", "match 1 of 17 (search wrapped to
   top)". Into buf. */
const char *search_describe(const search_found *f, int dir, char *buf, size_t size);

#endif
