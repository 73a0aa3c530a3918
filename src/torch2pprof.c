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
    char vis[600];
    fprintf(stderr, "torch2pprof: unknown command '%s'\n%s", cli_shown(cmd, vis, sizeof vis),
            usage);
    return EXIT_USAGE;
}
