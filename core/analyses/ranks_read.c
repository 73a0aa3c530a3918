/* An analysis file read back into a rank's record (the reduce of a large
   job, issue 28): `analyze --json -top 0 TRACE` wrote it; this fills the
   ranks_file that a trace's model fills (ranks_load.c), streaming the JSON
   through yajl and keeping only what the job report reads:
     "analysis_format" (first), "file", "truncated", "unique_ops", "rank",
     "rank_from", "world_size", "rank_figures" {... "roles" {...}, "step"},
     "ops" [{name, full_name, category, count, self_ns, total_ns,
     device_self_ns, device_total_ns}], "collectives" [{name,
     process_group, seq, bytes, arrival_ns, end_ns}].
   Everything else (threads, streams, memory) is skipped without being
   stored. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "core/analyses/ranks_read.h"
#include "core/analyses/steps.h"
#include "core/base/vec.h"

enum ctx { C_NONE, C_FIG, C_ROLES, C_OP, C_COLL };

struct rd {
    ranks_file *f;
    int depth;
    enum ctx ctx;
    char key1[32]; /* the current top-level key */
    char key[32];  /* the current key inside the object read */
    bool first_key_seen, has_format, has_fig, nomem, bad;
    char bad_reason[200];
    int64_t format;
    int64_t unique_ops;
    int64_t rank;
    bool rank_from_trace;
    size_t capops, capcolls;
    ranks_fop op;
    uint32_t op_full; /* full_name, STRTAB_NONE */
    coll_call coll;
};

static void set_key(char *dst, const unsigned char *k, size_t n)
{
    /* a key longer than the ones read is none of them */
    if (n >= 32)
        n = 0;
    memcpy(dst, k, n);
    dst[n] = '\0';
}

static bool is(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

static bool to_i64(const char *s, size_t n, int64_t *v)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (errno || *end) {
        /* a float (skew) or out of range: not one of ours */
        return false;
    }
    *v = x;
    return true;
}

static uint32_t intern(struct rd *r, const char *s, size_t n)
{
    uint32_t id = strtab_intern(r->f->names, s, n);
    if (id == STRTAB_NONE)
        r->nomem = true;
    return id;
}

/* A scalar: s[0..n), a string when is_str, NULL for null. */
static int on_value(struct rd *r, const char *s, size_t n, bool is_str)
{
    ranks_file *f = r->f;
    ranks_stat *st = &f->st;
    int64_t v = 0;
    bool num = s && !is_str && to_i64(s, n, &v);
    if (r->depth == 1) {
        const char *k = r->key1;
        if (is(k, "analysis_format")) {
            r->has_format = num;
            r->format = v;
        } else if (is(k, "file") && is_str) {
            free(f->trace_path);
            if (!(f->trace_path = strndup(s, n)))
                r->nomem = true;
        } else if (is(k, "truncated")) {
            f->truncated = s && n == 4 && !memcmp(s, "true", 4);
        } else if (is(k, "truncated_reason") && is_str) {
            snprintf(f->truncated_reason, sizeof f->truncated_reason, "%.*s", (int)n, s);
        } else if (is(k, "unique_ops") && num) {
            r->unique_ops = v;
        } else if (is(k, "rank")) {
            r->rank = num && v >= 0 ? v : -1;
        } else if (is(k, "rank_from") && is_str) {
            r->rank_from_trace = n == 5 && !memcmp(s, "trace", 5);
        } else if (is(k, "world_size") && num) {
            f->world_size = v;
        }
        return 1;
    }
    const char *k = r->key;
    switch (r->ctx) {
    case C_FIG:
        if (r->depth != 2)
            break;
        if (is(k, "step") && is_str)
            snprintf(f->step, sizeof f->step, "%.*s", (int)n, s);
        else if (!num)
            break; /* null: a figure the rank does not have, 0 */
        else if (is(k, "events")) st->events = (uint64_t)v;
        else if (is(k, "complete_events")) st->complete_events = (uint64_t)v;
        else if (is(k, "window_ns")) st->window_ns = v;
        else if (is(k, "busy_ns")) st->busy_ns = v;
        else if (is(k, "cpu_ns")) st->cpu_ns = v;
        else if (is(k, "gpu_events")) st->gpu_events = (uint64_t)v;
        else if (is(k, "gpu_busy_ns")) st->gpu_busy_ns = v;
        else if (is(k, "steps")) st->steps = (uint64_t)v;
        else if (is(k, "step_mean_ns")) st->step_mean_ns = v;
        else if (is(k, "step_max_ns")) st->step_max_ns = v;
        else if (is(k, "communication_ns")) st->communication_ns = v;
        else if (is(k, "overlap_ns")) st->overlap_ns = v;
        break;
    case C_ROLES:
        if (r->depth != 3 || !num)
            break;
        for (int x = 0; x < STEPS_NROLES; x++) {
            char want[48];
            snprintf(want, sizeof want, "%s_ns", steps_role_key(x));
            if (is(k, want))
                st->role_ns[x] = v;
        }
        break;
    case C_OP:
        if (r->depth != 3)
            break;
        if (is_str && is(k, "name")) r->op.name = intern(r, s, n);
        else if (is_str && is(k, "full_name")) r->op_full = intern(r, s, n);
        else if (is_str && is(k, "category")) r->op.cat = intern(r, s, n);
        else if (!num) break;
        else if (is(k, "count")) r->op.calls = (uint64_t)v;
        else if (is(k, "self_ns")) r->op.self_ns = v;
        else if (is(k, "total_ns")) r->op.total_ns = v;
        else if (is(k, "device_self_ns")) r->op.dev_self_ns = v;
        else if (is(k, "device_total_ns")) r->op.dev_total_ns = v;
        break;
    case C_COLL:
        if (r->depth != 3)
            break;
        if (is_str && is(k, "name")) r->coll.name = intern(r, s, n);
        else if (is_str && is(k, "process_group")) r->coll.pg = intern(r, s, n);
        else if (!num) break;
        else if (is(k, "seq")) r->coll.seq = v;
        else if (is(k, "bytes")) r->coll.bytes = v;
        else if (is(k, "arrival_ns")) r->coll.arrival_ns = v;
        else if (is(k, "end_ns")) r->coll.end_ns = v;
        break;
    default:
        break;
    }
    return 1;
}

