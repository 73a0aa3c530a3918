/* torch2pprof analyze: the single-trace report (what it computes, in
   which order; src/analyze_report.c prints it) and the options. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/compare.h"
#include "core/analyses/hta.h"
#include "core/model/model.h"
#include "core/model/shortname.h"
#include "core/analyses/range.h"
#include "core/analyses/steps.h"
#include "core/analyses/kernels.h"
#include "core/analyses/memory_scope.h"
#include "src/analyze_compare.h"
#include "src/analyze_report.h"
#include "src/analyze_gpu.h"
#include "src/analyze_kernels.h"
#include "src/analyze_lines.h"
#include "src/analyze_memory.h"
#include "src/analyze_ranks.h"
#include "src/analyze_scope.h"
#include "src/analyze_shapes.h"
#include "src/analyze_steps.h"
#include "src/cli.h"
#include "src/opts.h"

/* memory_build on a thread of its own while steps_build runs (--jobs 2 and
   up): both only read the model. */
struct mem_job {
    const model *m;
    memory *mem;
    t2p_error err;
};

static void *mem_main(void *arg)
{
    struct mem_job *j = arg;
    j->mem = memory_build(j->m, &j->err);
    return NULL;
}

/* hta_build of the whole trace on a thread of its own, beside steps, memory
   and kernels, when no --step or --range scopes it: it only reads the model,
   and on one thread it was a third of the passes after the load. */
struct hta_job {
    const model *m;
    const hta_opts *ho;
    hta *h;
    t2p_error err;
};

static void *hta_main(void *arg)
{
    struct hta_job *j = arg;
    j->h = hta_build(j->m, NULL, j->ho, &j->err);
    return NULL;
}

/* The single-trace report: text or JSON, whole trace or --step's scope.
   given: path's trace when already loaded (--rank's lookup; owned from
   here on), else NULL: it is loaded here. */
