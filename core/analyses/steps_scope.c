/* Steps as a selection: labels, ranges typed by the user ("1011",
   "1009-1011"), the event mask of a range and the model scoped to it, and a
   step's top operators. Apart from core/analyses/steps.c, which computes the figures. */
#include "config.h"

#include "core/analyses/steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/catkind.h"
#include "core/base/vec.h"

uint64_t steps_count(const model *m)
{
    /* the calls of the step operators (ProfilerStep#N, or ProfilerStep*
       when the model merged them) by steps_build's rule, catkind_is_step */
    uint64_t n = 0;
    for (size_t i = 0; i < m->nops; i++) {
        const model_op *o = &m->ops[i];
        enum catkind k = o->cat < m->ncatkind ? (enum catkind)m->catkind[o->cat] : CATKIND_NONE;
        const char *name = model_op_name(m, (uint32_t)i);
        if (catkind_is_step_kind(k) &&
            (catkind_step_name(name, strlen(name)) || strcmp(name, CATKIND_STEPS_MERGED) == 0))
            n += o->calls;
    }
    return n;
}

const char *steps_label(const steps *s, size_t i)
{
    if (i >= s->nsteps || s->steps[i].name == STEPS_NONE)
        return "";
    const char *n = trace_str(s->m->tr, s->steps[i].name);
    const char *h = strchr(n, '#');
    return h ? h + 1 : n;
}

long steps_find(const steps *s, const char *label)
{
    if (s->whole_trace)
        return -1;
    for (size_t i = 0; i < s->nsteps; i++)
        if (strcmp(steps_label(s, i), label) == 0)
            return (long)i;
    return -1;
}

int steps_parse_range(const steps *s, const char *text, size_t *first, size_t *last,
                      t2p_error *err)
{
    char a[64], b[64];
    const char *dash = strchr(text, '-');
    size_t la = dash ? (size_t)(dash - text) : strlen(text);
    if (la == 0 || la >= sizeof a || (dash && (strlen(dash + 1) == 0 || strlen(dash + 1) >= sizeof b)))
        goto bad;
    memcpy(a, text, la);
    a[la] = 0;
    snprintf(b, sizeof b, "%s", dash ? dash + 1 : a);
    long i = steps_find(s, a), j = steps_find(s, b);
    if (i < 0 || j < 0) {
        /* say which steps there are: the next try is then right */
        if (s->whole_trace || s->nsteps == 0)
            error_set(err, T2P_ERR_MISSING, NULL, -1,
                      "no step %s in this trace (it has no ProfilerStep#)", i < 0 ? a : b);
        else if (s->nsteps == 1)
            error_set(err, T2P_ERR_MISSING, NULL, -1,
                      "no step %s in this trace (it has one step: %s)", i < 0 ? a : b,
                      steps_label(s, 0));
        else
            error_set(err, T2P_ERR_MISSING, NULL, -1,
                      "no step %s in this trace (it has %zu steps, %s to %s)", i < 0 ? a : b,
                      s->nsteps, steps_label(s, 0), steps_label(s, s->nsteps - 1));
        return -1;
    }
    if (j < i) {
        error_set(err, T2P_ERR_ARG, NULL, -1, "step range %s: %s comes before %s", text, b, a);
        return -1;
    }
    *first = (size_t)i;
    *last = (size_t)j;
    return 0;
bad:
    error_set(err, T2P_ERR_ARG, NULL, -1, "bad step '%s': expected N or N-M (step numbers)", text);
    return -1;
}

unsigned char *steps_mask(const steps *s, size_t first, size_t last)
{
    unsigned char *k = malloc(s->nevents ? s->nevents : 1);
    if (!k)
        return NULL;
    for (size_t e = 0; e < s->nevents; e++)
        k[e] = s->ev_step[e] != STEPS_NONE && s->ev_step[e] >= first && s->ev_step[e] <= last;
    return k;
}

