/* torch2pprof convert: the trace as a pprof profile for go tool pprof. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/model/model.h"
#include "core/pprof/export.h"
#include "core/pprof/pprof.h"
#include "core/analyses/ranks.h"
#include "core/model/select.h"
#include "src/cli.h"
#include "src/convert_out.h"
#include "src/opts.h"

/* What export_run tells on the way, printed as it comes. */
static void convert_tell(void *ctx, export_tell_kind kind, const char *path, const t2p_error *e)
{
    const bool *partial = ctx;
    char buf[1200];
    switch (kind) {
    case EXPORT_TELL_NOTE:
        fprintf(stderr, "torch2pprof: note: %s\n", error_format(e, buf, sizeof buf));
        break;
    case EXPORT_TELL_EMPTY:
        fprintf(stderr, "torch2pprof convert: warning: %s\n",
                cli_shown(e->reason, buf, sizeof buf));
        break;
    case EXPORT_TELL_FAILED:
        fprintf(stderr, *partial ? "torch2pprof: warning: %s; left out (--partial)\n"
                                 : "torch2pprof: %s\n",
                error_format(e, buf, sizeof buf));
        break;
    }
}

/* The summary line of what export_run wrote: one trace, a job (its rank
   count first) or a pair (net figures, new minus base). */
static void convert_summary(FILE *so, const char *out, const export_inputs *in,
                            const export_args *a, const export_result *res)
{
    const pprof_summary *sum = &res->sum;
    char x[64], vis[1200], vn[1200], vb[1200];
    fprintf(so, "wrote %s: ", cli_shown(out, vis, sizeof vis));
    if (res->job)
        fprintf(so, "%zu rank%s, ", res->nranks, res->nranks == 1 ? "" : "s");
    fprintf(so, "%zu samples, %zu locations, %zu functions, %zu strings, ", sum->samples,
            sum->locations, sum->functions, sum->strings);
    const char *net = res->diff ? " net" : "";
    if (res->diff) {
        fprintf(so, "%s minus %s: time %s ms net", cli_shown(in->paths[0], vn, sizeof vn),
                cli_shown(in->base, vb, sizeof vb), fmt_ms(sum->total_ns, x, sizeof x));
    } else {
        fprintf(so, "total %s ms", fmt_ms(sum->total_ns, x, sizeof x));
        /* --by-shape: the operators' self time in TensorBoard's tree (export_shape.h) */
        const char *of = a->by_shape ? "the operators' self time" : "self time over all tracks";
        if (res->selecting)
            fprintf(so, " (of %s ms %s)", fmt_ms(res->busy_ns, x, sizeof x), of);
        else
            fprintf(so, " (%s)", of);
    }
    if (res->gpu)
        fprintf(so, ", device %s ms%s", fmt_ms(sum->device_ns, x, sizeof x), net);
    /* a diff's objects are net: they may be negative */
    if (res->memory)
        fprintf(so, ", alloc_space %lld B in %lld objects%s, inuse_space %lld B in %lld "
                    "objects%s",
                (long long)sum->alloc_bytes, (long long)sum->alloc_objects, net,
                (long long)sum->inuse_bytes, (long long)sum->inuse_objects, net);
    fputc('\n', so);
}

/* The traces export_run found cut, each a warning. */
static void warn_truncated(const export_result *res)
{
    for (size_t i = 0; i < res->ntruncated; i++)
        cli_warn_truncated(res->truncated[i].path, res->truncated[i].reason, "converted");
}

/* The inputs into OUT by export_run, then the summary. Returns the exit code. */
static int convert_run(const export_inputs *in, const export_args *a, const char *out)
{
    export_result res;
    t2p_error err;
    char vis[1200];
    int rc, run = export_run(in, a, out, convert_tell, (void *)&in->partial, &res, &err);
    /* the cut traces: a job's ranks right after their load, before what
       follows it (the summary, or the job's error); one trace or a pair
       last, after the summary */
    if (in->job)
        warn_truncated(&res);
    if (run < 0) {
        if (res.scope_error) {
            fprintf(stderr, "torch2pprof convert: %s\n", cli_shown(err.reason, vis, sizeof vis));
            rc = err.kind == T2P_ERR_ARG ? EXIT_USAGE : EXIT_INPUT;
        } else {
            rc = cli_fail(&err);
        }
        goto out;
    }
    FILE *so = cli_summary_stream(out);
    convert_summary(so, out, in, a, &res);
    if (!in->job)
        warn_truncated(&res);
    rc = cli_summary_done(so, out);
out:
    export_result_done(&res);
    return rc;
}

