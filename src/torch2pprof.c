/* torch2pprof: the batch commands. A thin main over core/. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "src/cli.h"

static const char usage[] =
    "usage: torch2pprof COMMAND [OPTIONS] TRACE ...\n"
    "       torch2pprof TRACE OUT.pb.gz        (same as convert)\n"
    "\n"
    "Figures from PyTorch profiler traces (Chrome trace JSON, plain or gzip).\n"
    "\n"
    "Commands:\n"
    "  analyze   totals, time by category and the top operations (text or --json)\n"
    "  convert   write a pprof profile (self time, calls, GPU time) for go tool pprof\n"
    "\n"
    "  torch2pprof COMMAND --help   options of one command\n"
    "  torch2pprof --version\n"
    "\n"
    "Exit codes: 0 ok, 1 usage error, 2 input or output error.\n"
    "The interactive explorer is torch2pprof-tui.\n";

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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        printf("torch2pprof %s\n", PACKAGE_VERSION);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "analyze"))
        return cli_analyze(argc - 1, argv + 1);
    if (!strcmp(cmd, "convert"))
        return cli_convert(argc - 1, argv + 1);
    if (cmd[0] != '-' && argc == 3)
        return cli_convert(argc, argv); /* torch2pprof TRACE OUT.pb.gz */
    fprintf(stderr, "torch2pprof: unknown command '%s'\n%s", cmd, usage);
    return EXIT_USAGE;
}
