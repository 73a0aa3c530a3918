/* analyze's Steps section (see src/analyze_steps.h). */
#include "config.h"

#include "src/analyze_steps.h"

#include <stdio.h>
#include <string.h>

#include "core/base/fmt.h"
#include "src/cli.h"
#include "src/cli_table.h"

/* The table's rows for cli_table: the steps, then the average. */
struct step_rows {
    const steps *s;
    size_t lo, n;
    bool gpu, avg;
    char name[64], buf[STEPS_NROLES + 4][64];
};

static void step_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct step_rows *x = ctx;
    const steps *s = x->s;
    const int64_t *roles = s->avg_role_ns;
    int64_t dur = s->avg_duration_ns, busy = s->avg_gpu_busy_ns;
    cell[0] = "average";
    cell[1] = "";
    cell[2] = "";
    if (i < x->n) {
        const steps_step *st = &s->steps[x->lo + i];
        const char *label = steps_label(s, x->lo + i);
        cell[0] = fmt_visible(label, strlen(label), x->name, sizeof x->name);
        cell[1] = st->kept ? "" : "*";
        cell[2] = fmt_ms(st->start - s->m->window_start, x->buf[2], 64);
        roles = st->role_ns;
        dur = st->end - st->start;
        busy = st->gpu_busy_ns;
    }
    cell[3] = fmt_ms(dur, x->buf[3], 64);
    for (int r = 0; r < STEPS_NROLES; r++)
        cell[4 + r] = fmt_ms(roles[r], x->buf[4 + r], 64);
    cell[4 + STEPS_NROLES] = x->gpu ? fmt_pct(busy, dur, x->buf[4 + STEPS_NROLES], 64) : "-";
    for (int c = 0; c < 5 + STEPS_NROLES; c++)
        len[c] = strlen(cell[c]);
}

static const cli_col step_cols[5 + STEPS_NROLES] = {
    {"Step", CLI_COL_LEFT}, {"", CLI_COL_LEFT | CLI_COL_GLUE}, {"Start ms", 0}, {"Dur ms", 0},
    {"Kernel", 0}, {"Memcpy", 0}, {"Memset", 0}, {"Comm", 0}, {"Runtime", 0}, {"DataLdr", 0},
    {"CPU Exec", 0}, {"Other", 0}, {"GPU %", 0}};

int analyze_steps_select(analyze_steps_sel *sel, const model_opts *mo, model **m,
                         bool *usage_error)
{
    t2p_error err;
    char vis[1200];
    *usage_error = false;
    if (!sel->spec)
        return 0;
    if (steps_parse_range(sel->st, sel->spec, &sel->first, &sel->last, &err) < 0) {
        fprintf(stderr, "torch2pprof analyze: --step: %s\n", cli_shown(err.reason, vis, sizeof vis));
        *usage_error = err.kind != T2P_ERR_MISSING; /* a step it lacks: 2 */
        return -1;
    }
    model *sm = steps_scope(sel->st, sel->first, sel->last, mo, &err);
    if (!sm) {
        cli_fail(&err);
        return -1;
    }
    *m = sm;
    return 0;
}

void analyze_steps_scope_line(FILE *f, const analyze_steps_sel *sel)
{
    char a[64], b[64], l[200], vis[300];
    if (!sel->spec)
        return;
    const steps *s = sel->st;
    const steps_step *x = &s->steps[sel->first], *y = &s->steps[sel->last];
    fprintf(f, "Scope:             step%s %s (window %s to %s ms from the trace's start; CPU "
               "events that start in it, GPU work they launched)\n",
            sel->first == sel->last ? "" : "s",
            cli_shown(steps_range_label(s, sel->first, sel->last, l, sizeof l), vis, sizeof vis),
            fmt_ms(x->start - s->m->window_start, a, sizeof a),
            fmt_ms(y->end - s->m->window_start, b, sizeof b));
}

void analyze_steps_text(FILE *f, const analyze_steps_sel *sel)
{
    const steps *s = sel->st;
    const model *m = s->m;
    size_t lo = sel->spec ? sel->first : sel->ranged ? sel->rlo : 0;
    size_t hi = sel->spec ? sel->last + 1 : sel->ranged ? sel->rhi : s->nsteps;
    bool scoped = sel->spec || sel->ranged;
    if (!s->whole_trace) {
        bool gpu = m->gpu_events > 0;
        fprintf(f, "\nSteps (ms; the window split by role, TensorBoard's Overview rules)\n");
        struct step_rows x = {.s = s, .lo = lo, .n = hi - lo, .gpu = gpu};
        size_t dropped = 0;
        for (size_t i = lo; i < hi; i++)
            dropped += !s->steps[i].kept;
        cli_table(f, step_cols, 5 + STEPS_NROLES, x.n + (s->nkept && !scoped), step_row, &x);
        if (dropped)
            fprintf(f, "* dropped from the average: the profiler stopped before its GPU work ran\n");
    }
    if (s->nrecs && !scoped) {
        fprintf(f, "\nRecommendations\n");
        for (size_t i = 0; i < s->nrecs; i++)
        {
            /* prose: wrapped on a terminal, under its own text */
            char line[2048];
            snprintf(line, sizeof line, "- [%s] %s", s->recs[i].id, s->recs[i].text);
            cli_put_wrapped(f, line, 2);
        }
    }
}

