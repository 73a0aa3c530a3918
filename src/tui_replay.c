/* torch2pprof-tui --replay KEYS [--print]: the explorer driven by a key
   script without a terminal (tig's scripted runs): each key's time on
   stdout for tests/bench/bench.py, then the screen as text for the golden
   screens of tests/tui. */
#include "config.h"

#include "src/tui_replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/fmt.h"
#include "core/base/vec.h"
#include "src/args.h"
#include "ui/glyph.h"
#include "ui/keys.h"
#include "ui/screen.h"
#include "ui/view.h"
#include "ui/view_key.h"

double tui_replay_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the process (every thread), ms: --replay prints it beside
   each wall time, which on a machine shared with other work says what the
   step cost when the wall time is mostly waiting for a core */
double tui_replay_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void put_line(FILE *out, bool ascii, const char *s)
{
    static char tmp[8192];
    fprintf(out, "%s\n", glyph_line(s, ascii, tmp, sizeof tmp));
}

/* What draw_screen would paint, as text: the layout cost of a key is part
   of its time. */
static void render(view *v, bool ascii, FILE *out)
{
    static char buf[8192];
    if (view_mode_of(v) == VIEW_MODE_HELP) {
        for (size_t i = 0; view_help_line(v, i); i++)
            if (out)
                put_line(out, ascii, view_help_line(v, i));
        return;
    }
    for (int y = 0; y < view_height(v); y++) {
        enum view_style st;
        view_screen_line(v, y, buf, sizeof buf, &st);
        if (!out)
            continue;
        if (y >= VIEW_CHROME_TOP && y < view_height(v) - 2)
            fputs(st == VIEW_STYLE_CURSOR ? ">" : " ", out);
        put_line(out, ascii, buf);
    }
}

/* Output, one fact a line, for tests/bench/bench.py (the load's line is
   printed by run):
     load MS ms events N ... cpu C ms   the load and the model built
     first-screen MS ms cpu C ms        from the start of the program to the
                                        first screen laid out
     key NAME MS ms rows N cpu C ms     one per key: view_key plus laying out
                                        the screen
   MS: wall time; C: the process's CPU time (all its threads), since the
   start for load and first-screen, of the key alone for a key. */
int tui_replay_run(view *v, const char *script, bool print, bool ascii, int w, int h, double t_start)
{
    view_resize(v, w, h);
    render(v, ascii, NULL);
    double worst = 0;
    printf("first-screen %.3f ms cpu %.3f ms\n", (tui_replay_now() - t_start) * 1e3, tui_replay_cpu_ms());
    const char *s = script;
    char name[64];
    int key, i = 0, rc = EXIT_OK;
    while ((key = keys_script_next(&s, name, sizeof name)) != 0) {
        i++;
        if (key < 0) {
            fprintf(stderr, "torch2pprof-tui: unknown key %s in the replay script\n", name);
            return EXIT_USAGE;
        }
        double a = tui_replay_now(), c = tui_replay_cpu_ms();
        int r = view_key(v, key);
        if (r != VIEW_QUIT)
            render(v, ascii, NULL);
        double ms = (tui_replay_now() - a) * 1e3;
        if (ms > worst)
            worst = ms;
        printf("key %s %.3f ms rows %zu cpu %.3f ms\n", name, ms, view_nrows(v), tui_replay_cpu_ms() - c);
        if (r == VIEW_QUIT)
            break;
    }
    printf("max-key %.3f ms over %d keys\n", worst, i);
    if (print) {
        render(v, ascii, stdout);
        if (view_status(v)[0]) {
            char vis[1200];
            const char *st = view_status(v);
            fputs("status: ", stdout);
            put_line(stdout, ascii, fmt_visible(st, strlen(st), vis, sizeof vis));
        }
    }
    return rc;
}

char *tui_replay_read_script(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    size_t cap = 0, n = 0;
    int e = 0;
    for (;;) {
        /* room for one more byte and the closing NUL: vec_grow_heap
           doubles, so each read fills the rest of a buffer twice as big */
        if (vec_grow_heap((void **)&b, &cap, n + 1, 1) < 0) {
            e = errno;
            break;
        }
        size_t k = fread(b + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0) {
            /* a read error is no end of file: a cut script would replay
               other keys than the file's */
            if (ferror(f))
                e = errno ? errno : EIO;
            break;
        }
    }
    fclose(f);
    if (e || !b) {
        free(b);
        errno = e ? e : ENOMEM;
        return NULL;
    }
    b[n] = '\0';
    return b;
}
