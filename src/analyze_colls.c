/* The job report's collectives: NCCL calls matched across ranks
   (core/analyses/collectives.h), as a text table and as JSON. */
#include "config.h"

#include "src/analyze_colls.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "src/cli.h"
#include "src/cli_table.h"

struct call_rows {
    const ranks_job *j;
    const uint32_t *order;
    char buf[11][64];
};

static const char *bytes_text(int64_t b, char *buf, size_t size)
{
    return b < 0 ? "-" : fmt_count((uint64_t)b, buf, size);
}

static void call_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct call_rows *x = ctx;
    const collectives *c = x->j->colls;
    size_t k = x->order[i];
    const coll_match *m = &c->calls[k];
    snprintf(x->buf[0], 64, "%zu", k);
    cell[0] = x->buf[0];
    cell[1] = strtab_str(c->strs, m->name);
    cell[2] = strtab_str(c->strs, m->pg);
    if (m->seq >= 0)
        snprintf(x->buf[3], 64, "%lld", (long long)m->seq);
    else
        snprintf(x->buf[3], 64, "#%llu", (unsigned long long)m->index);
    cell[3] = x->buf[3];
    cell[4] = bytes_text(m->bytes, x->buf[4], 64);
    snprintf(x->buf[5], 64, "%zu", m->n);
    cell[5] = x->buf[5];
    snprintf(x->buf[6], 64, "%lld", (long long)m->last_rank);
    cell[6] = x->buf[6];
    cell[7] = fmt_ms(m->max_wait_ns, x->buf[7], 64);
    cell[8] = fmt_ms(m->n ? m->sum_wait_ns / (int64_t)m->n : 0, x->buf[8], 64);
    cell[9] = fmt_ms(m->transfer_ns, x->buf[9], 64);
    cell[10] = m->mixed ? "!" : "";
    for (int col = 0; col < 11; col++)
        len[col] = strlen(cell[col]);
}

static const cli_col call_cols[] = {
    {"Call", 0}, {"Name", CLI_COL_LEFT | CLI_COL_NAME}, {"Group", CLI_COL_LEFT | CLI_COL_NAME},
    {"Seq", 0}, {"Bytes", 0}, {"Ranks", 0}, {"Last rank", 0}, {"Max wait ms", 0},
    {"Mean wait ms", 0}, {"Transfer ms", 0}, {"", CLI_COL_LEFT | CLI_COL_GLUE}};

struct wait_rows {
    const ranks_job *j;
    char buf[4][64];
};

static void wait_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct wait_rows *x = ctx;
    const collectives *c = x->j->colls;
    snprintf(x->buf[0], 64, "%lld", (long long)x->j->files[i].rank);
    cell[0] = x->buf[0];
    cell[1] = fmt_count(c->count[i], x->buf[1], 64);
    cell[2] = fmt_ms(c->wait_ns[i], x->buf[2], 64);
    cell[3] = fmt_ms(c->count[i] ? c->wait_ns[i] / (int64_t)c->count[i] : 0, x->buf[3], 64);
    for (int col = 0; col < 4; col++)
        len[col] = strlen(cell[col]);
}

static const cli_col wait_cols[] = {
    {"Rank", 0}, {"Calls", 0}, {"Wait ms", 0}, {"Mean wait ms", 0}};

struct sort_ctx {
    const coll_match *calls;
};

static int cmp_wait(const void *pa, const void *pb, void *arg)
{
    const coll_match *v = ((const struct sort_ctx *)arg)->calls;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (v[a].max_wait_ns != v[b].max_wait_ns)
        return v[a].max_wait_ns > v[b].max_wait_ns ? -1 : 1;
    return (a > b) - (a < b);
}

