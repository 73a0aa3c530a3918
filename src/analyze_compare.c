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

#include "core/compare.h"
#include "core/fmt.h"
#include "core/pair.h"
#include "src/cli.h"

static void print_cell(FILE *f, const char *s, size_t len, size_t cols)
{
    char buf[1024];
    fmt_ellipsize(s, len, cols, buf, sizeof buf);
    size_t w = fmt_width(buf, strlen(buf));
    fputs(buf, f);
    for (; w < cols; w++)
        fputc(' ', f);
}

/* "+1.234" / "-1.234" / "0.000": a change always carries its sign */
static const char *sms(int64_t ns, char *buf, size_t size)
{
    char t[40];
    fmt_ms(ns, t, sizeof t);
    bool zero = !strcmp(t, "0.000") || !strcmp(t, "-0.000");
    snprintf(buf, size, "%s%s", ns > 0 && !zero ? "+" : "", zero ? "0.000" : t);
    return buf;
}

/* a header: each title right-aligned to its width in display columns ("Δ"
   is two bytes, one column); a negative width left-aligns */
static void print_header(FILE *f, const char *const *titles, const int *widths, size_t n)
{
    fputs("  ", f);
    for (size_t i = 0; i < n; i++) {
        size_t cols = (size_t)abs(widths[i]), w = fmt_width(titles[i], strlen(titles[i]));
        if (i)
            fputc(' ', f);
        if (widths[i] < 0)
            fputs(titles[i], f);
        for (; w < cols; w++)
            fputc(' ', f);
        if (widths[i] > 0)
            fputs(titles[i], f);
    }
}

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

static void print_side(FILE *f, const char *what, const model *m, const compare_fig *busy,
                       uint64_t div)
{
    char a[64], b[64];
    fprintf(f, "%-19s%s\n", what, m->tr->path);
    if (m->tr->truncated)
        fprintf(f, "%-19sWARNING: truncated trace (%s); figures cover what was read\n", "",
                m->tr->truncated_reason);
    fprintf(f, "%-19s%s events, busy %s ms", "", fmt_count(m->tr->events_read, a, sizeof a),
            fmt_ms(busy->self_ns, b, sizeof b));
    if (div > 1)
        fprintf(f, " per step (%llu steps)", (unsigned long long)div);
    fputc('\n', f);
}

