/* The explorer run headless by a key script (--replay), and the clocks its
   timings and the load's use. */
#ifndef T2P_TUI_REPLAY_H
#define T2P_TUI_REPLAY_H

#include <stdbool.h>

#include "ui/view.h"

/* Wall time, seconds, monotonic. */
double tui_replay_now(void);
/* CPU time of the process (every thread), ms. */
double tui_replay_cpu_ms(void);

/* Lays out v at w x h, presses each key of script (ui/keys.h's names),
   printing "first-screen", one "key" line per key and "max-key" (times
   from t_start, tui_replay_now's clock); with print, then the screen as
   text (ascii: glyphs as ASCII). Returns EXIT_OK, or EXIT_USAGE on an
   unknown key (after saying so on stderr). */
int tui_replay_run(view *v, const char *script, bool print, bool ascii, int w, int h,
                   double t_start);

/* The script in the file at path, whole; NULL with errno set when it
   cannot be opened or read to its end, or out of memory. The caller
   frees it. */
char *tui_replay_read_script(const char *path);

#endif
