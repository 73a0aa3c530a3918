/* analyze --base BASE TRACE: what changed, per operator and per category,
   as text or as the "compare" JSON object. The figures come from
   core/compare; this file only lays them out. */
#include "config.h"

#include "src/analyze_compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/compare.h"
#include "core/base/fmt.h"
#include "core/analyses/pair.h"
#include "core/analyses/steps.h"
#include "src/cli.h"
#include "src/cli_table.h"

static bool integral(double x)
{
    return x == floor(x) && fabs(x) < 9e15;
}

/* calls: "1,234" undivided, "12.25" per step */
static const char *calls_str(double x, bool sign, char *buf, size_t size)
{
    if (integral(x)) {
        char t[40];
        fmt_count((uint64_t)fabs(x), t, sizeof t);
        snprintf(buf, size, "%s%s", x < 0 ? "-" : sign && x > 0 ? "+" : "", t);
    } else {
        snprintf(buf, size, sign ? "%+.2f" : "%.2f", x);
    }
    return buf;
}

static const char *pct_str(const compare_row *r, char *buf, size_t size)
{
    if (r->status == COMPARE_ADDED)
        snprintf(buf, size, "new");
    else if (r->status == COMPARE_REMOVED)
        snprintf(buf, size, "gone");
    else if (r->b.self_ns == 0)
        snprintf(buf, size, r->n.self_ns ? "new" : "0.0");
    else
        snprintf(buf, size, "%+.1f", compare_delta_pct(&r->b, &r->n));
    return buf;
}

static char mark(enum compare_status s)
{
    return s == COMPARE_ADDED ? '+' : s == COMPARE_REMOVED ? '-' : ' ';
}

/* One side of the comparison: a trace, its whole model and steps, and the
   model the figures come from: the whole one, or one scoped to steps
   first..last (--base-step, --step). */
struct side {
    trace *tr;        /* owned unless shared */
    bool shared;      /* side 1 only: both steps from one trace, whose trace,
                         whole model and steps side 0 owns */
    model *whole, *m; /* m == whole unless scoped; m owned apart then */
    steps *st;        /* of the whole model; side 0's when shared */
    const char *step; /* the step text (N or N-M), NULL for the whole trace */
    size_t first, last;
};

static void print_side(FILE *f, const char *what, const struct side *sd, const compare_fig *busy,
                       uint64_t div)
{
    const model *m = sd->m;
    char a[64], b[64];
    fprintf(f, "%-19s", what);
    cli_put_text(f, m->tr->path, strlen(m->tr->path));
    if (sd->step) {
        fputs(", step ", f);
        cli_put_text(f, sd->step, strlen(sd->step));
    }
    fputc('\n', f);
    if (m->tr->truncated) {
        fprintf(f, "%-19sWARNING: truncated trace (", "");
        cli_put_text(f, m->tr->truncated_reason, strlen(m->tr->truncated_reason));
        fputs("); figures cover what was read\n", f);
    }
    fprintf(f, "%-19s%s events, busy %s ms", "", fmt_count(m->tr->events_read, a, sizeof a),
            fmt_ms(busy->self_ns, b, sizeof b));
    if (div > 1)
        fprintf(f, " per step (%llu steps)", (unsigned long long)div);
    fputc('\n', f);
}

/* How many steps a side's figures cover: its kept steps, the steps it is
   scoped to, 0 without steps. */
static size_t side_nsteps(const struct side *sd)
{
    if (sd->step)
        return sd->last - sd->first + 1;
    return sd->st->whole_trace ? 0 : sd->st->nkept;
}

/* A side's step figures: the average over its kept steps, or over the
   steps it is scoped to (one step: that step's own); duration, the eight
   roles, GPU busy as [0 .. STEPS_NROLES + 2). false when it has no steps. */
