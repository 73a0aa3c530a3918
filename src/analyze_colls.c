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
    cell[8] = fmt_ms(m->mean_wait_ns, x->buf[8], 64);
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

/* A call by its longest wait (qsort, C11: no context pointer). */
struct by_wait {
    int64_t wait_ns;
    uint32_t call;
};

static int cmp_wait(const void *pa, const void *pb)
{
    const struct by_wait *a = pa, *b = pb;
    if (a->wait_ns != b->wait_ns)
        return a->wait_ns > b->wait_ns ? -1 : 1;
    return (a->call > b->call) - (a->call < b->call);
}

struct kind_rows {
    const collectives *c;
    const coll_kind *k;
    char buf[8][64];
};

static void kind_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct kind_rows *x = ctx;
    const coll_kind *k = &x->k[i];
    cell[0] = strtab_str(x->c->strs, k->name);
    cell[1] = strtab_str(x->c->strs, k->pg);
    cell[2] = fmt_count(k->calls, x->buf[2], 64);
    cell[3] = bytes_text(k->bytes, x->buf[3], 64);
    cell[4] = fmt_ms(k->entries ? k->time_ns / (int64_t)k->entries : 0, x->buf[4], 64);
    cell[5] = fmt_ms(k->entries ? k->wait_ns / (int64_t)k->entries : 0, x->buf[5], 64);
    snprintf(x->buf[6], 64, "%lld (%llu of %llu)", (long long)k->last_rank,
             (unsigned long long)k->last_count, (unsigned long long)k->calls);
    cell[6] = x->buf[6];
    for (int col = 0; col < 7; col++)
        len[col] = strlen(cell[col]);
}

static const cli_col kind_cols[] = {
    {"Collective", CLI_COL_LEFT | CLI_COL_NAME}, {"Group", CLI_COL_LEFT | CLI_COL_NAME},
    {"Calls", 0}, {"Bytes", 0}, {"Time ms", 0}, {"Wait ms", 0}, {"Last most often", 0}};

void analyze_colls_text(FILE *f, const ranks_job *j, size_t top)
{
    const collectives *c = j->colls;
    if (!c || !c->ncalls)
        return;
    uint32_t *order = malloc(c->ncalls * sizeof *order);
    if (!order)
        return;
    struct by_wait *bw = malloc(c->ncalls * sizeof *bw);
    if (!bw) {
        free(order);
        return;
    }
    for (size_t i = 0; i < c->ncalls; i++)
        bw[i] = (struct by_wait){ c->calls[i].max_wait_ns, (uint32_t)i };
    qsort(bw, c->ncalls, sizeof *bw, cmp_wait);
    for (size_t i = 0; i < c->ncalls; i++)
        order[i] = bw[i].call;
    free(bw);
    size_t nshow = top == 0 || top > c->ncalls ? c->ncalls : top;
    const char *how = c->by_seq && c->by_order ? "by sequence number, else by order of calls"
                      : c->by_seq              ? "by sequence number"
                                               : "by order of calls (no sequence numbers)";
    fprintf(f, "\nCollectives: %zu calls in %zu process group%s, matched across ranks %s\n",
            c->ncalls, c->npgs, c->npgs == 1 ? "" : "s", how);
    size_t nk;
    coll_kind *k = collectives_kinds(c, &nk);
    if (k) {
        fprintf(f, "By collective (Time, Wait: mean per rank and call)\n");
        struct kind_rows kr = { .c = c, .k = k };
        cli_table(f, kind_cols, 7, nk, kind_row, &kr);
        free(k);
    }
    fprintf(f, "\nTop %zu by the longest wait (wait = last arrival - own arrival; transfer = last "
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
