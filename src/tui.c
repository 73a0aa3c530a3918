/* torch2pprof-tui: the interactive explorer. Arguments, loading with a
   progress bar, signals, the key loop, and the headless --replay mode that
   times each key for the benchmarks. The view state is ui/view.c; the
   terminal is ui/draw.c. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/fmt.h"
#include "core/model/model.h"
#include "core/analyses/range.h"
#include "core/analyses/steps.h"
#include "core/analyses/ranks.h"
#include "core/base/sniff.h"
#include "core/load/trace.h"
#include "src/args.h"
#include "src/opts.h"
#include "src/tui.h"

#include "core/pprof/export.h"
#include "core/model/scope.h"
#include "src/tui_cmp.h"
#include "src/tui_replay.h"
#include "ui/draw.h"
#include "ui/glyph.h"
#include "ui/mouse.h"
#include "ui/progress.h"
#include "ui/screen.h"
#include "core/analyses/hta.h"
#include "ui/view.h"
#include "ui/view_export.h"
#include "ui/view_key.h"
#include "ui/view_table.h"
#include "ui/views/view_ranks.h"
#include "ui/views/view_timeline.h"

#ifndef T2P_DATADIR
#define T2P_DATADIR "/usr/local/share/torch2pprof"
#endif
#ifndef T2P_SRCDIR
#define T2P_SRCDIR "."
#endif

/* the sample on which every view has content (data/README) */
#define SAMPLE_TRACE "resnet50_gpu.json.gz"

/* The locale is not UTF-8: --replay prints what the terminal would show,
   glyphs as ASCII (ui/glyph.h). */
static bool ascii;

/* Written by signal handlers, read by the loops. */
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
}

/* A crash must not leave the terminal raw: give it back, then die as before. */
static void on_fatal(int sig)
{
    draw_close();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void restore_terminal(void)
{
    draw_close();
}

static bool readable(const char *p)
{
    return access(p, R_OK) == 0;
}

/* data/ in the source tree (run from it, or by path), else the installed copy. */
static char *find_sample(void)
{
    static char buf[PATH_MAX + 64];
    char exe[PATH_MAX];
    snprintf(buf, sizeof buf, "data/%s", SAMPLE_TRACE);
    if (readable(buf))
        return buf;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(buf, sizeof buf, "%s/data/%s", exe, SAMPLE_TRACE);
        if (readable(buf))
            return buf;
    }
    snprintf(buf, sizeof buf, "%s/data/%s", T2P_SRCDIR, SAMPLE_TRACE);
    if (readable(buf))
        return buf;
    snprintf(buf, sizeof buf, "%s/%s", T2P_DATADIR, SAMPLE_TRACE);
    return buf;
}

/* ---------------------------------------------------------------- loading */

struct load_ctx {
    const char *path;
    double t0, last;
    bool draw;
};

/* T2P_PROGRESS_DELAY=MS: each load step sleeps MS milliseconds, so that a
   test can see the progress screen of a small trace (never set otherwise). */
static long delay_ms; /* set once by main, before any load: the callbacks
                          (ranks workers' too) run on every load step */

static void test_delay(void)
{
    long ms = delay_ms;
    if (ms > 0 && ms < 10000) {
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
    }
}

static int on_progress(const trace_progress *p, void *vctx)
{
    struct load_ctx *c = vctx;
    test_delay();
    if (got_signal)
        return 1;
    double t = tui_replay_now();
    if (c->draw && t - c->last >= 0.1) {
        c->last = t;
        draw_progress(c->path, p->file_bytes, p->file_size, p->events, t - c->t0, "Loading");
    }
    return 0;
}

static unsigned load_jobs = 1; /* --jobs: threads tokenising one trace */

