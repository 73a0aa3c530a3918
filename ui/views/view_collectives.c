/* The Collectives view: one row per NCCL call matched across the ranks of
   a job (core/analyses/collectives.h): its name, process group, sequence
   number (or #position), bytes, how many ranks, the rank that arrived last,
   the longest and mean wait of the others for it, and the transfer time
   after the last arrival. Enter on a call puts its ranks' waits in the
   footer, the longest first. Opened on one trace, it lists that trace's
   own calls (no one to wait for: waits 0). It reads the ranks' records, so
   a job of analysis files shows it too. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/collectives.h"
#include "core/analyses/ranks.h"
#include "core/base/fmt.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

enum { C_NAME, C_GROUP, C_SEQ, C_BYTES, C_RANKS, C_LAST, C_MAXW, C_MEANW, C_XFER };

static const col cols[] = {
    { C_NAME, "Collective", 16, MODEL_SORT_NAME, 0, false, true, true },
    { C_GROUP, "Group", 8, -1, 2, false, false, true },
    { C_SEQ, "Seq", 7, -1, 1, false, false, false },
    { C_BYTES, "Bytes", 14, MODEL_SORT_CALLS, 1, false, false, false },
    { C_RANKS, "Ranks", 6, -1, 3, false, false, false },
    { C_LAST, "Last rank", 9, -1, 0, false, false, false },
    { C_MAXW, "Max wait ms", 12, MODEL_SORT_SELF, 0, false, false, false },
    { C_MEANW, "Mean wait ms", 12, MODEL_SORT_AVG, 2, false, false, false },
    { C_XFER, "Transfer ms", 12, MODEL_SORT_TOTAL, 1, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_SELF, MODEL_SORT_AVG,
                                         MODEL_SORT_TOTAL, MODEL_SORT_CALLS, MODEL_SORT_N };

struct colls_state {
    collectives *own;  /* without a job: the one trace's calls, matched alone */
    const trace *own_tr;
    strtab *names;
    coll_call *calls;
};

static int cv_open(view *v)
{
    return view_state_new(v, VIEW_COLLECTIVES, sizeof(struct colls_state)) ? 0 : -1;
}

static void own_free(struct colls_state *s)
{
    collectives_free(s->own);
    strtab_free(s->names);
    free(s->calls);
    s->own = NULL;
    s->names = NULL;
    s->calls = NULL;
    s->own_tr = NULL;
}

static void cv_close(view *v)
{
    struct colls_state *s = view_state(v, VIEW_COLLECTIVES);
    if (s)
        own_free(s);
    free(s);
}

/* The matched calls: the job's, or the shown trace's own. NULL when out of
   memory. */
static const collectives *colls(view *v)
{
    if (v->ranks)
        return v->ranks->colls;
    struct colls_state *s = view_state(v, VIEW_COLLECTIVES);
    if (s->own && s->own_tr == v->m->tr)
        return s->own;
    own_free(s);
    size_t n;
    if (!(s->names = strtab_new()) ||
        collectives_of_trace(v->m->tr, INT64_MIN, INT64_MAX, s->names, &s->calls, &n) < 0)
        return NULL;
    int64_t rank = ranks_trace_rank(v->m->tr);
    coll_rank_in in = { rank >= 0 ? rank : 0, s->names, s->calls, n };
    s->own = collectives_match(&in, 1);
    s->own_tr = v->m->tr;
    return s->own;
}

static int64_t mean_wait(const coll_match *m)
{
    return m->mean_wait_ns;
}

static int cv_rebuild(view *v, view_rows *r)
{
    const collectives *c = colls(v);
    if (!c)
        return 0;
    view_keyed *kb = view_keyed_buf(v, c->ncalls);
    char (*names)[24] = malloc((c->ncalls ? c->ncalls : 1) * sizeof *names);
    if (!kb || !names) {
        free(names);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < c->ncalls; i++) {
        const coll_match *m = &c->calls[i];
        if (!scope_name_passes(v->scope, strtab_str(c->strs, m->name)))
            continue;
        /* by "name" is in the order of the calls */
        snprintf(names[n], sizeof names[n], "%020zu", i);
        kb[n].name = names[n];
        kb[n].id = (uint32_t)i;
        switch (v->sort) {
        case MODEL_SORT_AVG: kb[n].key = mean_wait(m); break;
        case MODEL_SORT_TOTAL: kb[n].key = m->transfer_ns; break;
        case MODEL_SORT_CALLS: kb[n].key = m->bytes; break;
        default: kb[n].key = m->max_wait_ns;
        }
        n++;
    }
    view_keyed_sort(kb, n, v->sort == MODEL_SORT_NAME, v->reverse);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = view_rows_push(r, kb[i].id);
    free(names);
    return rc;
}

static const char *cv_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    const collectives *c = colls(v);
    const coll_match *m = &c->calls[id];
    snprintf(buf, size, "call %u: %s on process group \"%s\"%s", id, strtab_str(c->strs, m->name),
             strtab_str(c->strs, m->pg), m->mixed ? " (its ranks disagree on its name or size)" : "");
    *len = strlen(buf);
    return buf;
}

