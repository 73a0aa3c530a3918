#include "config.h"

#include "src/analyze_lines.h"

#include <string.h>

#include "core/fmt.h"
#include "core/pylines.h"
#include "src/cli.h"

static pylines *lines_of(const model *m)
{
    t2p_error err;
    pylines *p = pylines_build(m, NULL, &err);
    if (!p)
        cli_fail(&err);
    return p;
}

int analyze_lines_text(FILE *f, const model *m, size_t top)
{
    pylines *p = lines_of(m);
    if (!p)
        return -1;
    size_t n = pylines_count(p);
    if (top && top < n)
        n = top;
    if (!pylines_count(p)) {
        fprintf(f, "\nSource lines: the trace has no Python frames with a file "
                   "(python_function events or Call stacks)\n");
        pylines_free(p);
        return 0;
    }
    char a[64], b[64], loc[64];
    fprintf(f, "\nTop %zu source lines by self\n", n);
    fprintf(f, "%-56s %-32s %12s %12s\n", "File:line", "Function", "Self ms", "Total ms");
    for (size_t i = 0; i < n; i++) {
        const pyline *l = pylines_get(p, i);
        /* the line number always shows: the file gives way */
        int ll = snprintf(loc, sizeof loc, ":%u", (unsigned)l->line);
        size_t fcols = 56 - (size_t)ll;
        char fbuf[1024];
        fmt_ellipsize(l->file, l->file_len, fcols, fbuf, sizeof fbuf);
        size_t w = fmt_width(fbuf, strlen(fbuf)) + (size_t)ll;
        fputs(fbuf, f);
        fputs(loc, f);
        for (; w < 56; w++)
            fputc(' ', f);
        fputc(' ', f);
        cli_put_cell(f, l->func, l->func_len, 32);
        fprintf(f, " %12s %12s\n", fmt_ms(l->self_ns, a, sizeof a),
                fmt_ms(l->total_ns, b, sizeof b));
    }
    pylines_free(p);
    return 0;
}

int analyze_lines_json(FILE *f, const model *m, size_t top)
{
    pylines *p = lines_of(m);
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