static int load(const char *path, bool partial, const model_opts *mo, bool draw, trace **tr,
                model **m)
{
    struct load_ctx lc = { path, tui_replay_now(), 0, draw };
    trace_load_opts lo = { .partial = partial, .progress = on_progress, .progress_ctx = &lc,
                           .jobs = load_jobs };
    t2p_error err;
    char msg[1200];
    if (draw)
        draw_progress(path, 0, 0, 0, 0, "Loading");
    *tr = trace_load(path, &lo, &err);
    if (!*tr) {
        draw_close();
        if (err.kind == T2P_ERR_CANCELLED || got_signal) {
            fprintf(stderr, "torch2pprof-tui: loading %s cancelled\n",
                    fmt_visible(path, strlen(path), msg, sizeof msg));
            return EXIT_CANCEL;
        }
        fprintf(stderr, "torch2pprof-tui: %s%s\n", error_format(&err, msg, sizeof msg),
                err.kind == T2P_ERR_TRUNCATED && !strstr(err.reason, "--partial")
                    ? "; without --strict it opens what was read" : "");
        return EXIT_INPUT;
    }
    if (draw)
        draw_progress(path, (*tr)->file_size, (*tr)->file_size, (*tr)->nevents,
                      tui_replay_now() - lc.t0, "Building the model of");
    model_opts o = *mo;
    o.jobs = load_jobs; /* the model's passes take as many threads as the load */
    /* each track's events in order, kept (8 bytes an event): the Timeline
       is drawn from them without sorting every event again, and the
       export's step labels regroup the model instead of building another */
    o.keep_nesting = true;
    *m = model_build(*tr, &o, &err);
    if (!*m) {
        draw_close();
        fprintf(stderr, "torch2pprof-tui: %s\n", error_format(&err, msg, sizeof msg));
        trace_free(*tr);
        return EXIT_INPUT;
    }
    if (got_signal) {
        draw_close();
        fprintf(stderr, "torch2pprof-tui: cancelled\n");
        model_free(*m);
        trace_free(*tr);
        return EXIT_CANCEL;
    }
    return EXIT_OK;
}

static int slow_model(ranks_file *f, const model *m, const steps *st, void *ctx, t2p_error *err)
{
    (void)f, (void)m, (void)st, (void)ctx, (void)err;
    test_delay();
    return 0;
}

struct ranks_draw {
    double t0;
};

/* The job's load screen, ten times a second from ranks_load's thread: a
   line and a bar per file, and overall. */
static void on_ranks_progress(const ranks_job *j, const ranks_file_progress *p, void *vctx)
{
    struct ranks_draw *c = vctx;
    static char text[64 * 1024];
    int w, h;
    draw_size(&w, &h);
    progress_ranks_text(j, p, tui_replay_now() - c->t0, w - 4, h - 2, text, sizeof text);
    draw_text(text);
}

/* load_ranks' stand-in model for a job of analysis files alone (only
   load_ranks and free_stand_in write them). */
static trace *stand_in_tr;
static model *stand_in_m;

/* The ranks of one job: every trace of a directory, or several traces,
   loaded on a pool of threads (core/ranks). The first loaded rank's model
   is the one shown first; files that fail are listed in the Ranks view. */
static int load_ranks(int nargs, char **args, bool partial, const model_opts *mo, unsigned jobs,
                      bool draw, ranks_job **out, trace **tr, model **m)
{
    t2p_error err;
    char msg[1200];
    ranks_job *j = ranks_open((const char *const *)args, (size_t)nargs, &err);
    if (!j) {
        draw_close();
        fprintf(stderr, "torch2pprof-tui: %s%s\n", error_format(&err, msg, sizeof msg),
                err.kind == T2P_ERR_TRUNCATED && !strstr(err.reason, "--partial")
                    ? "; without --strict it opens what was read" : "");
        return EXIT_INPUT;
    }
    if (draw) {
        char what[600];
        snprintf(what, sizeof what, "%zu traces (%s%s)", j->nfiles, args[0], nargs > 1 ? ", ..." : "");
        draw_progress(what, 0, 0, 0, 0, "Loading");
    }
    struct ranks_draw rd = { tui_replay_now() };
    ranks_load_opts lo = { .jobs = jobs, .partial = partial, .keep_models = true, .mo = *mo,
                           .cancel = &got_signal, .progress = draw ? on_ranks_progress : NULL,
                           .progress_ctx = &rd };
    if (delay_ms > 0)
        lo.on_model = slow_model;
    int lrc = ranks_load(j, &lo, &err);
    if (got_signal) {
        draw_close();
        fprintf(stderr, "torch2pprof-tui: loading cancelled\n");
        ranks_free(j);
        return EXIT_CANCEL;
    }
    if (lrc < 0 || j->nloaded == 0) {
        draw_close();
        /* the files left out first: they say why a directory held nothing */
        for (size_t i = 0; i < j->nnotes; i++)
            fprintf(stderr, "torch2pprof-tui: note: %s\n",
                    error_format(&j->notes[i], msg, sizeof msg));
        if (lrc == 0)
            for (size_t i = 0; i < j->nfiles; i++)
                fprintf(stderr, "torch2pprof-tui: %s\n",
                        error_format(&j->files[i].err, msg, sizeof msg));
        else
            fprintf(stderr, "torch2pprof-tui: %s\n", error_format(&err, msg, sizeof msg));
        ranks_free(j);
        return EXIT_INPUT;
    }
    *out = j;
    /* the first rank with a model; a job of analysis files alone has none:
       an empty one stands in, named for what the views lack */
    for (size_t i = 0; i < j->nloaded && !*m; i++) {
        *tr = j->files[i].tr;
        *m = j->files[i].m;
    }
    if (!*m) {
        t2p_error e;
        stand_in_tr = trace_empty("analysis files: Ops, Categories, Tree, Threads, Steps and "
                                  "Memory need the traces; Ranks, All ranks and Collectives "
                                  "read these");
        stand_in_m = stand_in_tr ? model_build(stand_in_tr, mo, &e) : NULL;
        if (!stand_in_m) {
            draw_close();
            fprintf(stderr, "torch2pprof-tui: out of memory\n");
            trace_free(stand_in_tr);
            stand_in_tr = NULL;
            ranks_free(j);
            *out = NULL;
            return EXIT_INPUT;
        }
        *tr = stand_in_tr;
        *m = stand_in_m;
    }
    return EXIT_OK;
}

