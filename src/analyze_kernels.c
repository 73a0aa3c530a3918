#include "config.h"

#include "src/analyze_kernels.h"

#include <math.h>
#include <string.h>

#include "core/base/fmt.h"
#include "src/cli.h"
#include "src/cli_table.h"

static size_t shown(size_t n, size_t top)
{
    return top == 0 || top > n ? n : top;
}

/* A double figure rounded for a table: "12.34". */
static const char *fmt_fig(double v, char *buf, size_t size)
{
    snprintf(buf, size, "%.2f", v);
    return buf;
}

static const char *fmt_dim(const int32_t *d, char *buf, size_t size)
{
    snprintf(buf, size, "[%d, %d, %d]", (int)d[0], (int)d[1], (int)d[2]);
    return buf;
}

struct krows {
    const kernels *k;
    const kernels_row *rows;
    char buf[CLI_TABLE_MAXCOLS][64];
};

/* The figures every row shows, from column c on. */
static void figures(struct krows *x, const kernels_row *r, int c, const char **cell, size_t *len)
{
    cell[c] = fmt_count(r->calls, x->buf[c], 64);
    cell[c + 1] = fmt_ms(r->total_ns, x->buf[c + 1], 64);
    cell[c + 2] = fmt_ms((int64_t)llround(r->mean_ns), x->buf[c + 2], 64);
    cell[c + 3] = fmt_ms(r->min_ns, x->buf[c + 3], 64);
    cell[c + 4] = fmt_ms(r->max_ns, x->buf[c + 4], 64);
    cell[c + 5] = fmt_fig(r->blocks_per_sm, x->buf[c + 5], 64);
    cell[c + 6] = fmt_fig(r->occupancy_pct, x->buf[c + 6], 64);
    cell[c + 7] = r->tensor_cores ? "yes" : "no";
    for (int i = c; i < c + 8; i++)
        len[i] = strlen(cell[i]);
}

static void name_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct krows *x = ctx;
    const kernels_row *r = &x->rows[i];
    const trace *tr = x->k->m->tr;
    cell[0] = trace_str(tr, r->name);
    len[0] = strtab_len(tr->strs, r->name);
    figures(x, r, 1, cell, len);
}

static void op_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct krows *x = ctx;
    const kernels_row *r = &x->rows[i];
    const model *m = x->k->m;
    if (r->op == MODEL_NONE) {
        cell[0] = "(no launch)";
        len[0] = strlen(cell[0]);
    } else {
        cell[0] = model_op_name(m, r->op);
        len[0] = strtab_len(m->tr->strs, m->ops[r->op].name);
    }
    cell[1] = trace_str(m->tr, r->name);
    len[1] = strtab_len(m->tr->strs, r->name);
    figures(x, r, 2, cell, len);
    cell[10] = r->agree & TRACE_KARG_GRID ? fmt_dim(r->grid, x->buf[10], 64) : "-";
    cell[11] = r->agree & TRACE_KARG_BLOCK ? fmt_dim(r->block, x->buf[11], 64) : "-";
    for (int c = 10; c < 12; c++)
        len[c] = strlen(cell[c]);
}

static const char *opt_pct(bool has, double v, char *buf, size_t size)
{
    if (!has)
        return "-";
    return fmt_fig(v, buf, size);
}

static void gpu_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct krows *x = ctx;
    const kernels_gpu *g = &x->k->gpus[i];
    snprintf(x->buf[0], 64, "GPU %d", g->device);
    cell[0] = x->buf[0];
    cell[1] = fmt_count(g->kernels, x->buf[1], 64);
    cell[2] = opt_pct(g->has_utilization, g->utilization_pct, x->buf[2], 64);
    cell[3] = opt_pct(g->has_sm_efficiency, g->sm_efficiency_pct, x->buf[3], 64);
    cell[4] = opt_pct(g->has_occupancy, g->occupancy_pct, x->buf[4], 64);
    cell[5] = opt_pct(g->has_tc, g->tc_kernel_pct, x->buf[5], 64);
    for (int c = 0; c < 6; c++)
        len[c] = strlen(cell[c]);
}

