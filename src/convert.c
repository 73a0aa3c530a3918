/* torch2pprof convert: the trace as a pprof profile for go tool pprof. */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fmt.h"
#include "core/model.h"
#include "core/pprof.h"
#include "core/ranks.h"
#include "core/select.h"
#include "core/shortname.h"
#include "src/cli.h"
#include "src/convert_compare.h"
#include "src/convert_ranks.h"
#include "src/convert_steps.h"

static const char convert_usage[] =
    "usage: torch2pprof convert [--keep-steps] [--no-python] [--partial] [--focus RE]\n"
    "                           [--ignore RE] [--thread RE] [--short-names] TRACE OUT.pb.gz\n"
    "       torch2pprof TRACE OUT.pb.gz\n"
    "       torch2pprof convert [OPTIONS] [--jobs N] DIR|TRACE... OUT.pb.gz\n"
    "       torch2pprof convert [options] --base BASE TRACE OUT.pb.gz\n"
    "\n"
    "Write a pprof profile of a PyTorch profiler trace, for go tool pprof.\n"
    "One sample per call stack and thread: samples = calls ending at that stack,\n"
    "time = their self time (so flat = self, cum = time on the stack, total = self\n"
    "time summed over every thread and stream, which is not wall time),\n"
    "device_time = GPU time launched there. Labels: thread, pid, tid; device and\n"
    "stream on GPU work (go tool pprof -tagfocus thread=stream); rank when the trace\n"
    "gives one (distributedInfo.rank, or rank-3, rank3, rank_3, worker3 in its name);\n"
    "step: the ProfilerStep# a call belongs to (go tool pprof -tagfocus step=1011).\n"
    "Several traces, or a directory of them (one per rank of a job): one profile,\n"
    "every sample labelled with its rank (go tool pprof -tagfocus rank=3).\n"
    "Python frames (python_function events, args \"Call stack\") become functions\n"
    "with a file and line: go tool pprof -list FUNC -source_path DIR, -lines.\n"
    "\n"
    "  --focus RE      keep only stacks with a frame matching RE (POSIX extended)\n"
    "  --ignore RE     drop stacks with a frame matching RE\n"
    "  --thread RE     keep only stacks of threads or streams whose label matches RE\n"
    "  --keep-steps    keep ProfilerStep#N apart instead of merging them as ProfilerStep*\n"
    "  --no-python     no Python frames: Call stacks ignored, python_function events\n"
    "                  named as operators (the profile of operators only)\n"
    "  --no-memory     time sample types only, even when the trace has [memory] events\n"
    "                  (which otherwise add alloc_objects, alloc_space, inuse_objects,\n"
    "                  inuse_space with a device label, as Go heap profiles)\n"
    "  --step N|N-M    only steps N to M: CPU events that start in them, the GPU work\n"
    "                  they launched (several traces: each rank's steps N to M)\n"
    "  --partial       load what a truncated trace holds instead of failing;\n"
    "                  with several traces, go on without those that fail\n"
    "  --jobs N        (several traces) load N at a time (default: one per core)\n"
    "  --short-names   function names without return type, template arguments and\n"
    "                  parameters, as HTA's use_short_name (the full name stays as the\n"
    "                  system name)\n"
    "  --base BASE     TRACE minus BASE per stack: the profile go tool pprof -proto\n"
    "                  -diff_base BASE.pb.gz TRACE.pb.gz writes (base samples negated,\n"
    "                  labelled pprof::base=true); -top and the flame graph show the change\n"
    "\n"
    "OUT is written to a temporary file beside it and renamed (removed if the write\n"
    "fails or is interrupted); an OUT that is a FIFO or a device is written in place;\n"
    "- is standard output (the summary line then goes to standard error). OUT is\n"
    "never the trace.\n"
    "Exit codes: 0 ok, 1 usage error, 2 input or output error.\n";

