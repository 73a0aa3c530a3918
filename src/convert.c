/* torch2pprof convert: the trace as a pprof profile for go tool pprof. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/model/model.h"
#include "core/pprof/pprof.h"
#include "core/analyses/ranks.h"
#include "core/model/select.h"
#include "core/model/shortname.h"
#include "src/cli.h"
#include "src/convert_compare.h"
#include "src/convert_out.h"
#include "src/convert_ranks.h"
#include "src/convert_steps.h"
#include "src/opts.h"

/* TRACE alone into OUT: the profile of its scope. Returns the exit code. */
static int convert_one(const char *in, const char *out, const model_opts *mo, bool partial,
                       const char *step, const select_spec *sel, const char **comments,
                       size_t ncomments, bool short_names, bool no_memory)
{
    char vis[1200];
    t2p_error err;
    bool selecting = sel != NULL;
    trace *tr = NULL;
    model *m = cli_open(in, partial, mo, &tr);
    if (!m)
        return EXIT_INPUT;
    int rc = EXIT_INPUT;
    uint8_t *keep = NULL;
    shortnames *sn = NULL;
    memory *mem = NULL;
    convert_steps cs;
    bool usage_error;
    if (convert_steps_prepare(&cs, &m, mo, step, &usage_error) < 0) {
        rc = usage_error ? EXIT_USAGE : EXIT_INPUT;
        goto out;
    }
    if (cs.comment[0])
        comments[ncomments++] = cs.comment;
    if (selecting) {
        keep = select_nodes(m, sel, &err);
        if (!keep) {
            rc = cli_fail(&err);
            goto out;
        }
    }
    if (short_names && !(sn = shortname_new(m))) {
        fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(in, vis, sizeof vis));
        goto out;
    }
    /* the heap sample types are on every profile (memory_types: zero
       without [memory] records), so that any two merge and diff */
    if (tr->nmems && !no_memory && !(mem = memory_build(m, &err))) {
        rc = cli_fail(&err);
        goto out;
    }
    int64_t rank = ranks_trace_rank(tr);
    pprof_opts po = { .keep = keep, .tool_version = PACKAGE_VERSION, .comments = comments,
                      .ncomments = ncomments, .short_names = sn,
                      .has_rank = rank >= 0, .rank = rank,
                      .step_labels = cs.labels, .nsteps = cs.nlabels, .mem = mem,
                      .memory_types = !no_memory };
    pprof_summary sum;
    if (pprof_write(m, &po, out, &sum, &err) < 0) {
        rc = cli_fail(&err);
        goto out;
    }
    FILE *so = cli_summary_stream(out);
    char a[64], b[64], d[64];
    fprintf(so, "wrote %s: %zu samples, %zu locations, %zu functions, %zu strings, total %s ms",
            cli_shown(out, vis, sizeof vis), sum.samples, sum.locations, sum.functions,
            sum.strings, fmt_ms(sum.total_ns, a, sizeof a));
    if (selecting)
        fprintf(so, " (of %s ms self time over all tracks)", fmt_ms(m->busy_ns, b, sizeof b));
    else
        fputs(" (self time over all tracks)", so);
    if (m->gpu_events)
        fprintf(so, ", device %s ms", fmt_ms(sum.device_ns, d, sizeof d));
    if (mem)
        fprintf(so, ", alloc_space %lld B in %llu objects, inuse_space %lld B in %llu objects",
                (long long)sum.alloc_bytes, (unsigned long long)sum.alloc_objects,
                (long long)sum.inuse_bytes, (unsigned long long)sum.inuse_objects);
    fputc('\n', so);
    if (tr->truncated)
        cli_warn_truncated(tr->path, tr->truncated_reason, "converted");
    rc = cli_summary_done(so, out);
out:
    memory_free(mem);
    shortname_free(sn);
    free(keep);
    model_free(m);
    convert_steps_done(&cs);
    trace_free(tr);
    return rc;
}