static bool steps_avg(const struct side *sd, int64_t *v)
{
    const steps *s = sd->st;
    if (s->whole_trace || !side_nsteps(sd))
        return false;
    if (!sd->step) {
        v[0] = s->avg_duration_ns;
        for (int r = 0; r < STEPS_NROLES; r++)
            v[1 + r] = s->avg_role_ns[r];
        v[1 + STEPS_NROLES] = s->avg_gpu_busy_ns;
        return true;
    }
    /* as steps.c averages: sums, then one integer division */
    int64_t n = (int64_t)side_nsteps(sd);
    for (int i = 0; i < STEPS_NROLES + 2; i++)
        v[i] = 0;
    for (size_t k = sd->first; k <= sd->last; k++) {
        const steps_step *p = &s->steps[k];
        v[0] += p->end - p->start;
        for (int r = 0; r < STEPS_NROLES; r++)
            v[1 + r] += p->role_ns[r];
        v[1 + STEPS_NROLES] += p->gpu_busy_ns;
    }
    for (int i = 0; i < STEPS_NROLES + 2; i++)
        v[i] /= n;
    return true;
}

static void steps_text(FILE *f, const struct side *sd)
{
    int64_t v[2][STEPS_NROLES + 2];
    bool has[2] = { steps_avg(&sd[0], v[0]), steps_avg(&sd[1], v[1]) };
    if (!has[0] && !has[1])
        return;
    char a[64], b[64], d[64];
    if (sd[0].step || sd[1].step)
        fprintf(f, "\nSteps (base %s%s, new %s%s)\n", sd[0].step ? "step " : "average of ",
                sd[0].step ? sd[0].step : "kept steps", sd[1].step ? "step " : "average of ",
                sd[1].step ? sd[1].step : "kept steps");
    else
        fprintf(f, "\nSteps average (over kept steps: base %zu, new %zu)\n", side_nsteps(&sd[0]),
                side_nsteps(&sd[1]));
    fprintf(f, "  %-16s %14s %14s %14s %8s\n", "", "Base ms", "New ms", "Delta ms", "Delta %");
    for (int i = 0; i < STEPS_NROLES + 2; i++) {
        const char *what = i == 0 ? "Step" : i == STEPS_NROLES + 1 ? "GPU busy"
                                                                    : steps_role_title(i - 1);
        fprintf(f, "  %-16s %14s %14s", what, has[0] ? fmt_ms(v[0][i], a, sizeof a) : "-",
                has[1] ? fmt_ms(v[1][i], b, sizeof b) : "-");
        if (has[0] && has[1]) {
            fprintf(f, " %14s", fmt_ms_signed(v[1][i] - v[0][i], d, sizeof d));
            if (v[0][i])
                fprintf(f, " %+8.1f", 100.0 * (double)(v[1][i] - v[0][i]) / (double)v[0][i]);
        }
        fputc('\n', f);
    }
}

/* The rows of the two tables for cli_table: categories (no category
   column of their own: it says "Category") or operations. */
struct cmp_rows {
    const compare *c;
    const compare_row *rows;
    const uint32_t *order;
    bool cats;
    char mark[2], buf[15][64];
};

static void cmp_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct cmp_rows *x = ctx;
    const compare *c = x->c;
    const compare_row *r = &x->rows[x->order[i]];
    compare_fig dl = compare_delta(&r->b, &r->n);
    x->mark[0] = mark(r->status);
    x->mark[1] = '\0';
    cell[0] = x->mark;
    if (x->cats) {
        cell[1] = fmt_category(compare_str(c, r->name), compare_strlen(c, r->name), &len[1]);
        cell[2] = "";
    } else {
        cell[1] = compare_str(c, r->name);
        len[1] = compare_strlen(c, r->name);
        cell[2] = compare_str(c, r->cat);
    }
    cell[3] = calls_str(r->b.calls, false, x->buf[3], 64);
    cell[4] = calls_str(r->n.calls, false, x->buf[4], 64);
    cell[5] = calls_str(dl.calls, true, x->buf[5], 64);
    cell[6] = fmt_ms(r->b.self_ns, x->buf[6], 64);
    cell[7] = fmt_ms(r->n.self_ns, x->buf[7], 64);
    cell[8] = fmt_ms_signed(dl.self_ns, x->buf[8], 64);
    cell[9] = pct_str(r, x->buf[9], 64);
    cell[10] = fmt_ms(r->b.total_ns, x->buf[10], 64);
    cell[11] = fmt_ms(r->n.total_ns, x->buf[11], 64);
    cell[12] = fmt_ms_signed(dl.total_ns, x->buf[12], 64);
    cell[13] = fmt_ms_signed(dl.dev_self_ns, x->buf[13], 64);
    cell[14] = fmt_ms_signed(dl.dev_total_ns, x->buf[14], 64);
    len[0] = 1;
    len[2] = x->cats ? 0 : compare_strlen(c, r->cat);
    for (int k = 3; k < 15; k++)
        len[k] = strlen(cell[k]);
}

