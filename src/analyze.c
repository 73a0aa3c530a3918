/* torch2pprof analyze: the text report and its --json twin. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"
#include "core/fmt.h"
#include "core/model.h"
#include "core/shortname.h"
#include "core/steps.h"
#include "src/analyze_compare.h"
#include "src/analyze_lines.h"
#include "src/analyze_memory.h"
#include "src/analyze_notes.h"
#include "src/analyze_ranks.h"
#include "src/analyze_steps.h"
#include "src/cli.h"

static const char analyze_usage[] =
    "usage: torch2pprof analyze [-top N] [--sort KEY] [--json] [--keep-steps] [--partial]\n"
    "                           [--by-line] [--no-python]\n"
    "                           [--short-names] TRACE\n"
    "       torch2pprof analyze [OPTIONS] [--jobs N] DIR|TRACE...\n"
    "       torch2pprof analyze [options] --base BASE TRACE\n"
    "\n"
    "Summarise a PyTorch profiler trace: totals, time by category, top operations.\n"
    "Several traces, or a directory of them (one per rank of a job): the Ranks table,\n"
    "the straggler, and the operations summed over ranks with min/median/max per rank.\n"
    "\n"
    "  -top N, --top N   operations to list (default 20; 0 lists every one)\n"
    "  --sort KEY        self (default), total, calls, name, avg, device_self, device_total\n"
    "                    (device = device_total); alloc_size, alloc_count, size_increase\n"
    "                    sort the Memory section (profile_memory=True traces)\n"
    "  --json            one JSON object, times in integer nanoseconds\n"
    "  --by-line         the top Python source lines (file:line, function, self,\n"
    "                    total) from python_function events or Call stacks;\n"
    "                    --json: \"lines\"\n"
    "  --no-python       ignore Call stacks (operator nodes as without Python frames)\n"
    "  --keep-steps      keep ProfilerStep#N apart instead of merging them as ProfilerStep*\n"
    "  --partial         load what a truncated trace holds instead of failing;\n"
    "                    with several traces, go on without those that fail\n"
    "  --sort spread     (several traces) by max - min of the per-rank self time\n"
    "  --jobs N          (several traces) load N at a time (default: one per core)\n"
    "  --short-names     show C++ names without return type, template arguments and\n"
    "                    parameters, as HTA's use_short_name (--json: full_name too)\n"
    "  --steps           only the Steps section: each ProfilerStep# split by role as\n"
    "                    TensorBoard's Overview did, the average, the recommendations\n"
    "  --step N|N-M      every figure for steps N to M alone: CPU events that start in\n"
    "                    them, the GPU work they launched (several traces: each\n"
    "                    rank's steps N to M)\n"
    "\n"
    "Compare (what changed from BASE to TRACE):\n"
    "  --base BASE       per operator and category: base and new figures and their\n"
    "                    deltas, sorted by |delta self|; + only in TRACE, - only in BASE\n"
    "  --per-step        divide each trace's figures by its number of kept steps first\n"
    "  --base-step N --step M\n"
    "                    compare step N (of BASE, or of TRACE without --base) with step M\n"
    "                    of TRACE (N-M: a range of steps)\n"
    "  --sort KEY        also delta_self, delta_total, delta_calls, delta_device_self,\n"
    "                    delta_device_total, delta_pct\n"
    "\n"
    "Exit codes: 0 ok, 1 usage error, 2 input or output error.\n";

/* An op's name as the report shows it: short with --short-names (sn). */
static const char *op_label(const model *m, const shortnames *sn, uint32_t op, size_t *len)
{
    if (sn)
        return shortname_op(sn, op, len);
    *len = strtab_len(m->tr->strs, m->ops[op].name);
    return model_op_name(m, op);
}

