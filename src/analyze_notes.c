/* analyze: the figures of the text report that need a word on what they are. */
#include "config.h"

#include "src/analyze_notes.h"

#include "core/base/fmt.h"
#include "src/cli.h"

void analyze_cum_note(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                      const shortnames *sn, const scope_fig *figs)
{
    char a[64], b[64];
    fputs("* Total sums the op's calls (as PyTorch's table); Cum is the time with it anywhere\n"
          "  on the stack (go tool pprof's cum): lower when the op runs inside itself,\n"
          "  higher when a call's children overlap each other.\n",
          f);
    for (size_t i = 0; i < nshow; i++) {
        const model_op *o = &m->ops[order[i]];
        int64_t cum = figs ? figs[order[i]].cum_ns : o->cum_ns;
        int64_t total = figs ? figs[order[i]].total_ns : o->total_ns;
        if (cum == total)
            continue;
        size_t nlen, clen = strtab_len(m->tr->strs, o->cat);
        const char *name = sn ? shortname_op(sn, order[i], &nlen) : trace_str(m->tr, o->name);
        if (!sn)
            nlen = strtab_len(m->tr->strs, o->name);
        fputs("  ", f);
        cli_put_text(f, name, nlen);
        if (clen) {
            fputs(" (", f);
            cli_put_text(f, trace_str(m->tr, o->cat), clen);
            fputc(')', f);
        }
        fprintf(f, ": cum %s ms, total %s ms\n", fmt_ms(cum, a, sizeof a),
                fmt_ms(total, b, sizeof b));
    }
}

/* "2.31x" of the window, or "" when there is no window */
static const char *ratio(int64_t ns, int64_t window, char *buf, size_t size)
{
    if (window <= 0)
        return "";
    snprintf(buf, size, "; %.2fx the window", (double)ns / (double)window);
    return buf;
}

void analyze_time_lines(FILE *f, const model *m)
{
    char a[64], b[64], c[64];
    fprintf(f, "Trace window:      %s ms\n", fmt_ms(m->window_ns, a, sizeof a));
    /* a sum over threads that run at once: it can exceed the window */
    fprintf(f, "CPU time:          %s ms over all threads (each thread's busy time%s)\n",
            fmt_ms(m->cpu_ns, a, sizeof a), ratio(m->cpu_ns, m->window_ns, b, sizeof b));
    if (m->busy_ns != m->cpu_ns)
        fprintf(f, "All tracks:        %s ms (self time of CPU threads and GPU stream rows; "
                   "the pprof total)\n",
                fmt_ms(m->busy_ns, a, sizeof a));
    /* the events whose self time counts an overlap twice, as PyTorch's does */
    if (m->partial_overlap_events)
        fprintf(f, "Partial overlaps:  %s events overlap a later event of their thread by %s ms "
                   "in all (each keeps its self time, as in PyTorch's table; CPU time counts "
                   "the overlap once)\n",
                fmt_count(m->partial_overlap_events, a, sizeof a),
                fmt_ms(m->partial_overlap_ns, b, sizeof b));
    if (!m->gpu_events)
        return;
    fprintf(f, "GPU time:          %s ms in %s GPU events (%s ms unattributed)\n",
            fmt_ms(m->gpu_ns, a, sizeof a), fmt_count(m->gpu_events, b, sizeof b),
            fmt_ms(m->gpu_unattributed_ns, c, sizeof c));
    fprintf(f, "GPU busy:          %s ms (some GPU stream at work; %s %% of the window)\n",
            fmt_ms(m->gpu_busy_ns, a, sizeof a), fmt_pct(m->gpu_busy_ns, m->window_ns, b, sizeof b));
}
