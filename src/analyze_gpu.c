/* analyze's GPU section: HTA's analyses as text and JSON. */
#include "config.h"

#include "src/analyze_gpu.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/base/fmt.h"
#include "src/cli.h"
#include "src/cli_table.h"

struct gctx {
    const hta *h;
    char buf[CLI_TABLE_MAXCOLS][64];
    char label[300];
};

static const char *us(double ns, char *buf, size_t size)
{
    snprintf(buf, size, "%.1f", ns / 1e3);
    return buf;
}

static void type_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct gctx *x = ctx;
    const hta_typerow *r = &x->h->types[i];
    cell[0] = hta_typerow_name(r->mask, x->label, sizeof x->label);
    cell[1] = fmt_ms(r->ns, x->buf[1], 64);
    cell[2] = fmt_pct(r->ns, x->h->types_ns, x->buf[2], 64);
    for (int c = 0; c < 3; c++)
        len[c] = strlen(cell[c]);
}

static void stream_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct gctx *x = ctx;
    const hta_stream *s = &x->h->streams[i];
    cell[0] = hta_stream_label(x->h, i, x->label, sizeof x->label);
    cell[1] = fmt_count(s->events, x->buf[1], 64);
    cell[2] = fmt_ms(s->busy_ns, x->buf[2], 64);
    cell[3] = fmt_ms(s->host_wait_ns, x->buf[3], 64);
    cell[4] = fmt_ms(s->kernel_wait_ns, x->buf[4], 64);
    cell[5] = fmt_ms(s->other_wait_ns, x->buf[5], 64);
    bool l = s->delay.count > 0;
    cell[6] = l ? us(s->delay.p50_ns, x->buf[6], 64) : "-";
    cell[7] = l ? us(s->delay.p95_ns, x->buf[7], 64) : "-";
    cell[8] = l ? us((double)s->delay.max_ns, x->buf[8], 64) : "-";
    if (s->qcount) {
        snprintf(x->buf[9], 64, "%.2f", s->qmean);
        snprintf(x->buf[10], 64, "%" PRId64, s->qmax);
    }
    cell[9] = s->qcount ? x->buf[9] : "-";
    cell[10] = s->qcount ? x->buf[10] : "-";
    for (int c = 0; c < 11; c++)
        len[c] = strlen(cell[c]);
}

static void seq_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct gctx *x = ctx;
    const hta *h = x->h;
    const hta_seq *q = &h->seqs[i];
    const trace *tr = h->m->tr;
    cell[0] = fmt_count(q->count, x->buf[0], 64);
    cell[1] = fmt_count(q->len, x->buf[1], 64);
    cell[2] = fmt_ms(q->gpu_ns, x->buf[2], 64);
    cell[3] = fmt_ms(q->cpu_ns, x->buf[3], 64);
    for (int c = 0; c < 4; c++)
        len[c] = strlen(cell[c]);
    cell[4] = trace_str(tr, q->op);
    len[4] = strtab_len(tr->strs, q->op);
    /* the whole sequence is in --json; here its first kernel */
    uint32_t k = q->len ? h->seq_names[q->first] : STRTAB_NONE;
    cell[5] = k != STRTAB_NONE ? trace_str(tr, k) : "-";
    len[5] = k != STRTAB_NONE ? strtab_len(tr->strs, k) : 1;
}

static const cli_col type_cols[] = {
    {"Kernel type", CLI_COL_LEFT | CLI_COL_NAME}, {"ms", 0}, {"%", 0}};
static const cli_col stream_cols[] = {
    {"Stream", CLI_COL_LEFT | CLI_COL_NAME}, {"Events", 0}, {"Busy ms", 0},
    {"Host wait ms", 0}, {"Kernel wait ms", 0}, {"Other wait ms", 0},
    {"Delay p50 us", CLI_COL_DROP}, {"p95 us", CLI_COL_DROP}, {"max us", CLI_COL_DROP},
    {"Queue mean", CLI_COL_DROP}, {"max", CLI_COL_DROP}};
