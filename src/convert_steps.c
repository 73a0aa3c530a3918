/* convert's steps (see src/convert_steps.h). */
#include "config.h"

#include "src/convert_steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli.h"

int convert_steps_prepare(convert_steps *cs, model **m, const model_opts *mo, const char *spec,
                          bool *usage_error)
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
    if (spec) {
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
    cs->nlabels = cs->st->nsteps;
    cs->labels = malloc(cs->nlabels * sizeof *cs->labels);
    if (!cs->labels || (spec && !(keep = steps_mask(cs->st, first, last))))
        goto nomem;
    for (size_t i = 0; i < cs->nlabels; i++)
        cs->labels[i] = steps_label(cs->st, i);
    model_opts o = *mo;
    o.keep = keep;
    o.group = cs->st->ev_step;
    o.jobs = cli_jobs();
    /* the whole trace: the labelled model from the one built (no second
       sort, nesting and linking of every event); a scope builds its own */
    model *sm = keep || !(*m)->ev_parent ? model_build((*m)->tr, &o, &err)
                                         : model_regroup(*m, cs->st->ev_step, &err);
    free(keep);
    if (!sm) {
        cli_fail(&err);
        return -1;
    }
    cs->whole = *m;
    *m = sm;
    return 0;
nomem:
    free(keep);
    char vis[1200];
    fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown((*m)->tr->path, vis, sizeof vis));
    return -1;
}

void convert_steps_done(convert_steps *cs)
{
    steps_free(cs->st);
    free(cs->labels);
    model_free(cs->whole);
    memset(cs, 0, sizeof *cs);
}
