/* torch2pprof analyze DIR|FILE...: one job's ranks side by side. */
#include "config.h"

#include "src/analyze_ranks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/analyses/ranks.h"
#include "core/base/sniff.h"
#include "src/analyze_colls.h"
#include "src/cli.h"
#include "src/cli_table.h"

bool analyze_ranks_wanted(int nargs, char **args)
{
    /* one analysis file is a job of one rank: the reduce of a map */
    return nargs > 1 || (nargs == 1 && ranks_is_dir(args[0])) ||
           (nargs == 1 && sniff_is_analysis(args[0]));
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

/* The ranks table's rows for cli_table. */
struct rank_files {
    const ranks_job *j;
    char buf[14][64];
};

static void rank_file_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct rank_files *x = ctx;
    const ranks_job *j = x->j;
    const ranks_file *r = &j->files[i];
    const ranks_stat *s = &r->st;
    cell[0] = j->flagged && (int64_t)i == j->straggler ? "*" : "";
    snprintf(x->buf[1], 64, "%lld", (long long)r->rank);
    cell[1] = x->buf[1];
    cell[2] = base_name(ranks_file_shown(r));
    cell[3] = fmt_count(s->events, x->buf[3], 64);
    cell[4] = fmt_ms(s->window_ns, x->buf[4], 64);
    cell[5] = fmt_ms(s->cpu_ns, x->buf[5], 64);
    cell[6] = fmt_ms(s->gpu_busy_ns, x->buf[6], 64);
    cell[7] = fmt_pct(s->gpu_busy_ns, s->window_ns, x->buf[7], 64);
    cell[8] = s->steps ? fmt_count(s->steps, x->buf[8], 64) : "-";
    cell[9] = step_ms(s, s->step_mean_ns, x->buf[9], 64);
    cell[10] = step_ms(s, s->step_max_ns, x->buf[10], 64);
    cell[11] = fmt_ms(s->communication_ns, x->buf[11], 64);
    cell[12] = fmt_ms(s->overlap_ns, x->buf[12], 64);
    snprintf(x->buf[13], 64, "%+.1f", s->skew * 100);
    cell[13] = x->buf[13];
    for (int c = 0; c < 14; c++)
        len[c] = strlen(cell[c]);
}

/* on a narrow terminal the counts go before the times that find a straggler */
static const cli_col rank_file_cols[] = {
    {"", CLI_COL_LEFT}, {"Rank", 0}, {"File", CLI_COL_LEFT | CLI_COL_PATH},
    {"Events", CLI_COL_DROP}, {"Window ms", 0}, {"CPU ms", CLI_COL_DROP}, {"GPU busy ms", 0},
    {"GPU %", 0}, {"Steps", CLI_COL_DROP}, {"Mean step ms", 0}, {"Max step ms", 0},
    {"Comm ms", 0}, {"Overlap ms", CLI_COL_DROP}, {"Skew %", 0}};

/* The operations table's rows for cli_table. */
struct rank_ops {
    const ranks_job *j;
    const uint32_t *order;
    char buf[11][64];
};

static void rank_op_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct rank_ops *x = ctx;
    const ranks_op *p = &x->j->ops[x->order[i]];
    cell[0] = strtab_str(x->j->strs, p->name);
    len[0] = strtab_len(x->j->strs, p->name);
    cell[1] = strtab_str(x->j->strs, p->cat);
    len[1] = strtab_len(x->j->strs, p->cat);
    cell[2] = fmt_count(p->calls, x->buf[2], 64);
    cell[3] = fmt_ms(p->self_ns, x->buf[3], 64);
    cell[4] = fmt_ms(p->total_ns, x->buf[4], 64);
    cell[5] = fmt_ms(p->min_ns, x->buf[5], 64);
    cell[6] = fmt_ms(p->median_ns, x->buf[6], 64);
    cell[7] = fmt_ms(p->max_ns, x->buf[7], 64);
    snprintf(x->buf[8], 64, "%lld", (long long)p->max_rank);
    cell[8] = x->buf[8];
    cell[9] = fmt_ms(p->dev_self_ns, x->buf[9], 64);
    cell[10] = fmt_ms(p->dev_total_ns, x->buf[10], 64);
    for (int c = 2; c < 11; c++)
        len[c] = strlen(cell[c]);
}