static const cli_col seq_cols[] = {
    {"Count", 0}, {"Kernels", 0}, {"GPU ms", 0}, {"CPU ms", 0},
    {"Operator", CLI_COL_LEFT | CLI_COL_NAME}, {"First kernel", CLI_COL_LEFT | CLI_COL_NAME}};

/* "Label:      text" wrapped to f's width under the text. */
static void put_line(FILE *f, const char *label, const char *text)
{
    char line[1200];
    snprintf(line, sizeof line, "%-12s %s", label, text);
    cli_put_wrapped(f, line, 13);
}

void analyze_gpu_text(FILE *f, const hta *h)
{
    char a[64], b[64], c[64], d0[64], w[800];
    struct gctx x = { .h = h };
    if (!h || !h->gpu_events)
        return;
    fprintf(f, "\nGPU (HTA's analyses)\n");
    put_line(f, "Window:", hta_window_text(h, w, sizeof w));
    snprintf(w, sizeof w,
             "%s ms from the first GPU event to the last: compute %s%%, non-compute %s%%, "
             "idle %s%%",
             fmt_ms(h->kernel_ns, a, sizeof a), fmt_pct(h->compute_ns, h->kernel_ns, b, sizeof b),
             fmt_pct(h->non_compute_ns, h->kernel_ns, c, sizeof c),
             fmt_pct(h->idle_ns, h->kernel_ns, d0, sizeof d0));
    put_line(f, "Temporal:", w);
    if (h->ntypes) {
        fputc('\n', f);
        cli_table(f, type_cols, 3, h->ntypes, type_row, &x);
    }
    fputc('\n', f);
    cli_table(f, stream_cols, 11, h->nstreams, stream_row, &x);
    const hta_delay *d = &h->delay;
    if (d->count) {
        snprintf(w, sizeof w,
                 "%" PRIu64 " calls joined to their GPU event; delay p50 %.1f us, "
                 "p95 %.1f us, max %.1f us; %" PRIu64 " longer than %.0f us, %" PRIu64
                 " calls longer than %.0f us (runtime outliers), %" PRIu64 " short kernels "
                 "(GPU shorter than its call)",
                 d->count, d->p50_ns / 1e3, d->p95_ns / 1e3, (double)d->max_ns / 1e3,
                 d->long_delay, (double)h->opts.delay_cutoff_ns / 1e3, d->runtime_outlier,
                 (double)h->opts.runtime_cutoff_ns / 1e3, d->short_kernel);
        put_line(f, "Launches:", w);
    }
    uint64_t overlaps = 0;
    for (size_t i = 0; i < h->nstreams; i++)
        overlaps += h->streams[i].overlaps;
    if (h->gpu_no_launch || overlaps || h->streams_without_launches) {
        snprintf(w, sizeof w,
                 "%" PRIu64 " GPU events without a launch call (never host wait; "
                 "not in launch delay or queue), %" PRIu64
                 " overlapping the previous event on their stream (gap counted 0), %" PRIu64
                 " streams without launches",
                 h->gpu_no_launch, overlaps, h->streams_without_launches);
        put_line(f, "Left out:", w);
    }
    if (h->nseqs) {
        fprintf(f, "\nFrequent kernel sequences under \"%s\" (%" PRIu64 " calls, %zu sequences)\n",
                h->opts.seq_op, h->seq_roots, h->nseqs_all);
        cli_table(f, seq_cols, 6, h->nseqs, seq_row, &x);
    }
}

static void jnum(FILE *f, double v)
{
    if (isfinite(v) && v == floor(v) && fabs(v) < 9e15)
        fprintf(f, "%.0f", v);
    else if (isfinite(v))
        fprintf(f, "%.6f", v);
    else
        fputs("null", f);
}

