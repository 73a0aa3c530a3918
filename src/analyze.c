/* torch2pprof analyze: the text report and its --json twin. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/compare.h"
#include "core/analyses/hta.h"
#include "core/base/fmt.h"
#include "core/model/model.h"
#include "core/model/shortname.h"
#include "core/analyses/range.h"
#include "core/analyses/steps.h"
#include "core/analyses/kernels.h"
#include "core/analyses/memory_scope.h"
#include "src/analyze_compare.h"
#include "src/analyze_gpu.h"
#include "src/analyze_kernels.h"
#include "src/analyze_lines.h"
#include "src/analyze_memory.h"
#include "src/analyze_notes.h"
#include "src/analyze_ranks.h"
#include "src/analyze_scope.h"
#include "src/analyze_shapes.h"
#include "src/analyze_steps.h"
#include "src/cli.h"
#include "src/cli_table.h"
#include "src/opts.h"

/* An op's name as the report shows it: short with --short-names (sn). */
static const char *op_label(const model *m, const shortnames *sn, uint32_t op, size_t *len)
{
    if (sn)
        return shortname_op(sn, op, len);
    *len = strtab_len(m->tr->strs, m->ops[op].name);
    return model_op_name(m, op);
}

/* The rows of the three tables of the text report, for cli_table. Under a
   scope of stacks (--focus ...) the figures are the scope's (fops, fcats,
   ftracks; NULL: the model's) and busy its selected self time. */
struct rows {
    const model *m;
    const uint32_t *order;
    const shortnames *sn;
    const scope_fig *fops, *fcats, *ftracks;
    int64_t busy;
    char buf[CLI_TABLE_MAXCOLS][64];
    char label[256], full[300];
};

/* An op's figures: the scope's, or the model's. */
static scope_fig op_fig(const model *m, const scope_fig *fops, uint32_t op)
{
    if (fops)
        return fops[op];
    const model_op *o = &m->ops[op];
    return (scope_fig){ .calls = o->calls, .self_ns = o->self_ns, .total_ns = o->total_ns,
                        .cum_ns = o->cum_ns, .dev_self_ns = o->dev_self_ns,
                        .dev_total_ns = o->dev_total_ns };
}

/* A category's figures likewise. */
static scope_fig cat_fig(const model *m, const scope_fig *fcats, uint32_t c)
{
    if (fcats)
        return fcats[c];
    const model_cat *k = &m->cats[c];
    return (scope_fig){ .calls = k->calls, .self_ns = k->self_ns, .total_ns = k->total_ns,
                        .dev_self_ns = k->dev_self_ns };
}

static void cat_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct rows *x = ctx;
    const model_cat *k = &x->m->cats[x->order[i]];
    scope_fig g = cat_fig(x->m, x->fcats, x->order[i]);
    cell[0] = fmt_category(trace_str(x->m->tr, k->name), strtab_len(x->m->tr->strs, k->name),
                           &len[0]);
    cell[1] = fmt_count(g.calls, x->buf[1], 64);
    cell[2] = fmt_ms(g.self_ns, x->buf[2], 64);
    cell[3] = fmt_ms(g.total_ns, x->buf[3], 64);
    cell[4] = fmt_pct(g.self_ns, x->busy, x->buf[4], 64);
    for (int c = 1; c < 5; c++)
        len[c] = strlen(cell[c]);
}

static void op_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct rows *x = ctx;
    const model *m = x->m;
    const model_op *o = &m->ops[x->order[i]];
    scope_fig g = op_fig(m, x->fops, x->order[i]);
    int64_t avg = g.calls ? g.total_ns / (int64_t)g.calls : 0;
    cell[0] = op_label(m, x->sn, x->order[i], &len[0]);
    cell[1] = trace_str(m->tr, o->cat);
    len[1] = strtab_len(m->tr->strs, o->cat);
    cell[2] = fmt_count(g.calls, x->buf[2], 64);
    cell[3] = fmt_ms(g.self_ns, x->buf[3], 64);
    cell[4] = fmt_pct(g.self_ns, x->busy, x->buf[4], 64);
    cell[5] = fmt_ms(g.total_ns, x->buf[5], 64);
    cell[6] = g.cum_ns != g.total_ns ? "*" : " "; /* explained under the table */
    cell[7] = fmt_ms(avg, x->buf[7], 64);
    /* a call's duration is not in the call tree's nodes: under a scope of
       stacks, min and max are not known */
    cell[8] = x->fops ? "-" : fmt_ms(o->min_ns, x->buf[8], 64);
    cell[9] = x->fops ? "-" : fmt_ms(o->max_ns, x->buf[9], 64);
    cell[10] = fmt_ms(g.dev_self_ns, x->buf[10], 64);
    cell[11] = fmt_ms(g.dev_total_ns, x->buf[11], 64);
    for (int c = 2; c < 12; c++)
        len[c] = strlen(cell[c]);
}

