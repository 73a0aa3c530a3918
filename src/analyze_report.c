/* torch2pprof analyze: the single-trace report, text and --json (the
   tables of ops, categories and streams; src/analyze.c computes what
   they show). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/model/model.h"
#include "core/model/shortname.h"
#include "core/analyses/range.h"
#include "src/analyze_report.h"
#include "src/analyze_notes.h"
#include "src/analyze_ranks.h"
#include "src/analyze_scope.h"
#include "src/analyze_steps.h"
#include "src/cli.h"
#include "src/cli_table.h"

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

/* "Scope: range ..." under the header, and when nothing starts in the
   range a line that says so: the figures below are then all zero. */
static void range_lines(FILE *f, const analyze_ranged *rg)
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

void analyze_report_text(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                        enum model_sort sort, const shortnames *sn, const analyze_steps_sel *st,
                        const analyze_ranged *rg, analyze_scope *sc)
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

void analyze_report_json(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                        const shortnames *sn, const analyze_steps_sel *st,
                        const analyze_ranged *rg, const ranks_file *rank, analyze_scope *sc)
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