/* The stand-in of load_ranks, freed with the job. */
static void free_stand_in(void)
{
    model_free(stand_in_m);
    trace_free(stand_in_tr);
    stand_in_m = NULL;
    stand_in_tr = NULL;
}

/* TRACE alone, or with --base both at once and their comparison for the views */
static int open_traces(const char *base, const char *path, bool partial, const model_opts *mo,
                       bool draw, trace **tr, model **m, tui_cmp *tc, view_opts *vo)
{
    if (!base)
        return load(path, partial, mo, draw, tr, m);
    int rc = tui_cmp_load(base, path, partial, mo, load_jobs, draw, &got_signal, tc);
    if (rc == EXIT_OK) {
        *tr = tc->side[1].tr;
        *m = tc->side[1].m;
        vo->cmp = tc->c;
    }
    return rc;
}

static void close_traces(trace *tr, model *m, tui_cmp *tc)
{
    if (tc->c) {
        tui_cmp_done(tc);
        return;
    }
    model_free(m);
    trace_free(tr);
}

/* ---------------------------------------------------------------- export */

struct export_ctx {
    const char *path;
    uint64_t last_done;
    double t0, last;
};

/* e on a deep trace can write for seconds: a progress screen after a
   moment, and Ctrl-C cancels the export (it is consumed: the explorer stays);
   SIGTERM and SIGHUP cancel it too and then end the explorer. */
static int on_export_progress(const char *path, uint64_t done, uint64_t total, void *vctx)
{
    struct export_ctx *c = vctx;
    double t = tui_replay_now();
    if (path != c->path || done < c->last_done) {
        c->path = path;
        c->t0 = t;
        c->last = 0;
    }
    c->last_done = done;
    if (got_signal) {
        if (got_signal == SIGINT)
            got_signal = 0;
        return 1;
    }
    if (t - c->t0 >= 0.3 && t - c->last >= 0.1) {
        c->last = t;
        draw_export_progress(path, done, total, t - c->t0);
    }
    return 0;
}

/* ---------------------------------------------------------------- main */

static int loop(view *v)
{
    int w, h;
    draw_size(&w, &h);
    view_resize(v, w, h);
    draw_screen(v);
    for (;;) {
        int k = draw_key(250);
        if (got_signal)
            return got_signal == SIGINT ? EXIT_OK : EXIT_CANCEL;
        if (k == -1)
            continue;
        if (k == DRAW_RESIZE) {
            draw_size(&w, &h);
            view_resize(v, w, h);
        } else if (k == DRAW_MOUSE) {
            int kind, x, y;
            draw_mouse_event(&kind, &x, &y);
            if (mouse_event(v, (enum mouse_kind)kind, x, y) == VIEW_QUIT)
                return EXIT_OK;
        } else if (k > 0 && view_key(v, k) == VIEW_QUIT) {
            return EXIT_OK;
        }
        draw_screen(v);
    }
}

