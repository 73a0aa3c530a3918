/* torch2pprof: the batch commands. Dispatches to analyze or convert; the
   options of each are in src/opts_table.c. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "src/cli.h"
#include "src/opts.h"

static const char usage[] =
    "usage: torch2pprof COMMAND [OPTIONS] TRACE...\n"
    "       torch2pprof [OPTIONS] TRACE OUT.pb.gz     (the same as convert)\n"
    "\n"
    "Figures from PyTorch profiler traces (Chrome trace JSON, plain or gzip).\n"
    "\n"
    "Commands:\n"
    "  analyze   totals, time by category and the top operations (text or --json)\n"
    "  convert   write a pprof profile (self time, calls, GPU time) for go tool pprof\n"
    "  help [COMMAND]   this text, or the options of one command (COMMAND --help)\n"
    "\n"
    "  torch2pprof --version\n"
    "\n"
    "Exit codes: 0 ok, 1 usage error, 2 input or output error.\n"
    "The interactive explorer is torch2pprof-tui.\n";

static const char *const commands[] = { "analyze", "convert", "help", "version" };

static int version(void)
{
    printf("torch2pprof %s\n", PACKAGE_VERSION);
    return EXIT_OK;
}

/* The command closest to a misspelt word, or NULL. */
static const char *closest_command(const char *w)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const char *c = commands[i];
        size_t lw = strlen(w), lc = strlen(c), same = 0;
        if (lw + 2 < lc || lc + 2 < lw)
            continue;
        for (size_t k = 0; k < lw && k < lc; k++)
            same += w[k] == c[k];
        if (same + 2 >= lc || (lw >= 3 && strncmp(w, c, 3) == 0))
            return c;
    }
    return NULL;
}

static int unknown_command(const char *w)
{
    char vis[600];
    const char *c = closest_command(w);
    fprintf(stderr, "torch2pprof: unknown command '%s'", cli_shown(w, vis, sizeof vis));
    if (c)
        fprintf(stderr, " (did you mean '%s'?)", c);
    fputs("\nTry 'torch2pprof --help'.\n", stderr);
    return EXIT_USAGE;
}

/* torch2pprof help [COMMAND]: the same text as COMMAND --help. */
static int help(int argc, char **argv)
{
    if (argc < 3) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (argc > 3) {
        fputs("torch2pprof: help takes one COMMAND\nTry 'torch2pprof --help'.\n", stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[2], "analyze"))
        opts_help(&opts_analyze, stdout);
    else if (!strcmp(argv[2], "convert"))
        opts_help(&opts_convert, stdout);
    else if (!strcmp(argv[2], "help") || !strcmp(argv[2], "version"))
        fputs(usage, stdout);
    else
        return unknown_command(argv[2]);
    return EXIT_OK;
}

/* Whether argv[1] opens the short form, torch2pprof TRACE OUT: a path that
   exists, or a word that looks like one (a dot or a slash), or standard
   input, or an option of convert. */
static bool short_form(const char *a)
{
    struct stat st;
    if (!strcmp(a, "-") || strchr(a, '/') || strchr(a, '.') || stat(a, &st) == 0)
        return true;
    if (a[0] != '-')
        return false;
    for (size_t i = 0; i < opts_count; i++) {
        const opt_def *d = &opts_table[i];
        if (!(d->progs & OPTS_CONVERT))
            continue;
        const char *name = a + (a[1] == '-' ? 2 : 1);
        size_t len = strcspn(name, "=");
        if ((len == strlen(d->name) && !strncmp(name, d->name, len)) ||
            (a[1] != '-' && a[1] == d->letter))
            return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    /* a write past `ulimit -f` fails with EFBIG, cleaned up, instead of
       killing the process and leaving the temp file */
    signal(SIGXFSZ, SIG_IGN);
    cli_tune_malloc();
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return help(2, argv);
    if (!strcmp(cmd, "help"))
        return help(argc, argv);
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version"))
        return version();
    if (!strcmp(cmd, "analyze"))
        return cli_analyze(argc - 1, argv + 1);
    if (!strcmp(cmd, "convert"))
        return cli_convert(argc - 1, argv + 1);
    if (short_form(cmd))
        return cli_convert(argc, argv); /* torch2pprof TRACE OUT.pb.gz */
    if (cmd[0] == '-') {
        char vis[600];
        fprintf(stderr, "torch2pprof: unknown option '%s'\nTry 'torch2pprof --help'.\n",
                cli_shown(cmd, vis, sizeof vis));
        return EXIT_USAGE;
    }
    return unknown_command(cmd);
}