static void stream_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct rows *x = ctx;
    const trace *tr = x->m->tr;
    const model_stream *s = &x->m->streams[i];
    const trace_track *k = &tr->tracks[s->track];
    snprintf(x->full, sizeof x->full, "%s %s",
             tr->processes[k->process].labels != STRTAB_NONE
                 ? trace_str(tr, tr->processes[k->process].labels)
                 : trace_str(tr, tr->processes[k->process].pid),
             trace_track_label(tr, s->track, x->label, sizeof x->label));
    cell[0] = x->full;
    if (x->ftracks) {
        /* the GPU work of the scope's stacks that ran on it; its busy time
           (a union of intervals) is not in the call tree */
        const scope_fig *t = &x->ftracks[s->track];
        cell[1] = fmt_count(t->dev_events, x->buf[1], 64);
        cell[2] = fmt_ms(t->dev_total_ns, x->buf[2], 64);
        cell[3] = "-";
        cell[4] = "-";
    } else {
        cell[1] = fmt_count(s->gpu_events, x->buf[1], 64);
        cell[2] = fmt_ms(s->busy_ns, x->buf[2], 64);
        cell[3] = fmt_pct(s->busy_ns, x->m->window_ns, x->buf[3], 64);
        cell[4] = fmt_ms(s->max_gap_ns, x->buf[4], 64);
    }
    len[0] = strlen(cell[0]);
    for (int c = 1; c < 5; c++)
        len[c] = strlen(cell[c]);
}

static const cli_col cat_cols[] = {
    {"Category", CLI_COL_LEFT | CLI_COL_NAME}, {"Calls", 0}, {"Self ms", 0}, {"Total ms", 0},
    {"Self %", 0}};
static const cli_col op_cols[] = {
    {"Name", CLI_COL_LEFT | CLI_COL_NAME}, {"Category", CLI_COL_LEFT | CLI_COL_NAME},
    {"Calls", 0}, {"Self ms", 0}, {"Self %", 0}, {"Total ms", 0}, {"", CLI_COL_GLUE | CLI_COL_LEFT},
    {"Avg ms", 0}, {"Min ms", 0}, {"Max ms", 0}, {"Dev self ms", 0}, {"Dev total ms", 0}};
static const cli_col stream_cols[] = {
    {"Stream", CLI_COL_LEFT | CLI_COL_NAME}, {"GPU events", 0}, {"Busy ms", 0}, {"Util %", 0},
    {"Max idle ms", 0}};
static const cli_col scoped_stream_cols[] = {
    {"Stream", CLI_COL_LEFT | CLI_COL_NAME}, {"GPU events", 0}, {"GPU ms", 0}, {"Util %", 0},
    {"Max idle ms", 0}};

/* The categories with figures in the scope, by self (or name), into co;
   how many. */
static size_t cat_order(const model *m, const scope_fig *fcats, bool by_name, uint32_t *co)
{
    model_sort_cats(m, by_name ? MODEL_SORT_NAME : MODEL_SORT_SELF, false, co);
    if (!fcats)
        return m->ncats;
    size_t n = 0;
    for (size_t i = 0; i < m->ncats; i++)
        if (fcats[co[i]].calls || fcats[co[i]].total_ns || fcats[co[i]].dev_total_ns)
            co[n++] = co[i];
    /* insertion sort by the scope's self time: few categories, stable on
       the name order above */
    for (size_t i = 1; i < n && !by_name; i++) {
        uint32_t v = co[i];
        size_t j = i;
        for (; j > 0 && fcats[co[j - 1]].self_ns < fcats[v].self_ns; j--)
            co[j] = co[j - 1];
        co[j] = v;
    }
    return n;
}

/* What --range applied: the range and how many events start in it. */
struct ranged {
    time_range r;
    size_t kept;
};

/* "Scope: range ..." under the header, and when nothing starts in the
   range a line that says so: the figures below are then all zero. */
static void range_lines(FILE *f, const struct ranged *rg)
{
    char a[48], b[48], l[64];
    if (!rg)
        return;
    fprintf(f, "Scope:             %s (from %s to %s after the trace's start: events that start "
               "in it, the GPU work they launched)\n", range_label(&rg->r, l, sizeof l),
            range_offset_text(rg->r.off_start, a, sizeof a),
            range_offset_text(rg->r.off_end, b, sizeof b));
    if (!rg->kept)
        fprintf(f, "Empty range:       no event starts in it; every figure below is 0\n");
}

