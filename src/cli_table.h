/* analyze's text tables: columns as wide as their widest cell, so that
   nothing is cut when the output is a file or a pipe; on a terminal the
   name columns give way so that no line is wider than the terminal. */
#ifndef T2P_CLI_TABLE_H
#define T2P_CLI_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define CLI_TABLE_MAXCOLS 16

enum {
    CLI_COL_LEFT = 1, /* left-aligned (text); numbers are right-aligned */
    CLI_COL_NAME = 2, /* may shrink on a terminal: cut in the middle */
    CLI_COL_PATH = 4, /* may shrink on a terminal: the directories go first */
    CLI_COL_GLUE = 8, /* no blank before it (a mark after a number) */
    CLI_COL_DROP = 16 /* left out on a terminal too narrow for it, the last first */
};

typedef struct {
    const char *head;
    unsigned flags;
} cli_col;

/* Fills cell[c] and len[c] for row r; the strings must stay valid until the
   next call. Called twice per row: once to measure, once to print. */
typedef void (*cli_row_fn)(void *ctx, size_t r, const char **cell, size_t *len);

/* The display width text goes into on f: the terminal's columns when f is
   a terminal ($COLUMNS, then 80, when it does not say), 0 (no limit)
   otherwise. */
size_t cli_text_cols(FILE *f);

/* Prints the header line and nrows rows, no allocation. */
void cli_table(FILE *f, const cli_col *cols, size_t ncols, size_t nrows, cli_row_fn fn,
               void *ctx);

/* Writes s (len bytes) in exactly cols columns, in its visible form: cut in
   the middle (path: at the start) when wider, padded when narrower and pad. */
void cli_put_fit(FILE *f, const char *s, size_t len, size_t cols, unsigned flags, int pad);

/* Writes the prose text s wrapped at blanks to f's text width (indenting
   continuation lines by indent blanks), or whole when f has no width. */
void cli_put_wrapped(FILE *f, const char *s, size_t indent);

#endif