static void report_text(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                        enum model_sort sort, const shortnames *sn, const analyze_steps_sel *st)
{
    const trace *tr = m->tr;
    char a[64], b[64], c[64], d[64], e[64], g[64], h[64];
    uint64_t nskipped = 0;
    size_t ncum = 0;
    bool gpu = m->gpu_events > 0;

    for (int r = 0; r < TRACE_SKIP_N; r++)
        nskipped += tr->skipped[r];
    fputs("File:              ", f);
    cli_put_text(f, tr->path, strlen(tr->path));
    fputc('\n', f);
    analyze_steps_scope_line(f, st);
    if (tr->truncated) {
        fputs("WARNING:           truncated trace (", f);
        cli_put_text(f, tr->truncated_reason, strlen(tr->truncated_reason));
        fputs("); figures cover what was read\n", f);
    }
    fprintf(f, "Events read:       %s\n", fmt_count(tr->events_read, a, sizeof a));
    fprintf(f, "Complete events:   %s\n", fmt_count(m->complete_events, a, sizeof a));
    fprintf(f, "Skipped events:    %s", fmt_count(nskipped, a, sizeof a));
    const char *sep = " (";
    for (int r = 0; r < TRACE_SKIP_N; r++) {
        if (!tr->skipped[r])
            continue;
        fprintf(f, "%s%s %s", sep, trace_skip_name(r), fmt_count(tr->skipped[r], a, sizeof a));
        sep = ", ";
    }
    fprintf(f, "%s\n", nskipped ? ")" : "");
    fprintf(f, "Tracks:            %s\n", fmt_count(m->tracks_with_events, a, sizeof a));
    fprintf(f, "Unique operations: %s\n", fmt_count(m->nops, a, sizeof a));
    analyze_time_lines(f, m);

    uint32_t *co = malloc((m->ncats ? m->ncats : 1) * sizeof *co);
    if (co) {
        model_sort_cats(m, sort == MODEL_SORT_NAME ? MODEL_SORT_NAME : MODEL_SORT_SELF, false, co);
        fprintf(f, "\nBy Category\n");
        fprintf(f, "%-24s %12s %14s %14s %8s\n", "Category", "Calls", "Self ms", "Total ms",
                "Self %");
        for (size_t i = 0; i < m->ncats; i++) {
            const model_cat *k = &m->cats[co[i]];
            size_t nlen;
            const char *name = fmt_category(trace_str(tr, k->name), strtab_len(tr->strs, k->name),
                                            &nlen);
            cli_put_cell(f, name, nlen, 24);
            fprintf(f, " %12s %14s %14s %8s\n", fmt_count(k->calls, a, sizeof a),
                    fmt_ms(k->self_ns, b, sizeof b), fmt_ms(k->total_ns, c, sizeof c),
                    fmt_pct(k->self_ns, m->busy_ns, d, sizeof d));
        }
        free(co);
    }
    analyze_steps_text(f, st);

    fprintf(f, "\nTop %zu operations by %s\n", nshow, model_sort_name(sort));
    fprintf(f, "%-48s %-16s %10s %12s %7s %12s %10s %10s %10s", "Name", "Category", "Calls",
            "Self ms", "Self %", "Total ms", "Avg ms", "Min ms", "Max ms");
    if (gpu)
        fprintf(f, " %12s %12s", "Dev self ms", "Dev total ms");
    fputc('\n', f);
    for (size_t i = 0; i < nshow; i++) {
        const model_op *o = &m->ops[order[i]];
        size_t nlen;
        const char *name = op_label(m, sn, order[i], &nlen);
        cli_put_cell(f, name, nlen, 48);
        fputc(' ', f);
        cli_put_cell(f, trace_str(tr, o->cat), strtab_len(tr->strs, o->cat), 16);
        int64_t avg = o->calls ? o->total_ns / (int64_t)o->calls : 0;
        bool cum_differs = o->cum_ns != o->total_ns;
        ncum += cum_differs;
        fprintf(f, " %10s %12s %7s %12s%c%10s %10s %10s", fmt_count(o->calls, a, sizeof a),
                fmt_ms(o->self_ns, b, sizeof b), fmt_pct(o->self_ns, m->busy_ns, c, sizeof c),
                fmt_ms(o->total_ns, d, sizeof d), cum_differs ? '*' : ' ', fmt_ms(avg, e, sizeof e),
                fmt_ms(o->min_ns, g, sizeof g), fmt_ms(o->max_ns, h, sizeof h));
        if (gpu)
            fprintf(f, " %12s %12s", fmt_ms(o->dev_self_ns, a, sizeof a),
                    fmt_ms(o->dev_total_ns, b, sizeof b));
        fputc('\n', f);
    }
    if (ncum)
        analyze_cum_note(f, m, order, nshow, sn);

    if (gpu && m->nstreams) {
        fprintf(f, "\nGPU streams\n");
        fprintf(f, "%-32s %12s %14s %8s %14s\n", "Stream", "GPU events", "Busy ms", "Util %",
                "Max idle ms");
        for (size_t i = 0; i < m->nstreams; i++) {
            const model_stream *s = &m->streams[i];
            char label[256], full[300];
            const trace_track *k = &tr->tracks[s->track];
            snprintf(full, sizeof full, "%s %s",
                     tr->processes[k->process].labels != STRTAB_NONE
                         ? trace_str(tr, tr->processes[k->process].labels)
                         : trace_str(tr, tr->processes[k->process].pid),
                     trace_track_label(tr, s->track, label, sizeof label));
            cli_put_cell(f, full, strlen(full), 32);
            fprintf(f, " %12s %14s %8s %14s\n", fmt_count(s->gpu_events, a, sizeof a),
                    fmt_ms(s->busy_ns, b, sizeof b), fmt_pct(s->busy_ns, m->window_ns, c, sizeof c),
                    fmt_ms(s->max_gap_ns, d, sizeof d));
        }
        fprintf(f, "Unattributed GPU time: %s ms in %s events (no launch in the window)\n",
                fmt_ms(m->gpu_unattributed_ns, a, sizeof a),
                fmt_count(m->gpu_unattributed_events, b, sizeof b));
    }
}