static void report_text(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                        enum model_sort sort, const shortnames *sn, const analyze_steps_sel *st,
                        const struct ranged *rg, analyze_scope *sc)
{
    const trace *tr = m->tr;
    char a[64], b[64];
    uint64_t nskipped = 0;
    size_t ncum = 0;
    bool gpu = m->gpu_events > 0;

    for (int r = 0; r < TRACE_SKIP_N; r++)
        nskipped += tr->skipped[r];
    fputs("File:              ", f);
    cli_put_text(f, tr->path, strlen(tr->path));
    fputc('\n', f);
    analyze_steps_scope_line(f, st);
    range_lines(f, rg);
    analyze_scope_text(f, sc);
    if (tr->truncated) {
        fputs("WARNING:           truncated trace (", f);
        cli_put_text(f, tr->truncated_reason, strlen(tr->truncated_reason));
        fputs("); figures cover what was read\n", f);
    }
    fprintf(f, "Events read:       %s\n", fmt_count(tr->events_read, a, sizeof a));
    fprintf(f, "Complete events:   %s\n", fmt_count(m->complete_events, a, sizeof a));
    fprintf(f, "Skipped events:    %s", fmt_count(nskipped, a, sizeof a));
    const char *sep = " (";
    for (int r = 0; r < TRACE_SKIP_N; r++) {
        if (!tr->skipped[r])
            continue;
        fprintf(f, "%s%s %s", sep, trace_skip_name(r), fmt_count(tr->skipped[r], a, sizeof a));
        sep = ", ";
    }
    fprintf(f, "%s\n", nskipped ? ")" : "");
    fprintf(f, "Tracks:            %s\n", fmt_count(m->tracks_with_events, a, sizeof a));
    fprintf(f, "Unique operations: %s\n", fmt_count(m->nops, a, sizeof a));
    analyze_time_lines(f, m);

    struct rows x = {.m = m, .sn = sn, .fops = analyze_scope_ops(sc),
                     .fcats = analyze_scope_cats(sc), .ftracks = analyze_scope_tracks(sc),
                     .busy = sc->busy_ns};
    uint32_t *co = malloc((m->ncats ? m->ncats : 1) * sizeof *co);
    if (co) {
        size_t nc = cat_order(m, x.fcats, sort == MODEL_SORT_NAME, co);
        fprintf(f, "\nBy Category\n");
        x.order = co;
        cli_table(f, cat_cols, 5, nc, cat_row, &x);
        free(co);
    }
    analyze_steps_text(f, st);

    fprintf(f, "\nTop %zu operations by %s\n", nshow, model_sort_name(sort));
    for (size_t i = 0; i < nshow; i++) {
        scope_fig g = op_fig(m, x.fops, order[i]);
        ncum += g.cum_ns != g.total_ns;
    }
    x.order = order;
    cli_table(f, op_cols, gpu ? 12 : 10, nshow, op_row, &x);
    if (ncum)
        analyze_cum_note(f, m, order, nshow, sn, x.fops);

    if (gpu && m->nstreams) {
        fprintf(f, "\nGPU streams\n");
        cli_table(f, x.ftracks ? scoped_stream_cols : stream_cols, 5, m->nstreams, stream_row, &x);
        /* unattributed GPU work has no launch: no stack of a focus holds it */
        if (!x.ftracks)
            fprintf(f, "Unattributed GPU time: %s ms in %s events (no launch in the window)\n",
                    fmt_ms(m->gpu_unattributed_ns, a, sizeof a),
                    fmt_count(m->gpu_unattributed_events, b, sizeof b));
    }
}