int cli_convert(int argc, char **argv)
{
    const opts_cmd *c = &opts_convert;
    select_spec sel;
    const char *out_opt = NULL;
    opts_common_vals cv = { 0 };
    bool no_memory = false, only_kernels = false, only_modules = false,
         by_shape = false;
    const char *kernel = NULL;
    /* the command, a line per selection, two notes */
    const char *comments[4 + 2 * SCOPE_MAX + 4];
    char cbuf[3 + SCOPE_MAX][600], vis[1200], *command = NULL;
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
        case OPT_IGNORE: sel.ignore_re = h->value; break;
        case OPT_THREAD: sel.thread_re = h->value; break;
        case OPT_NO_MEMORY: no_memory = true; break;
        case OPT_KERNELS: only_kernels = true; break;
        case OPT_KERNEL: only_kernels = true; kernel = h->value; break;
        case OPT_MODULES: only_modules = true; break;
        case OPT_BY_SHAPE: by_shape = true; break;
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
    /* keep_nesting: the step labels' model comes from this one (model_regroup) */
    model_opts mo = { .keep_steps = cv.keep_steps, .no_python = cv.no_python,
                      .keep_nesting = true };
    bool partial = cv.partial, short_names = cv.short_names;
    const char *base = cv.base, *step = cv.step, *filter = cv.filter;
    const export_entry *entries = cv.entries;
    size_t nentries = cv.nentries;
    int64_t rank = cv.has_rank ? cv.rank : -1;
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
    /* --rank picks a rank of a job: one trace is a job of one */
    bool many = nins > 1 || ranks_is_dir(ins[0]) || rank >= 0;
    /* a bad regex is the caller's mistake: say so before a long load */
    if (select_check(&sel, &err) < 0) {
        opts_usage_error(c, "%s", error_format(&err, vis, sizeof vis));
        goto done;
    }
    const char *what[2] = { "ignore", "thread" };
    const char *pats[2] = { sel.ignore_re, sel.thread_re };
    for (int i = 0; i < 2; i++) {
        if (!pats[i])
            continue;
        /* cbuf has a line per pattern; comments[0] is the command */
        snprintf(cbuf[i], sizeof cbuf[i], "selection: --%s %s", what[i], pats[i]);
        comments[ncomments++] = cbuf[i];
    }
    for (size_t i = 0; i < nentries; i++) {
        snprintf(cbuf[2 + i], sizeof cbuf[2 + i], "selection: --%s %s", entries[i].opt,
                 entries[i].val);
        comments[ncomments++] = cbuf[2 + i];
    }
    if (filter) {
        snprintf(cbuf[2 + nentries], sizeof cbuf[2 + nentries], "selection: --filter %s", filter);
        comments[ncomments++] = cbuf[2 + nentries];
    }
    export_args ea = { .step = step, .range = cv.range, .entries = entries, .nentries = nentries, .filter = filter,
                       .ignore_re = sel.ignore_re, .thread_re = sel.thread_re,
                       .short_names = short_names, .hide_python = mo.no_python,
                       .no_memory = no_memory, .kernels = only_kernels, .kernel = kernel,
                       .modules = only_modules, .by_shape = by_shape, .comments = comments,
                       .tool_version = PACKAGE_VERSION };
    if (only_kernels)
        comments[ncomments++] = kernel ? "selection: that GPU kernel alone (--kernel), at the "
                                         "stacks that launched it"
                                       : "selection: GPU kernels alone (--kernels), at the "
                                         "stacks that launched them";
    /* --by-shape: export_prepare says what its samples are */
    if (only_modules)
        comments[ncomments++] = "selection: the stacks through nn.Module calls, other Python "
                                "frames hidden (--modules)";
    if (mo.keep_steps)
        comments[ncomments++] = "ProfilerStep#N kept apart (--keep-steps)";
    if (mo.no_python)
        comments[ncomments++] = "no Python frames (--no-python)";
    if (step && base) {
        opts_usage_error(c, "--step does not go with --base");
        goto done;
    }
    if (by_shape && (base || many)) {
        opts_usage_error(c, "--by-shape takes one TRACE, without --base or --rank");
        goto done;
    }
    /* a job: each rank's window, from its own start (export_rank_pack) */
    if (cv.range && (step || base)) {
        opts_usage_error(c, "--range goes without --step or --base (a range is a scope of its "
                            "own; two traces have two clocks)");
        goto done;
    }
    for (size_t i = 0; i < nins; i++)
        if (!strcmp(ins[i], "-") && (many || base)) {
            opts_usage_error(c, "- (standard input) is one TRACE alone, without --base");
            goto done;
        }
    cli_set_jobs(cv.jobs);
    if (many && base) {
        opts_usage_error(c, "--base takes one TRACE, not several or a directory");
        goto done;
    }
    ea.ncomments = ncomments;
    export_inputs xin = { .paths = (const char *const *)ins, .npaths = nins, .job = many,
                          .has_rank = rank >= 0, .rank = rank, .base = base,
                          .partial = partial, .mo = mo, .jobs = cli_jobs() };
    rc = convert_run(&xin, &ea, out);
done:
    free(command);
    opts_parsed_done(&p);
    return rc;
}