static void report_json(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                        const shortnames *sn, const analyze_steps_sel *st)
{
    const trace *tr = m->tr;
    fputs("{\"file\":", f);
    cli_json_string(f, tr->path, strlen(tr->path));
    fprintf(f, ",\"format\":\"%s\"", tr->format == TRACE_FORMAT_ARRAY ? "array" : "kineto");
    fprintf(f, ",\"truncated\":%s", tr->truncated ? "true" : "false");
    fprintf(f, ",\"events\":%llu,\"complete_events\":%llu", (unsigned long long)tr->events_read,
            (unsigned long long)m->complete_events);
    fputs(",\"skipped\":{", f);
    const char *sep = "";
    for (int r = 0; r < TRACE_SKIP_N; r++) {
        if (!tr->skipped[r])
            continue;
        fprintf(f, "%s\"%s\":%llu", sep, trace_skip_name(r), (unsigned long long)tr->skipped[r]);
        sep = ",";
    }
    fprintf(f, "},\"tracks\":%llu,\"unique_ops\":%zu", (unsigned long long)m->tracks_with_events,
            m->nops);
    fprintf(f, ",\"base_ns\":%lld,\"window_start_ns\":%lld,\"window_ns\":%lld,\"busy_ns\":%lld",
            (long long)tr->base_ns, (long long)m->window_start, (long long)m->window_ns,
            (long long)m->busy_ns);
    fprintf(f, ",\"cpu_time_ns\":%lld,\"all_tracks_self_ns\":%lld,\"gpu_busy_ns\":%lld",
            (long long)m->cpu_ns, (long long)m->busy_ns, (long long)m->gpu_busy_ns);
    fprintf(f, ",\"gpu_events\":%llu,\"gpu_ns\":%lld,\"gpu_unattributed_events\":%llu,"
               "\"gpu_unattributed_ns\":%lld",
            (unsigned long long)m->gpu_events, (long long)m->gpu_ns,
            (unsigned long long)m->gpu_unattributed_events, (long long)m->gpu_unattributed_ns);
    fputs(",\"ops\":[", f);
    for (size_t i = 0; i < nshow; i++) {
        const model_op *o = &m->ops[order[i]];
        size_t nlen;
        const char *name = op_label(m, sn, order[i], &nlen);
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        cli_json_string(f, name, nlen);
        if (sn) {
            fputs(",\"full_name\":", f);
            cli_json_string(f, trace_str(tr, o->name), strtab_len(tr->strs, o->name));
        }
        fputs(",\"category\":", f);
        cli_json_string(f, trace_str(tr, o->cat), strtab_len(tr->strs, o->cat));
        fprintf(f, ",\"count\":%llu,\"self_ns\":%lld,\"total_ns\":%lld,\"min_ns\":%lld,"
                   "\"max_ns\":%lld,\"device_self_ns\":%lld,\"device_total_ns\":%lld,"
                   "\"cum_ns\":%lld}",
                (unsigned long long)o->calls, (long long)o->self_ns, (long long)o->total_ns,
                (long long)o->min_ns, (long long)o->max_ns, (long long)o->dev_self_ns,
                (long long)o->dev_total_ns, (long long)o->cum_ns);
    }
    fputs("],\"categories\":[", f);
    for (size_t i = 0; i < m->ncats; i++) {
        const model_cat *k = &m->cats[i];
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        cli_json_string(f, trace_str(tr, k->name), strtab_len(tr->strs, k->name));
        fprintf(f, ",\"count\":%llu,\"self_ns\":%lld,\"total_ns\":%lld}",
                (unsigned long long)k->calls, (long long)k->self_ns, (long long)k->total_ns);
    }
    fputs("],\"streams\":[", f);
    for (size_t i = 0; i < m->nstreams; i++) {
        const model_stream *s = &m->streams[i];
        const trace_track *k = &tr->tracks[s->track];
        char label[256];
        fputs(i ? ",{\"pid\":" : "{\"pid\":", f);
        const char *pid = trace_str(tr, tr->processes[k->process].pid);
        cli_json_string(f, pid, strlen(pid));
        fputs(",\"tid\":", f);
        cli_json_string(f, trace_str(tr, k->tid), strtab_len(tr->strs, k->tid));
        fputs(",\"name\":", f);
        trace_track_label(tr, s->track, label, sizeof label);
        cli_json_string(f, label, strlen(label));
        fprintf(f, ",\"gpu_events\":%llu,\"busy_ns\":%lld,\"max_gap_ns\":%lld}",
                (unsigned long long)s->gpu_events, (long long)s->busy_ns, (long long)s->max_gap_ns);
    }
    fputs("],\"threads\":[", f);
    const char *tsep = "";
    for (size_t k = 0; k < m->ntracks; k++) {
        const model_track *mt = &m->tracks[k];
        if (!mt->events)
            continue;
        const trace_track *tk = &tr->tracks[k];
        const char *pid = trace_str(tr, tr->processes[tk->process].pid);
        char label[256];
        fprintf(f, "%s{\"pid\":", tsep);
        tsep = ",";
        cli_json_string(f, pid, strlen(pid));
        fputs(",\"tid\":", f);
        cli_json_string(f, trace_str(tr, tk->tid), strtab_len(tr->strs, tk->tid));
        fputs(",\"name\":", f);
        trace_track_label(tr, (uint32_t)k, label, sizeof label);
        cli_json_string(f, label, strlen(label));
        fprintf(f, ",\"events\":%llu,\"busy_ns\":%lld,\"max_gap_ns\":%lld}",
                (unsigned long long)mt->events, (long long)mt->busy_ns, (long long)mt->max_gap_ns);
    }
    fputc(']', f);
    analyze_steps_json(f, st);
    /* the caller adds "memory" and closes the object */
}

