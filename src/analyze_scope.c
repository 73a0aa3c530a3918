/* analyze's scope (see src/analyze_scope.h). */
#include "config.h"

#include "src/analyze_scope.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "src/cli.h"

bool analyze_scope_stacks(const opts_common_vals *cv)
{
    return cv->nentries || (cv->filter && cv->filter[0]);
}

void analyze_scope_init(analyze_scope *sc, const opts_common_vals *cv)
{
    memset(sc, 0, sizeof *sc);
    sc->cv = cv;
    sc->a.entries = cv->entries;
    sc->a.nentries = cv->nentries;
    sc->a.filter = cv->filter;
    sc->a.short_names = cv->short_names;
    sc->a.hide_python = cv->no_python;
    sc->stacks = analyze_scope_stacks(cv);
    sc->rank = cv->has_rank ? cv->rank : -1;
}

void analyze_scope_done(analyze_scope *sc)
{
    if (!sc)
        return;
    scope_free(sc->s);
    free(sc->keep);
    sc->s = NULL;
    sc->keep = NULL;
}

int analyze_scope_apply(analyze_scope *sc, const model *whole, const model *m, int *rc)
{
    t2p_error err;
    char vis[1200];
    bool selecting;
    sc->m = m;
    sc->busy_ns = m->busy_ns;
    if (!sc->stacks)
        return 0;
    /* a name the trace lacks is a mistake; one that a step or range lacks
       an empty scope. Then the selection convert writes: each entry
       resolved by name in m, a --focus that names no operator nor path
       read as a regular expression */
    if (export_check_entries(whole, &sc->a, &err) < 0 ||
        export_select(m, &sc->a, &sc->keep, &selecting, &err) < 0) {
        if (err.kind == T2P_ERR_ARG || err.kind == T2P_ERR_MISSING) {
            fprintf(stderr, "torch2pprof analyze: %s\n", cli_shown(err.reason, vis, sizeof vis));
            *rc = err.kind == T2P_ERR_ARG ? EXIT_USAGE : EXIT_INPUT;
        } else {
            *rc = cli_fail(&err);
        }
        return -1;
    }
    if (!(sc->s = scope_new(m)))
        goto nomem;
    scope_restrict(sc->s, sc->keep);
    sc->busy_ns = scope_busy(sc->s);
    if (!scope_ops(sc->s))
        goto nomem;
    return 0;
nomem:
    fprintf(stderr, "torch2pprof analyze: out of memory selecting the stacks\n");
    *rc = EXIT_INPUT;
    return -1;
}

const scope_fig *analyze_scope_ops(analyze_scope *sc)
{
    return sc->s ? scope_ops(sc->s) : NULL;
}

const scope_fig *analyze_scope_cats(analyze_scope *sc)
{
    return sc->s ? scope_cats(sc->s) : NULL;
}

const scope_fig *analyze_scope_tracks(analyze_scope *sc)
{
    return sc->s ? scope_tracks(sc->s) : NULL;
}

size_t analyze_scope_order(analyze_scope *sc, enum model_sort sort, uint32_t *order)
{
    if (!sc->s) {
        model_sort_ops(sc->m, sort, false, order);
        return sc->m->nops;
    }
    return scope_sort_ops(sc->s, sort, false, order);
}

/* The scope's options in convert's spelling (without --step and --range,
   which the steps' and range's lines say): "--focus aten::mm --filter
   conv". */