void analyze_colls_text(FILE *f, const ranks_job *j, size_t top)
{
    const collectives *c = j->colls;
    if (!c || !c->ncalls)
        return;
    uint32_t *order = malloc(c->ncalls * sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < c->ncalls; i++)
        order[i] = (uint32_t)i;
    struct sort_ctx sc = { c->calls };
    qsort_r(order, c->ncalls, sizeof *order, cmp_wait, &sc);
    size_t nshow = top == 0 || top > c->ncalls ? c->ncalls : top;
    const char *how = c->by_seq && c->by_order ? "by sequence number, else by order of calls"
                      : c->by_seq              ? "by sequence number"
                                               : "by order of calls (no sequence numbers)";
    fprintf(f, "\nCollectives: %zu calls in %zu process group%s, matched across ranks %s\n",
            c->ncalls, c->npgs, c->npgs == 1 ? "" : "s", how);
    fprintf(f, "Top %zu by the longest wait (wait = last arrival - own arrival; transfer = last "
               "end - last arrival%s)\n",
            nshow, c->ncalls && c->dup ? "; some calls given twice by one rank were dropped" : "");
    struct call_rows x = { .j = j, .order = order };
    bool mixed = false;
    for (size_t i = 0; i < c->ncalls; i++)
        mixed |= c->calls[i].mixed;
    cli_table(f, call_cols, mixed ? 11 : 10, nshow, call_row, &x);
    if (mixed)
        fprintf(f, "! the ranks of that call disagree on its name or size: matched wrongly?\n");
    fprintf(f, "\nCollective wait per rank (summed over the calls it is in)\n");
    struct wait_rows w = { .j = j };
    cli_table(f, wait_cols, 4, j->nloaded, wait_row, &w);
    free(order);
}

void analyze_colls_json(FILE *f, const ranks_job *j)
{
    const collectives *c = j->colls;
    fputs(",\"collectives\":[", f);
    for (size_t k = 0; c && k < c->ncalls; k++) {
        const coll_match *m = &c->calls[k];
        fputs(k ? ",{\"name\":" : "{\"name\":", f);
        cli_json_string(f, strtab_str(c->strs, m->name), strtab_len(c->strs, m->name));
        fputs(",\"process_group\":", f);
        cli_json_string(f, strtab_str(c->strs, m->pg), strtab_len(c->strs, m->pg));
        if (m->seq >= 0)
            fprintf(f, ",\"seq\":%lld", (long long)m->seq);
        else
            fputs(",\"seq\":null", f);
        fprintf(f, ",\"index\":%llu", (unsigned long long)m->index);
        if (m->bytes >= 0)
            fprintf(f, ",\"bytes\":%lld", (long long)m->bytes);
        else
            fputs(",\"bytes\":null", f);
        fprintf(f, ",\"mixed\":%s,\"last_rank\":%lld,\"last_arrival_ns\":%lld,"
                   "\"transfer_ns\":%lld,\"max_wait_ns\":%lld,\"ranks\":[",
                m->mixed ? "true" : "false", (long long)m->last_rank,
                (long long)m->last_arrival_ns, (long long)m->transfer_ns,
                (long long)m->max_wait_ns);
        for (size_t i = 0; i < m->n; i++) {
            const coll_entry *e = &c->entries[m->first + i];
            fprintf(f, "%s{\"rank\":%lld,\"arrival_ns\":%lld,\"wait_ns\":%lld,"
                       "\"duration_ns\":%lld}",
                    i ? "," : "", (long long)j->files[e->file].rank, (long long)e->arrival_ns,
                    (long long)e->wait_ns, (long long)(e->end_ns - e->arrival_ns));
        }
        fputs("]}", f);
    }
    fputs("],\"collective_wait\":[", f);
    for (size_t i = 0; c && i < j->nloaded; i++)
        fprintf(f, "%s{\"rank\":%lld,\"wait_ns\":%lld,\"collectives\":%llu}", i ? "," : "",
                (long long)j->files[i].rank, (long long)c->wait_ns[i],
                (unsigned long long)c->count[i]);
    fputc(']', f);
}