#define FIG_COLS                                                                              \
    { "Calls", 0 }, { "Total", 0 }, { "Mean", 0 }, { "Min", 0 }, { "Max", 0 },                \
        { "Blocks/SM", CLI_COL_DROP }, { "Occupancy%", CLI_COL_DROP }, { "TC", CLI_COL_DROP }

static const cli_col name_cols[] = { { "Kernel", CLI_COL_LEFT | CLI_COL_NAME }, FIG_COLS };
static const cli_col op_cols[] = { { "Operator", CLI_COL_LEFT | CLI_COL_NAME },
                                   { "Kernel", CLI_COL_LEFT | CLI_COL_NAME },
                                   FIG_COLS,
                                   { "Grid", CLI_COL_LEFT | CLI_COL_DROP },
                                   { "Block", CLI_COL_LEFT | CLI_COL_DROP } };
static const cli_col gpu_cols[] = { { "Device", CLI_COL_LEFT },
                                    { "Kernels", 0 },
                                    { "Utilization%", 0 },
                                    { "Est.SM efficiency%", 0 },
                                    { "Est.occupancy%", 0 },
                                    { "Tensor cores%", 0 } };

/* What the unscoped kernels of a scope of stacks cover: those of the
   model the report is on (k->m: the trace's, or a --step or --range
   window of it, whose scope_note says which). */
static const char *all_of(const kernels *k)
{
    return k->m->scope_note[0] ? k->m->scope_note : "the whole trace";
}

/* analyze_kernels_text; alone: the report is this section (--kernels),
   so that a model without kernels says so, where the full report leaves
   the section out. */
static void kernels_text(FILE *f, const kernels *kr, const kernels *skr, size_t top, bool alone)
{
    char a[32], b[32];
    /* the tables: the scope's kernels, or the model's without a scope of
       stacks; all: the model's beside the scope's, else NULL */
    const kernels *k = skr ? skr : kr, *all = skr ? kr : NULL;
    /* nothing to tabulate: the one place that says why */
    if (all && all->nrows && !k->nrows) {
        fprintf(f, "\nKernels: none launched inside the scope's stacks (%s ms of kernel time "
                   "in %s)\n", fmt_ms(all->kernel_ns, a, sizeof a), all_of(k));
        return;
    }
    if (!k->nrows) {
        if (alone)
            fprintf(f, "\nNo kernel in this trace (or this scope).\n");
        return;
    }
    struct krows x = { .k = k, .rows = k->rows };
    if (all)
        fprintf(f, "\nKernels (ms; TensorBoard's Kernel view: %zu of %zu kernel names; in the "
                   "scope: those launched inside its stacks, %s of %s ms kernel time in %s)\n",
                shown(k->nrows, top), k->nrows, fmt_ms(k->kernel_ns, a, sizeof a),
                fmt_ms(all->kernel_ns, b, sizeof b), all_of(k));
    else
        fprintf(f, "\nKernels (ms; TensorBoard's Kernel view: %zu of %zu kernel names)\n",
                shown(k->nrows, top), k->nrows);
    cli_table(f, name_cols, sizeof name_cols / sizeof name_cols[0], shown(k->nrows, top),
              name_row, &x);
    uint64_t nb = 0, no = 0;
    for (size_t i = 0; i < k->nrows; i++) {
        nb += k->rows[i].no_blocks_per_sm;
        no += k->rows[i].no_occupancy;
    }
    if (nb || no)
        fprintf(f, "counted 0 (missing or not a number in args): blocks per SM of %llu calls, "
                   "occupancy of %llu (--json: calls_without_* per row)\n",
                (unsigned long long)nb, (unsigned long long)no);
    x.rows = k->by_op;
    fprintf(f, "\nKernels by operator (ms; %zu of %zu rows; the operator that launched them)\n",
            shown(k->nby_op, top), k->nby_op);
    cli_table(f, op_cols, sizeof op_cols / sizeof op_cols[0], shown(k->nby_op, top), op_row, &x);
    if (k->no_launch)
        fprintf(f, "(no launch): %llu kernels without a launch (no correlation matched one)\n",
                (unsigned long long)k->no_launch);
    /* the GPU summary is the device's: under a scope of stacks, the model's */
    const kernels *g = kr;
    const char *of = skr ? "; the whole device, not the scope" : "";
    if (g->span_end > g->span_start)
        fprintf(f, "\nGPUs (TensorBoard's GPU summary, over the steps' span: %s ms%s)\n",
                fmt_ms(g->span_end - g->span_start, a, sizeof a), of);
    else
        fprintf(f, "\nGPUs (TensorBoard's GPU summary; no steps' span%s)\n", of);
    struct krows gx = { .k = g, .rows = g->rows };
    if (g->ngpus)
        cli_table(f, gpu_cols, sizeof gpu_cols / sizeof gpu_cols[0], g->ngpus, gpu_row, &gx);
    if (k->no_device)
        fprintf(f, "%llu kernels without args.device: in the tables above, in no GPU\n",
                (unsigned long long)k->no_device);
    if (k->negative_occupancy || k->nonpositive_bps)
        fprintf(f, "left out of the GPU figures: %llu kernels with a negative occupancy, "
                   "%llu with blocks per SM <= 0\n",
                (unsigned long long)k->negative_occupancy, (unsigned long long)k->nonpositive_bps);
    fprintf(f, "Tensor cores: %.2f%% of all kernel time; operators that can use them launched "
               "%.2f%% of the operators' kernel time\n",
            k->tc_used_pct, k->tc_eligible_pct);
}