/* --range against the loaded trace: every view covers it. EXIT_OK, or
   EXIT_USAGE after saying why (the terminal closed first: close). */
static int start_range(view *v, const model *m, const char *text, bool close)
{
    range_spec rs;
    time_range r;
    t2p_error err;
    char vis[1200];
    if (!text)
        return EXIT_OK;
    if (range_parse(text, &rs, &err) < 0 || range_resolve(m, &rs, &r, &err) < 0) {
        if (close)
            draw_close();
        fprintf(stderr, "torch2pprof-tui: --range: %s\n",
                fmt_visible(err.reason, strlen(err.reason), vis, sizeof vis));
        return EXIT_USAGE;
    }
    if (view_timeline_set_range(v, r.start, r.end) < 0) {
        if (close)
            draw_close();
        fprintf(stderr, "torch2pprof-tui: --range: %s\n", view_status(v));
        return EXIT_INPUT;
    }
    view_set_status(v, "");
    return EXIT_OK;
}

/* What the command line asked for, once parsed. */
struct tui_run {
    view_opts vo;
    const char *base;
    model_opts mo;
    bool partial, print, view_given, mouse;
    char *script; /* --replay's keys (owned), or NULL */
    long jobs;
    int rw, rh;
    const char *range; /* --range, or NULL */
    double t_start;
    int nops;
    char **ops;
    /* the scope it opens with: --step, --rank, --focus..., --filter */
    const struct view_scope_args *sargs;
    const export_entry *entries;
    size_t nentries;
    const char *filter;
};

/* The scope the command line gave, shown before the first screen. Returns
   EXIT_OK, or EXIT_INPUT with the reason in why (a step, rank or name the
   trace lacks: the documented exit code of an input the trace lacks). */
static int open_scope(view *v, const struct tui_run *r, char *why, size_t size)
{
    if (view_apply_scope(v, r->sargs, r->entries, r->nentries, r->filter, why, size) < 0)
        return EXIT_INPUT;
    return EXIT_OK;
}

/* Loads, then replays the keys or runs the terminal loop. Returns the exit
   code; frees r->script. */
