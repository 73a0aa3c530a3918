/* convert's output, chosen so that no trace is ever replaced (convert_out.h). */
#include "config.h"

#include "src/convert_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/outfile.h"
#include "core/pprof/pprof.h"
#include "core/base/sniff.h"
#include "core/base/fmt.h"
#include "src/cli.h"

/* "torch2pprof convert -o NAME.pb.gz IN...": the command that names OUT. */
static const char *suggest(char **inputs, size_t n, char *buf, size_t size)
{
    size_t at = 0;
    at = (size_t)snprintf(buf, size, "torch2pprof convert -o");
    char *name = NULL;
    struct stat st;
    if (n == 1 && strcmp(inputs[0], "-") && stat(inputs[0], &st) == 0 && S_ISREG(st.st_mode))
        name = pprof_free_path(".", inputs[0]);
    fmt_shell_word(buf, size, &at, name ? name + 2 : "job.pb.gz"); /* less the "./" */
    free(name);
    for (size_t i = 0; i < n && at < size - 8; i++) {
        if (i == 6 && n > 8) {
            int k = snprintf(buf + at, size - at, " ... (%zu more)", n - i);
            if (k > 0)
                at += (size_t)k;
            break;
        }
        fmt_shell_word(buf, size, &at, inputs[i]);
    }
    return buf;
}

/* Whether out is the same file as one of the inputs (or under an input
   directory's own inode: the directory itself). */
static const char *same_as_input(char **inputs, size_t n, const char *out)
{
    struct stat o, s;
    if (stat(out, &o) != 0)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(inputs[i], "-") && stat(inputs[i], &s) == 0 && s.st_dev == o.st_dev &&
            s.st_ino == o.st_ino)
            return inputs[i];
    return NULL;
}

static int refuse(const char *out, const char *why, const char *cmd)
{
    char vis[1200];
    fprintf(stderr, "torch2pprof convert: %s %s; nothing written. To write a profile: %s\n",
            cli_shown(out, vis, sizeof vis), why, cmd);
    return EXIT_USAGE;
}

/* With -o: OUT is what the user named, unless it is an input or a trace. */
static int check_named(char **inputs, size_t n, const char *out)
{
    char vis[1200], cmd[2000];
    if (outfile_is_stdout(out)) {
        if (isatty(STDOUT_FILENO)) {
            fprintf(stderr, "torch2pprof convert: -o - writes a binary profile to standard "
                            "output, which is a terminal: redirect it (> out.pb.gz) or name a "
                            "file\nTry 'torch2pprof convert --help'.\n");
            return EXIT_USAGE;
        }
        return 0;
    }
    const char *in = same_as_input(inputs, n, out);
    if (in) {
        fprintf(stderr, "torch2pprof convert: %s is the same file as the input %s: refusing to "
                        "overwrite it; nothing written. To write a profile: %s\n",
                cli_shown(out, vis, sizeof vis), in, suggest(inputs, n, cmd, sizeof cmd));
        return EXIT_USAGE;
    }
    struct stat st;
    enum sniff_kind kind;
    t2p_error err;
    if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && sniff_file(out, &kind, &err) == 0 &&
        kind == SNIFF_TRACE)
        return refuse(out, "is a trace: refusing to replace it (remove it first if you mean "
                           "to)", suggest(inputs, n, cmd, sizeof cmd));
    return 0;
}

int convert_out_choose(char **operands, size_t noperands, const char *out_opt, char ***inputs,
                       size_t *ninputs, const char **out)
{
    char cmd[2000];
    *inputs = operands;
    if (out_opt) {
        if (noperands == 0) {
            fputs("torch2pprof convert: no TRACE to convert\n"
                  "Try 'torch2pprof convert --help'.\n", stderr);
            return EXIT_USAGE;
        }
        *ninputs = noperands;
        *out = out_opt;
        return check_named(operands, noperands, out_opt);
    }
    if (noperands == 0) {
        fputs("torch2pprof convert: expected TRACE and OUT.pb.gz (or -o OUT.pb.gz TRACE...)\n"
              "Try 'torch2pprof convert --help'.\n", stderr);
        return EXIT_USAGE;
    }
    if (noperands == 1) {
        fprintf(stderr, "torch2pprof convert: no output named; nothing written. To write a "
                        "profile: %s\n", suggest(operands, 1, cmd, sizeof cmd));
        return EXIT_USAGE;
    }
    size_t n = noperands - 1;
    const char *last = operands[n];
    *ninputs = n;
    *out = last;
    suggest(operands, noperands, cmd, sizeof cmd);
    if (!strcmp(last, "-"))
        return refuse(last, "is standard input, not an output (-o - writes to standard "
                            "output)", cmd);
    struct stat lst, st;
    if (lstat(last, &lst) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return sniff_trace_name(last) ? refuse(last, "is named as a trace, not as a "
                                                         "profile (.pb.gz)", cmd)
                                          : 0;
        return 0; /* the write will say why it cannot */
    }
    if (stat(last, &st) != 0)
        return 0; /* a dangling symlink: a file not yet made */
    if (same_as_input(operands, n, last))
        return refuse(last, "is also one of the inputs", suggest(operands, n, cmd, sizeof cmd));
    if (S_ISDIR(st.st_mode))
        return refuse(last, "is a directory (of traces?), not an output", cmd);
    if (S_ISCHR(st.st_mode))
        return 0; /* /dev/null, a terminal: nothing there to lose */
    if (!S_ISREG(st.st_mode))
        return refuse(last, "is not a regular file (a FIFO may be a trace being read)", cmd);
    enum sniff_kind kind;
    t2p_error err;
    if (sniff_file(last, &kind, &err) < 0) {
        char buf[1200];
        fprintf(stderr, "torch2pprof convert: %s\n", error_format(&err, buf, sizeof buf));
        return EXIT_INPUT;
    }
    switch (kind) {
    case SNIFF_PPROF: return 0;
    case SNIFF_TRACE: return refuse(last, "is a trace, not an output", cmd);
    case SNIFF_ANALYSIS: return refuse(last, "is an analysis file (analyze --json), not an output", cmd);
    case SNIFF_EMPTY:
        return sniff_trace_name(last) ? refuse(last, "is named as a trace, not as a profile", cmd)
                                      : 0;
    default:
        return refuse(last, "exists and is not a pprof profile: not replaced", cmd);
    }
}
