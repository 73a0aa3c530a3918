/* The command lines of torch2pprof analyze, torch2pprof convert and
   torch2pprof-tui: one table of options (src/opts_table.c) from which the
   parsing, each program's --help and, through --help, the man pages'
   OPTIONS sections come (man/update-options.py; tests/e2e/cli.sh fails when
   they disagree). Options anywhere, as getopt_long users expect:
   before or after the operands, --opt=value and --opt value, -o OUT and
   -oOUT, -- ends the options, - is an operand (standard input); a long
   option also reads with one dash (-top 10, as the Go torch2pprof had it)
   and as any unambiguous prefix (--kee). */
#ifndef T2P_OPTS_H
#define T2P_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/model/scope.h"
#include "core/pprof/export.h"

/* The programs an option belongs to. */
enum {
    OPTS_ANALYZE = 1,
    OPTS_CONVERT = 2,
    OPTS_TUI = 4,
    OPTS_ALL = 7
};

enum opt_id {
    OPT_NONE = 0,
    OPT_HELP,
    OPT_VERSION,
    OPT_OUTPUT,
    OPT_TOP,
    OPT_SORT,
    OPT_JSON,
    OPT_STEPS,
    OPT_KERNELS,
    OPT_KERNEL,
    OPT_STEP,
    OPT_RANGE,
    OPT_BY_LINE,
    OPT_BY_SHAPE,
    OPT_MODULES,
    OPT_BASE,
    OPT_PER_STEP,
    OPT_BASE_STEP,
    OPT_RANK,
    OPT_FOCUS,
    OPT_CATEGORY,
    OPT_TRACK,
    OPT_FILTER,
    OPT_IGNORE,
    OPT_THREAD,
    OPT_KEEP_STEPS,
    OPT_NO_PYTHON,
    OPT_NO_MEMORY,
    OPT_SHORT_NAMES,
    OPT_PARTIAL,
    OPT_STRICT,
    OPT_JOBS,
    OPT_VIEW,
    OPT_SOURCE_PATH,
    OPT_NO_MOUSE,
    OPT_REPLAY,
    OPT_REPLAY_FILE,
    OPT_PRINT,
    OPT_SIZE,
    OPT_KERNEL_WAIT,
    OPT_RUNTIME_CUTOFF,
    OPT_DELAY_CUTOFF,
    OPT_SEQ_OP
};

/* One option, declared once for every program that takes it. */
typedef struct opt_def {
    enum opt_id id;
    const char *name;    /* the long name, without the dashes */
    char letter;         /* the short option, or 0 */
    const char *value;   /* the value's name in the help ("N"); NULL: a flag */
    unsigned progs;      /* OPTS_ANALYZE | OPTS_CONVERT | OPTS_TUI */
    const char *heading; /* starts a group of the help under this heading, or NULL */
    const char *help;    /* the help text, one paragraph (--help wraps it) */
} opt_def;

extern const opt_def opts_table[];
extern const size_t opts_count;

/* A program (or command) and the text around its options. */
typedef struct opts_cmd {
    const char *name;     /* "torch2pprof analyze": every message starts with it */
    unsigned prog;        /* one of OPTS_ANALYZE, OPTS_CONVERT, OPTS_TUI */
    const char *synopsis; /* the usage lines, each ending in '\n' */
    const char *about;    /* what it does, before the options */
    const char *after;    /* after the options (exit codes...) */
} opts_cmd;

extern const opts_cmd opts_analyze, opts_convert, opts_tui;

/* One option as it was given. */
typedef struct opt_hit {
    enum opt_id id;
    const char *value;   /* borrowed from argv; NULL for a flag */
    const char *spelled; /* "--top": the option's own name, for messages */
} opt_hit;

struct opts_parsed {
    opt_hit *hits;       /* in the order given */
    size_t nhits;
    char **operands;     /* borrowed from argv, in order */
    size_t noperands;
};
typedef struct opts_parsed opts_parsed;

/* Parses argv[1..argc) for c. Returns 0, or -1 after printing the usage
   error (exit EXIT_USAGE) or running out of memory (EXIT_INPUT: *rc says
   which). Release p with opts_parsed_done. */
int opts_parse(const opts_cmd *c, int argc, char **argv, opts_parsed *p, int *rc);

/* Frees what opts_parse made; NULL-safe. */
void opts_parsed_done(opts_parsed *p);

/* The whole --help text of c. */
void opts_help(const opts_cmd *c, FILE *f);

/* "NAME: <message>\nTry 'NAME --help'.\n" on standard error. Returns
   EXIT_USAGE. */
int opts_usage_error(const opts_cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A number in [min, max] for option h into *out; otherwise a usage error
   ("--jobs wants a number from 1 to 4096, not 'x'"). Returns 0 or
   EXIT_USAGE. */
int opts_number(const opts_cmd *c, const opt_hit *h, long min, long max, long *out);

/* What analyze, convert and the explorer share: taken by opts_common. The
   scope's options (#23) are read here once, so that the three programs
   spell and check them alike. */
typedef struct opts_common_vals {
    export_entry entries[SCOPE_MAX]; /* --focus, --category, --track in the order given */
    size_t nentries;
    const char *filter; /* --filter TEXT, or NULL */
    bool has_rank;      /* --rank N */
    long rank;
    bool partial, partial_given, strict;
    bool keep_steps, no_python, short_names;
    const char *step; /* --step N[-M], or NULL */
    const char *range; /* --range START:END (checked by range_parse), or NULL */
    const char *base; /* --base BASE, or NULL */
    long jobs;        /* 0: one per core */
} opts_common_vals;

/* Takes h into v when it is one of the shared options. Returns 1 when
   taken, 0 when h is another option, or -1 after printing a usage error. */
int opts_common(const opts_cmd *c, const opt_hit *h, opts_common_vals *v);

/* The closest long option of c to name (a misspelling), or NULL. */
const char *opts_closest(const opts_cmd *c, const char *name);

#endif