static int run(struct tui_run *r)
{
    trace *tr = NULL;
    model *m = NULL;
    view *v = NULL;
    ranks_job *job = NULL;
    tui_cmp tc = { 0 };
    int rc;
    view_opts vo = r->vo;
    model_opts mo = r->mo;
    const char *base = r->base;
    char *script = r->script;
    bool partial = r->partial, view_given = r->view_given;
    int nops = r->nops;
    char **ops = r->ops;
    unsigned jobs = (unsigned)r->jobs;
    load_jobs = jobs ? jobs : ranks_default_jobs();
    /* one analysis file (analyze --json's) is a job of one rank */
    bool many = nops > 1 || (nops == 1 && ranks_is_dir(ops[0])) ||
                (nops == 1 && sniff_is_analysis(ops[0]));
    const char *path = nops ? ops[0] : find_sample();
    vo.inputs = nops ? (const char *const *)ops : &path;
    vo.ninputs = nops ? (size_t)nops : 1;
    vo.base_path = base;

    if (many && base) {
        free(script);
        return opts_usage_error(&opts_tui, "--base compares two traces: give one TRACE with it");
    }
    if (many && !view_given)
        vo.tab = VIEW_RANKS;
    if (script) {
        rc = many ? load_ranks(nops, ops, partial, &mo, jobs, false,
                               &job, &tr, &m)
                  : open_traces(base, path, partial, &mo, false, &tr, &m, &tc, &vo);
        if (rc != EXIT_OK) {
            free(script);
            return rc;
        }
        printf("load %.3f ms events %zu nodes %zu merged-nodes %zu cpu %.3f ms\n",
               (tui_replay_now() - r->t_start) * 1e3, tr->nevents, m->nnodes, m->nmnodes, tui_replay_cpu_ms());
        if (!view_given && !many && !base && steps_count(m) >= 2)
            vo.tab = VIEW_STEPS; /* a training run: where each step's time went, first */
        v = view_table_new(m, &vo);
        if (!v) {
            fprintf(stderr, "torch2pprof-tui: out of memory\n");
            rc = EXIT_INPUT;
        } else {
            char why[600];
            if (job)
                view_attach_ranks(v, job);
            rc = start_range(v, m, r->range, false);
            if (rc == EXIT_OK && (rc = open_scope(v, r, why, sizeof why)) != EXIT_OK)
                fprintf(stderr, "torch2pprof-tui: %s\n", why);
            else if (rc == EXIT_OK)
                rc = tui_replay_run(v, script, r->print, ascii, r->rw, r->rh, r->t_start);
        }
        free(script);
        view_free(v);
        if (job) {
            ranks_free(job);
            free_stand_in();
        } else {
            close_traces(tr, m, &tc);
        }
        return rc;
    }

    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "torch2pprof-tui: needs a terminal (stdin and stdout); for a report "
                        "use `torch2pprof analyze %s`\n", path);
        return EXIT_INPUT;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    sa.sa_handler = on_fatal;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    atexit(restore_terminal);

    const char *nc = getenv("NO_COLOR");
    if (draw_open(nc && *nc) < 0) {
        fprintf(stderr, "torch2pprof-tui: cannot use this terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        return EXIT_INPUT;
    }
    rc = many ? load_ranks(nops, ops, partial, &mo, jobs, true, &job,
                           &tr, &m)
              : open_traces(base, path, partial, &mo, true, &tr, &m, &tc, &vo);
    if (rc != EXIT_OK)
        return rc;
    if (!view_given && !many && !base && steps_count(m) >= 2)
        vo.tab = VIEW_STEPS;
    v = view_table_new(m, &vo);
    if (!v) {
        draw_close();
        fprintf(stderr, "torch2pprof-tui: out of memory\n");
        rc = EXIT_INPUT;
    } else {
        struct export_ctx ec = { 0 };
        char why[600];
        if (job)
            view_attach_ranks(v, job);
        draw_mouse(r->mouse);
        view_set_export_progress(v, on_export_progress, &ec);
        if ((rc = start_range(v, m, r->range, true)) != EXIT_OK) {
            /* start_range closed the terminal and said why */
        } else if ((rc = open_scope(v, r, why, sizeof why)) != EXIT_OK) {
            draw_close();
            fprintf(stderr, "torch2pprof-tui: %s\n", why);
        } else {
            rc = loop(v);
            draw_close();
        }
    }
    view_free(v);
    if (job) {
        ranks_free(job);
        free_stand_in();
    } else {
        close_traces(tr, m, &tc);
    }
    return rc;
}

