/* convert's steps (see src/convert_steps.h). */
#include "config.h"

#include "src/convert_steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/range.h"
#include "src/cli.h"

/* spec: --step's text; rg: a range (never both) */
static int prepare(convert_steps *cs, model **m, const model_opts *mo, const char *spec,
                   const time_range *rg, bool *usage_error)
{
    t2p_error err;
    size_t first = 0, last = 0;
    unsigned char *keep = NULL;
    memset(cs, 0, sizeof *cs);
    *usage_error = false;
    if (!(cs->st = steps_build(*m, &err))) {
        cli_fail(&err);
        return -1;
    }
    if (rg) {
        if (!(keep = range_mask(*m, rg, NULL)))
            goto nomem;
    } else if (spec) {
        if (steps_parse_range(cs->st, spec, &first, &last, &err) < 0) {
            char vis[1200];
            fprintf(stderr, "torch2pprof convert: --step: %s\n",
                    cli_shown(err.reason, vis, sizeof vis));
            *usage_error = err.kind != T2P_ERR_MISSING; /* a step it lacks: 2 */
            return -1;
        }
        char l[160];
        snprintf(cs->comment, sizeof cs->comment, "scope: step%s %s (CPU events that start in "
                 "it, the GPU work they launched)", first == last ? "" : "s",
                 steps_range_label(cs->st, first, last, l, sizeof l));
    } else if (cs->st->whole_trace) {
        return 0; /* no steps: nothing to label */
    }
    if (!cs->st->whole_trace) {
        cs->nlabels = cs->st->nsteps;
        cs->labels = malloc(cs->nlabels * sizeof *cs->labels);
        if (!cs->labels || (spec && !(keep = steps_mask(cs->st, first, last))))
            goto nomem;
        for (size_t i = 0; i < cs->nlabels; i++)
            cs->labels[i] = steps_label(cs->st, i);
    }
    model_opts o = *mo;
    o.keep = keep;
    o.group = cs->st->whole_trace ? NULL : cs->st->ev_step;
    model *sm = model_build((*m)->tr, &o, &err);
    free(keep);
    if (!sm) {
        cli_fail(&err);
        return -1;
    }
    if (rg)
        range_label(rg, sm->scope_note, sizeof sm->scope_note);
    cs->whole = *m;
    *m = sm;
    return 0;
nomem:
    free(keep);
    char vis[1200];
    fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown((*m)->tr->path, vis, sizeof vis));
    return -1;
}

int convert_steps_prepare(convert_steps *cs, model **m, const model_opts *mo, const char *spec,
                          bool *usage_error)
{
    return prepare(cs, m, mo, spec, NULL, usage_error);
}

int convert_steps_prepare_range(convert_steps *cs, model **m, const model_opts *mo,
                                const char *range_text, bool *usage_error)
{
    time_range rg;
    memset(cs, 0, sizeof *cs);
    *usage_error = false;
    if (cli_range_resolve("torch2pprof convert", range_text, *m, &rg) != EXIT_OK) {
        *usage_error = true;
        return -1;
    }
    return prepare(cs, m, mo, NULL, &rg, usage_error);
}

void convert_steps_done(convert_steps *cs)
{
    steps_free(cs->st);
    free(cs->labels);
    model_free(cs->whole);
    memset(cs, 0, sizeof *cs);
}