static int cb_null(void *c) { return on_value(c, NULL, 0, false); }
static int cb_bool(void *c, int b) { return on_value(c, b ? "true" : "false", b ? 4 : 5, false); }
static int cb_number(void *c, const char *s, size_t n) { return on_value(c, s, n, false); }
static int cb_string(void *c, const unsigned char *s, size_t n)
{
    return on_value(c, (const char *)s, n, true);
}

static int cb_start_map(void *c)
{
    struct rd *r = c;
    r->depth++;
    if (r->depth == 2 && is(r->key1, "rank_figures")) {
        r->ctx = C_FIG;
        r->has_fig = true;
    } else if (r->depth == 3 && r->ctx == C_FIG && is(r->key, "roles")) {
        r->ctx = C_ROLES;
    } else if (r->depth == 3 && r->ctx == C_NONE && is(r->key1, "ops")) {
        r->ctx = C_OP;
        r->op = (ranks_fop){ .name = STRTAB_NONE, .cat = STRTAB_NONE };
        r->op_full = STRTAB_NONE;
    } else if (r->depth == 3 && r->ctx == C_NONE && is(r->key1, "collectives")) {
        r->ctx = C_COLL;
        r->coll = (coll_call){ .name = STRTAB_NONE, .pg = STRTAB_NONE, .seq = -1, .bytes = -1 };
    }
    return 1;
}

static int push_op(struct rd *r)
{
    ranks_file *f = r->f;
    if (r->op_full != STRTAB_NONE)
        r->op.name = r->op_full; /* --short-names: the full name merges across ranks */
    if (r->op.name == STRTAB_NONE || r->op.cat == STRTAB_NONE) {
        r->bad = true;
        snprintf(r->bad_reason, sizeof r->bad_reason, "operator %zu has no name or category",
                 f->nops + 1);
        return 0;
    }
    if (vec_grow_heap((void **)&f->ops, &r->capops, f->nops, sizeof *f->ops) < 0) {
        r->nomem = true;
        return 0;
    }
    f->ops[f->nops++] = r->op;
    return 1;
}

static int push_coll(struct rd *r)
{
    ranks_file *f = r->f;
    if (r->coll.name == STRTAB_NONE)
        r->coll.name = intern(r, "", 0);
    if (r->coll.pg == STRTAB_NONE)
        r->coll.pg = intern(r, "", 0);
    if (r->nomem)
        return 0;
    if (vec_grow_heap((void **)&f->colls, &r->capcolls, f->ncolls, sizeof *f->colls) < 0) {
        r->nomem = true;
        return 0;
    }
    f->colls[f->ncolls++] = r->coll;
    return 1;
}

