/* Time ranges as a scope (see core/analyses/range.h). */
#include "config.h"

#include "core/analyses/range.h"

#include "core/analyses/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest offset typed: far past any trace (the loader keeps times in
   [-2^61, 2^62]) yet sums of two stay in int64. */
#define RANGE_MAX_NS ((int64_t)1 << 62)

static const struct {
    const char *name;
    int64_t ns;
} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };

/* One end: "1.25ms" into *ns (exact: the digits past a nanosecond are
   dropped). 0, or -1 with err set. */
static int parse_time(const char *p, size_t n, const char *text, int64_t *ns, t2p_error *err)
{
    size_t i = 0;
    int64_t whole = 0, frac = 0, fscale = 1;
    bool digits = false;
    if (n && (p[0] == '-' || p[0] == '+')) {
        if (p[0] == '-') {
            error_set(err, T2P_ERR_ARG, NULL, -1, "bad range '%s': times are offsets from the "
                      "trace's start, never negative", text);
            return -1;
        }
        i++;
    }
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits = true) {
        if (whole > RANGE_MAX_NS / 10)
            goto big;
        whole = whole * 10 + (p[i] - '0');
    }
    if (i < n && p[i] == '.') {
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits = true)
            if (fscale < 1000000000) { /* past a nanosecond: dropped below */
                frac = frac * 10 + (p[i] - '0');
                fscale *= 10;
            }
    }
    if (!digits) {
        error_set(err, T2P_ERR_ARG, NULL, -1, "bad range '%s': expected START:END, each a "
                  "number with a unit (ns, us, ms, s), like 1.2s:1.5s or 120ms:", text);
        return -1;
    }
    const char *u = p + i;
    size_t ul = n - i;
    if (ul == 0) {
        error_set(err, T2P_ERR_ARG, NULL, -1, "bad range '%s': '%.*s' needs a unit (ns, us, "
                  "ms or s)", text, (int)n, p);
        return -1;
    }
    for (size_t k = 0; k < sizeof units / sizeof *units; k++) {
        if (strlen(units[k].name) != ul || memcmp(u, units[k].name, ul) != 0)
            continue;
        int64_t m = units[k].ns;
        if (whole > RANGE_MAX_NS / m)
            goto big;
        /* frac / fscale of a unit, in ns, exactly: fscale and m are powers of ten */
        int64_t f = fscale >= m ? frac / (fscale / m) : frac * (m / fscale);
        *ns = whole * m + f;
        if (*ns > RANGE_MAX_NS)
            goto big;
        return 0;
    }
    error_set(err, T2P_ERR_ARG, NULL, -1, "bad range '%s': unknown unit '%.*s' (ns, us, ms or "
              "s)", text, (int)ul, u);
    return -1;
big:
    error_set(err, T2P_ERR_ARG, NULL, -1, "bad range '%s': '%.*s' is too large", text, (int)n, p);
    return -1;
}

int range_parse(const char *text, range_spec *out, t2p_error *err)
{
    const char *colon = strchr(text, ':');
    memset(out, 0, sizeof *out);
    if (!colon || strchr(colon + 1, ':')) {
        error_set(err, T2P_ERR_ARG, NULL, -1, "bad range '%s': expected START:END, each a "
                  "number with a unit (ns, us, ms, s), like 1.2s:1.5s or 120ms:", text);
        return -1;
    }
    size_t la = (size_t)(colon - text), lb = strlen(colon + 1);
    if (la && parse_time(text, la, text, &out->start_off, err) < 0)
        return -1;
    if (lb) {
        if (parse_time(colon + 1, lb, text, &out->end_off, err) < 0)
            return -1;
        out->has_end = true;
        if (out->end_off == out->start_off) {
            error_set(err, T2P_ERR_ARG, NULL, -1, "bad range '%s': empty (END equals START)",
                      text);
            return -1;
        }
        if (out->end_off < out->start_off) {
            error_set(err, T2P_ERR_ARG, NULL, -1, "bad range '%s': END comes before START", text);
            return -1;
        }
    }
    return 0;
}