int cli_analyze(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "top", required_argument, NULL, 't' },
        { "sort", required_argument, NULL, 's' },
        { "json", no_argument, NULL, 'j' },
        { "keep-steps", no_argument, NULL, 'k' },
        { "partial", no_argument, NULL, 'p' },
        { "jobs", required_argument, NULL, 'J' },
        { "help", no_argument, NULL, 'h' },
        { "base", required_argument, NULL, 'B' },
        { "per-step", no_argument, NULL, 'P' },
        { "base-step", required_argument, NULL, 'Q' },
        { "short-names", no_argument, NULL, 'S' },
        { "steps", no_argument, NULL, 'T' },
        { "step", required_argument, NULL, 'N' },
        { "by-line", no_argument, NULL, 'L' },
        { "no-python", no_argument, NULL, 'Y' },
        { NULL, 0, NULL, 0 }
    };
    analyze_compare_opts cmp = { 0 };
    size_t top = 20;
    long jobs = 0;
    int sort = MODEL_SORT_SELF;
    bool json = false, partial = false, spread = false, short_names = false, by_line = false;
    enum memory_sort msort = MEMORY_SORT_ALLOC_SIZE;
    model_opts mo = { 0 };
    analyze_steps_sel sel = { 0 };
    char vis[1200];
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long_only(argc, argv, "+", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (args_top("torch2pprof analyze", "-top", optarg, &top) < 0)
                return EXIT_USAGE;
            break;
        case 's':
            if ((c = memory_sort_parse(optarg)) >= 0) {
                msort = (enum memory_sort)c;
                break;
            }
            cmp.sort = optarg;
            /* spread compares ranks: only the many-ranks report knows it */
            if ((spread = !strcmp(optarg, "spread"))) {
                sort = MODEL_SORT_SELF;
                break;
            }
            if (model_sort_parse(optarg) < 0 && compare_sort_parse(optarg) >= 0) {
                sort = -1; /* a delta key: for --base, checked below */
                break;
            }
            if ((sort = args_sort("torch2pprof analyze", optarg)) < 0)
                return EXIT_USAGE;
            break;
        case 'j': json = true; break;
        case 'k': mo.keep_steps = true; break;
        case 'p': partial = true; break;
        case 'J': {
            char *end;
            jobs = strtol(optarg, &end, 10);
            if (*end || end == optarg || jobs < 1 || jobs > 4096) {
                fprintf(stderr, "torch2pprof analyze: --jobs wants a number from 1 to 4096, "
                                "not '%s'\n", cli_shown(optarg, vis, sizeof vis));
                return EXIT_USAGE;
            }
            break;
        }
        case 'h': fputs(analyze_usage, stdout); return EXIT_OK;
        case 'B': cmp.base_path = optarg; break;
        case 'P': cmp.per_step = true; break;
        case 'Q': cmp.base_step = optarg; break;
        case 'S': short_names = true; break;
        case 'L': by_line = true; break;
        case 'Y': mo.no_python = true; break;
        case 'T': sel.only = true; break;
        case 'N': sel.spec = optarg; break;
        default:
            fprintf(stderr, "torch2pprof analyze: unknown option '%s'\n%s",
                    cli_shown(argv[optind - 1], vis, sizeof vis), analyze_usage);
            return EXIT_USAGE;
        }
    }
    if (analyze_ranks_wanted(argc - optind, argv + optind)) {
        if (short_names) {
            fprintf(stderr, "torch2pprof analyze: --short-names takes one TRACE, not several "
                            "or a directory\n");
            return EXIT_USAGE;
        }
        if (sort < 0 || cmp.base_path || cmp.per_step || cmp.base_step || sel.only) {
            fprintf(stderr, "torch2pprof analyze: --base, --per-step, --steps and delta "
                            "sort keys take one TRACE, not several or a directory\n");
            return EXIT_USAGE;
        }
        analyze_ranks_opts ro = { .top = top, .sort = (enum model_sort)sort, .spread = spread,
                                  .json = json, .partial = partial, .jobs = (unsigned)jobs,
                                  .step = sel.spec, .mo = mo };
        return analyze_ranks(&ro, argc - optind, argv + optind);
    }
    if (argc - optind != 1) {
        fprintf(stderr, "torch2pprof analyze: expected a TRACE, several, or a directory\n%s",
                analyze_usage);
        return EXIT_USAGE;
    }
    if (spread) {
        fprintf(stderr, "torch2pprof analyze: --sort spread compares ranks: give several "
                        "traces or a directory\n");
        return EXIT_USAGE;
    }

    if (cmp.base_path || cmp.per_step || cmp.base_step) {
        cmp.step = sel.spec; /* --step M: TRACE's side */
        cmp.new_path = argv[optind];
        cmp.top = top;
        cmp.json = json;
        cmp.partial = partial;
        cmp.mo = mo;
        return analyze_compare(&cmp);
    }
    if (sort < 0) {
        fprintf(stderr, "torch2pprof analyze: --sort %s needs --base\n",
                cli_shown(cmp.sort, vis, sizeof vis));
        return EXIT_USAGE;
    }
    trace *tr = NULL;
    model *m = cli_open(argv[optind], partial, &mo, &tr);
    if (!m)
        return EXIT_INPUT;
    uint32_t *order = malloc((m->nops ? m->nops : 1) * sizeof *order);
    if (!order) {
        fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(argv[optind], vis, sizeof vis));
        model_free(m);
        trace_free(tr);
        return EXIT_INPUT;
    }
    t2p_error err;
    steps *st = steps_build(m, &err);
    if (!st) {
        free(order);
        model_free(m);
        trace_free(tr);
        return cli_fail(&err);
    }
    /* memory figures cover the whole trace, whatever step is selected */
    memory *mem = memory_build(m, &err);
    if (!mem) {
        free(order);
        steps_free(st);
        model_free(m);
        trace_free(tr);
        return cli_fail(&err);
    }
    memory_recommend(mem, st);
    sel.st = st;
    model *whole = m;
    bool usage_error;
    if (analyze_steps_select(&sel, &mo, &m, &usage_error) < 0) {
        free(order);
        memory_free(mem);
        steps_free(st);
        model_free(m);
        trace_free(tr);
        return usage_error ? EXIT_USAGE : EXIT_INPUT;
    }
    if (m != whole) {
        uint32_t *o2 = realloc(order, (m->nops ? m->nops : 1) * sizeof *order);
        if (!o2) {
            fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(argv[optind], vis, sizeof vis));
            free(order);
            model_free(m);
            m = whole;
            sel.only = true; /* report what we have */
        } else {
            order = o2;
        }
    }
    model_sort_ops(m, (enum model_sort)sort, false, order);
    size_t nshow = top == 0 || top > m->nops ? m->nops : top;
    shortnames *sn = short_names ? shortname_new(m) : NULL;
    if (short_names && !sn) {
        fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(argv[optind], vis, sizeof vis));
        memory_free(mem);
        free(order);
        steps_free(st);
        if (m != whole)
            model_free(m);
        model_free(whole);
        trace_free(tr);
        return EXIT_INPUT;
    }
    if (sel.only) {
        analyze_steps_only(stdout, &sel, json);
    } else if (json) {
        report_json(stdout, m, order, nshow, sn, &sel);
        analyze_memory_json(stdout, mem, msort, top);
        if (by_line)
            analyze_lines_json(stdout, m, top);
        fputs("}\n", stdout);
    } else {
        report_text(stdout, m, order, nshow, (enum model_sort)sort, sn, &sel);
        analyze_memory_text(stdout, mem, st, msort, top);
        if (by_line)
            analyze_lines_text(stdout, m, top);
    }
    shortname_free(sn);
    memory_free(mem);
    if (tr->truncated)
        cli_warn_truncated(tr->path, tr->truncated_reason, "loaded");
    free(order);
    steps_free(st);
    if (m != whole)
        model_free(m);
    model_free(whole);
    trace_free(tr);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "torch2pprof: <stdout>: cannot write the report: %s\n",
                errno ? strerror(errno) : "write error");
        return EXIT_INPUT;
    }
    return EXIT_OK;
}
