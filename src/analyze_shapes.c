/* analyze's operators by input shape and nn.Module sections (see
   analyze_shapes.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "src/analyze_shapes.h"
#include "src/cli.h"
#include "src/cli_table.h"

int analyze_shapes_build(analyze_shapes *a, const model *whole, const unsigned char *keep,
                         enum model_sort sort, t2p_error *err)
{
    memset(a, 0, sizeof *a);
    a->sort = sort;
    if ((a->tree = tbtree_build(whole, err)) && (a->ops = opshape_build(a->tree, keep, err)) &&
        (a->mods = modules_build(a->tree, keep, err)))
        return 0;
    return -1;
}

void analyze_shapes_done(analyze_shapes *a)
{
    modules_free(a->mods);
    opshape_free(a->ops);
    tbtree_free(a->tree);
    memset(a, 0, sizeof *a);
}

static size_t shown(const analyze_shapes *a, size_t top)
{
    return top == 0 || top > a->ops->nrows ? a->ops->nrows : top;
}

static void json_pct(FILE *f, double x)
{
    fprintf(f, "%.4f", x);
}

static void json_module(FILE *f, const modules *mo, const trace *tr, uint32_t e)
{
    const modules_entry *en = &mo->entries[e];
    const modules_stats *s = &mo->stats[en->stats];
    size_t n;
    const char *name = modules_name(mo, tr, en->stats, &n);
    fputs("{\"name\":", f);
    cli_json_string(f, name, n);
    fprintf(f, ",\"id\":%lld,\"occurrences\":%llu,\"operators\":%llu,\"host_total_ns\":%lld,"
               "\"host_self_ns\":%lld,\"device_total_ns\":%lld,\"device_self_ns\":%lld,"
               "\"avg_ns\":%.1f,\"children\":[",
            (long long)s->module_id, (unsigned long long)s->occurrences,
            (unsigned long long)s->operators, (long long)s->host_total_ns,
            (long long)s->host_self_ns, (long long)s->dev_total_ns, (long long)s->dev_self_ns,
            modules_avg_ns(s));
    for (uint32_t c = en->nchildren ? e + 1 : MODULES_NONE; c != MODULES_NONE;
         c = mo->entries[c].next_sibling) {
        if (c != e + 1)
            fputc(',', f);
        json_module(f, mo, tr, c);
    }
    fputs("]}", f);
}

void analyze_shapes_json(FILE *f, const analyze_shapes *a, const trace *tr, size_t top)
{
    const opshape *s = a->ops;
    uint32_t *idx = malloc((s->nrows ? s->nrows : 1) * sizeof *idx);
    fputs(",\"ops_by_shape\":[", f);
    if (idx) {
        opshape_sort(s, tr, a->sort, false, idx);
        for (size_t i = 0, n = shown(a, top); i < n; i++) {
            const opshape_row *r = &s->rows[idx[i]];
            size_t len;
            const char *shape = opshape_shape(s, tr, idx[i], &len);
            fputs(i ? ",{\"name\":" : "{\"name\":", f);
            cli_json_string(f, trace_str(tr, r->name), strtab_len(tr->strs, r->name));
            fputs(",\"input_shape\":", f);
            cli_json_string(f, shape, len);
            fprintf(f, ",\"calls\":%llu,\"self_ns\":%lld,\"total_ns\":%lld,\"device_self_ns\":%lld,"
                       "\"device_total_ns\":%lld,\"tc_eligible\":%s,\"tc_self_pct\":",
                    (unsigned long long)r->calls, (long long)r->self_ns, (long long)r->total_ns,
                    (long long)r->dev_self_ns, (long long)r->dev_total_ns,
                    r->tc_eligible ? "true" : "false");
            json_pct(f, opshape_tc_self_pct(r));
            fputs(",\"tc_total_pct\":", f);
            json_pct(f, opshape_tc_total_pct(r));
            fputc('}', f);
        }
        free(idx);
    }
    fputs("],\"modules\":[", f);
    const modules *mo = a->mods;
    for (uint32_t e = mo->nentries ? 0 : MODULES_NONE; e != MODULES_NONE;
         e = mo->entries[e].next_sibling) {
        if (e)
            fputc(',', f);
        json_module(f, mo, tr, e);
    }
    fputc(']', f);
}

static void backward_note(FILE *f, const analyze_shapes *a)
{
    if (a->tree->backward_roots)
        fprintf(f, "Note: %llu backward roots regrouped under their modules by the fwdbwd flows, "
                   "as TensorBoard did; the %llu it could not place are left out\n",
                (unsigned long long)a->tree->backward_roots,
                (unsigned long long)a->tree->backward_dropped);
}

struct shape_rows {
    const analyze_shapes *a;
    const trace *tr;
    const uint32_t *idx;
    char buf[10][64];
};

/* the shape last: a long one then runs past the line's end, not into the figures */
static const cli_col shape_cols[] = {
    {"Name", CLI_COL_LEFT | CLI_COL_NAME}, {"Calls", 0}, {"Self ms", 0}, {"Total ms", 0},
    {"Dev self ms", 0}, {"Dev total ms", 0}, {"TC eligible", 0}, {"TC self %", 0},
    {"TC total %", 0}, {"Input shape", CLI_COL_LEFT | CLI_COL_NAME}};