static void report_json(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                        const shortnames *sn, const analyze_steps_sel *st,
                        const struct ranged *rg, const ranks_file *rank, analyze_scope *sc)
{
    const scope_fig *fops = analyze_scope_ops(sc), *fcats = analyze_scope_cats(sc),
                    *ftracks = analyze_scope_tracks(sc);
    const trace *tr = m->tr;
    /* first: what tells an analysis file from a trace (core/base/sniff.h).
       Not under a scope of stacks: a job's reduce would read its ops as the
       rank's whole ops beside the rank's whole figures */
    if (sc->stacks)
        fputs("{\"file\":", f);
    else
        fprintf(f, "{\"analysis_format\":%d,\"file\":", RANKS_ANALYSIS_FORMAT);
    cli_json_string(f, tr->path, strlen(tr->path));
    fprintf(f, ",\"format\":\"%s\"", tr->format == TRACE_FORMAT_ARRAY ? "array" : "kineto");
    fprintf(f, ",\"truncated\":%s", tr->truncated ? "true" : "false");
    fprintf(f, ",\"events\":%llu,\"complete_events\":%llu", (unsigned long long)tr->events_read,
            (unsigned long long)m->complete_events);
    fputs(",\"skipped\":{", f);
    const char *sep = "";
    for (int r = 0; r < TRACE_SKIP_N; r++) {
        if (!tr->skipped[r])
            continue;
        fprintf(f, "%s\"%s\":%llu", sep, trace_skip_name(r), (unsigned long long)tr->skipped[r]);
        sep = ",";
    }
    fprintf(f, "},\"tracks\":%llu,\"unique_ops\":%zu", (unsigned long long)m->tracks_with_events,
            m->nops);
    fprintf(f, ",\"base_ns\":%lld,\"window_start_ns\":%lld,\"window_ns\":%lld,\"busy_ns\":%lld",
            (long long)tr->base_ns, (long long)m->window_start, (long long)m->window_ns,
            (long long)m->busy_ns);
    /* the range applied, on the trace's clock like window_start_ns */
    if (rg)
        fprintf(f, ",\"range_start_ns\":%lld,\"range_end_ns\":%lld,\"range_events\":%zu",
                (long long)rg->r.start, (long long)rg->r.end, rg->kept);
    /* the scope that applied: its options in convert's spelling and what
       each part of it selected */
    fputs(",\"scope\":{", f);
    analyze_scope_json(f, sc);
    analyze_steps_scope_json(f, st);
    if (rg)
        fprintf(f, ",\"range_start_ns\":%lld,\"range_end_ns\":%lld", (long long)rg->r.start,
                (long long)rg->r.end);
    fputc('}', f);
    fprintf(f, ",\"cpu_time_ns\":%lld,\"all_tracks_self_ns\":%lld,\"gpu_busy_ns\":%lld",
            (long long)m->cpu_ns, (long long)m->busy_ns, (long long)m->gpu_busy_ns);
    fprintf(f, ",\"gpu_events\":%llu,\"gpu_ns\":%lld,\"gpu_unattributed_events\":%llu,"
               "\"gpu_unattributed_ns\":%lld",
            (unsigned long long)m->gpu_events, (long long)m->gpu_ns,
            (unsigned long long)m->gpu_unattributed_events, (long long)m->gpu_unattributed_ns);
    fprintf(f, ",\"partial_overlap_events\":%llu,\"partial_overlap_ns\":%lld",
            (unsigned long long)m->partial_overlap_events, (long long)m->partial_overlap_ns);
    /* the rank's record of a job (the map of issue 28): analyze of several
       analysis files reads it back */
    if (rank && !sc->stacks)
        analyze_ranks_map_json(f, rank);
    fputs(",\"ops\":[", f);
    for (size_t i = 0; i < nshow; i++) {
        const model_op *o = &m->ops[order[i]];
        scope_fig g = op_fig(m, fops, order[i]);
        size_t nlen;
        const char *name = op_label(m, sn, order[i], &nlen);
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        cli_json_string(f, name, nlen);
        if (sn) {
            fputs(",\"full_name\":", f);
            cli_json_string(f, trace_str(tr, o->name), strtab_len(tr->strs, o->name));
        }
        fputs(",\"category\":", f);
        cli_json_string(f, trace_str(tr, o->cat), strtab_len(tr->strs, o->cat));
        fprintf(f, ",\"count\":%llu,\"self_ns\":%lld,\"total_ns\":%lld",
                (unsigned long long)g.calls, (long long)g.self_ns, (long long)g.total_ns);
        /* a call's duration is not in the call tree: unknown in a scope of stacks */
        if (!fops)
            fprintf(f, ",\"min_ns\":%lld,\"max_ns\":%lld", (long long)o->min_ns,
                    (long long)o->max_ns);
        fprintf(f, ",\"device_self_ns\":%lld,\"device_total_ns\":%lld,\"cum_ns\":%lld}",
                (long long)g.dev_self_ns, (long long)g.dev_total_ns, (long long)g.cum_ns);
    }
    fputs("],\"categories\":[", f);
    const char *csep = "";
    for (size_t i = 0; i < m->ncats; i++) {
        const model_cat *k = &m->cats[i];
        scope_fig g = cat_fig(m, fcats, (uint32_t)i);
        if (fcats && !g.calls && !g.total_ns && !g.dev_total_ns)
            continue; /* no stack of the scope goes through it */
        fprintf(f, "%s{\"name\":", csep);
        csep = ",";
        cli_json_string(f, trace_str(tr, k->name), strtab_len(tr->strs, k->name));
        fprintf(f, ",\"count\":%llu,\"self_ns\":%lld,\"total_ns\":%lld}",
                (unsigned long long)g.calls, (long long)g.self_ns, (long long)g.total_ns);
    }
    fputs("],\"streams\":[", f);
    for (size_t i = 0; i < m->nstreams; i++) {
        const model_stream *s = &m->streams[i];
        const trace_track *k = &tr->tracks[s->track];
        char label[256];
        fputs(i ? ",{\"pid\":" : "{\"pid\":", f);
        const char *pid = trace_str(tr, tr->processes[k->process].pid);
        cli_json_string(f, pid, strlen(pid));
        fputs(",\"tid\":", f);
        cli_json_string(f, trace_str(tr, k->tid), strtab_len(tr->strs, k->tid));
        fputs(",\"name\":", f);
        trace_track_label(tr, s->track, label, sizeof label);
        cli_json_string(f, label, strlen(label));
        /* in a scope: the GPU work of its stacks that ran here (a union of
           intervals, busy and gaps, is not in the call tree) */
        if (ftracks)
            fprintf(f, ",\"gpu_events\":%llu,\"gpu_ns\":%lld",
                    (unsigned long long)ftracks[s->track].dev_events,
                    (long long)ftracks[s->track].dev_total_ns);
        else
            fprintf(f, ",\"gpu_events\":%llu,\"busy_ns\":%lld,\"max_gap_ns\":%lld",
                    (unsigned long long)s->gpu_events, (long long)s->busy_ns,
                    (long long)s->max_gap_ns);
        fputs(",\"track\":", f);
        trace_track_fullname(tr, s->track, label, sizeof label);
        cli_json_string(f, label, strlen(label));
        fputc('}', f);
    }
    fputs("],\"threads\":[", f);
    const char *tsep = "";
    for (size_t k = 0; k < m->ntracks; k++) {
        const model_track *mt = &m->tracks[k];
        if (!mt->events || (ftracks && !ftracks[k].calls && !ftracks[k].self_ns))
            continue;
        const trace_track *tk = &tr->tracks[k];
        const char *pid = trace_str(tr, tr->processes[tk->process].pid);
        char label[256];
        fprintf(f, "%s{\"pid\":", tsep);
        tsep = ",";
        cli_json_string(f, pid, strlen(pid));
        fputs(",\"tid\":", f);
        cli_json_string(f, trace_str(tr, tk->tid), strtab_len(tr->strs, tk->tid));
        fputs(",\"name\":", f);
        trace_track_label(tr, (uint32_t)k, label, sizeof label);
        cli_json_string(f, label, strlen(label));
        /* self_ns: the sum of its stacks' self time (its pprof total) */
        if (ftracks)
            fprintf(f, ",\"events\":%llu,\"self_ns\":%lld",
                    (unsigned long long)ftracks[k].calls, (long long)ftracks[k].self_ns);
        else
            fprintf(f, ",\"events\":%llu,\"busy_ns\":%lld,\"max_gap_ns\":%lld,"
                       "\"self_ns\":%lld",
                    (unsigned long long)mt->events, (long long)mt->busy_ns,
                    (long long)mt->max_gap_ns, (long long)mt->self_ns);
        /* the label --track takes */
        fputs(",\"track\":", f);
        trace_track_fullname(tr, (uint32_t)k, label, sizeof label);
        cli_json_string(f, label, strlen(label));
        fputc('}', f);
    }
    fputc(']', f);
    analyze_steps_json(f, st);
    /* the caller adds "memory" and closes the object */
}

