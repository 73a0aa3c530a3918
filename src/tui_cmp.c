#include "config.h"

#include "src/tui_cmp.h"

#include <stdio.h>
#include <string.h>

#include "core/base/fmt.h"
#include "src/args.h"
#include "src/tui_replay.h"
#include "ui/draw.h"

struct progress {
    char label[600];
    double t0, last;
    bool draw;
    volatile sig_atomic_t *cancel;
};

/* pair_load calls this from either worker, one call at a time */
static int on_progress(const trace_progress *p, void *ctx)
{
    struct progress *g = ctx;
    if (*g->cancel)
        return 1;
    double t = tui_replay_now();
    if (g->draw && t - g->last >= 0.1) {
        g->last = t;
        draw_progress(g->label, p->file_bytes, p->file_size, p->events, t - g->t0, "Loading");
    }
    return 0;
}

int tui_cmp_load(const char *base, const char *path, bool partial, const model_opts *mo,
                 unsigned jobs, bool draw, volatile sig_atomic_t *cancel, tui_cmp *out)
{
    struct progress g = { .t0 = tui_replay_now(), .draw = draw, .cancel = cancel };
    snprintf(g.label, sizeof g.label, "%s and base %s", path, base);
    const char *paths[2] = { base, path };
    pair_load_opts po = { .partial = partial, .mo = *mo, .progress = on_progress,
                          .progress_ctx = &g, .jobs = jobs };
    t2p_error err;
    char msg[1200];
    memset(out, 0, sizeof *out);
    if (draw)
        draw_progress(g.label, 0, 0, 0, 0, "Loading");
    if (pair_load(paths, &po, out->side, &err) < 0) {
        draw_close();
        if (err.kind == T2P_ERR_CANCELLED || *cancel) {
            fprintf(stderr, "torch2pprof-tui: loading %s cancelled\n",
                    fmt_visible(path, strlen(path), msg, sizeof msg));
            return EXIT_CANCEL;
        }
        fprintf(stderr, "torch2pprof-tui: %s\n", error_format(&err, msg, sizeof msg));
        return EXIT_INPUT;
    }
    out->c = compare_build(out->side[0].m, out->side[1].m, NULL, &err);
    if (!out->c) {
        draw_close();
        fprintf(stderr, "torch2pprof-tui: %s\n", error_format(&err, msg, sizeof msg));
        tui_cmp_done(out);
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

void tui_cmp_done(tui_cmp *t)
{
    compare_free(t->c);
    for (int s = 0; s < 2; s++) {
        model_free(t->side[s].m);
        trace_free(t->side[s].tr);
    }
    memset(t, 0, sizeof *t);
}