static void shape_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct shape_rows *x = ctx;
    const opshape *s = x->a->ops;
    const opshape_row *r = &s->rows[x->idx[i]];
    cell[0] = trace_str(x->tr, r->name);
    len[0] = strtab_len(x->tr->strs, r->name);
    cell[1] = fmt_count(r->calls, x->buf[1], 64);
    cell[2] = fmt_ms(r->self_ns, x->buf[2], 64);
    cell[3] = fmt_ms(r->total_ns, x->buf[3], 64);
    cell[4] = fmt_ms(r->dev_self_ns, x->buf[4], 64);
    cell[5] = fmt_ms(r->dev_total_ns, x->buf[5], 64);
    cell[6] = r->tc_eligible ? "yes" : "no";
    snprintf(x->buf[7], 64, "%.2f", opshape_tc_self_pct(r));
    snprintf(x->buf[8], 64, "%.2f", opshape_tc_total_pct(r));
    cell[7] = x->buf[7];
    cell[8] = x->buf[8];
    for (int c = 1; c < 9; c++)
        len[c] = strlen(cell[c]);
    cell[9] = opshape_shape(s, x->tr, x->idx[i], &len[9]);
}

void analyze_shapes_text(FILE *f, const analyze_shapes *a, const trace *tr, size_t top)
{
    const opshape *s = a->ops;
    uint32_t *idx = malloc((s->nrows ? s->nrows : 1) * sizeof *idx);
    if (!idx)
        return;
    opshape_sort(s, tr, a->sort, false, idx);
    size_t n = shown(a, top);
    fprintf(f, "\nOperators by input shape (TensorBoard's tree; %zu of %zu rows)\n", n, s->nrows);
    struct shape_rows x = { .a = a, .tr = tr, .idx = idx };
    cli_table(f, shape_cols, 10, n, shape_row, &x);
    if (a->tree->dropped)
        fprintf(f, "%llu operators left out: they overlap the end of an enclosing one\n",
                (unsigned long long)a->tree->dropped);
    free(idx);
    backward_note(f, a);
}

struct mod_rows {
    const analyze_shapes *a;
    const trace *tr;
    char name[512];
    char buf[8][64];
};

static const cli_col mod_cols[] = {
    {"Module", CLI_COL_LEFT | CLI_COL_NAME}, {"Occurrences", 0}, {"Operators", 0},
    {"Host self ms", 0}, {"Host total ms", 0}, {"Dev self ms", 0}, {"Dev total ms", 0}};

static void mod_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct mod_rows *x = ctx;
    const modules *mo = x->a->mods;
    const modules_entry *en = &mo->entries[i];
    const modules_stats *s = &mo->stats[en->stats];
    size_t n;
    const char *name = modules_name(mo, x->tr, en->stats, &n);
    size_t ind = en->depth * 2 < 64 ? en->depth * 2 : 64;
    memset(x->name, ' ', ind);
    if (n > sizeof x->name - ind)
        n = sizeof x->name - ind;
    memcpy(x->name + ind, name, n);
    cell[0] = x->name;
    len[0] = ind + n;
    cell[1] = fmt_count(s->occurrences, x->buf[1], 64);
    cell[2] = fmt_count(s->operators, x->buf[2], 64);
    cell[3] = fmt_ms(s->host_self_ns, x->buf[3], 64);
    cell[4] = fmt_ms(s->host_total_ns, x->buf[4], 64);
    cell[5] = fmt_ms(s->dev_self_ns, x->buf[5], 64);
    cell[6] = fmt_ms(s->dev_total_ns, x->buf[6], 64);
    for (int c = 1; c < 7; c++)
        len[c] = strlen(cell[c]);
}

void analyze_modules_text(FILE *f, const analyze_shapes *a, const trace *tr)
{
    const modules *mo = a->mods;
    fprintf(f, "\nModules (nn.Module calls by module; %zu distinct)\n", mo->nstats);
    if (!mo->nentries) {
        fputs("No nn.Module events (python_function with \"Python module id\": "
              "record with with_stack=True)\n", f);
        return;
    }
    struct mod_rows x = { .a = a, .tr = tr };
    cli_table(f, mod_cols, 7, mo->nentries, mod_row, &x);
    backward_note(f, a);
}