/* on a terminal too narrow for all, the base and new totals go first:
   their delta stays */
static const cli_col cmp_cols[] = {
    {"", CLI_COL_LEFT}, {"Name", CLI_COL_LEFT | CLI_COL_NAME},
    {"Category", CLI_COL_LEFT | CLI_COL_NAME}, {"Base calls", CLI_COL_DROP},
    {"New calls", CLI_COL_DROP}, {"Δ calls", 0}, {"Base self ms", 0}, {"New self ms", 0},
    {"Δ self ms", 0}, {"Δ %", 0}, {"Base tot ms", CLI_COL_DROP}, {"New tot ms", CLI_COL_DROP},
    {"Δ total ms", 0}, {"Δ dev self", 0}, {"Δ dev total", 0}};

static void report_text(FILE *f, const compare *c, const uint32_t *order, size_t nshow,
                        const uint32_t *corder, enum compare_sort sort, const struct side *sd)
{
    char a[64], b[64], d[64];
    bool gpu = c->base->gpu_events || c->new->gpu_events;
    size_t nboth = 0, nadd = 0, nrem = 0;
    for (size_t i = 0; i < c->nops; i++) {
        nboth += c->ops[i].status == COMPARE_BOTH;
        nadd += c->ops[i].status == COMPARE_ADDED;
        nrem += c->ops[i].status == COMPARE_REMOVED;
    }
    print_side(f, "Base:", &sd[0], &c->base_busy, c->base_div);
    print_side(f, "New:", &sd[1], &c->new_busy, c->new_div);
    compare_fig db = compare_delta(&c->base_busy, &c->new_busy);
    fprintf(f, "Busy time:         %s ms -> %s ms: %s ms", fmt_ms(c->base_busy.self_ns, a, sizeof a),
            fmt_ms(c->new_busy.self_ns, b, sizeof b), fmt_ms_signed(db.self_ns, d, sizeof d));
    if (c->base_busy.self_ns)
        fprintf(f, " (%+.1f%%)", compare_delta_pct(&c->base_busy, &c->new_busy));
    fputc('\n', f);
    if (gpu)
        fprintf(f, "GPU time:          %s ms -> %s ms: %s ms\n",
                fmt_ms(c->base_busy.dev_self_ns, a, sizeof a),
                fmt_ms(c->new_busy.dev_self_ns, b, sizeof b), fmt_ms_signed(db.dev_self_ns, d, sizeof d));
    fprintf(f, "Operations:        %s in both, %s only in new (+), %s only in base (-)\n",
            fmt_count(nboth, a, sizeof a), fmt_count(nadd, b, sizeof b),
            fmt_count(nrem, d, sizeof d));
    if (c->base_div > 1 || c->new_div > 1)
        fprintf(f, "Per step:          every figure divided by its trace's kept steps\n");

    fprintf(f, "\nBy Category, by %s\n", compare_sort_name(sort));
    struct cmp_rows x = {.c = c, .rows = c->cats, .order = corder, .cats = true};
    cli_col cc[13];
    memcpy(cc, cmp_cols, sizeof cc);
    cc[1].head = "Category";
    cc[2] = (cli_col){"", CLI_COL_LEFT | CLI_COL_GLUE}; /* empty: no column */
    cli_table(f, cc, 13, c->ncats, cmp_row, &x);

    steps_text(f, sd);

    fprintf(f, "\nTop %zu operations by %s (+ only in new, - only in base)\n", nshow,
            compare_sort_name(sort));
    x = (struct cmp_rows){.c = c, .rows = c->ops, .order = order};
    cli_table(f, cmp_cols, gpu ? 15 : 13, nshow, cmp_row, &x);
}