static double pct(int64_t part, int64_t whole)
{
    return whole ? round(10000.0 * (double)part / (double)whole) / 100.0 : 0;
}

static void jstream(FILE *f, const hta *h, size_t i)
{
    const trace *tr = h->m->tr;
    const trace_track *k = &tr->tracks[h->streams[i].track];
    const char *dev = hta_stream_device(h, i);
    fputs("{\"device\":", f);
    cli_json_string(f, dev, strlen(dev));
    fputs(",\"stream\":", f);
    cli_json_string(f, trace_str(tr, k->tid), strtab_len(tr->strs, k->tid));
    char label[256];
    trace_track_label(tr, h->streams[i].track, label, sizeof label);
    fputs(",\"name\":", f);
    cli_json_string(f, label, strlen(label));
}

void analyze_gpu_json(FILE *f, const hta *h)
{
    const trace *tr = h->m->tr;
    static const char *const kinds[] = { "all", "no_last_step", "scope" };
    fprintf(f, ",\"gpu_window\":{\"kind\":\"%s\",\"steps\":%u", kinds[h->window],
            (unsigned)h->window_steps);
    if (h->window == HTA_WINDOW_NO_LAST_STEP)
        fprintf(f, ",\"cut_ns\":%" PRId64, h->window_cut);
    fprintf(f, ",\"cpu_events\":%" PRIu64 ",\"gpu_events\":%" PRIu64 ",\"gpu_left_out\":%" PRIu64
               "}",
            h->cpu_events, h->gpu_events, h->gpu_dropped);
    fprintf(f, ",\"temporal\":{\"kernel_ns\":%" PRId64 ",\"idle_ns\":%" PRId64
               ",\"compute_ns\":%" PRId64 ",\"non_compute_ns\":%" PRId64,
            h->kernel_ns, h->idle_ns, h->compute_ns, h->non_compute_ns);
    fputs(",\"idle_pct\":", f);
    jnum(f, pct(h->idle_ns, h->kernel_ns));
    fputs(",\"compute_pct\":", f);
    jnum(f, pct(h->compute_ns, h->kernel_ns));
    fputs(",\"non_compute_pct\":", f);
    jnum(f, pct(h->non_compute_ns, h->kernel_ns));
    fputs("},\"kernel_types\":[", f);
    for (size_t i = 0; i < h->ntypes; i++) {
        char name[128];
        hta_typerow_name(h->types[i].mask, name, sizeof name);
        fprintf(f, "%s{\"type\":\"%s\",\"ns\":%" PRId64 ",\"pct\":", i ? "," : "", name,
                h->types[i].ns);
        jnum(f, round(1000.0 * (double)h->types[i].ns / (double)h->types_ns) / 10.0);
        fputc('}', f);
    }
    fputs("],\"kernels_by_type\":[", f);
    for (size_t i = 0; i < h->nkernels; i++) {
        const hta_kernel *k = &h->kernels[i];
        fprintf(f, "%s{\"type\":\"%s\",\"name\":", i ? "," : "", hta_ktype_name(k->type));
        cli_json_string(f, trace_str(tr, k->name), strtab_len(tr->strs, k->name));
        fprintf(f, ",\"count\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"mean_ns\":", k->count,
                k->sum_ns);
        jnum(f, k->mean_ns);
        fprintf(f, ",\"min_ns\":%" PRId64 ",\"max_ns\":%" PRId64 ",\"std_ns\":", k->min_ns,
                k->max_ns);
        jnum(f, k->std_ns);
        fputc('}', f);
    }
    fputs("],\"idle\":[", f);
    for (size_t i = 0; i < h->nstreams; i++) {
        const hta_stream *s = &h->streams[i];
        if (i)
            fputc(',', f);
        jstream(f, h, i);
        fprintf(f, ",\"events\":%" PRIu64 ",\"busy_ns\":%" PRId64 ",\"host_wait_ns\":%" PRId64
                   ",\"kernel_wait_ns\":%" PRId64 ",\"other_wait_ns\":%" PRId64
                   ",\"overlaps\":%" PRIu64 ",\"overlap_ns\":%" PRId64
                   ",\"without_launch\":%" PRIu64 ",\"launches\":%" PRIu64,
                s->events, s->busy_ns, s->host_wait_ns, s->kernel_wait_ns, s->other_wait_ns,
                s->overlaps, s->overlap_ns, s->no_launch, s->delay.count);
        fputs(",\"launch_delay_p50_ns\":", f);
        jnum(f, s->delay.p50_ns);
        fputs(",\"launch_delay_p95_ns\":", f);
        jnum(f, s->delay.p95_ns);
        fprintf(f, ",\"launch_delay_max_ns\":%" PRId64 "}", s->delay.max_ns);
    }
    const hta_delay *d = &h->delay;
    fprintf(f, "],\"launch\":{\"count\":%" PRIu64 ",\"launch_delay_sum_ns\":%" PRId64
               ",\"launch_delay_max_ns\":%" PRId64,
            d->count, d->sum_ns, d->max_ns);
    fputs(",\"launch_delay_p50_ns\":", f);
    jnum(f, d->p50_ns);
    fputs(",\"launch_delay_p95_ns\":", f);
    jnum(f, d->p95_ns);
    fprintf(f, ",\"long_delay_count\":%" PRIu64 ",\"short_kernel_count\":%" PRIu64
               ",\"runtime_outlier_count\":%" PRIu64 ",\"delay_cutoff_ns\":%" PRId64
               ",\"runtime_cutoff_ns\":%" PRId64 ",\"gpu_events_without_launch\":%" PRIu64
               ",\"streams_without_launches\":%" PRIu64 "}",
            d->long_delay, d->short_kernel, d->runtime_outlier, h->opts.delay_cutoff_ns,
            h->opts.runtime_cutoff_ns, h->gpu_no_launch, h->streams_without_launches);
    fputs(",\"queue\":[", f);
    const char *sep = "";
    for (size_t i = 0; i < h->nstreams; i++) {
        const hta_stream *s = &h->streams[i];
        if (!s->qcount)
            continue;
        fputs(sep, f);
        sep = ",";
        jstream(f, h, i);
        fprintf(f, ",\"count\":%" PRIu64 ",\"mean\":", s->qcount);
        jnum(f, s->qmean);
        fprintf(f, ",\"min\":%" PRId64 ",\"max\":%" PRId64 ",\"p50\":", s->qmin, s->qmax);
        jnum(f, s->qp50);
        fputc('}', f);
    }
    fputs("],\"kernel_sequences\":{\"operator\":", f);
    cli_json_string(f, h->opts.seq_op ? h->opts.seq_op : "",
                    h->opts.seq_op ? strlen(h->opts.seq_op) : 0);
    fprintf(f, ",\"min_len\":%zu,\"calls\":%" PRIu64 ",\"found\":%zu,\"sequences\":[",
            h->opts.seq_min_len, h->seq_roots, h->nseqs_all);
    for (size_t i = 0; i < h->nseqs; i++) {
        const hta_seq *q = &h->seqs[i];
        fputs(i ? ",{\"operator\":" : "{\"operator\":", f);
        cli_json_string(f, trace_str(tr, q->op), strtab_len(tr->strs, q->op));
        fputs(",\"kernels\":[", f);
        for (size_t k = 0; k < q->len; k++) {
            uint32_t n = h->seq_names[q->first + k];
            if (k)
                fputc(',', f);
            cli_json_string(f, trace_str(tr, n), strtab_len(tr->strs, n));
        }
        fprintf(f, "],\"count\":%" PRIu64 ",\"gpu_ns\":%" PRId64 ",\"cpu_ns\":%" PRId64 "}",
                q->count, q->gpu_ns, q->cpu_ns);
    }
    fputs("]}", f);
}
