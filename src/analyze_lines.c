#include "config.h"

#include "src/analyze_lines.h"

#include <string.h>

#include "core/base/fmt.h"
#include "core/analyses/pylines.h"
#include "src/cli.h"
#include "src/cli_table.h"

static pylines *lines_of(const model *m, const uint8_t *sel)
{
    t2p_error err;
    pylines *p = pylines_build(m, sel, &err);
    if (!p)
        cli_fail(&err);
    return p;
}

/* The rows for cli_table: "file:line" is one path cell, so that on a
   terminal the directories give way first and the line always shows. */
struct line_rows {
    const pylines *p;
    char loc[4096], a[64], b[64];
};

static void line_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct line_rows *x = ctx;
    const pyline *l = pylines_get(x->p, i);
    snprintf(x->loc, sizeof x->loc, "%.*s:%u", (int)l->file_len, l->file, (unsigned)l->line);
    cell[0] = x->loc;
    cell[1] = l->func;
    len[1] = l->func_len;
    cell[2] = fmt_ms(l->self_ns, x->a, sizeof x->a);
    cell[3] = fmt_ms(l->total_ns, x->b, sizeof x->b);
    len[0] = strlen(cell[0]);
    len[2] = strlen(cell[2]);
    len[3] = strlen(cell[3]);
}

static const cli_col line_cols[] = {
    {"File:line", CLI_COL_LEFT | CLI_COL_PATH}, {"Function", CLI_COL_LEFT | CLI_COL_NAME},
    {"Self ms", 0}, {"Total ms", 0}};

int analyze_lines_text(FILE *f, const model *m, const uint8_t *sel, size_t top)
{
    pylines *p = lines_of(m, sel);
    if (!p)
        return -1;
    size_t n = pylines_count(p);
    if (top && top < n)
        n = top;
    if (!pylines_count(p)) {
        if (sel)
            fprintf(f, "\nSource lines: no Python frame with a file on the scope's stacks\n");
        else
            fprintf(f, "\nSource lines: the trace has no Python frames with a file "
                       "(python_function events or Call stacks)\n");
        pylines_free(p);
        return 0;
    }
    fprintf(f, "\nTop %zu source lines by self%s\n", n,
            sel ? " (in the scope: the time of its stacks alone)" : "");
    struct line_rows x = {.p = p};
    cli_table(f, line_cols, 4, n, line_row, &x);
    pylines_free(p);
    return 0;
}

int analyze_lines_json(FILE *f, const model *m, const uint8_t *sel, size_t top)
{
    pylines *p = lines_of(m, sel);
    if (!p)
        return -1;
    size_t n = pylines_count(p);
    if (top && top < n)
        n = top;
    fputs(",\"lines\":[", f);
    for (size_t i = 0; i < n; i++) {
        const pyline *l = pylines_get(p, i);
        fputs(i ? ",{\"file\":" : "{\"file\":", f);
        cli_json_string(f, l->file, l->file_len);
        fprintf(f, ",\"line\":%u,\"function\":", (unsigned)l->line);
        cli_json_string(f, l->func, l->func_len);
        fprintf(f, ",\"self_ns\":%lld,\"total_ns\":%lld}", (long long)l->self_ns,
                (long long)l->total_ns);
    }
    fputs("]", f);
    pylines_free(p);
    return 0;
}