static void json_calls(FILE *f, double x)
{
    if (integral(x))
        fprintf(f, "%.0f", x);
    else
        fprintf(f, "%.6f", x);
}

static void json_fig(FILE *f, const char *key, const compare_fig *x, bool cat)
{
    fprintf(f, ",\"%s\":{\"count\":", key);
    json_calls(f, x->calls);
    fprintf(f, ",\"self_ns\":%lld,\"total_ns\":%lld,\"device_self_ns\":%lld", (long long)x->self_ns,
            (long long)x->total_ns, (long long)x->dev_self_ns);
    if (!cat)
        fprintf(f, ",\"device_total_ns\":%lld", (long long)x->dev_total_ns);
    fputc('}', f);
}

static const char *status_name(enum compare_status s)
{
    return s == COMPARE_ADDED ? "added" : s == COMPARE_REMOVED ? "removed" : "both";
}

static void json_row(FILE *f, const compare *c, const compare_row *r, bool cat)
{
    fputs("{\"name\":", f);
    cli_json_string(f, compare_str(c, r->name), compare_strlen(c, r->name));
    if (!cat) {
        fputs(",\"category\":", f);
        cli_json_string(f, compare_str(c, r->cat), compare_strlen(c, r->cat));
    }
    fprintf(f, ",\"status\":\"%s\"", status_name(r->status));
    compare_fig dl = compare_delta(&r->b, &r->n);
    json_fig(f, "base", &r->b, cat);
    json_fig(f, "new", &r->n, cat);
    json_fig(f, "delta", &dl, cat);
    fputc('}', f);
}

static void json_avg(FILE *f, const struct side *sd, const int64_t *v, bool has)
{
    if (!has) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"steps\":%zu,\"duration_ns\":%lld", side_nsteps(sd), (long long)v[0]);
    for (int r = 0; r < STEPS_NROLES; r++)
        fprintf(f, ",\"%s_ns\":%lld", steps_role_key(r), (long long)v[1 + r]);
    fprintf(f, ",\"gpu_busy_ns\":%lld}", (long long)v[1 + STEPS_NROLES]);
}

/* "steps_average": {"base", "new", "delta"}: each side's averages over its
   kept steps (null without steps), and new minus base when both have them */
static void steps_json(FILE *f, const struct side *sd)
{
    int64_t v[3][STEPS_NROLES + 2];
    bool has[2] = { steps_avg(&sd[0], v[0]), steps_avg(&sd[1], v[1]) };
    if (!has[0] && !has[1]) {
        fputs("null", f);
        return;
    }
    for (int i = 0; i < STEPS_NROLES + 2; i++)
        v[2][i] = v[1][i] - v[0][i];
    fputs("{\"base\":", f);
    json_avg(f, &sd[0], v[0], has[0]);
    fputs(",\"new\":", f);
    json_avg(f, &sd[1], v[1], has[1]);
    fputs(",\"delta\":", f);
    if (has[0] && has[1]) {
        /* the delta of the step counts too */
        fprintf(f, "{\"steps\":%lld,\"duration_ns\":%lld",
                (long long)side_nsteps(&sd[1]) - (long long)side_nsteps(&sd[0]),
                (long long)v[2][0]);
        for (int r = 0; r < STEPS_NROLES; r++)
            fprintf(f, ",\"%s_ns\":%lld", steps_role_key(r), (long long)v[2][1 + r]);
        fprintf(f, ",\"gpu_busy_ns\":%lld}", (long long)v[2][1 + STEPS_NROLES]);
    } else {
        fputs("null", f);
    }
    fputc('}', f);
}

