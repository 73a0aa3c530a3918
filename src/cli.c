/* The helpers the torch2pprof commands share: error messages, opening a
   trace, JSON strings. */
#include "config.h"

#include "src/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/outfile.h"

int cli_fail(const t2p_error *err)
{
    char buf[1200];
    fprintf(stderr, "torch2pprof: %s\n", error_format(err, buf, sizeof buf));
    return EXIT_INPUT;
}

model *cli_open(const char *path, bool partial, const model_opts *mo, trace **out_trace)
{
    t2p_error err;
    trace_load_opts lo = { .partial = partial };
    trace *tr = trace_load(path, &lo, &err);
    if (!tr) {
        cli_fail(&err);
        return NULL;
    }
    model *m = model_build(tr, mo, &err);
    if (!m) {
        cli_fail(&err);
        trace_free(tr);
        return NULL;
    }
    *out_trace = tr;
    return m;
}

FILE *cli_summary_stream(const char *out)
{
    return outfile_is_stdout(out) ? stderr : stdout;
}

int cli_summary_done(FILE *f, const char *out)
{
    errno = 0;
    if (fflush(f) == 0 && !ferror(f))
        return EXIT_OK;
    int e = errno;
    fprintf(stderr, "torch2pprof: wrote %s, but cannot print the summary on %s: %s\n", out,
            f == stderr ? "standard error" : "standard output",
            e ? strerror(e) : "write error");
    return EXIT_INPUT;
}

void cli_json_string(FILE *f, const char *s, size_t len)
{
    fputc('"', f);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (c < 0x20)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
    }
    fputc('"', f);
}