int cli_convert(int argc, char **argv)
{
    const opts_cmd *c = &opts_convert;
    select_spec sel;
    const char *out_opt = NULL;
    opts_common_vals cv = { 0 };
    bool selecting = false, no_memory = false;
    const char *comments[7];
    char cbuf[3][600], vis[1200], *command = NULL;
    size_t ncomments = 0;
    t2p_error err;
    opts_parsed p;
    int rc;

    select_init(&sel);
    if (opts_parse(c, argc, argv, &p, &rc) < 0)
        return rc;
    for (size_t i = 0; i < p.nhits; i++) {
        const opt_hit *h = &p.hits[i];
        int k = opts_common(c, h, &cv);
        if (k < 0) {
            opts_parsed_done(&p);
            return EXIT_USAGE;
        }
        if (k > 0)
            continue;
        switch (h->id) {
        case OPT_FOCUS: sel.focus_re = h->value; break;
        case OPT_IGNORE: sel.ignore_re = h->value; break;
        case OPT_THREAD: sel.thread_re = h->value; break;
        case OPT_NO_MEMORY: no_memory = true; break;
        case OPT_OUTPUT: out_opt = h->value; break;
        case OPT_HELP:
            opts_help(c, stdout);
            opts_parsed_done(&p);
            return EXIT_OK;
        case OPT_VERSION:
            printf("torch2pprof %s\n", PACKAGE_VERSION);
            opts_parsed_done(&p);
            return EXIT_OK;
        default: break;
        }
    }
    model_opts mo = { .keep_steps = cv.keep_steps, .no_python = cv.no_python };
    bool partial = cv.partial, short_names = cv.short_names;
    const char *base = cv.base, *step = cv.step;
    char **ins;
    size_t nins;
    const char *out;
    rc = convert_out_choose(p.operands, p.noperands, out_opt, &ins, &nins, &out);
    if (rc != EXIT_OK)
        goto done;
    rc = EXIT_USAGE;
    /* the first comment is the command that makes this profile again */
    if (!(command = cli_convert_command(&p, ins, nins, out))) {
        fprintf(stderr, "torch2pprof convert: out of memory\n");
        rc = EXIT_INPUT;
        goto done;
    }
    comments[ncomments++] = command;
    bool many = nins > 1 || ranks_is_dir(ins[0]);
    const char *in = ins[0];
    /* a bad regex is the caller's mistake: say so before a long load */
    if (select_check(&sel, &err) < 0) {
        opts_usage_error(c, "%s", error_format(&err, vis, sizeof vis));
        goto done;
    }
    const char *what[3] = { "focus", "ignore", "thread" };
    const char *pats[3] = { sel.focus_re, sel.ignore_re, sel.thread_re };
    for (int i = 0; i < 3; i++) {
        if (!pats[i])
            continue;
        /* cbuf has a line per pattern; comments[0] is the command */
        snprintf(cbuf[i], sizeof cbuf[i], "selection: --%s %s", what[i], pats[i]);
        comments[ncomments++] = cbuf[i];
        selecting = true;
    }
    if (mo.keep_steps)
        comments[ncomments++] = "ProfilerStep#N kept apart (--keep-steps)";
    if (mo.no_python)
        comments[ncomments++] = "no Python frames (--no-python)";
    if (step && base) {
        opts_usage_error(c, "--step does not go with --base");
        goto done;
    }
    for (size_t i = 0; i < nins; i++)
        if (!strcmp(ins[i], "-") && (many || base)) {
            opts_usage_error(c, "- (standard input) is one TRACE alone, without --base");
            goto done;
        }
    cli_set_jobs(cv.jobs);
    if (many) {
        if (base) {
            opts_usage_error(c, "--base takes one TRACE, not several or a directory");
            goto done;
        }
        convert_ranks_opts ro = { .sel = selecting ? &sel : NULL, .comments = comments,
                                  .ncomments = ncomments, .partial = partial,
                                  .jobs = (unsigned)cv.jobs, .mo = mo,
                                  .short_names = short_names, .step = step,
                                  .no_memory = no_memory };
        rc = convert_ranks(&ro, (int)nins, ins, out);
        goto done;
    }
    if (base && short_names) {
        opts_usage_error(c, "--short-names does not go with --base yet");
        goto done;
    }
    if (base) {
        convert_compare_opts co = { .base_path = base, .new_path = in, .out_path = out,
                                    .partial = partial, .mo = mo, .sel = selecting ? &sel : NULL,
                                    .comments = comments, .ncomments = ncomments,
                                    .no_memory = no_memory };
        rc = convert_compare(&co);
        goto done;
    }
    rc = convert_one(in, out, &mo, partial, step, selecting ? &sel : NULL, comments, ncomments,
                     short_names, no_memory);
done:
    free(command);
    opts_parsed_done(&p);
    return rc;
}