static const cli_col rank_op_cols[] = {
    {"Name", CLI_COL_LEFT | CLI_COL_NAME}, {"Category", CLI_COL_LEFT | CLI_COL_NAME},
    {"Calls", 0}, {"Self ms", 0}, {"Total ms", 0}, {"Min ms", 0}, {"Median ms", 0},
    {"Max ms", 0}, {"Max rank", 0}, {"Dev self ms", 0}, {"Dev total ms", 0}};

static void report_text(FILE *f, const ranks_job *j, const uint32_t *order, size_t nshow,
                        const analyze_ranks_opts *o)
{
    char a[64], b[64];
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
                    (long long)s->rank, cli_shown(base_name(ranks_file_shown(s)), vis, sizeof vis), metric,
                    fmt_ms(ranks_metric(j, &s->st), a, sizeof a),
                    s->st.skew * 100, fmt_ms(j->median_ns, b, sizeof b));
        else
            fprintf(f, "none: every rank's %s within %.0f%% of the median %s ms "
                       "(largest: rank %lld, %+.1f%%)\n",
                    metric, RANKS_SKEW_FLAG * 100, fmt_ms(j->median_ns, a, sizeof a),
                    (long long)s->rank, s->st.skew * 100);
    }

    fprintf(f, "\nRanks (skew by %s; * marks the straggler)\n", metric);
    struct rank_files rf = {.j = j};
    cli_table(f, rank_file_cols, 14, j->nloaded, rank_file_row, &rf);
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
    struct rank_ops x = {.j = j, .order = order};
    cli_table(f, rank_op_cols, gpu ? 11 : 9, nshow, rank_op_row, &x);
    analyze_colls_text(f, j, o->top);
}

static void json_ns_or_null(FILE *f, const char *key, const ranks_stat *s, int64_t ns)
{
    if (s->steps)
        fprintf(f, ",\"%s\":%lld", key, (long long)ns);
    else
        fprintf(f, ",\"%s\":null", key);
}

void analyze_ranks_stat_json(FILE *f, const ranks_stat *s)
{
    fprintf(f, "\"events\":%llu,\"complete_events\":%llu,\"window_ns\":%lld,"
               "\"busy_ns\":%lld,\"cpu_ns\":%lld,\"gpu_events\":%llu,\"gpu_busy_ns\":%lld,"
               "\"steps\":%llu",
            (unsigned long long)s->events, (unsigned long long)s->complete_events,
            (long long)s->window_ns, (long long)s->busy_ns, (long long)s->cpu_ns,
            (unsigned long long)s->gpu_events, (long long)s->gpu_busy_ns,
            (unsigned long long)s->steps);
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
}