static void options_text(const analyze_scope *sc, bool with_rank, char *buf, size_t size)
{
    const opts_common_vals *cv = sc->cv;
    size_t at = 0;
    buf[0] = '\0';
    if (with_rank && cv->has_rank) {
        char n[32];
        snprintf(n, sizeof n, "%ld", cv->rank);
        fmt_shell_word(buf, size, &at, "--rank");
        fmt_shell_word(buf, size, &at, n);
    }
    for (size_t i = 0; i < cv->nentries; i++) {
        char opt[32];
        snprintf(opt, sizeof opt, "--%s", cv->entries[i].opt);
        fmt_shell_word(buf, size, &at, opt);
        fmt_shell_word(buf, size, &at, cv->entries[i].val);
    }
    if (cv->filter && cv->filter[0]) {
        fmt_shell_word(buf, size, &at, "--filter");
        fmt_shell_word(buf, size, &at, cv->filter);
    }
    if (cv->no_python)
        fmt_shell_word(buf, size, &at, "--no-python");
    if (cv->short_names)
        fmt_shell_word(buf, size, &at, "--short-names");
    if (cv->keep_steps)
        fmt_shell_word(buf, size, &at, "--keep-steps");
}

void analyze_scope_text(FILE *f, const analyze_scope *sc)
{
    char a[64], b[64];
    if (sc->cv->has_rank) {
        fprintf(f, "Scope:             rank %lld", (long long)sc->rank);
        if (sc->rank_of) {
            fputs(" of the job ", f);
            cli_put_text(f, sc->rank_of, strlen(sc->rank_of));
        }
        fputc('\n', f);
    }
    if (!sc->stacks)
        return;
    char opts[2048];
    options_text(sc, false, opts, sizeof opts);
    /* fmt_shell_word starts each word with a space */
    fputs("Scope:            ", f);
    cli_put_text(f, opts, strlen(opts));
    fprintf(f, " (the stacks `torch2pprof convert` writes with these options: %s of %s ms "
               "self time over all tracks; the totals, categories, operations, threads, "
               "streams, kernels, allocations and source lines count them alone; the steps, "
               "the GPU summary, the devices' memory peaks and HTA's device figures are the "
               "device's)\n",
            fmt_ms(sc->busy_ns, a, sizeof a), fmt_ms(sc->m->busy_ns, b, sizeof b));
}

void analyze_scope_json(FILE *f, const analyze_scope *sc)
{
    const opts_common_vals *cv = sc->cv;
    char opts[2048];
    size_t at = 0;
    char all[2300];
    all[0] = '\0';
    /* every scope option, --step and --range first, as convert takes them */
    if (cv->step) {
        fmt_shell_word(all, sizeof all, &at, "--step");
        fmt_shell_word(all, sizeof all, &at, cv->step);
    }
    if (cv->range) {
        fmt_shell_word(all, sizeof all, &at, "--range");
        fmt_shell_word(all, sizeof all, &at, cv->range);
    }
    options_text(sc, true, opts, sizeof opts);
    snprintf(all + at, sizeof all - at, "%s", opts);
    const char *o = all[0] == ' ' ? all + 1 : all;
    fputs("\"options\":", f);
    cli_json_string(f, o, strlen(o));
    if (cv->has_rank)
        fprintf(f, ",\"rank\":%lld", (long long)sc->rank);
    if (cv->nentries) {
        fputs(",\"entries\":[", f);
        for (size_t i = 0; i < cv->nentries; i++) {
            fputs(i ? ",{\"option\":" : "{\"option\":", f);
            cli_json_string(f, cv->entries[i].opt, strlen(cv->entries[i].opt));
            fputs(",\"value\":", f);
            cli_json_string(f, cv->entries[i].val, strlen(cv->entries[i].val));
            fputc('}', f);
        }
        fputc(']', f);
    }
    if (cv->filter && cv->filter[0]) {
        fputs(",\"filter\":", f);
        cli_json_string(f, cv->filter, strlen(cv->filter));
    }
    if (cv->short_names)
        fputs(",\"short_names\":true", f);
    if (cv->no_python)
        fputs(",\"no_python\":true", f);
    if (sc->stacks && sc->m)
        fprintf(f, ",\"selected_ns\":%lld,\"of_ns\":%lld", (long long)sc->busy_ns,
                (long long)sc->m->busy_ns);
}