/* memory_build on a thread of its own while steps_build runs (--jobs 2 and
   up): both only read the model. */
struct mem_job {
    const model *m;
    memory *mem;
    t2p_error err;
};

static void *mem_main(void *arg)
{
    struct mem_job *j = arg;
    j->mem = memory_build(j->m, &j->err);
    return NULL;
}

/* hta_build of the whole trace on a thread of its own, beside steps, memory
   and kernels, when no --step or --range scopes it: it only reads the model,
   and on one thread it was a third of the passes after the load. */
struct hta_job {
    const model *m;
    const hta_opts *ho;
    hta *h;
    t2p_error err;
};

static void *hta_main(void *arg)
{
    struct hta_job *j = arg;
    j->h = hta_build(j->m, NULL, j->ho, &j->err);
    return NULL;
}

/* The single-trace report: text or JSON, whole trace or --step's scope. */
static int analyze_one(const char *path, const model_opts *mo, bool partial, int sort,
                       enum memory_sort msort, size_t top, bool json, bool by_line,
                       bool by_shape, bool with_modules, bool short_names,
                       bool kernels_only, analyze_steps_sel *sel, const char *range_text,
                       const hta_opts *ho, analyze_scope *sc)
{
    struct ranged rgv, *rg = NULL;
    char vis[1200];
    t2p_error err;
    int rc = EXIT_INPUT;
    trace *tr = NULL;
    model *whole = cli_open(path, partial, mo, &tr), *m = whole;
    uint32_t *order = NULL;
    steps *st = NULL;
    memory *mem = NULL;
    shortnames *sn = NULL;
    hta *gpu = NULL;
    unsigned char *keep = NULL;
    kernels *kr = NULL, *skr = NULL; /* skr: the kernels of --focus/--filter's stacks */
    memory_scoped *smem = NULL;       /* and their allocations */
    unsigned char *kmask = NULL;
    analyze_shapes shapes = { 0 };
    if (!whole)
        return EXIT_INPUT;
    struct hta_job hj = { .m = whole, .ho = ho };
    pthread_t hth;
    bool hthread = cli_jobs() > 1 && !sel->only && !sel->spec && !range_text &&
                   pthread_create(&hth, NULL, hta_main, &hj) == 0;
    struct mem_job mj = { .m = whole };
    pthread_t mth;
    bool mthread = cli_jobs() > 1 && tr->nmems && pthread_create(&mth, NULL, mem_main, &mj) == 0;
    st = steps_build(whole, &err);
    if (mthread)
        pthread_join(mth, NULL);
    else if (st)
        mj.mem = memory_build(whole, &mj.err);
    mem = mj.mem;
    if (!st || !mem) {
        rc = cli_fail(st ? &mj.err : &err);
        goto out;
    }
    memory_recommend(mem, st);
    sel->st = st;
    bool usage_error;
    if (analyze_steps_select(sel, mo, &m, &usage_error) < 0) {
        rc = usage_error ? EXIT_USAGE : EXIT_INPUT;
        goto out;
    }
    if (range_text) {
        rg = &rgv;
        if ((rc = cli_range_resolve("torch2pprof analyze", range_text, whole, &rg->r)) != EXIT_OK)
            goto out;
        rc = EXIT_INPUT;
        if (!(keep = range_mask(whole, &rg->r, &rg->kept))) {
            fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(path, vis, sizeof vis));
            goto out;
        }
        model_opts ro = *mo;
        ro.keep = keep;
        m = model_build(tr, &ro, &err); /* keep stays: HTA's scope below */
        if (!m) {
            m = whole;
            rc = cli_fail(&err);
            goto out;
        }
        range_label(&rg->r, m->scope_note, sizeof m->scope_note);
        range_window(&rg->r, m); /* memory: the range's records */
        /* the Steps table: the steps whose host window overlaps the range */
        sel->ranged = true;
        steps_overlapping(st, rg->r.start, rg->r.end, &sel->rlo, &sel->rhi);
    }
    /* the kernels of --step's scope: the whole model read through its mask */
    if (sel->spec && !(kmask = steps_mask(st, sel->first, sel->last))) {
        fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(path, vis, sizeof vis));
        goto out;
    }
    if (!(kr = kernels_build(whole, st, kmask ? kmask : keep, &err))) { /* --range: its mask */
        rc = cli_fail(&err);
        goto out;
    }
    if (!sel->spec && !range_text)
        kernels_recommend(kr, st);
    if (!(order = malloc((m->nops ? m->nops : 1) * sizeof *order)) ||
        (short_names && !(sn = shortname_new(m)))) {
        fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(path, vis, sizeof vis));
        goto out;
    }
    /* HTA's analyses take the whole model and the scope as a keep mask:
       inside --step or --range the scope is the window, else HTA's own */
    if (sel->spec && !keep && !(keep = steps_mask(st, sel->first, sel->last))) {
        fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(path, vis, sizeof vis));
        goto out;
    }
    if (hthread) {
        pthread_join(hth, NULL);
        hthread = false;
        if (!(gpu = hj.h)) {
            rc = cli_fail(&hj.err);
            goto out;
        }
    } else if (!sel->only && !(gpu = hta_build(whole, keep, ho, &err))) {
        rc = cli_fail(&err);
        goto out;
    }
    /* the stacks of --focus, --category, --track, --filter in the model
       reported on (a step's, a range's): what convert writes */
    if (analyze_scope_apply(sc, whole, m, &rc) < 0)
        goto out;
    rc = EXIT_INPUT;
    size_t nops = analyze_scope_order(sc, (enum model_sort)sort, order);
    size_t nshow = top == 0 || top > nops ? nops : top;
    /* TensorBoard's tree is built over the whole trace (its runtime and GPU
       links cross step bounds); the scope picks the calls that count */
    if (!sel->only && (json || by_shape || with_modules) &&
        analyze_shapes_build(&shapes, whole, st, sel->spec != NULL, sel->first, sel->last,
                             (enum model_sort)sort, &err) < 0) {
        rc = cli_fail(&err);
        goto out;
    }
    /* under --step or --range the memory figures are those of the window's
       records (core/analyses/memory.h); the recommendation above stays the
       whole trace's */
    if (m != whole && m->has_scope_window && tr->nmems) {
        memory *sm = memory_build(m, &err);
        if (!sm) {
            rc = cli_fail(&err);
            goto out;
        }
        memory_free(mem);
        mem = sm;
    }
    /* under a scope of stacks: the kernels launched and the allocations
       made inside them (the GPU summary and the devices' peaks stay the
       device's); mem is m's here */
    if (sc->stacks && sc->keep &&
        (!(skr = kernels_build_in(m, st, kmask ? kmask : keep, sc->keep, &err)) ||
         (mem->m == m && !(smem = memory_scope_build(mem, sc->keep, &err))))) {
        rc = cli_fail(&err);
        goto out;
    }
    if (sel->only) {
        analyze_steps_only(stdout, sel, json);
    } else if (kernels_only) {
        analyze_kernels_only(stdout, skr ? skr : kr, skr ? kr : NULL, top, json);
    } else if (json) {
        ranks_load_opts ro = { .mo = *mo, .step = sel->spec };
        ranks_file rank = { .path = (char *)path };
        if (sel->spec)
            snprintf(rank.step, sizeof rank.step, "%s", sel->spec);
        if (ranks_file_from_model(&rank, whole, &ro) < 0) {
            rc = cli_fail(&rank.err);
            ranks_file_clear(&rank);
            goto out;
        }
        report_json(stdout, m, order, nshow, sn, sel, rg, &rank, sc);
        analyze_kernels_json(stdout, skr ? skr : kr, skr ? kr : NULL, top);
        ranks_file_clear(&rank);
        if (smem)
            analyze_memory_scoped_json(stdout, smem, msort, top);
        else
            analyze_memory_json(stdout, mem, msort, top);
        analyze_gpu_json(stdout, gpu);
        if (by_line)
            analyze_lines_json(stdout, m, sc->keep, top);
        analyze_shapes_json(stdout, &shapes, tr, top);
        fputs("}\n", stdout);
    } else {
        report_text(stdout, m, order, nshow, (enum model_sort)sort, sn, sel, rg, sc);
        analyze_kernels_text(stdout, skr ? skr : kr, skr ? kr : NULL, top);
        if (smem)
            analyze_memory_scoped_text(stdout, smem, st, msort, top);
        else
            analyze_memory_text(stdout, mem, st, msort, top);
        analyze_gpu_text(stdout, gpu);
        if (by_line)
            analyze_lines_text(stdout, m, sc->keep, top);
        if (by_shape)
            analyze_shapes_text(stdout, &shapes, tr, top);
        if (with_modules)
            analyze_modules_text(stdout, &shapes, tr);
    }
    if (tr->truncated)
        cli_warn_truncated(tr->path, tr->truncated_reason, "loaded");
    if (cli_report_done() != EXIT_OK)
        goto out;
    rc = EXIT_OK;