model *steps_scope(const steps *s, size_t first, size_t last, const model_opts *base,
                   t2p_error *err)
{
    unsigned char *k = steps_mask(s, first, last);
    if (!k) {
        error_set(err, T2P_ERR_NOMEM, s->m->tr->path, -1, "out of memory scoping to a step");
        return NULL;
    }
    model_opts mo = { 0 };
    if (base)
        mo = *base;
    model *m = model_build_keep(s->m->tr, &mo, k, err); /* k is the model's */
    if (m) {
        char l[40];
        snprintf(m->scope_note, sizeof m->scope_note, "Step%s %s", first == last ? "" : "s",
                 steps_range_label(s, first, last, l, sizeof l));
        steps_window(s, first, last, m);
    }
    return m;
}

void steps_overlapping(const steps *s, int64_t start, int64_t end, size_t *lo, size_t *hi)
{
    size_t i = 0;
    if (s->whole_trace) {
        *lo = *hi = 0;
        return;
    }
    while (i < s->nsteps && s->steps[i].host_end <= start)
        i++;
    *lo = i;
    while (i < s->nsteps && s->steps[i].host_start < end)
        i++;
    *hi = i;
}

void steps_window(const steps *s, size_t first, size_t last, model *m)
{
    if (first >= s->nsteps || last >= s->nsteps || first > last)
        return;
    m->scope = (model_scope){ .kind = MODEL_SCOPE_STEPS, .first = first, .last = last,
                              .start = s->steps[first].host_start,
                              .end = s->steps[last].host_end };
    m->scope.off_start = m->scope.start - s->m->window_start;
    m->scope.off_end = m->scope.end - s->m->window_start;
}

model *steps_grouped(const steps *s, const model_opts *base, t2p_error *err)
{
    model_opts mo = { 0 };
    if (base)
        mo = *base;
    mo.keep = NULL;
    mo.group = s->ev_step;
    /* from the whole model when it kept its nesting: no second sort,
       nesting and linking of every event */
    if (s->m->ev_parent && mo.keep_steps == s->m->opts.keep_steps &&
        mo.no_python == s->m->opts.no_python)
        return model_regroup(s->m, s->ev_step, err);
    return model_build(s->m->tr, &mo, err);
}

const char **steps_labels(const steps *s)
{
    const char **l = malloc((s->nsteps ? s->nsteps : 1) * sizeof *l);
    for (size_t i = 0; l && i < s->nsteps; i++)
        l[i] = steps_label(s, i);
    return l;
}

const char *steps_range_label(const steps *s, size_t first, size_t last, char *buf, size_t size)
{
    if (first == last)
        snprintf(buf, size, "%s", steps_label(s, first));
    else
        snprintf(buf, size, "%s-%s", steps_label(s, first), steps_label(s, last));
    return buf;
}

size_t steps_top_ops(const steps *s, size_t i, uint32_t *out_op, int64_t *out_ns, size_t n)
{
    const model *m = s->m;
    if (i >= s->nsteps || n == 0)
        return 0;
    int64_t *acc = calloc(m->nops ? m->nops : 1, sizeof *acc);
    if (!acc)
        return 0;
    for (size_t e = 0; e < s->nevents; e++)
        if ((s->whole_trace || s->ev_step[e] == i) && m->ev_node[e] != MODEL_NONE)
            acc[m->nodes[m->ev_node[e]].op] += m->ev_self[e];
    size_t got = 0;
    for (size_t o = 0; o < m->nops; o++) {
        if (acc[o] <= 0 || m->ops[o].gpu)
            continue;
        size_t j = got < n ? got++ : n;
        if (j == n) {
            if (acc[o] <= out_ns[n - 1])
                continue;
            j = n - 1;
        }
        while (j > 0 && out_ns[j - 1] < acc[o]) {
            out_op[j] = out_op[j - 1];
            out_ns[j] = out_ns[j - 1];
            j--;
        }
        out_op[j] = (uint32_t)o;
        out_ns[j] = acc[o];
    }
    free(acc);
    return got;
}