static void json_side(FILE *f, const char *key, const struct side *sd, const compare_fig *busy)
{
    const model *m = sd->m;
    fprintf(f, "\"%s\":{\"file\":", key);
    cli_json_string(f, m->tr->path, strlen(m->tr->path));
    fprintf(f, ",\"truncated\":%s,\"events\":%llu,\"complete_events\":%llu,\"busy_ns\":%lld,"
               "\"gpu_ns\":%lld,\"steps\":",
            m->tr->truncated ? "true" : "false", (unsigned long long)m->tr->events_read,
            (unsigned long long)m->complete_events, (long long)busy->self_ns,
            (long long)busy->dev_self_ns);
    if (side_nsteps(sd))
        fprintf(f, "%zu", side_nsteps(sd));
    else
        fputs("null", f);
    fputs(",\"step\":", f);
    if (sd->step)
        cli_json_string(f, sd->step, strlen(sd->step));
    else
        fputs("null", f);
    fputc('}', f);
}

static void report_json(FILE *f, const compare *c, const uint32_t *order, size_t nshow,
                        const uint32_t *corder, bool per_step, const struct side *sd)
{
    fputs("{\"compare\":{", f);
    json_side(f, "base", &sd[0], &c->base_busy);
    fputc(',', f);
    json_side(f, "new", &sd[1], &c->new_busy);
    fprintf(f, ",\"per_step\":%s,\"ops\":[", per_step ? "true" : "false");
    for (size_t i = 0; i < nshow; i++) {
        if (i)
            fputc(',', f);
        json_row(f, c, &c->ops[order[i]], false);
    }
    fputs("],\"categories\":[", f);
    for (size_t i = 0; i < c->ncats; i++) {
        if (i)
            fputc(',', f);
        json_row(f, c, &c->cats[corder[i]], true);
    }
    fputs("],\"steps_average\":", f);
    steps_json(f, sd);
    fputs("}}\n", f);
}

static void warn_truncated(const trace *tr)
{
    if (tr->truncated)
        cli_warn_truncated(tr->path, tr->truncated_reason, "loaded");
}

/* Scopes side sd to its step text: the whole model's steps give the event
   mask, and the model is built again over those events. 0, or -1 after
   printing why (rc set). */
static int scope_side(struct side *sd, const model_opts *mo, int *rc)
{
    t2p_error err;
    char p[1200], s[600];
    if (sd->st->whole_trace) {
        fprintf(stderr, "torch2pprof analyze: %s: no ProfilerStep# steps to pick step %s from\n",
                cli_shown(sd->tr->path, p, sizeof p), cli_shown(sd->step, s, sizeof s));
        *rc = EXIT_INPUT; /* the trace lacks it: an input error, as everywhere */
        return -1;
    }
    if (steps_parse_range(sd->st, sd->step, &sd->first, &sd->last, &err) < 0) {
        fprintf(stderr, "torch2pprof analyze: %s: %s\n", cli_shown(sd->tr->path, p, sizeof p),
                cli_shown(err.reason, s, sizeof s));
        *rc = err.kind == T2P_ERR_MISSING ? EXIT_INPUT : EXIT_USAGE;
        return -1;
    }
    sd->m = steps_scope(sd->st, sd->first, sd->last, mo, &err);
    if (!sd->m) {
        cli_fail(&err);
        return -1;
    }
    return 0;
}

/* Both sides' traces and whole models: two traces in parallel, or one
   trace for both (steps of one trace). 0, or -1 after printing why. */
static int load_sides(const analyze_compare_opts *o, struct side sd[2])
{
    t2p_error err;
    if (!o->base_path) {
        trace *tr = NULL;
        model *m = cli_open(o->new_path, o->partial, &o->mo, &tr);
        if (!m)
            return -1;
        sd[0] = (struct side){ .tr = tr, .whole = m, .m = m };
        sd[1] = (struct side){ .tr = tr, .whole = m, .m = m, .shared = true };
        return 0;
    }
    const char *paths[2] = { o->base_path, o->new_path };
    pair_load_opts po = { .partial = o->partial, .mo = o->mo, .steps = true,
                          .jobs = cli_jobs() };
    pair_side ps[2];
    if (pair_load(paths, &po, ps, &err) < 0) {
        cli_fail(&err);
        return -1;
    }
    for (int s = 0; s < 2; s++)
        sd[s] = (struct side){ .tr = ps[s].tr, .whole = ps[s].m, .m = ps[s].m, .st = ps[s].st };
    return 0;
}