void analyze_kernels_text(FILE *f, const kernels *kr, const kernels *skr, size_t top)
{
    kernels_text(f, kr, skr, top, false);
}

/* A double for JSON: shortest text that reads back the same. */
static void json_double(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    fprintf(f, "%.17g", v);
}

static void json_opt(FILE *f, const char *key, bool has, double v)
{
    fprintf(f, ",\"%s\":", key);
    if (has)
        json_double(f, v);
    else
        fputs("null", f);
}

static void row_json(FILE *f, const kernels *k, const kernels_row *r, bool with_op)
{
    const trace *tr = k->m->tr;
    fputs("{\"name\":", f);
    cli_json_string(f, trace_str(tr, r->name), strtab_len(tr->strs, r->name));
    if (with_op) {
        fputs(",\"op\":", f);
        if (r->op == MODEL_NONE) {
            fputs("null,\"op_category\":null", f);
        } else {
            const model_op *o = &k->m->ops[r->op];
            cli_json_string(f, model_op_name(k->m, r->op), strtab_len(tr->strs, o->name));
            fputs(",\"op_category\":", f);
            cli_json_string(f, trace_str(tr, o->cat), strtab_len(tr->strs, o->cat));
        }
    }
    fprintf(f, ",\"calls\":%llu,\"total_ns\":%lld,\"mean_ns\":", (unsigned long long)r->calls,
            (long long)r->total_ns);
    json_double(f, r->mean_ns);
    fprintf(f, ",\"min_ns\":%lld,\"max_ns\":%lld,\"blocks_per_sm\":", (long long)r->min_ns,
            (long long)r->max_ns);
    json_double(f, r->blocks_per_sm);
    fputs(",\"occupancy_pct\":", f);
    json_double(f, r->occupancy_pct);
    fprintf(f, ",\"tensor_cores\":%s", r->tensor_cores ? "true" : "false");
    /* what the row lacks: calls whose args did not give the figure (counted 0) */
    fprintf(f, ",\"calls_without_blocks_per_sm\":%llu,\"calls_without_occupancy\":%llu",
            (unsigned long long)r->no_blocks_per_sm, (unsigned long long)r->no_occupancy);
    if (with_op) {
        if (r->agree & TRACE_KARG_GRID)
            fprintf(f, ",\"grid\":[%d,%d,%d]", (int)r->grid[0], (int)r->grid[1], (int)r->grid[2]);
        if (r->agree & TRACE_KARG_BLOCK)
            fprintf(f, ",\"block\":[%d,%d,%d]", (int)r->block[0], (int)r->block[1],
                    (int)r->block[2]);
        if (r->agree & TRACE_KARG_REGS)
            fprintf(f, ",\"registers\":%lld", (long long)r->registers);
        if (r->agree & TRACE_KARG_SMEM)
            fprintf(f, ",\"shared_memory\":%lld", (long long)r->shared_memory);
    }
    fputc('}', f);
}