int range_resolve(const model *whole, const range_spec *spec, time_range *out, t2p_error *err)
{
    int64_t len = whole->window_end - whole->window_start;
    char a[48], b[48];
    if (spec->start_off >= len) {
        error_set(err, T2P_ERR_ARG, NULL, -1, "range starts at %s, past the trace's end (it "
                  "lasts %s)", range_offset_text(spec->start_off, a, sizeof a),
                  range_offset_text(len, b, sizeof b));
        return -1;
    }
    out->off_start = spec->start_off;
    out->off_end = spec->has_end && spec->end_off < len ? spec->end_off : len;
    out->start = whole->window_start + out->off_start;
    out->end = whole->window_start + out->off_end;
    return 0;
}

unsigned char *range_mask(const model *whole, const time_range *r, size_t *kept)
{
    const trace *tr = whole->tr;
    unsigned char *k = malloc(tr->nevents ? tr->nevents : 1);
    size_t n = 0, ci = 0;
    if (!k)
        return NULL;
    for (size_t e = 0; e < tr->nevents; e++) {
        int64_t t = tr->events[e].ts;
        /* GPU work goes with its launch */
        uint32_t l = gpu_launch_next(whole, e, &ci);
        if (l != MODEL_NONE) {
            uint32_t lt = tr->events[l].track;
            /* a launch on a GPU row is no CPU launch: the work goes by its start */
            if (!tr->tracks[lt].is_gpu && whole->tracks[lt].stream == MODEL_NONE)
                t = tr->events[l].ts;
        }
        k[e] = t >= r->start && t < r->end;
        n += k[e];
    }
    if (kept)
        *kept = n;
    return k;
}

model *range_scope(const model *whole, const time_range *r, const model_opts *base,
                   size_t *kept, t2p_error *err)
{
    unsigned char *k = range_mask(whole, r, kept);
    if (!k) {
        error_set(err, T2P_ERR_NOMEM, whole->tr->path, -1, "out of memory scoping to a range");
        return NULL;
    }
    model_opts mo = { 0 };
    if (base)
        mo = *base;
    mo.group = NULL;
    model *m = model_build_keep(whole->tr, &mo, k, err); /* k is the model's */
    if (m) {
        range_label(r, m->scope_note, sizeof m->scope_note);
        range_window(r, m);
    }
    return m;
}

void range_window(const time_range *r, model *m)
{
    m->scope = (model_scope){ .kind = MODEL_SCOPE_RANGE, .start = r->start, .end = r->end,
                              .off_start = r->off_start, .off_end = r->off_end };
}

const char *range_label(const time_range *r, char *buf, size_t size)
{
    int64_t e = r->off_end;
    const char *unit = "s";
    double d = 1e9;
    if (e < 1000000) {
        unit = "us";
        d = 1e3;
    } else if (e < 1000000000) {
        unit = "ms";
        d = 1e6;
    }
    /* an en dash between the ends, as a range is written */
    snprintf(buf, size, "range %.3f\xe2\x80\x93%.3f %s", (double)r->off_start / d,
             (double)r->off_end / d, unit);
    return buf;
}

const char *range_offset_text(int64_t ns, char *buf, size_t size)
{
    /* the largest unit that says it in at most three decimals, else ns */
    for (int k = 3; k >= 0; k--) {
        int64_t u = units[k].ns, q = u >= 1000 ? u / 1000 : 0;
        if (q == 0) {
            snprintf(buf, size, "%lldns", (long long)ns);
            return buf;
        }
        if (ns % q || (ns < u && k > 0))
            continue; /* "10ms" rather than "0.01s" */
        int64_t w = ns / u, f = (ns % u) / q; /* f: thousandths of the unit */
        if (f == 0)
            snprintf(buf, size, "%lld%s", (long long)w, units[k].name);
        else if (f % 100 == 0)
            snprintf(buf, size, "%lld.%lld%s", (long long)w, (long long)(f / 100), units[k].name);
        else if (f % 10 == 0)
            snprintf(buf, size, "%lld.%02lld%s", (long long)w, (long long)(f / 10), units[k].name);
        else
            snprintf(buf, size, "%lld.%03lld%s", (long long)w, (long long)f, units[k].name);
        return buf;
    }
    snprintf(buf, size, "%lldns", (long long)ns);
    return buf;
}