static int analyze_one(const char *path, trace *given, const model_opts *mo, bool partial,
                       int sort, enum memory_sort msort, size_t top, bool json, bool by_line,
                       bool by_shape, bool with_modules, bool short_names,
                       bool kernels_only, analyze_steps_sel *sel, const char *range_text,
                       const hta_opts *ho, analyze_scope *sc)
{
    analyze_ranged rgv, *rg = NULL;
    char vis[1200];
    t2p_error err;
    int rc = EXIT_INPUT;
    trace *tr = NULL;
    model *whole = given ? cli_model(given, mo, &tr) : cli_open(path, partial, mo, &tr),
          *m = whole;
    uint32_t *order = NULL;
    steps *st = NULL;
    memory *mem = NULL;
    shortnames *sn = NULL;
    hta *gpu = NULL;
    kernels *kr = NULL, *skr = NULL; /* skr: the kernels of --focus/--filter's stacks */
    memory_scoped *smem = NULL;       /* and their allocations */
    analyze_shapes shapes = { 0 };
    if (!whole)
        return EXIT_INPUT;
    /* only what is printed: --kernels prints no memory and no GPU
       analyses; the Steps table alone (its memory recommendation) no GPU
       analyses */
    bool need_mem = !kernels_only, need_hta = !sel->only && !kernels_only;
    struct hta_job hj = { .m = whole, .ho = ho };
    pthread_t hth;
    bool hthread = need_hta && cli_jobs() > 1 && !sel->spec && !range_text &&
                   pthread_create(&hth, NULL, hta_main, &hj) == 0;
    struct mem_job mj = { .m = whole };
    pthread_t mth;
    bool mthread = need_mem && cli_jobs() > 1 && tr->nmems &&
                   pthread_create(&mth, NULL, mem_main, &mj) == 0;
    st = steps_build(whole, &err);
    if (mthread)
        pthread_join(mth, NULL);
    else if (st && need_mem)
        mj.mem = memory_build(whole, &mj.err);
    mem = mj.mem;
    if (!st || (need_mem && !mem)) {
        rc = cli_fail(st ? &mj.err : &err);
        goto out;
    }
    if (mem)
        memory_recommend(mem, st);
    sel->st = st;
    bool usage_error;
    if (analyze_steps_select(sel, mo, &m, &usage_error) < 0) {
        rc = usage_error ? EXIT_USAGE : EXIT_INPUT;
        goto out;
    }
    if (range_text) {
        rg = &rgv;
        if ((rc = cli_range_resolve("torch2pprof analyze", range_text, whole, &rg->r)) != EXIT_OK)
            goto out;
        rc = EXIT_INPUT;
        if (!(m = range_scope(whole, &rg->r, mo, &rg->kept, &err))) {
            m = whole;
            rc = cli_fail(&err);
            goto out;
        }
        /* the Steps table: the steps whose host window overlaps the range */
        sel->ranged = true;
        steps_overlapping(st, rg->r.start, rg->r.end, &sel->rlo, &sel->rhi);
    }
    /* the scope of --step or --range as a mask over the whole model's
       events: the scoped model's own (model.keep); NULL for the whole trace */
    const unsigned char *keep = m != whole ? m->keep : NULL;
    if (!(kr = kernels_build(whole, st, keep, &err))) {
        rc = cli_fail(&err);
        goto out;
    }
    if (!sel->spec && !range_text)
        kernels_recommend(kr, st);
    if (!(order = malloc((m->nops ? m->nops : 1) * sizeof *order)) ||
        (short_names && !(sn = shortname_new(m)))) {
        fprintf(stderr, "torch2pprof: %s: out of memory\n", cli_shown(path, vis, sizeof vis));
        goto out;
    }
    /* HTA's analyses take the whole model and the scope as a keep mask:
       inside --step or --range the scope is the window, else HTA's own */
    if (hthread) {
        pthread_join(hth, NULL);
        hthread = false;
        if (!(gpu = hj.h)) {
            rc = cli_fail(&hj.err);
            goto out;
        }
    } else if (need_hta && !(gpu = hta_build(whole, keep, ho, &err))) {
        rc = cli_fail(&err);
        goto out;
    }
    /* the stacks of --focus, --category, --track, --filter in the model
       reported on (a step's, a range's): what convert writes */
    if (analyze_scope_apply(sc, whole, m, &rc) < 0)
        goto out;
    rc = EXIT_INPUT;
    size_t nops = analyze_scope_order(sc, (enum model_sort)sort, order);
    size_t nshow = top == 0 || top > nops ? nops : top;
    /* TensorBoard's tree is built over the whole trace (its runtime and GPU
       links cross step bounds); the step's or range's keep mask picks the
       calls that count, as convert --by-shape does */
    if (!sel->only && (json || by_shape || with_modules) &&
        analyze_shapes_build(&shapes, whole, keep, (enum model_sort)sort, &err) < 0) {
        rc = cli_fail(&err);
        goto out;
    }
    /* under --step or --range the memory figures are those of the window's
       records (core/analyses/memory.h); the recommendation above stays the
       whole trace's */
    if (mem && m != whole && m->scope.kind != MODEL_SCOPE_NONE && tr->nmems) {
        memory *sm = memory_build(m, &err);
        if (!sm) {
            rc = cli_fail(&err);
            goto out;
        }
        memory_free(mem);
        mem = sm;
    }
    /* under a scope of stacks: the kernels launched and the allocations
       made inside them (the GPU summary and the devices' peaks stay the
       device's); mem, when built (not for --kernels), is m's here.
       The pair the Kernels header compares: kr, every kernel of the
       report's model m (whole's kernels that m's keep mask holds: the
       trace's, the step's or the range's), and skr, those of the same
       events whose stack in m (sc->keep is over m's nodes) the scope
       selects. skr takes no mask: m's own scope (model.keep) already
       limits a scoped model's kernels (kernels_build_in); its span and
       GPU summary, over every step, are not shown (kr's are). */
    if (sc->stacks && sc->keep &&
        (!(skr = kernels_build_in(m, st, NULL, sc->keep, &err)) ||
         (mem && mem->m == m && !(smem = memory_scope_build(mem, sc->keep, &err))))) {
        rc = cli_fail(&err);
        goto out;
    }
    if (sel->only) {
        analyze_steps_only(stdout, sel, json);
    } else if (kernels_only) {
        analyze_kernels_only(stdout, kr, skr, top, json);
    } else if (json) {
        ranks_load_opts ro = { .mo = *mo, .step = sel->spec };
        ranks_file rank = { .path = (char *)path };
        if (sel->spec)
            snprintf(rank.step, sizeof rank.step, "%s", sel->spec);
        /* from the steps and the step's model built above, not again */
        if (ranks_file_from_built(&rank, whole, st, sel->spec ? m : NULL, &ro) < 0) {
            rc = cli_fail(&rank.err);
            ranks_file_clear(&rank);
            goto out;
        }
        analyze_report_json(stdout, m, order, nshow, sn, sel, rg, &rank, sc);
        analyze_kernels_json(stdout, kr, skr, top);
        ranks_file_clear(&rank);
        analyze_memory_json(stdout, mem, smem, msort, top);
        analyze_gpu_json(stdout, gpu);
        if (by_line)
            analyze_lines_json(stdout, m, sc->keep, top);
        analyze_shapes_json(stdout, &shapes, tr, top);
        fputs("}\n", stdout);
    } else {
        analyze_report_text(stdout, m, order, nshow, (enum model_sort)sort, sn, sel, rg, sc);
        analyze_kernels_text(stdout, kr, skr, top);
        analyze_memory_text(stdout, mem, smem, st, msort, top);
        analyze_gpu_text(stdout, gpu);
        if (by_line)
            analyze_lines_text(stdout, m, sc->keep, top);
        if (by_shape)
            analyze_shapes_text(stdout, &shapes, tr, top);
        if (with_modules)
            analyze_modules_text(stdout, &shapes, tr);
    }
    if (tr->truncated)
        cli_warn_truncated(tr->path, tr->truncated_reason, "loaded");
    if (cli_report_done() != EXIT_OK)
        goto out;
    rc = EXIT_OK;
out:
    if (hthread) {
        pthread_join(hth, NULL);
        hta_free(hj.h);
    }
    analyze_scope_done(sc);
    hta_free(gpu);
    analyze_shapes_done(&shapes);
    shortname_free(sn);
    kernels_free(kr);
    kernels_free(skr);
    memory_scope_free(smem);
    free(order);
    memory_free(mem);
    steps_free(st);
    if (m != whole)
        model_free(m);
    model_free(whole);
    trace_free(tr);
    return rc;
}