void analyze_ranks_map_json(FILE *f, const ranks_file *r)
{
    if (r->from == RANKS_FROM_POSITION)
        fputs(",\"rank\":null,\"rank_from\":null", f);
    else
        fprintf(f, ",\"rank\":%lld,\"rank_from\":\"%s\"", (long long)r->rank,
                r->from == RANKS_FROM_TRACE ? "trace" : "name");
    if (r->world_size)
        fprintf(f, ",\"world_size\":%lld", (long long)r->world_size);
    else
        fputs(",\"world_size\":null", f);
    if (r->truncated) {
        fputs(",\"truncated_reason\":", f);
        cli_json_string(f, r->truncated_reason, strlen(r->truncated_reason));
    }
    fputs(",\"rank_figures\":{", f);
    analyze_ranks_stat_json(f, &r->st);
    if (r->step[0]) {
        /* --step as given: the reduce says the scope as analyze DIR --step does */
        fputs(",\"step\":", f);
        cli_json_string(f, r->step, strlen(r->step));
    }
    fputs("},\"collectives\":[", f);
    for (size_t i = 0; i < r->ncolls; i++) {
        const coll_call *c = &r->colls[i];
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        cli_json_string(f, strtab_str(r->names, c->name), strtab_len(r->names, c->name));
        fputs(",\"process_group\":", f);
        cli_json_string(f, strtab_str(r->names, c->pg), strtab_len(r->names, c->pg));
        if (c->seq >= 0)
            fprintf(f, ",\"seq\":%lld", (long long)c->seq);
        else
            fputs(",\"seq\":null", f);
        if (c->bytes >= 0)
            fprintf(f, ",\"bytes\":%lld", (long long)c->bytes);
        else
            fputs(",\"bytes\":null", f);
        fprintf(f, ",\"arrival_ns\":%lld,\"end_ns\":%lld}", (long long)c->arrival_ns,
                (long long)c->end_ns);
    }
    fputc(']', f);
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
        cli_json_string(f, ranks_file_shown(r), strlen(ranks_file_shown(r)));
        fprintf(f, ",\"rank_from\":\"%s\"", r->from == RANKS_FROM_TRACE  ? "trace"
                                             : r->from == RANKS_FROM_NAME ? "name"
                                                                          : "position");
        fprintf(f, ",\"truncated\":%s,", r->truncated ? "true" : "false");
        analyze_ranks_stat_json(f, s);
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
    fputc(']', f);
    analyze_colls_json(f, j);
    fputs("}\n", f);
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

/* Loads j's ranks (notes printed before and after: the load may take
   long) and refuses failed files; false when it said why. */
static bool load_job(ranks_job *j, const ranks_load_opts *lo, bool partial)
{
    t2p_error err;
    size_t noted = cli_print_notes(j, 0);
    int lrc = ranks_load(j, lo, &err);
    cli_print_notes(j, noted);
    if (lrc < 0) {
        cli_fail(&err);
        return false;
    }
    return check_failures(j, partial);
}

int analyze_ranks(const analyze_ranks_opts *o, int nargs, char **args)
{
    t2p_error err;
    ranks_job *j = ranks_open((const char *const *)args, (size_t)nargs, &err);
    if (!j)
        return cli_fail(&err);
    ranks_load_opts lo = { .jobs = o->jobs, .partial = o->partial, .mo = o->mo, .step = o->step };
    analyze_ranks_opts so = *o;
    int rc = EXIT_INPUT;
    uint32_t *order = NULL;
    if (!load_job(j, &lo, o->partial))
        goto out;
    order = malloc((j->nops ? j->nops : 1) * sizeof *order);
    if (!order) {
        fprintf(stderr, "torch2pprof: out of memory\n");
        goto out;
    }
    if (!so.step && j->nloaded && j->files[0].analysis && j->files[0].step[0])
        so.step = j->files[0].step; /* the scope the map was made with (a note if mixed) */
    o = &so;
    ranks_sort_ops(j, o->sort, o->spread, order);
    size_t nshow = o->top == 0 || o->top > j->nops ? j->nops : (size_t)o->top;
    if (o->json)
        report_json(stdout, j, order, nshow, o);
    else
        report_text(stdout, j, order, nshow, o);
    if (cli_report_done() != EXIT_OK)
        goto out;
    rc = EXIT_OK;
out:
    free(order);
    ranks_free(j);
    return rc;
}

int analyze_ranks_pick(const analyze_ranks_opts *o, int nargs, char **args, int64_t rank,
                       char **path, trace **tr)
{
    t2p_error err;
    int rc = EXIT_INPUT;
    *path = NULL;
    *tr = NULL;
    ranks_job *j = ranks_open((const char *const *)args, (size_t)nargs, &err);
    if (!j)
        return cli_fail(&err);
    /* every file is read for its rank (distributedInfo.rank first, as
       convert --rank finds it); the step is the report's, not the lookup's */
    ranks_load_opts lo = { .jobs = o->jobs, .partial = o->partial, .mo = o->mo,
                           .rank_only = true, .pick_rank = rank };
    if (!load_job(j, &lo, o->partial))
        goto out;
    for (size_t i = 0; i < j->nloaded; i++)
        if (j->files[i].rank == rank) {
            if (!(*path = strdup(j->files[i].path))) {
                fprintf(stderr, "torch2pprof analyze: out of memory\n");
                goto out;
            }
            *tr = j->files[i].tr; /* the report's: not loaded again */
            j->files[i].tr = NULL;
            rc = EXIT_OK;
            goto out;
        }
    /* convert --rank's message */
    fprintf(stderr, "torch2pprof analyze: --rank %lld: the job has no such rank (ranks",
            (long long)rank);
    for (size_t i = 0; i < j->nloaded; i++)
        fprintf(stderr, "%s%lld", i ? ", " : " ", (long long)j->files[i].rank);
    fputs(")\n", stderr);
out:
    ranks_free(j);
    return rc;
}
