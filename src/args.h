/* The exit codes of torch2pprof and torch2pprof-tui: one case, one code,
   in every program (README, "Exit codes"). */
#ifndef T2P_ARGS_H
#define T2P_ARGS_H

enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1,   /* a bad option or argument */
    EXIT_INPUT = 2,   /* an input or output error */
    EXIT_CANCEL = 130 /* the explorer's load was interrupted */
};

#endif