int cli_convert(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "focus", required_argument, NULL, 'f' },
        { "ignore", required_argument, NULL, 'i' },
        { "thread", required_argument, NULL, 't' },
        { "keep-steps", no_argument, NULL, 'k' },
        { "no-python", no_argument, NULL, 'P' },
        { "no-memory", no_argument, NULL, 'M' },
        { "partial", no_argument, NULL, 'p' },
        { "jobs", required_argument, NULL, 'J' },
        { "help", no_argument, NULL, 'h' },
        { "short-names", no_argument, NULL, 'S' },
        { "base", required_argument, NULL, 'B' },
        { "step", required_argument, NULL, 'N' },
        { NULL, 0, NULL, 0 }
    };
    select_spec sel;
    const char *base = NULL, *step = NULL;
    model_opts mo = { 0 };
    bool partial = false, selecting = false, short_names = false, no_memory = false;
    long jobs = 0;
    const char *comments[6];
    char cbuf[3][600], vis[1200];
    size_t ncomments = 0;
    t2p_error err;
    int c;

    select_init(&sel);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long_only(argc, argv, "+", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': sel.focus_re = optarg; break;
        case 'i': sel.ignore_re = optarg; break;
        case 't': sel.thread_re = optarg; break;
        case 'k': mo.keep_steps = true; break;
        case 'P': mo.no_python = true; break;
        case 'M': no_memory = true; break;
        case 'p': partial = true; break;
        case 'J': {
            char *end;
            jobs = strtol(optarg, &end, 10);
            if (*end || end == optarg || jobs < 1 || jobs > 4096) {
                fprintf(stderr, "torch2pprof convert: --jobs wants a number from 1 to 4096, "
                                "not '%s'\n", cli_shown(optarg, vis, sizeof vis));
                return EXIT_USAGE;
            }
            break;
        }
        case 'S': short_names = true; break;
        case 'h': fputs(convert_usage, stdout); return EXIT_OK;
        case 'B': base = optarg; break;
        case 'N': step = optarg; break;
        default:
            fprintf(stderr, "torch2pprof convert: bad option '%s'\n%s",
                    cli_shown(argv[optind - 1], vis, sizeof vis), convert_usage);
            return EXIT_USAGE;
        }
    }
    bool many = convert_ranks_wanted(argc - optind, argv + optind);
    if (argc - optind != 2 && !many) {
        fprintf(stderr, "torch2pprof convert: expected TRACE and OUT.pb.gz\n%s", convert_usage);
        return EXIT_USAGE;
    }
    const char *in = argv[optind], *out = argv[optind + 1];
    /* a bad regex is the caller's mistake: say so before a long load */
    if (select_check(&sel, &err) < 0) {
        cli_fail(&err);
        return EXIT_USAGE;
    }
    const char *what[3] = { "focus", "ignore", "thread" };
    const char *pats[3] = { sel.focus_re, sel.ignore_re, sel.thread_re };
    for (int i = 0; i < 3; i++) {
        if (!pats[i])
            continue;
        snprintf(cbuf[ncomments], sizeof cbuf[ncomments], "selection: --%s %s", what[i], pats[i]);
        comments[ncomments] = cbuf[ncomments];
        ncomments++;
        selecting = true;
    }
    if (mo.keep_steps)
        comments[ncomments++] = "ProfilerStep#N kept apart (--keep-steps)";
    if (mo.no_python)
        comments[ncomments++] = "no Python frames (--no-python)";
    if (step && base) {
        fprintf(stderr, "torch2pprof convert: --step does not go with --base\n");
        return EXIT_USAGE;
    }
    if (many) {
        if (base) {
            fprintf(stderr, "torch2pprof convert: --base takes one TRACE, not "
                            "several or a directory\n");
            return EXIT_USAGE;
        }
        convert_ranks_opts ro = { .sel = selecting ? &sel : NULL, .comments = comments,
                                  .ncomments = ncomments, .partial = partial,
                                  .jobs = (unsigned)jobs, .mo = mo,
                                  .short_names = short_names, .step = step };
        return convert_ranks(&ro, argc - optind, argv + optind);
    }

    if (base && short_names) {
        fprintf(stderr, "torch2pprof convert: --short-names does not go with --base yet\n");
        return EXIT_USAGE;
    }
    if (base) {
        convert_compare_opts co = { .base_path = base, .new_path = in, .out_path = out,
                                    .partial = partial, .mo = mo, .sel = selecting ? &sel : NULL,
                                    .comments = comments, .ncomments = ncomments,
                                    .no_memory = no_memory };
        return convert_compare(&co);
    }
    trace *tr = NULL;
    model *m = cli_open(in, partial, &mo, &tr);
    if (!m)
        return EXIT_INPUT;
    int rc = EXIT_INPUT;
    uint8_t *keep = NULL;
    shortnames *sn = NULL;
    memory *mem = NULL;
    convert_steps cs;
    bool usage_error;
    if (convert_steps_prepare(&cs, &m, &mo, step, &usage_error) < 0) {
        rc = usage_error ? EXIT_USAGE : EXIT_INPUT;
        goto out;
    }
    if (cs.comment[0])
        comments[ncomments++] = cs.comment;
    if (selecting) {
        keep = select_nodes(m, &sel, &err);
        if (!keep) {
            rc = cli_fail(&err);
            goto out;
        }
    }
    if (short_names && !(sn = shortname_new(m))) {
        fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(in, vis, sizeof vis));
        goto out;
    }
    /* a trace with [memory] records gets the heap sample types too */
    if (tr->nmems && !no_memory && !(mem = memory_build(m, &err))) {
        rc = cli_fail(&err);
        goto out;
    }
    int64_t rank = ranks_trace_rank(tr);
    pprof_opts po = { .keep = keep, .tool_version = PACKAGE_VERSION, .comments = comments,
                      .ncomments = ncomments, .short_names = sn,
                      .has_rank = rank >= 0, .rank = rank,
                      .step_labels = cs.labels, .nsteps = cs.nlabels, .mem = mem };
    pprof_summary sum;
    if (pprof_write(m, &po, out, &sum, &err) < 0) {
        /* OUT naming the trace is an output error (2), like any other file
           that cannot be written, not a usage error */
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