static void free_sides(struct side sd[2])
{
    for (int s = 0; s < 2; s++)
        if (sd[s].m != sd[s].whole)
            model_free(sd[s].m);
    /* shared: side 1's trace, whole model and steps are side 0's */
    for (int s = 0; s < (sd[1].shared ? 1 : 2); s++) {
        steps_free(sd[s].st);
        model_free(sd[s].whole);
        trace_free(sd[s].tr);
    }
}

int analyze_compare(const analyze_compare_opts *o)
{
    int sort = o->sort ? compare_sort_parse(o->sort) : COMPARE_SORT_DELTA_SELF;
    if (sort < 0) {
        char vis[600];
        fprintf(stderr, "torch2pprof analyze: unknown sort key '%s' with --base (delta_self, "
                        "delta_total, delta_calls, delta_device_self, delta_device_total, "
                        "delta_pct, self, total, calls, name, device_self, device_total)\n",
                cli_shown(o->sort, vis, sizeof vis));
        fputs("Try 'torch2pprof analyze --help'.\n", stderr);
        return EXIT_USAGE;
    }
    if (!o->base_path && !(o->base_step && o->step)) {
        fprintf(stderr, "torch2pprof analyze: compare what? --base BASE, or --base-step N "
                        "--step M for two steps of TRACE\nTry 'torch2pprof analyze --help'.\n");
        return EXIT_USAGE;
    }
    struct side sd[2];
    memset(sd, 0, sizeof sd);
    if (load_sides(o, sd) < 0)
        return EXIT_INPUT;
    sd[0].step = o->base_step;
    sd[1].step = o->step;

    int rc = EXIT_INPUT;
    uint32_t *order = NULL, *corder = NULL;
    compare *c = NULL;
    t2p_error err;
    /* each side its steps (two traces' were built by their loading
       threads; one trace for both sides: one set, shared) */
    for (int s = 0; s < 2; s++) {
        if (s == 1 && sd[1].shared) {
            sd[1].st = sd[0].st;
            continue;
        }
        if (!sd[s].st && !(sd[s].st = steps_build(sd[s].whole, &err))) {
            cli_fail(&err);
            goto out;
        }
    }
    for (int s = 0; s < 2; s++)
        if (sd[s].step && scope_side(&sd[s], &o->mo, &rc) < 0)
            goto out;
    compare_opts co = { 0 };
    if (o->per_step) {
        /* a trace without ProfilerStep# is one step: its figures stay whole */
        for (int s = 0; s < 2; s++) {
            if (!sd[s].st->whole_trace && !side_nsteps(&sd[s])) {
                char vis[1200];
                fprintf(stderr, "torch2pprof analyze: %s: no kept step to divide by\n",
                        cli_shown(sd[s].tr->path, vis, sizeof vis));
                goto out;
            }
        }
        co.base_div = side_nsteps(&sd[0]) ? side_nsteps(&sd[0]) : 1;
        co.new_div = side_nsteps(&sd[1]) ? side_nsteps(&sd[1]) : 1;
    }
    c = compare_build(sd[0].m, sd[1].m, &co, &err);
    if (!c) {
        cli_fail(&err);
        goto out;
    }
    order = malloc((c->nops ? c->nops : 1) * sizeof *order);
    corder = malloc((c->ncats ? c->ncats : 1) * sizeof *corder);
    if (!order || !corder) {
        fprintf(stderr, "torch2pprof: out of memory\n");
        goto out;
    }
    compare_sort_rows(c, c->ops, c->nops, (enum compare_sort)sort, false, order);
    compare_sort_rows(c, c->cats, c->ncats, (enum compare_sort)sort, false, corder);
    size_t nshow = o->top == 0 || o->top > c->nops ? c->nops : o->top;
    if (o->json)
        report_json(stdout, c, order, nshow, corder, o->per_step, sd);
    else
        report_text(stdout, c, order, nshow, corder, (enum compare_sort)sort, sd);
    warn_truncated(sd[0].tr);
    if (!sd[1].shared)
        warn_truncated(sd[1].tr);
    rc = EXIT_OK;
    rc = cli_report_done();
out:
    free(order);
    free(corder);
    compare_free(c);
    free_sides(sd);
    return rc;
}