void analyze_kernels_json(FILE *f, const kernels *kr, const kernels *skr, size_t top)
{
    /* the rows: the scope's, or the model's; the GPU summary: the device's */
    const kernels *k = skr ? skr : kr, *dev = kr;
    fputs(",\"kernels\":[", f);
    for (size_t i = 0; k && i < shown(k->nrows, top); i++) {
        if (i)
            fputc(',', f);
        row_json(f, k, &k->rows[i], false);
    }
    fputs("],\"kernels_by_op\":[", f);
    for (size_t i = 0; k && i < shown(k->nby_op, top); i++) {
        if (i)
            fputc(',', f);
        row_json(f, k, &k->by_op[i], true);
    }
    fputs("],\"gpus\":[", f);
    for (size_t i = 0; dev && i < dev->ngpus; i++) {
        const kernels_gpu *g = &dev->gpus[i];
        fprintf(f, "%s{\"device\":%d,\"kernels\":%llu,\"kernel_ns\":%lld", i ? "," : "",
                g->device, (unsigned long long)g->kernels, (long long)g->kernel_ns);
        json_opt(f, "utilization_pct", g->has_utilization, g->utilization_pct);
        json_opt(f, "sm_efficiency_pct", g->has_sm_efficiency, g->sm_efficiency_pct);
        json_opt(f, "occupancy_pct", g->has_occupancy, g->occupancy_pct);
        json_opt(f, "tc_kernel_pct", g->has_tc, g->tc_kernel_pct);
        fputs(",\"compute_major\":", f);
        if (g->compute_major)
            fprintf(f, "%d", g->compute_major);
        else
            fputs("null", f);
        fputc('}', f);
    }
    fputc(']', f);
    if (!k)
        return;
    fprintf(f, ",\"kernels_info\":{\"events\":%llu,\"total_ns\":%lld,\"names\":%zu,"
               "\"by_op_rows\":%zu,\"without_launch\":%llu,\"without_device\":%llu,"
               "\"negative_occupancy\":%llu,\"nonpositive_blocks_per_sm\":%llu",
            (unsigned long long)k->kernel_events, (long long)k->kernel_ns, k->nrows, k->nby_op,
            (unsigned long long)k->no_launch, (unsigned long long)k->no_device,
            (unsigned long long)k->negative_occupancy, (unsigned long long)k->nonpositive_bps);
    if (skr) {
        /* all_*: the kernels of the model's scope, which all_of names:
           "trace", or the step's or range's scope_note */
        fprintf(f, ",\"scope\":\"stacks\",\"all_events\":%llu,\"all_total_ns\":%lld,"
                   "\"all_of\":",
                (unsigned long long)kr->kernel_events, (long long)kr->kernel_ns);
        const char *of = k->m->scope_note[0] ? k->m->scope_note : "trace";
        cli_json_string(f, of, strlen(of));
    }
    if (dev->span_end > dev->span_start)
        fprintf(f, ",\"span_start_ns\":%lld,\"span_end_ns\":%lld", (long long)dev->span_start,
                (long long)dev->span_end);
    else
        fputs(",\"span_start_ns\":null,\"span_end_ns\":null", f);
    json_opt(f, "tensor_core_pct", k->has_tc_used, k->tc_used_pct);
    json_opt(f, "tc_eligible_pct", true, k->tc_eligible_pct);
    fputc('}', f);
}

void analyze_kernels_only(FILE *f, const kernels *kr, const kernels *skr, size_t top,
                          bool json)
{
    const trace *tr = kr->m->tr;
    if (!json) {
        fputs("File:              ", f);
        cli_put_text(f, tr->path, strlen(tr->path));
        fputc('\n', f);
        kernels_text(f, kr, skr, top, true);
        return;
    }
    fputs("{\"file\":", f);
    cli_json_string(f, tr->path, strlen(tr->path));
    analyze_kernels_json(f, kr, skr, top);
    fputs("}\n", f);
}