static int cb_end_map(void *c)
{
    struct rd *r = c;
    int ok = 1;
    if (r->ctx == C_OP && r->depth == 3) {
        ok = push_op(r);
        r->ctx = C_NONE;
    } else if (r->ctx == C_COLL && r->depth == 3) {
        ok = push_coll(r);
        r->ctx = C_NONE;
    } else if (r->ctx == C_ROLES && r->depth == 3) {
        r->ctx = C_FIG;
    } else if (r->ctx == C_FIG && r->depth == 2) {
        r->ctx = C_NONE;
    }
    r->depth--;
    return ok && !r->nomem;
}

static int cb_start_array(void *c)
{
    ((struct rd *)c)->depth++;
    return 1;
}

static int cb_end_array(void *c)
{
    ((struct rd *)c)->depth--;
    return 1;
}

static int cb_key(void *c, const unsigned char *k, size_t n)
{
    struct rd *r = c;
    if (r->depth == 1) {
        set_key(r->key1, k, n);
        if (!r->first_key_seen && !is(r->key1, "analysis_format")) {
            r->bad = true;
            snprintf(r->bad_reason, sizeof r->bad_reason,
                     "not an analysis file: its first key is not \"analysis_format\"");
            return 0;
        }
        r->first_key_seen = true;
    } else {
        set_key(r->key, k, n);
    }
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string, cb_start_map, cb_key, cb_end_map,
    cb_start_array, cb_end_array
};

int ranks_read_analysis(ranks_file *f)
{
    struct rd r = { .f = f, .rank = -1, .unique_ops = -1 };
    unsigned char buf[1 << 16];
    int rc = -1;
    f->analysis = true;
    f->trace_rank = -1;
    gzFile gz = gzopen(f->path, "rb"); /* reads a plain file as it is */
    if (!gz) {
        error_set_errno(&f->err, T2P_ERR_IO, f->path, -1, errno, "cannot open");
        return -1;
    }
    yajl_handle h = yajl_alloc(&callbacks, NULL, &r);
    f->names = strtab_new();
    if (!h || !f->names) {
        error_set(&f->err, T2P_ERR_NOMEM, f->path, -1, "out of memory reading it");
        goto out;
    }
    uint64_t off = 0;
    yajl_status s = yajl_status_ok;
    for (;;) {
        int n = gzread(gz, buf, sizeof buf);
        if (n < 0) {
            int e;
            const char *msg = gzerror(gz, &e);
            error_set(&f->err, T2P_ERR_TRUNCATED, f->path, (int64_t)off,
                      "analysis file cut short or damaged: %s", msg);
            goto out;
        }
        s = n ? yajl_parse(h, buf, (size_t)n) : yajl_complete_parse(h);
        if (s != yajl_status_ok)
            break;
        if (!n)
            break;
        off += (uint64_t)n;
    }
    if (r.nomem) {
        error_set(&f->err, T2P_ERR_NOMEM, f->path, -1, "out of memory reading it");
        goto out;
    }
    if (r.bad) {
        error_set(&f->err, T2P_ERR_NOT_TRACE, f->path, -1, "%s", r.bad_reason);
        goto out;
    }
    if (s != yajl_status_ok) {
        /* a premature end is the usual damage: a map killed while writing */
        bool cut = r.depth > 0;
        error_set(&f->err, cut ? T2P_ERR_TRUNCATED : T2P_ERR_JSON, f->path,
                  (int64_t)(off + yajl_get_bytes_consumed(h)),
                  cut ? "analysis file cut short (%d levels left open): make it again"
                      : "analysis file is not valid JSON",
                  r.depth);
        goto out;
    }
    if (!r.has_format || r.format != RANKS_ANALYSIS_FORMAT) {
        error_set(&f->err, T2P_ERR_NOT_TRACE, f->path, -1,
                  "analysis file of format %lld; this torch2pprof reads format %d: make it "
                  "again with this version's analyze --json -top 0",
                  (long long)r.format, RANKS_ANALYSIS_FORMAT);
        goto out;
    }
    if (!r.has_fig) {
        error_set(&f->err, T2P_ERR_NOT_TRACE, f->path, -1,
                  "analysis file without \"rank_figures\": made by analyze --json of one "
                  "trace with --steps, --base or a job?");
        goto out;
    }
    if (r.unique_ops >= 0 && (uint64_t)r.unique_ops != f->nops) {
        error_set(&f->err, T2P_ERR_MISSING, f->path, -1,
                  "analysis file lists %zu of its %lld operators: make it with -top 0",
                  f->nops, (long long)r.unique_ops);
        goto out;
    }
    f->trace_rank = r.rank_from_trace ? r.rank : -1;
    rc = 0;
out:
    if (h)
        yajl_free(h);
    gzclose(gz);
    return rc;
}