int cli_analyze(int argc, char **argv)
{
    const opts_cmd *c = &opts_analyze;
    analyze_compare_opts cmp = { 0 };
    opts_common_vals cv = { 0 };
    long top = 20;
    int sort = MODEL_SORT_SELF;
    bool json = false, spread = false, by_line = false, kernels_only = false,
         by_shape = false, with_modules = false;
    enum memory_sort msort = MEMORY_SORT_ALLOC_SIZE;
    analyze_steps_sel sel = { 0 };
    hta_opts ho;
    long v;
    char vis[1200];
    opts_parsed p;
    char *picked = NULL;
    analyze_scope sc;
    int rc, k;

    if (opts_parse(c, argc, argv, &p, &rc) < 0)
        return rc;
    hta_opts_default(&ho);
    rc = EXIT_USAGE;
    for (size_t i = 0; i < p.nhits; i++) {
        const opt_hit *h = &p.hits[i];
        if ((k = opts_common(c, h, &cv)) < 0)
            goto done;
        if (k > 0)
            continue;
        switch (h->id) {
        case OPT_TOP:
            if (opts_number(c, h, 0, __LONG_MAX__, &top) != 0)
                goto done;
            break;
        case OPT_SORT:
            if ((k = memory_sort_parse(h->value)) >= 0) {
                msort = (enum memory_sort)k;
                break;
            }
            cmp.sort = h->value;
            /* spread compares ranks: only the many-ranks report knows it */
            if ((spread = !strcmp(h->value, "spread"))) {
                sort = MODEL_SORT_SELF;
                break;
            }
            if (model_sort_parse(h->value) < 0 && compare_sort_parse(h->value) >= 0) {
                sort = -1; /* a delta key: for --base, checked below */
                break;
            }
            if ((sort = model_sort_parse(h->value)) < 0) {
                opts_usage_error(c, "unknown sort key '%s' (self, total, calls, name, avg, "
                                    "device_self, device_total, ...; see --help)",
                                 cli_shown(h->value, vis, sizeof vis));
                goto done;
            }
            break;
        case OPT_JSON: json = true; break;
        case OPT_PER_STEP: cmp.per_step = true; break;
        case OPT_BASE_STEP: cmp.base_step = h->value; break;
        case OPT_BY_LINE: by_line = true; break;
        case OPT_BY_SHAPE: by_shape = true; break;
        case OPT_MODULES: with_modules = true; break;
        case OPT_STEPS: sel.only = true; break;
        case OPT_KERNEL_WAIT:
        case OPT_RUNTIME_CUTOFF:
        case OPT_DELAY_CUTOFF:
            /* microseconds, HTA's unit; up to a day */
            if (opts_number(c, h, 0, 86400L * 1000000, &v) != 0)
                goto done;
            *(h->id == OPT_KERNEL_WAIT      ? &ho.kernel_wait_ns
              : h->id == OPT_RUNTIME_CUTOFF ? &ho.runtime_cutoff_ns
                                            : &ho.delay_cutoff_ns) = (int64_t)v * 1000;
            break;
        case OPT_SEQ_OP: ho.seq_op = h->value; break;
        case OPT_KERNELS: kernels_only = true; break;
        case OPT_HELP:
            opts_help(c, stdout);
            rc = EXIT_OK;
            goto done;
        case OPT_VERSION:
            printf("torch2pprof %s\n", PACKAGE_VERSION);
            rc = EXIT_OK;
            goto done;
        default: break;
        }
    }
    model_opts mo = { .keep_steps = cv.keep_steps, .no_python = cv.no_python };
    sel.spec = cv.step;
    cmp.base_path = cv.base;
    if (p.noperands == 0) {
        opts_usage_error(c, "expected a TRACE, several, or a directory");
        goto done;
    }
    if (cv.range && (cv.step || sel.only)) {
        opts_usage_error(c, "--range does not go with --step or --steps (a range is a scope "
                            "of its own)");
        goto done;
    }
    /* --rank N picks one trace of a job: the range scopes its report */
    if (cv.range && (cv.base || cmp.per_step || cmp.base_step ||
                     (!cv.has_rank && analyze_ranks_wanted((int)p.noperands, p.operands)))) {
        opts_usage_error(c, "--range takes one TRACE or one rank of a job (--rank N), "
                            "without --base");
        goto done;
    }
    for (size_t i = 0; i < p.noperands; i++)
        if (!strcmp(p.operands[i], "-") && (p.noperands > 1 || cv.base)) {
            opts_usage_error(c, "- (standard input) is one TRACE alone, without --base");
            goto done;
        }
    cli_set_jobs(cv.jobs);
    analyze_scope_init(&sc, &cv);
    bool stacks = analyze_scope_stacks(&cv);
    if (stacks && (cv.base || cmp.per_step || cmp.base_step || sel.only)) {
        opts_usage_error(c, "--focus, --category, --track and --filter scope the report "
                            "of one trace: not with --base, --per-step, --base-step or --steps");
        goto done;
    }
    bool job = analyze_ranks_wanted((int)p.noperands, p.operands);
    if (cv.has_rank) {
        /* one rank of a job: its own report, the scope applied to it */
        if (cv.base || cmp.per_step || cmp.base_step || spread || sort < 0) {
            opts_usage_error(c, "--rank does not go with --base, --per-step, --base-step, "
                                "--sort spread or a delta sort key");
            goto done;
        }
        analyze_ranks_opts ro = { .partial = cv.partial, .jobs = (unsigned)cv.jobs, .mo = mo };
        trace *ptr;
        if ((rc = analyze_ranks_pick(&ro, (int)p.noperands, p.operands, cv.rank, &picked,
                                     &ptr)) != EXIT_OK)
            goto done;
        sc.rank_of = p.noperands == 1 ? p.operands[0] : NULL;
        rc = analyze_one(picked, ptr, &mo, cv.partial, sort, msort, (size_t)top, json, by_line,
                         by_shape, with_modules, cv.short_names, kernels_only, &sel, cv.range,
                         &ho, &sc);
        goto done;
    }
    if (job) {
        if (stacks) {
            opts_usage_error(c, "--focus, --category, --track and --filter take one TRACE, or "
                                "one rank of a job (--rank N)");
            goto done;
        }
        if (cv.short_names) {
            opts_usage_error(c, "--short-names takes one TRACE, not several or a directory");
            goto done;
        }
        if (sort < 0 || cmp.base_path || cmp.per_step || cmp.base_step || sel.only ||
            kernels_only) {
            opts_usage_error(c, "--base, --per-step, --steps, --kernels and delta sort keys take one "
                                "TRACE, not several or a directory");
            goto done;
        }
        analyze_ranks_opts ro = { .top = (size_t)top, .sort = (enum model_sort)sort,
                                  .spread = spread, .json = json, .partial = cv.partial,
                                  .jobs = (unsigned)cv.jobs, .step = sel.spec, .mo = mo };
        rc = analyze_ranks(&ro, (int)p.noperands, p.operands);
        goto done;
    }
    if (spread) {
        opts_usage_error(c, "--sort spread compares ranks: give several traces or a directory");
        goto done;
    }
    if (cmp.base_path || cmp.per_step || cmp.base_step) {
        cmp.step = sel.spec; /* --step M: TRACE's side */
        cmp.new_path = p.operands[0];
        cmp.top = (size_t)top;
        cmp.json = json;
        cmp.partial = cv.partial;
        cmp.mo = mo;
        rc = analyze_compare(&cmp);
        goto done;
    }
    if (sort < 0) {
        opts_usage_error(c, "--sort %s needs --base", cli_shown(cmp.sort, vis, sizeof vis));
        goto done;
    }
    rc = analyze_one(p.operands[0], NULL, &mo, cv.partial, sort, msort, (size_t)top, json,
                     by_line, by_shape, with_modules, cv.short_names, kernels_only, &sel, cv.range, &ho,
                     &sc);
done:
    free(picked);
    opts_parsed_done(&p);
    return rc;
}