out:
    if (hthread) {
        pthread_join(hth, NULL);
        hta_free(hj.h);
    }
    analyze_scope_done(sc);
    hta_free(gpu);
    free(keep);
    analyze_shapes_done(&shapes);
    shortname_free(sn);
    kernels_free(kr);
    kernels_free(skr);
    memory_scope_free(smem);
    free(kmask);
    free(order);
    memory_free(mem);
    steps_free(st);
    if (m != whole)
        model_free(m);
    model_free(whole);
    trace_free(tr);
    return rc;
}

int cli_analyze(int argc, char **argv)
{
    const opts_cmd *c = &opts_analyze;
    analyze_compare_opts cmp = { 0 };
    opts_common_vals cv = { 0 };
    long top = 20;
    int sort = MODEL_SORT_SELF;
    bool json = false, spread = false, by_line = false, kernels_only = false,
         by_shape = false, with_modules = false;
    enum memory_sort msort = MEMORY_SORT_ALLOC_SIZE;
    analyze_steps_sel sel = { 0 };
    hta_opts ho;
    long v;
    char vis[1200];
    opts_parsed p;
    char *picked = NULL;
    analyze_scope sc;
    int rc, k;

    if (opts_parse(c, argc, argv, &p, &rc) < 0)
        return rc;
    hta_opts_default(&ho);
    rc = EXIT_USAGE;
    for (size_t i = 0; i < p.nhits; i++) {
        const opt_hit *h = &p.hits[i];
        if ((k = opts_common(c, h, &cv)) < 0)
            goto done;
        if (k > 0)
            continue;
        switch (h->id) {
        case OPT_TOP:
            if (opts_number(c, h, 0, __LONG_MAX__, &top) != 0)
                goto done;
            break;
        case OPT_SORT:
            if ((k = memory_sort_parse(h->value)) >= 0) {
                msort = (enum memory_sort)k;
                break;
            }
            cmp.sort = h->value;
            /* spread compares ranks: only the many-ranks report knows it */
            if ((spread = !strcmp(h->value, "spread"))) {
                sort = MODEL_SORT_SELF;
                break;
            }
            if (model_sort_parse(h->value) < 0 && compare_sort_parse(h->value) >= 0) {
                sort = -1; /* a delta key: for --base, checked below */
                break;
            }
            if ((sort = model_sort_parse(h->value)) < 0) {
                opts_usage_error(c, "unknown sort key '%s' (self, total, calls, name, avg, "
                                    "device_self, device_total, ...; see --help)",
                                 cli_shown(h->value, vis, sizeof vis));
                goto done;
            }
            break;
        case OPT_JSON: json = true; break;
        case OPT_PER_STEP: cmp.per_step = true; break;
        case OPT_BASE_STEP: cmp.base_step = h->value; break;
        case OPT_BY_LINE: by_line = true; break;
        case OPT_BY_SHAPE: by_shape = true; break;
        case OPT_MODULES: with_modules = true; break;
        case OPT_STEPS: sel.only = true; break;
        case OPT_KERNEL_WAIT:
        case OPT_RUNTIME_CUTOFF:
        case OPT_DELAY_CUTOFF:
            /* microseconds, HTA's unit; up to a day */
            if (opts_number(c, h, 0, 86400L * 1000000, &v) != 0)
                goto done;
            *(h->id == OPT_KERNEL_WAIT      ? &ho.kernel_wait_ns
              : h->id == OPT_RUNTIME_CUTOFF ? &ho.runtime_cutoff_ns
                                            : &ho.delay_cutoff_ns) = (int64_t)v * 1000;
            break;
        case OPT_SEQ_OP: ho.seq_op = h->value; break;
        case OPT_KERNELS: kernels_only = true; break;
        case OPT_HELP:
            opts_help(c, stdout);
            rc = EXIT_OK;
            goto done;
        case OPT_VERSION:
            printf("torch2pprof %s\n", PACKAGE_VERSION);
            rc = EXIT_OK;
            goto done;
        default: break;
        }
    }
    model_opts mo = { .keep_steps = cv.keep_steps, .no_python = cv.no_python };
    sel.spec = cv.step;
    cmp.base_path = cv.base;
    if (p.noperands == 0) {
        opts_usage_error(c, "expected a TRACE, several, or a directory");
        goto done;
    }
    if (cv.range && (cv.step || sel.only)) {
        opts_usage_error(c, "--range does not go with --step or --steps (a range is a scope "
                            "of its own)");
        goto done;
    }
    if (cv.range && (cv.base || cmp.per_step || cmp.base_step ||
                     analyze_ranks_wanted((int)p.noperands, p.operands))) {
        opts_usage_error(c, "--range takes one TRACE, without --base");
        goto done;
    }
    for (size_t i = 0; i < p.noperands; i++)
        if (!strcmp(p.operands[i], "-") && (p.noperands > 1 || cv.base)) {
            opts_usage_error(c, "- (standard input) is one TRACE alone, without --base");
            goto done;
        }
    cli_set_jobs(cv.jobs);
    analyze_scope_init(&sc, &cv);
    bool stacks = analyze_scope_stacks(&cv);
    if (stacks && (cv.base || cmp.per_step || cmp.base_step || sel.only)) {
        opts_usage_error(c, "--focus, --category, --track and --filter scope the report "
                            "of one trace: not with --base, --per-step, --base-step or --steps");
        goto done;
    }
    bool job = analyze_ranks_wanted((int)p.noperands, p.operands);
    if (cv.has_rank) {
        /* one rank of a job: its own report, the scope applied to it */
        if (cv.base || cmp.per_step || cmp.base_step || spread || sort < 0) {
            opts_usage_error(c, "--rank does not go with --base, --per-step, --base-step, "
                                "--sort spread or a delta sort key");
            goto done;
        }
        analyze_ranks_opts ro = { .partial = cv.partial, .jobs = (unsigned)cv.jobs, .mo = mo };
        if ((rc = analyze_ranks_pick(&ro, (int)p.noperands, p.operands, cv.rank, &picked)) !=
            EXIT_OK)
            goto done;
        sc.rank_of = p.noperands == 1 ? p.operands[0] : NULL;
        rc = analyze_one(picked, &mo, cv.partial, sort, msort, (size_t)top, json, by_line,
                         by_shape, with_modules, cv.short_names, kernels_only, &sel, NULL, &ho,
                         &sc);
        goto done;
    }
    if (job) {
        if (stacks) {
            opts_usage_error(c, "--focus, --category, --track and --filter take one TRACE, or "
                                "one rank of a job (--rank N)");
            goto done;
        }
        if (cv.short_names) {
            opts_usage_error(c, "--short-names takes one TRACE, not several or a directory");
            goto done;
        }
        if (sort < 0 || cmp.base_path || cmp.per_step || cmp.base_step || sel.only ||
            kernels_only) {
            opts_usage_error(c, "--base, --per-step, --steps, --kernels and delta sort keys take one "
                                "TRACE, not several or a directory");
            goto done;
        }
        analyze_ranks_opts ro = { .top = (size_t)top, .sort = (enum model_sort)sort,
                                  .spread = spread, .json = json, .partial = cv.partial,
                                  .jobs = (unsigned)cv.jobs, .step = sel.spec, .mo = mo };
        rc = analyze_ranks(&ro, (int)p.noperands, p.operands);
        goto done;
    }
    if (spread) {
        opts_usage_error(c, "--sort spread compares ranks: give several traces or a directory");
        goto done;
    }
    if (cmp.base_path || cmp.per_step || cmp.base_step) {
        cmp.step = sel.spec; /* --step M: TRACE's side */
        cmp.new_path = p.operands[0];
        cmp.top = (size_t)top;
        cmp.json = json;
        cmp.partial = cv.partial;
        cmp.mo = mo;
        rc = analyze_compare(&cmp);
        goto done;
    }
    if (sort < 0) {
        opts_usage_error(c, "--sort %s needs --base", cli_shown(cmp.sort, vis, sizeof vis));
        goto done;
    }
    rc = analyze_one(p.operands[0], &mo, cv.partial, sort, msort, (size_t)top, json, by_line,
                     by_shape, with_modules, cv.short_names, kernels_only, &sel, cv.range, &ho,
                     &sc);
done:
    free(picked);
    opts_parsed_done(&p);
    return rc;
}