static void report_text(FILE *f, const compare *c, const uint32_t *order, size_t nshow,
                        const uint32_t *corder, enum compare_sort sort)
{
    char a[64], b[64], d[64], e[64], g[64], h[64], k[64], l[64], p[64];
    bool gpu = c->base->gpu_events || c->new->gpu_events;
    size_t nboth = 0, nadd = 0, nrem = 0;
    for (size_t i = 0; i < c->nops; i++) {
        nboth += c->ops[i].status == COMPARE_BOTH;
        nadd += c->ops[i].status == COMPARE_ADDED;
        nrem += c->ops[i].status == COMPARE_REMOVED;
    }
    print_side(f, "Base:", c->base, &c->base_busy, c->base_div);
    print_side(f, "New:", c->new, &c->new_busy, c->new_div);
    compare_fig db = compare_delta(&c->base_busy, &c->new_busy);
    fprintf(f, "Busy time:         %s ms -> %s ms: %s ms", fmt_ms(c->base_busy.self_ns, a, sizeof a),
            fmt_ms(c->new_busy.self_ns, b, sizeof b), sms(db.self_ns, d, sizeof d));
    if (c->base_busy.self_ns)
        fprintf(f, " (%+.1f%%)", compare_delta_pct(&c->base_busy, &c->new_busy));
    fputc('\n', f);
    if (gpu)
        fprintf(f, "GPU time:          %s ms -> %s ms: %s ms\n",
                fmt_ms(c->base_busy.dev_self_ns, a, sizeof a),
                fmt_ms(c->new_busy.dev_self_ns, b, sizeof b), sms(db.dev_self_ns, d, sizeof d));
    fprintf(f, "Operations:        %s in both, %s only in new (+), %s only in base (-)\n",
            fmt_count(nboth, a, sizeof a), fmt_count(nadd, b, sizeof b),
            fmt_count(nrem, d, sizeof d));
    if (c->base_div > 1 || c->new_div > 1)
        fprintf(f, "Per step:          every figure divided by its trace's kept steps\n");

    fprintf(f, "\nBy Category, by %s\n", compare_sort_name(sort));
    static const char *const ctitles[] = { "Category", "Base calls", "New calls", "Δ calls",
                                           "Base self ms", "New self ms", "Δ self ms", "Δ %",
                                           "Base tot ms", "New tot ms", "Δ total ms" };
    static const int cwidths[] = { -22, 10, 10, 10, 12, 12, 12, 7, 12, 12, 12 };
    print_header(f, ctitles, cwidths, sizeof cwidths / sizeof *cwidths);
    fputc('\n', f);
    for (size_t i = 0; i < c->ncats; i++) {
        const compare_row *r = &c->cats[corder[i]];
        const char *name = compare_str(c, r->name);
        compare_fig dl = compare_delta(&r->b, &r->n);
        fprintf(f, "%c ", mark(r->status));
        print_cell(f, *name ? name : "(none)", *name ? strlen(name) : 6, 22);
        fprintf(f, " %10s %10s %10s", calls_str(r->b.calls, false, a, sizeof a),
                calls_str(r->n.calls, false, b, sizeof b), calls_str(dl.calls, true, d, sizeof d));
        fprintf(f, " %12s %12s %12s %7s", fmt_ms(r->b.self_ns, e, sizeof e),
                fmt_ms(r->n.self_ns, g, sizeof g), sms(dl.self_ns, h, sizeof h),
                pct_str(r, p, sizeof p));
        fprintf(f, " %12s %12s %12s\n", fmt_ms(r->b.total_ns, k, sizeof k),
                fmt_ms(r->n.total_ns, l, sizeof l), sms(dl.total_ns, a, sizeof a));
    }

    fprintf(f, "\nTop %zu operations by %s (+ only in new, - only in base)\n", nshow,
            compare_sort_name(sort));
    static const char *const otitles[] = { "Name", "Category", "Base calls", "New calls",
                                           "Δ calls", "Base self ms", "New self ms",
                                           "Δ self ms", "Δ %", "Base tot ms", "New tot ms",
                                           "Δ total ms", "Δ dev self", "Δ dev total" };
    static const int owidths[] = { -40, -14, 10, 10, 10, 12, 12, 12, 7, 12, 12, 12, 12, 12 };
    print_header(f, otitles, owidths, gpu ? 14 : 12);
    fputc('\n', f);
    for (size_t i = 0; i < nshow; i++) {
        const compare_row *r = &c->ops[order[i]];
        compare_fig dl = compare_delta(&r->b, &r->n);
        fprintf(f, "%c ", mark(r->status));
        print_cell(f, compare_str(c, r->name), compare_strlen(c, r->name), 40);
        fputc(' ', f);
        print_cell(f, compare_str(c, r->cat), compare_strlen(c, r->cat), 14);
        fprintf(f, " %10s %10s %10s", calls_str(r->b.calls, false, a, sizeof a),
                calls_str(r->n.calls, false, b, sizeof b), calls_str(dl.calls, true, d, sizeof d));
        fprintf(f, " %12s %12s %12s %7s", fmt_ms(r->b.self_ns, e, sizeof e),
                fmt_ms(r->n.self_ns, g, sizeof g), sms(dl.self_ns, h, sizeof h),
                pct_str(r, p, sizeof p));
        fprintf(f, " %12s %12s %12s", fmt_ms(r->b.total_ns, k, sizeof k),
                fmt_ms(r->n.total_ns, l, sizeof l), sms(dl.total_ns, a, sizeof a));
        if (gpu)
            fprintf(f, " %12s %12s", sms(dl.dev_self_ns, b, sizeof b),
                    sms(dl.dev_total_ns, d, sizeof d));
        fputc('\n', f);
    }
}