int tui_main(int argc, char **argv)
{
    const opts_cmd *c = &opts_tui;
    const char *delay = getenv("T2P_PROGRESS_DELAY");
    delay_ms = delay ? strtol(delay, NULL, 10) : 0;
    view_opts vo = { .tab = VIEW_OPS, .sort = MODEL_SORT_SELF };
    /* the GPU view's cutoffs: analyze's options, HTA's defaults */
    hta_opts ho;
    hta_opts_default(&ho);
    vo.hta_opts = &ho;
    const char *base = NULL;
    model_opts mo = { 0 };
    opts_common_vals cv = { 0 };
    bool print = false;
    char *script = NULL, vis[600];
    bool view_given = false, mouse = true;
    int rw = 120, rh = 40;
    long n;
    int k;
    double t_start = tui_replay_now();
    opts_parsed p;
    int rc;
    struct view_scope_args sargs = { 0 };

    /* a write past `ulimit -f` (the export) fails with EFBIG, cleaned up,
       instead of killing the explorer in the alternate screen */
    signal(SIGXFSZ, SIG_IGN);
    setlocale(LC_ALL, "");
    ascii = !glyph_locale_utf8();
    if (opts_parse(c, argc, argv, &p, &rc) < 0)
        return rc;
    rc = EXIT_USAGE;
    for (size_t i = 0; i < p.nhits; i++) {
        const opt_hit *h = &p.hits[i];
        if ((k = opts_common(c, h, &cv)) < 0)
            goto usage_done;
        if (k > 0)
            continue;
        switch (h->id) {
        case OPT_VIEW:
            if ((k = view_table_by_name(h->value)) < 0) {
                char names[256];
                opts_usage_error(c, "unknown view '%s' (%s)",
                                 fmt_visible(h->value, strlen(h->value), vis, sizeof vis),
                                 view_table_names(names, sizeof names));
                goto usage_done;
            }
            vo.tab = (enum view_tab)k;
            view_given = true;
            break;
        case OPT_SORT:
            if ((k = model_sort_parse(h->value)) < 0) {
                opts_usage_error(c, "unknown sort key '%s' (self, total, calls, name, avg, "
                                    "device_self, device_total)",
                                 fmt_visible(h->value, strlen(h->value), vis, sizeof vis));
                goto usage_done;
            }
            vo.sort = (enum model_sort)k;
            break;
        case OPT_TOP:
            if (opts_number(c, h, 0, __LONG_MAX__, &n) != 0)
                goto usage_done;
            vo.top = (size_t)n;
            break;
        case OPT_REPLAY:
            free(script);
            if (!(script = strdup(h->value))) {
                rc = EXIT_INPUT;
                fprintf(stderr, "torch2pprof-tui: out of memory\n");
                goto usage_done;
            }
            break;
        case OPT_REPLAY_FILE:
            free(script);
            if (!(script = tui_replay_read_script(h->value))) {
                int e = errno;
                rc = EXIT_INPUT;
                fprintf(stderr, "torch2pprof-tui: %s: %s\n",
                        fmt_visible(h->value, strlen(h->value), vis, sizeof vis), strerror(e));
                goto usage_done;
            }
            break;
        case OPT_PRINT: print = true; break;
        case OPT_SIZE:
            if (sscanf(h->value, "%dx%d", &rw, &rh) != 2 || rw < 20 || rh < 8) {
                opts_usage_error(c, "--size wants WxH, like 120x40 (at least 20x8), not '%s'",
                                 fmt_visible(h->value, strlen(h->value), vis, sizeof vis));
                goto usage_done;
            }
            break;
        case OPT_HELP:
            opts_help(c, stdout);
            rc = EXIT_OK;
            goto usage_done;
        case OPT_VERSION:
            printf("torch2pprof-tui %s\n", PACKAGE_VERSION);
            rc = EXIT_OK;
            goto usage_done;
        case OPT_NO_MOUSE: mouse = false; break;
        case OPT_KERNEL_WAIT:
        case OPT_RUNTIME_CUTOFF:
        case OPT_DELAY_CUTOFF:
            /* microseconds, HTA's unit; up to a day (as analyze) */
            if (opts_number(c, h, 0, 86400L * 1000000, &n) != 0)
                goto usage_done;
            *(h->id == OPT_KERNEL_WAIT      ? &ho.kernel_wait_ns
              : h->id == OPT_RUNTIME_CUTOFF ? &ho.runtime_cutoff_ns
                                            : &ho.delay_cutoff_ns) = (int64_t)n * 1000;
            break;
        case OPT_SOURCE_PATH: vo.source_path = h->value; break;
        default: break;
        }
    }
    /* an explorer shows what a killed job left, under a banner, rather than nothing */
    bool partial = !cv.strict;
    long jobs = cv.jobs;
    base = cv.base;
    sargs.has_rank = cv.has_rank;
    sargs.rank = cv.rank;
    mo.keep_steps = cv.keep_steps;
    vo.short_names = cv.short_names;
    /* the model keeps its Python frames; p shows and hides them, and the
       export says --no-python while they are hidden */
    vo.hide_python = cv.no_python;
    if (cv.step)
        snprintf(sargs.step, sizeof sargs.step, "%s", cv.step);
    int nops = (int)p.noperands;
    char **ops = p.operands;
    if (cv.range && (base || nops > 1 || (nops == 1 && ranks_is_dir(ops[0])))) {
        opts_usage_error(c, "--range takes one TRACE, without --base");
        goto usage_done;
    }
    for (int i = 0; i < nops; i++)
        if (!strcmp(ops[i], "-")) {
            opts_usage_error(c, "the explorer reads its keys from the terminal: give TRACE as "
                                "a file, not - (standard input)");
            goto usage_done;
        }
    struct tui_run r = { .vo = vo, .base = base, .mo = mo, .partial = partial, .print = print,
                         .view_given = view_given, .mouse = mouse, .script = script,
                         .jobs = jobs, .rw = rw, .rh = rh, .range = cv.range,
                         .t_start = t_start, .nops = nops,
                         .ops = ops, .sargs = &sargs, .entries = cv.entries,
                         .nentries = cv.nentries, .filter = cv.filter };
    script = NULL; /* run's now */
    rc = run(&r);
usage_done:
    free(script);
    opts_parsed_done(&p);
    return rc;
}
