/* What the torch2pprof commands and the explorer share on their command
   lines: the exit codes and the parsing of --sort and --top. */
#ifndef T2P_ARGS_H
#define T2P_ARGS_H

#include <stddef.h>

enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1,   /* a bad option or argument */
    EXIT_INPUT = 2,   /* an input or output error */
    EXIT_CANCEL = 130 /* the explorer's load was interrupted */
};

/* The model_sort of a --sort KEY. On an unknown key prints
   "PROG: unknown sort key 'KEY' (self, ...)" on stderr and returns -1. */
int args_sort(const char *prog, const char *key);

/* A --top N (N >= 0) into *n. Otherwise prints "PROG: OPT wants a number
   >= 0, not 'ARG'" on stderr and returns -1. */
int args_top(const char *prog, const char *opt, const char *arg, size_t *n);

#endif