static void json_calls(FILE *f, double x)
{
    if (integral(x))
        fprintf(f, "%.0f", x);
    else
        fprintf(f, "%.6g", x);
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

static void json_side(FILE *f, const char *key, const model *m, const compare_fig *busy,
                      uint64_t div)
{
    fprintf(f, "\"%s\":{\"file\":", key);
    cli_json_string(f, m->tr->path, strlen(m->tr->path));
    fprintf(f, ",\"truncated\":%s,\"events\":%llu,\"complete_events\":%llu,\"busy_ns\":%lld,"
               "\"gpu_ns\":%lld,\"steps\":",
            m->tr->truncated ? "true" : "false", (unsigned long long)m->tr->events_read,
            (unsigned long long)m->complete_events, (long long)busy->self_ns,
            (long long)busy->dev_self_ns);
    if (div > 1)
        fprintf(f, "%llu", (unsigned long long)div);
    else
        fputs("null", f);
    fputc('}', f);
}

static void report_json(FILE *f, const compare *c, const uint32_t *order, size_t nshow,
                        const uint32_t *corder, bool per_step)
{
    fputs("{\"compare\":{", f);
    json_side(f, "base", c->base, &c->base_busy, c->base_div);
    fputc(',', f);
    json_side(f, "new", c->new, &c->new_busy, c->new_div);
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
    fputs("],\"steps_average\":null}}\n", f);
}

static void warn_truncated(const trace *tr)
{
    if (tr->truncated)
        fprintf(stderr, "torch2pprof: warning: %s: truncated (%s); loaded what was read\n",
                tr->path, tr->truncated_reason);
}

int analyze_compare(const analyze_compare_opts *o)
{
    int sort = o->sort ? compare_sort_parse(o->sort) : COMPARE_SORT_DELTA_SELF;
    if (sort < 0) {
        fprintf(stderr, "torch2pprof analyze: unknown sort key '%s' with --base (delta_self, "
                        "delta_total, delta_calls, delta_device_self, delta_device_total, "
                        "delta_pct, self, total, calls, name, device_self, device_total)\n",
                o->sort);
        return EXIT_USAGE;
    }
    if (o->per_step) {
        fprintf(stderr, "torch2pprof analyze: --per-step needs the steps of both traces, "
                        "which this build does not compute yet\n");
        return EXIT_USAGE;
    }
    const char *paths[2] = { o->base_path, o->new_path };
    pair_load_opts po = { .partial = o->partial, .mo = o->mo };
    pair_side side[2];
    t2p_error err;
    if (pair_load(paths, &po, side, &err) < 0)
        return cli_fail(&err);

    int rc = EXIT_INPUT;
    uint32_t *order = NULL, *corder = NULL;
    compare_opts co = { 0 };
    compare *c = compare_build(side[0].m, side[1].m, &co, &err);
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
    size_t nshow = o->top == 0 || o->top > c->nops ? c->nops : (size_t)o->top;
    if (o->json)
        report_json(stdout, c, order, nshow, corder, o->per_step);
    else
        report_text(stdout, c, order, nshow, corder, (enum compare_sort)sort);
    warn_truncated(side[0].tr);
    warn_truncated(side[1].tr);
    rc = EXIT_OK;
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "torch2pprof: <stdout>: cannot write the report: %s\n",
                errno ? strerror(errno) : "write error");
        rc = EXIT_INPUT;
    }
out:
    free(order);
    free(corder);
    compare_free(c);
    for (int s = 0; s < 2; s++) {
        model_free(side[s].m);
        trace_free(side[s].tr);
    }
    return rc;
}
