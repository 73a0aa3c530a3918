/* torch2pprof-tui --base: both traces loaded at once under one progress
   bar, and the comparison the views read. */
#ifndef T2P_TUI_CMP_H
#define T2P_TUI_CMP_H

#include <signal.h>
#include <stdbool.h>

#include "core/analyses/compare.h"
#include "core/analyses/pair.h"

typedef struct tui_cmp {
    pair_side side[2]; /* [0] base, [1] new */
    compare *c;
} tui_cmp;

/* Loads base and path in parallel (one worker each), drawing one progress
   bar when draw, stopping when *cancel turns non-zero, and compares them.
   Returns EXIT_OK, or an exit code after printing why. */
int tui_cmp_load(const char *base, const char *path, bool partial, const model_opts *mo,
                 unsigned jobs, bool draw, volatile sig_atomic_t *cancel, tui_cmp *out);
void tui_cmp_done(tui_cmp *t);

#endif
