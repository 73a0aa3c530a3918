/* torch2pprof analyze DIR|FILE...: one job's ranks side by side. */
#include "config.h"

#include "src/analyze_ranks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fmt.h"
#include "core/ranks.h"
#include "src/cli.h"

bool analyze_ranks_wanted(int nargs, char **args)
{
    return nargs > 1 || (nargs == 1 && ranks_is_dir(args[0]));
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char *step_ms(const ranks_stat *s, int64_t ns, char *buf, size_t size)
{
    return s->steps ? fmt_ms(ns, buf, size) : "-";
}

static void report_text(FILE *f, const ranks_job *j, const uint32_t *order, size_t nshow,
                        const analyze_ranks_opts *o)
{
    char a[64], b[64], c[64], d[64], e[64], g[64], h[64], k[64], l[64], ov[64];
    bool gpu = false;
    for (size_t i = 0; i < j->nloaded; i++)
        gpu |= j->files[i].st.gpu_events > 0;

    fprintf(f, "Ranks:             %zu loaded", j->nloaded);
    if (j->nfailed)
        fprintf(f, ", %zu failed (left out)", j->nfailed);
    fputc('\n', f);
    if (o->step)
        fprintf(f, "Scope:             step%s %s of each rank (CPU events that start in it, "
                   "GPU work they launched)\n", strchr(o->step, '-') ? "s" : "", o->step);
    const char *metric = j->by_steps ? "mean step" : "busy time";
    if (j->straggler >= 0) {
        const ranks_file *s = &j->files[j->straggler];
        fprintf(f, "Straggler:         ");
        char vis[600];
        if (j->flagged)
            fprintf(f, "rank %lld (%s): %s %s ms, %+.1f%% over the median %s ms\n",
                    (long long)s->rank, cli_shown(base_name(s->path), vis, sizeof vis), metric,
                    fmt_ms(j->by_steps ? s->st.step_mean_ns : s->st.busy_ns, a, sizeof a),
                    s->st.skew * 100, fmt_ms(j->median_ns, b, sizeof b));
        else
            fprintf(f, "none: every rank's %s within %.0f%% of the median %s ms "
                       "(largest: rank %lld, %+.1f%%)\n",
                    metric, RANKS_SKEW_FLAG * 100, fmt_ms(j->median_ns, a, sizeof a),
                    (long long)s->rank, s->st.skew * 100);
    }

    fprintf(f, "\nRanks (skew by %s; * marks the straggler)\n", metric);
    fprintf(f, "  %5s %-24s %12s %12s %12s %12s %7s %6s %12s %12s %12s %12s %7s\n", "Rank", "File",
            "Events", "Window ms", "CPU ms", "GPU busy ms", "GPU %", "Steps", "Mean step ms",
            "Max step ms", "Comm ms", "Overlap ms", "Skew %");
    for (size_t i = 0; i < j->nloaded; i++) {
        const ranks_file *r = &j->files[i];
        const ranks_stat *s = &r->st;
        fprintf(f, "%c %5lld ", j->flagged && (int64_t)i == j->straggler ? '*' : ' ',
                (long long)r->rank);
        const char *name = base_name(r->path);
        cli_put_cell(f, name, strlen(name), 24);
        fprintf(f, " %12s %12s %12s %12s %7s %6s %12s %12s %12s %12s %+7.1f\n",
                fmt_count(s->events, a, sizeof a), fmt_ms(s->window_ns, b, sizeof b),
                fmt_ms(s->cpu_ns, c, sizeof c), fmt_ms(s->gpu_busy_ns, d, sizeof d),
                fmt_pct(s->gpu_busy_ns, s->window_ns, e, sizeof e),
                s->steps ? fmt_count(s->steps, g, sizeof g) : "-",
                step_ms(s, s->step_mean_ns, h, sizeof h), step_ms(s, s->step_max_ns, k, sizeof k),
                fmt_ms(s->communication_ns, l, sizeof l), fmt_ms(s->overlap_ns, ov, sizeof ov),
                s->skew * 100);
    }
    for (size_t i = j->nloaded; i < j->nfiles; i++) {
        char buf[1200];
        fprintf(f, "! %5lld failed: %s\n", (long long)j->files[i].rank,
                error_format(&j->files[i].err, buf, sizeof buf));
    }
    bool any_steps = false;
    for (size_t i = 0; i < j->nloaded; i++)
        any_steps |= j->files[i].st.steps > 0;
    if (any_steps) {
        fprintf(f, "\nMean step by role (ms; TensorBoard's Overview split, averaged over kept steps)\n");
        fprintf(f, "  %5s", "Rank");
        for (int r = 0; r < STEPS_NROLES; r++)
            fprintf(f, " %13s", steps_role_title(r));
        fputc('\n', f);
        for (size_t i = 0; i < j->nloaded; i++) {
            const ranks_stat *s = &j->files[i].st;
            if (!s->steps)
                continue;
            fprintf(f, "%c %5lld", j->flagged && (int64_t)i == j->straggler ? '*' : ' ',
                    (long long)j->files[i].rank);
            for (int r = 0; r < STEPS_NROLES; r++)
                fprintf(f, " %13s", fmt_ms(s->role_ns[r], a, sizeof a));
            fputc('\n', f);
        }
    }

    fprintf(f, "\nTop %zu operations by %s, summed over %zu ranks "
               "(Min/Median/Max: one rank's self time)\n",
            nshow, o->spread ? "spread" : model_sort_name(o->sort), j->nloaded);
    fprintf(f, "%-44s %-16s %12s %12s %12s %10s %10s %10s %8s", "Name", "Category", "Calls",
            "Self ms", "Total ms", "Min ms", "Median ms", "Max ms", "Max rank");
    if (gpu)
        fprintf(f, " %12s %12s", "Dev self ms", "Dev total ms");
    fputc('\n', f);
    for (size_t i = 0; i < nshow; i++) {
        const ranks_op *p = &j->ops[order[i]];
        cli_put_cell(f, strtab_str(j->strs, p->name), strtab_len(j->strs, p->name), 44);
        fputc(' ', f);
        cli_put_cell(f, strtab_str(j->strs, p->cat), strtab_len(j->strs, p->cat), 16);
        fprintf(f, " %12s %12s %12s %10s %10s %10s %8lld", fmt_count(p->calls, a, sizeof a),
                fmt_ms(p->self_ns, b, sizeof b), fmt_ms(p->total_ns, c, sizeof c),
                fmt_ms(p->min_ns, d, sizeof d), fmt_ms(p->median_ns, e, sizeof e),
                fmt_ms(p->max_ns, g, sizeof g), (long long)p->max_rank);
        if (gpu)
            fprintf(f, " %12s %12s", fmt_ms(p->dev_self_ns, a, sizeof a),
                    fmt_ms(p->dev_total_ns, b, sizeof b));
        fputc('\n', f);
    }
}

static void json_ns_or_null(FILE *f, const char *key, const ranks_stat *s, int64_t ns)
{
    if (s->steps)
        fprintf(f, ",\"%s\":%lld", key, (long long)ns);
    else
        fprintf(f, ",\"%s\":null", key);
}

static void report_json(FILE *f, const ranks_job *j, const uint32_t *order, size_t nshow,
                        const analyze_ranks_opts *o)
{
    fprintf(f, "{\"files\":%zu,", j->nfiles);
    if (o->step) {
        fputs("\"scope\":{\"steps\":", f);
        cli_json_string(f, o->step, strlen(o->step));
        fputs("},", f);
    }
    fprintf(f, "\"skew_by\":\"%s\",\"median_ns\":%lld,\"ranks\":[",
            j->by_steps ? "step_mean" : "busy", (long long)j->median_ns);
    for (size_t i = 0; i < j->nloaded; i++) {
        const ranks_file *r = &j->files[i];
        const ranks_stat *s = &r->st;
        fprintf(f, "%s{\"rank\":%lld,\"file\":", i ? "," : "", (long long)r->rank);
        cli_json_string(f, r->path, strlen(r->path));
        fprintf(f, ",\"rank_from\":\"%s\"", r->from == RANKS_FROM_TRACE  ? "trace"
                                             : r->from == RANKS_FROM_NAME ? "name"
                                                                          : "position");
        fprintf(f, ",\"truncated\":%s,\"events\":%llu,\"complete_events\":%llu,\"window_ns\":%lld,"
                   "\"busy_ns\":%lld,\"cpu_ns\":%lld,\"gpu_events\":%llu,\"gpu_busy_ns\":%lld,"
                   "\"steps\":%llu",
                r->truncated ? "true" : "false", (unsigned long long)s->events,
                (unsigned long long)s->complete_events, (long long)s->window_ns,
                (long long)s->busy_ns, (long long)s->cpu_ns, (unsigned long long)s->gpu_events,
                (long long)s->gpu_busy_ns, (unsigned long long)s->steps);
        json_ns_or_null(f, "step_mean_ns", s, s->step_mean_ns);
        json_ns_or_null(f, "step_max_ns", s, s->step_max_ns);
        fprintf(f, ",\"communication_ns\":%lld,\"overlap_ns\":%lld",
                (long long)s->communication_ns, (long long)s->overlap_ns);
        fputs(",\"roles\":", f);
        if (s->steps) {
            for (int k = 0; k < STEPS_NROLES; k++)
                fprintf(f, "%s\"%s_ns\":%lld", k ? "," : "{", steps_role_key(k),
                        (long long)s->role_ns[k]);
            fputc('}', f);
        } else {
            fputs("null", f);
        }
        fprintf(f, ",\"skew\":%.6f}", s->skew);
    }
    fputs("],\"straggler\":", f);
    if (j->flagged)
        fprintf(f, "%lld", (long long)j->files[j->straggler].rank);
    else
        fputs("null", f);
    fputs(",\"failed\":[", f);
    for (size_t i = j->nloaded; i < j->nfiles; i++) {
        char buf[1200];
        const ranks_file *r = &j->files[i];
        fputs(i > j->nloaded ? ",{\"file\":" : "{\"file\":", f);
        cli_json_string(f, r->path, strlen(r->path));
        fputs(",\"reason\":", f);
        error_format(&r->err, buf, sizeof buf);
        cli_json_string(f, buf, strlen(buf));
        fputc('}', f);
    }
    fputs("],\"skipped\":[", f);
    for (size_t i = 0; i < j->nnotes; i++) {
        const t2p_error *n = &j->notes[i];
        fputs(i ? ",{\"file\":" : "{\"file\":", f);
        cli_json_string(f, n->file, strlen(n->file));
        fputs(",\"reason\":", f);
        cli_json_string(f, n->reason, strlen(n->reason));
        fputc('}', f);
    }
    fputs("],\"ops\":[", f);
    for (size_t i = 0; i < nshow; i++) {
        const ranks_op *p = &j->ops[order[i]];
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        cli_json_string(f, strtab_str(j->strs, p->name), strtab_len(j->strs, p->name));
        fputs(",\"category\":", f);
        cli_json_string(f, strtab_str(j->strs, p->cat), strtab_len(j->strs, p->cat));
        fprintf(f, ",\"count\":%llu,\"self_ns\":%lld,\"total_ns\":%lld,\"device_self_ns\":%lld,"
                   "\"device_total_ns\":%lld,\"per_rank\":{\"min_ns\":%lld,\"median_ns\":%lld,"
                   "\"max_ns\":%lld,\"max_rank\":%lld}}",
                (unsigned long long)p->calls, (long long)p->self_ns, (long long)p->total_ns,
                (long long)p->dev_self_ns, (long long)p->dev_total_ns, (long long)p->min_ns,
                (long long)p->median_ns, (long long)p->max_ns, (long long)p->max_rank);
    }
    fputs("]}\n", f);
}

/* The job's notes from the n-th on (the files of its directories left
   out), one line each on stderr; returns their count. */
static size_t print_notes(const ranks_job *j, size_t n)
{
    char buf[1200];
    for (; n < j->nnotes; n++)
        fprintf(stderr, "torch2pprof: note: %s\n", error_format(&j->notes[n], buf, sizeof buf));
    return n;
}

/* Says what failed; returns false when the run must stop (exit 2). */
static bool check_failures(const ranks_job *j, bool partial)
{
    char buf[1200];
    for (size_t i = 0; i < j->nfiles; i++) {
        const ranks_file *r = &j->files[i];
        if (r->loaded) {
            if (r->truncated)
                cli_warn_truncated(r->path, r->truncated_reason, "loaded");
            continue;
        }
        error_format(&r->err, buf, sizeof buf);
        if (partial)
            fprintf(stderr, "torch2pprof: warning: %s; left out (--partial)\n", buf);
        else
            fprintf(stderr, "torch2pprof: %s\n", buf);
    }
    if (j->nfailed && !partial) {
        fprintf(stderr, "torch2pprof: %zu of %zu traces failed to load "
                        "(--partial goes on without them)\n", j->nfailed, j->nfiles);
        return false;
    }
    if (!j->nloaded) {
        fprintf(stderr, "torch2pprof: no trace loaded\n");
        return false;
    }
    return true;
}

int analyze_ranks(const analyze_ranks_opts *o, int nargs, char **args)
{
    t2p_error err;
    ranks_job *j = ranks_open((const char *const *)args, (size_t)nargs, &err);
    if (!j)
        return cli_fail(&err);
    ranks_load_opts lo = { .jobs = o->jobs, .partial = o->partial, .mo = o->mo, .step = o->step };
    int rc = EXIT_INPUT;
    uint32_t *order = NULL;
    size_t noted = print_notes(j, 0); /* before a load that may take long */
    int lrc = ranks_load(j, &lo, &err);
    print_notes(j, noted);
    if (lrc < 0) {
        cli_fail(&err);
        goto out;
    }
    if (!check_failures(j, o->partial))
        goto out;
    order = malloc((j->nops ? j->nops : 1) * sizeof *order);
    if (!order) {
        fprintf(stderr, "torch2pprof: out of memory\n");
        goto out;
    }
    ranks_sort_ops(j, o->sort, o->spread, order);
    size_t nshow = o->top == 0 || o->top > j->nops ? j->nops : (size_t)o->top;
    if (o->json)
        report_json(stdout, j, order, nshow, o);
    else
        report_text(stdout, j, order, nshow, o);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "torch2pprof: <stdout>: cannot write the report: %s\n",
                errno ? strerror(errno) : "write error");
        goto out;
    }
    rc = EXIT_OK;
out:
    free(order);
    ranks_free(j);
    return rc;
}