static void cv_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    const collectives *cs = colls(v);
    const coll_match *m = &cs->calls[id];
    char t[64];
    switch (c->id) {
    case C_NAME:
        cols_cell(l, strtab_str(cs->strs, m->name), strtab_len(cs->strs, m->name), namew, false);
        break;
    case C_GROUP:
        cols_cell(l, strtab_str(cs->strs, m->pg), strtab_len(cs->strs, m->pg), c->width, false);
        break;
    case C_SEQ:
        if (m->seq >= 0)
            snprintf(t, sizeof t, "%lld", (long long)m->seq);
        else
            snprintf(t, sizeof t, "#%llu", (unsigned long long)m->index);
        cols_cell(l, t, strlen(t), c->width, true);
        break;
    case C_BYTES:
        if (m->bytes >= 0)
            view_cell_count(l, (uint64_t)m->bytes, c->width);
        else
            cols_cell(l, "-", 1, c->width, true);
        break;
    case C_RANKS: view_cell_count(l, m->n, c->width); break;
    case C_LAST:
        snprintf(t, sizeof t, "%lld", (long long)m->last_rank);
        cols_cell(l, t, strlen(t), c->width, true);
        break;
    case C_MAXW: view_cell_ms(l, m->max_wait_ns, c->width); break;
    case C_MEANW: view_cell_ms(l, mean_wait(m), c->width); break;
    case C_XFER: view_cell_ms(l, m->transfer_ns, c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static const char *cv_sort_name(view *v, int sort)
{
    (void)v;
    switch (sort) {
    case MODEL_SORT_NAME: return "order";
    case MODEL_SORT_SELF: return "max wait";
    case MODEL_SORT_AVG: return "mean wait";
    case MODEL_SORT_TOTAL: return "transfer";
    case MODEL_SORT_CALLS: return "bytes";
    default: return NULL;
    }
}

struct by_wait {
    const coll_entry *e;
    size_t n;
};

static int cmp_entry(const void *pa, const void *pb)
{
    const coll_entry *a = pa, *b = pb;
    if (a->wait_ns != b->wait_ns)
        return a->wait_ns > b->wait_ns ? -1 : 1;
    return (a->file > b->file) - (a->file < b->file);
}

/* The rank of input index i of the matching. */
static int64_t rank_of(view *v, uint32_t i)
{
    if (v->ranks)
        return v->ranks->files[i].rank;
    int64_t r = ranks_trace_rank(v->m->tr);
    return r >= 0 ? r : 0;
}

/* Enter: the call's ranks by wait, longest first, in the footer. */
static int cv_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    if (act != ACT_DRILL || view_nrows(v) == 0)
        return -1;
    const collectives *c = colls(v);
    uint32_t id = view_row(v, view_cursor(v));
    const coll_match *m = &c->calls[id];
    coll_entry *e = malloc((m->n ? m->n : 1) * sizeof *e);
    if (!e)
        return VIEW_QUIT;
    memcpy(e, &c->entries[m->first], m->n * sizeof *e);
    qsort(e, m->n, sizeof *e, cmp_entry);
    char buf[900], ms[64];
    int o = snprintf(buf, sizeof buf, "call %u %s: last rank %lld; waits:", id,
                     strtab_str(c->strs, m->name), (long long)m->last_rank);
    for (size_t i = 0; i < m->n && o > 0 && (size_t)o < sizeof buf - 40; i++)
        o += snprintf(buf + o, sizeof buf - (size_t)o, " rank %lld %s ms%s",
                      (long long)rank_of(v, e[i].file), fmt_ms(e[i].wait_ns, ms, sizeof ms),
                      i + 1 < m->n ? "," : "");
    free(e);
    view_status_set(v, "%s", buf);
    return VIEW_DRAW_FOOTER;
}

static void cv_tabinfo(view *v, char *buf, size_t size)
{
    const collectives *c = colls(v);
    if (!c || !c->ncalls) {
        snprintf(buf, size, "  no NCCL collectives%s", v->ranks ? "" : " (one trace)");
        return;
    }
    snprintf(buf, size, "  %zu calls, %zu group%s, matched %s%s", c->ncalls, c->npgs,
             c->npgs == 1 ? "" : "s", c->by_seq ? "by sequence" : "by order",
             v->ranks ? "" : " (one trace: no waits)");
}

const struct view_ops view_collectives_ops = {
    .name = "collectives",
    .alias = "colls",
    .label = "Collectives",
    .cols = cols,
    .namecap = 40,
    .sorts = sorts,
    .sort_name = cv_sort_name,
    .open = cv_open,
    .close = cv_close,
    .rebuild = cv_rebuild,
    .name_of = cv_name,
    .cell = cv_cell,
    .action = cv_action,
    .tabinfo = cv_tabinfo,
};