static void roles_json(FILE *f, const int64_t *roles)
{
    for (int r = 0; r < STEPS_NROLES; r++)
        fprintf(f, ",\"%s_ns\":%lld", steps_role_key(r), (long long)roles[r]);
}

void analyze_steps_scope_json(FILE *f, const analyze_steps_sel *sel)
{
    const steps *s = sel->st;
    if (!sel->spec)
        return;
    char l[200];
    steps_range_label(s, sel->first, sel->last, l, sizeof l);
    fputs(",\"steps\":", f);
    cli_json_string(f, l, strlen(l));
    fprintf(f, ",\"start_ns\":%lld,\"end_ns\":%lld", (long long)s->steps[sel->first].start,
            (long long)s->steps[sel->last].end);
}

void analyze_steps_json(FILE *f, const analyze_steps_sel *sel)
{
    const steps *s = sel->st;
    fputs(",\"steps\":[", f);
    size_t lo = sel->spec ? sel->first : sel->ranged ? sel->rlo : 0;
    size_t hi = sel->spec ? sel->last + 1 : sel->ranged ? sel->rhi : s->nsteps;
    for (size_t i = lo; !s->whole_trace && i < hi; i++) {
        const steps_step *st = &s->steps[i];
        const char *label = steps_label(s, i);
        fputs(i > lo ? ",{\"step\":" : "{\"step\":", f);
        cli_json_string(f, label, strlen(label));
        fprintf(f, ",\"start_ns\":%lld,\"end_ns\":%lld,\"duration_ns\":%lld", (long long)st->start,
                (long long)st->end, (long long)(st->end - st->start));
        roles_json(f, st->role_ns);
        fprintf(f, ",\"gpu_busy_ns\":%lld,\"cpu_ns\":%lld,\"kept\":%s", (long long)st->gpu_busy_ns,
                (long long)st->cpu_ns, st->kept ? "true" : "false");
        fprintf(f, ",\"overlap\":{\"computation_ns\":%lld,\"communication_ns\":%lld,"
                   "\"overlap_ns\":%lld,\"other_ns\":%lld}}",
                (long long)st->overlap.computation_ns, (long long)st->overlap.communication_ns,
                (long long)st->overlap.overlap_ns, (long long)st->overlap.other_ns);
    }
    fputs("],\"steps_average\":", f);
    if (s->whole_trace || !s->nkept || sel->ranged) {
        fputs("null", f);
    } else {
        fprintf(f, "{\"steps\":%zu,\"duration_ns\":%lld", s->nkept, (long long)s->avg_duration_ns);
        roles_json(f, s->avg_role_ns);
        fprintf(f, ",\"gpu_busy_ns\":%lld}", (long long)s->avg_gpu_busy_ns);
    }
    fputs(",\"recommendations\":[", f);
    for (size_t i = 0; i < s->nrecs && !sel->ranged; i++) {
        fprintf(f, "%s{\"id\":\"%s\",\"text\":", i ? "," : "", s->recs[i].id);
        cli_json_string(f, s->recs[i].text, strlen(s->recs[i].text));
        fputc('}', f);
    }
    fputc(']', f);
}

void analyze_steps_only(FILE *f, const analyze_steps_sel *sel, bool json)
{
    const trace *tr = sel->st->m->tr;
    if (!json) {
        fputs("File:              ", f);
        cli_put_text(f, tr->path, strlen(tr->path));
        fputc('\n', f);
        analyze_steps_scope_line(f, sel);
        if (sel->st->whole_trace)
            fprintf(f, "\nNo ProfilerStep# in this trace: no steps to show.\n");
        analyze_steps_text(f, sel);
        return;
    }
    fputs("{\"file\":", f);
    cli_json_string(f, tr->path, strlen(tr->path));
    fprintf(f, ",\"base_ns\":%lld,\"window_start_ns\":%lld", (long long)tr->base_ns,
            (long long)sel->st->m->window_start);
    if (sel->spec) {
        /* the report's scope object: --steps takes no other scope */
        char o[300];
        snprintf(o, sizeof o, "--step %s", sel->spec);
        fputs(",\"scope\":{\"options\":", f);
        cli_json_string(f, o, strlen(o));
        analyze_steps_scope_json(f, sel);
        fputc('}', f);
    }
    analyze_steps_json(f, sel);
    fputs("}\n", f);
}
