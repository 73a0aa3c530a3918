/* analyze's text tables (see src/cli_table.h). */
#include "config.h"

#include "src/cli_table.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/base/fmt.h"
#include "src/cli.h"

/* a name never shrinks below this: a few letters of each end still tell it */
#define MIN_NAME_COLS 16
/* unlimited, a name column pads no wider than this */
#define MAX_PAD_COLS 60

size_t cli_text_cols(FILE *f)
{
    int fd = fileno(f);
    if (fd < 0 || !isatty(fd))
        return 0;
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long n = c ? strtol(c, NULL, 10) : 0;
    return n > 0 && n < 100000 ? (size_t)n : 80;
}

static void blanks(FILE *f, size_t n)
{
    while (n--)
        fputc(' ', f);
}

void cli_put_fit(FILE *f, const char *s, size_t len, size_t cols, unsigned flags, int pad)
{
    size_t w = fmt_width(s, len);
    if (w <= cols || !(flags & (CLI_COL_NAME | CLI_COL_PATH)) || cols < 2) {
        if (!(flags & CLI_COL_LEFT) && w < cols)
            blanks(f, cols - w);
        cli_put_text(f, s, len);
        if ((flags & CLI_COL_LEFT) && pad && w < cols)
            blanks(f, cols - w);
        return;
    }
    size_t used = 0;
    if (flags & CLI_COL_NAME) {
        /* a third from the start, the rest from the end: kernels and
           templates differ in their last part */
        char head[1024];
        fmt_ellipsize(s, len, cols / 3 + 1, head, sizeof head);
        fputs(head, f);
        used = fmt_width(head, strlen(head));
    } else {
        fputs("\xe2\x80\xa6", f); /* … where the directories were */
        used = 1;
    }
    const char *t = fmt_tail(s, len, cols - used);
    cli_put_text(f, t, len - (size_t)(t - s));
    used += fmt_width(t, len - (size_t)(t - s));
    if (pad && used < cols)
        blanks(f, cols - used);
}

void cli_table(FILE *f, const cli_col *cols, size_t ncols, size_t nrows, cli_row_fn fn,
               void *ctx)
{
    size_t w[CLI_TABLE_MAXCOLS], min[CLI_TABLE_MAXCOLS], nat[CLI_TABLE_MAXCOLS];
    size_t lens[CLI_TABLE_MAXCOLS];
    const char *cell[CLI_TABLE_MAXCOLS];
    if (ncols > CLI_TABLE_MAXCOLS)
        ncols = CLI_TABLE_MAXCOLS;
    for (size_t c = 0; c < ncols; c++)
        w[c] = min[c] = fmt_width(cols[c].head, strlen(cols[c].head));
    for (size_t r = 0; r < nrows; r++) {
        fn(ctx, r, cell, lens);
        for (size_t c = 0; c < ncols; c++) {
            size_t x = fmt_width(cell[c], lens[c]);
            if (x > w[c])
                w[c] = x;
        }
    }
    size_t total = 0;
    memcpy(nat, w, ncols * sizeof *nat); /* the columns in use: the rest is never read */
    for (size_t c = 0; c < ncols; c++) {
        total += w[c] + (c && !(cols[c].flags & CLI_COL_GLUE));
        if ((cols[c].flags & (CLI_COL_NAME | CLI_COL_PATH)) && min[c] < MIN_NAME_COLS)
            min[c] = MIN_NAME_COLS;
    }
    /* on a terminal the widest name column gives way, one column at a time */
    size_t limit = cli_text_cols(f);
    unsigned cut[CLI_TABLE_MAXCOLS];
    for (size_t c = 0; c < ncols; c++) {
        cut[c] = cols[c].flags;
        /* in a file or a pipe a long name is never cut: it pushes the rest
           of its own row right, rather than every row of the table */
        if (!limit && (cut[c] & (CLI_COL_NAME | CLI_COL_PATH))) {
            cut[c] &= ~(unsigned)(CLI_COL_NAME | CLI_COL_PATH);
            if (w[c] > MAX_PAD_COLS) {
                total -= w[c] - (min[c] > MAX_PAD_COLS ? min[c] : MAX_PAD_COLS);
                w[c] = min[c] > MAX_PAD_COLS ? min[c] : MAX_PAD_COLS;
            }
        }
    }
    while (limit && total > limit) {
        size_t best = ncols;
        for (size_t c = 0; c < ncols; c++)
            if ((cols[c].flags & (CLI_COL_NAME | CLI_COL_PATH)) && w[c] > min[c] &&
                (best == ncols || w[c] > w[best]))
                best = c;
        if (best == ncols)
            break; /* the numbers alone are wider: they are never cut */
        w[best]--;
        total--;
    }
    /* still too wide: leave out the columns that may go, the last first */
    bool drop[CLI_TABLE_MAXCOLS] = {false};
    size_t ndrop = 0;
    for (size_t c = ncols; limit && total > limit && c-- > 0;)
        if (cols[c].flags & CLI_COL_DROP) {
            drop[c] = true;
            ndrop++;
            total -= w[c] + !(cols[c].flags & CLI_COL_GLUE);
        }
    /* what dropping freed goes back to the names */
    for (size_t c = 0; ndrop && c < ncols; c++)
        if ((cut[c] & (CLI_COL_NAME | CLI_COL_PATH)) && total < limit && w[c] < nat[c]) {
            size_t more = nat[c] - w[c] < limit - total ? nat[c] - w[c] : limit - total;
            w[c] += more;
            total += more;
        }
    for (size_t r = 0; r <= nrows; r++) {
        if (r == 0)
            for (size_t c = 0; c < ncols; c++) {
                cell[c] = cols[c].head;
                lens[c] = strlen(cols[c].head);
            }
        else
            fn(ctx, r - 1, cell, lens);
        for (size_t c = 0; c < ncols; c++) {
            if (drop[c])
                continue;
            if (c && !(cols[c].flags & CLI_COL_GLUE))
                fputc(' ', f);
            cli_put_fit(f, cell[c], lens[c], w[c], cut[c], c + 1 < ncols);
        }
        fputc('\n', f);
    }
    if (ndrop) {
        fputs("(too narrow for:", f);
        for (size_t c = 0; c < ncols; c++)
            if (drop[c])
                fprintf(f, " %s%s", cols[c].head, --ndrop ? "," : "");
        fputs("; a pipe or a file gets all)\n", f);
    }
}

void cli_put_wrapped(FILE *f, const char *s, size_t indent)
{
    size_t limit = cli_text_cols(f), len = strlen(s);
    if (!limit || limit <= indent + 20 || fmt_width(s, len) <= limit) {
        cli_put_text(f, s, len);
        fputc('\n', f);
        return;
    }
    size_t col = 0;
    const char *p = s, *end = s + len;
    while (p < end) {
        const char *q = p;
        while (q < end && *q != ' ')
            q++;
        size_t ww = fmt_width(p, (size_t)(q - p));
        if (col > indent && col + 1 + ww > limit) {
            fputc('\n', f);
            blanks(f, indent);
            col = indent;
        } else if (p != s) {
            fputc(' ', f);
            col++;
        }
        cli_put_text(f, p, (size_t)(q - p));
        col += ww;
        p = q < end ? q + 1 : q;
    }
    fputc('\n', f);
}
