/* The helpers the torch2pprof commands share: error messages, opening a
   trace, JSON strings. */
#include "config.h"

#include "src/cli.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/base/textsafe.h"
#include "core/base/outfile.h"
#include "core/analyses/range.h"
#include "core/analyses/ranks.h"
#include "src/opts.h"

int cli_fail(const t2p_error *err)
{
    char buf[1200];
    fprintf(stderr, "torch2pprof: %s%s\n", error_format(err, buf, sizeof buf),
            err->kind == T2P_ERR_TRUNCATED && !strstr(err->reason, "--partial")
                ? "; --partial loads what was read" : "");
    return EXIT_INPUT;
}

void cli_warn_truncated(const char *path, const char *reason, const char *done)
{
    char p[1200], r[600];
    fprintf(stderr, "torch2pprof: warning: %s: truncated (%s); %s what was read\n",
            cli_shown(path, p, sizeof p), cli_shown(reason, r, sizeof r), done);
}

static unsigned load_jobs = 1;

void cli_set_jobs(long jobs)
{
    load_jobs = jobs > 0 ? (unsigned)jobs : ranks_default_jobs();
}

unsigned cli_jobs(void)
{
    return load_jobs;
}

model *cli_open(const char *path, bool partial, const model_opts *mo, trace **out_trace)
{
    t2p_error err;
    trace_load_opts lo = { .partial = partial, .jobs = load_jobs };
    trace *tr = trace_load(path, &lo, &err);
    if (!tr) {
        cli_fail(&err);
        return NULL;
    }
    return cli_model(tr, mo, out_trace);
}

model *cli_model(trace *tr, const model_opts *mo, trace **out_trace)
{
    t2p_error err;
    model_opts o = { 0 };
    if (mo)
        o = *mo;
    o.jobs = load_jobs; /* the model's passes take as many threads as the load */
    model *m = model_build(tr, &o, &err);
    if (!m) {
        cli_fail(&err);
        trace_free(tr);
        return NULL;
    }
    *out_trace = tr;
    return m;
}

void cli_put_text(FILE *f, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        /* runs of printable ASCII as they are, the rest unit by unit */
        size_t k = i;
        while (k < len && (unsigned char)s[k] >= 0x20 && (unsigned char)s[k] < 0x7F)
            k++;
        if (k > i)
            fwrite(s + i, 1, k - i, f);
        if (k == len)
            break;
        textsafe_unit u;
        textsafe_next(s + k, len - k, &u);
        fwrite(u.vis, 1, u.vislen, f);
        i = k + u.in;
    }
}

void cli_put_cell(FILE *f, const char *s, size_t len, size_t cols)
{
    char buf[1024];
    fmt_ellipsize(s, len, cols, buf, sizeof buf);
    size_t w = fmt_width(buf, strlen(buf));
    fputs(buf, f);
    for (; w < cols; w++)
        fputc(' ', f);
}

const char *cli_shown(const char *s, char *buf, size_t size)
{
    return fmt_visible(s, strlen(s), buf, size);
}

FILE *cli_summary_stream(const char *out)
{
    (void)out;
    return stderr; /* standard output carries results only */
}

int cli_summary_done(FILE *f, const char *out)
{
    errno = 0;
    if (fflush(f) == 0 && !ferror(f))
        return EXIT_OK;
    int e = errno;
    char vis[1200];
    fprintf(stderr, "torch2pprof: wrote %s, but cannot print the summary on %s: %s\n",
            cli_shown(out, vis, sizeof vis),
            f == stderr ? "standard error" : "standard output",
            e ? strerror(e) : "write error");
    return EXIT_INPUT;
}

void cli_json_string(FILE *f, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            fputc(c, f);
            i++;
            continue;
        }
        textsafe_unit u;
        textsafe_next(s + i, len - i, &u);
        i += u.in;
        if (!u.valid) {
            fputs(TEXTSAFE_REPLACEMENT, f); /* strict readers want valid UTF-8 */
            continue;
        }
        switch (u.cp) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            /* controls (C0, DEL, C1) and the invisible bidi and line
               separators escaped: JSON read in a terminal stays inert */
            if (u.escaped)
                fprintf(f, "\\u%c%c%c%c", hex[u.cp >> 12 & 15], hex[u.cp >> 8 & 15],
                        hex[u.cp >> 4 & 15], hex[u.cp & 15]);
            else
                fwrite(u.vis, 1, u.vislen, f);
        }
    }
    fputc('"', f);
}

char *cli_convert_command(const struct opts_parsed *p, char *const *inputs, size_t ninputs,
                          const char *out)
{
    size_t size = 64;
    for (size_t i = 0; i < p->nhits; i++)
        size += 40 + 2 * (p->hits[i].value ? strlen(p->hits[i].value) * 2 + 3 : 0);
    for (size_t i = 0; i < ninputs; i++)
        size += 2 * strlen(inputs[i]) * 2 + 4;
    size += 2 * strlen(out) * 2 + 8;
    size *= 2; /* the visible form of a control byte takes up to 6 */
    char *buf = malloc(size);
    if (!buf)
        return NULL;
    size_t at = (size_t)snprintf(buf, size, "torch2pprof convert");
    for (size_t i = 0; i < p->nhits; i++) {
        const opt_hit *h = &p->hits[i];
        /* --jobs changes how fast, never what: the profile is the same */
        if (h->id == OPT_OUTPUT || h->id == OPT_HELP || h->id == OPT_VERSION || h->id == OPT_JOBS)
            continue;
        fmt_shell_word(buf, size, &at, h->spelled);
        if (h->value)
            fmt_shell_word(buf, size, &at, h->value);
    }
    for (size_t i = 0; i < ninputs; i++)
        fmt_shell_word(buf, size, &at, inputs[i]);
    fmt_shell_word(buf, size, &at, "-o");
    fmt_shell_word(buf, size, &at, out);
    return buf;
}

size_t cli_print_notes(const struct ranks_job *j, size_t n)
{
    char buf[1200];
    for (; n < j->nnotes; n++)
        fprintf(stderr, "torch2pprof: note: %s\n", error_format(&j->notes[n], buf, sizeof buf));
    return n;
}

/* A load and its analyses malloc and free many arrays of a few MB (HTA's
   and the steps' per-event lists, the GPU summary, sort scratch, the
   parallel load's chunks and records). With glibc's defaults a block from
   128 KiB up is mapped on its own and unmapped when freed, the heap's top is
   given back past 128 KiB, and each thread has its own heap: every such
   array faults its pages in afresh, 4 KiB at a time, and no freed array's
   pages serve the next one. On the bench's VM a 4 KiB fault costs ~14 us
   (64 MB touched in 4 KiB pages: 230 ms, every time), and analyze of the
   bench trace took 23,000 of them, a fifth of its CPU time. Blocks up to
   32 MB from the heap (glibc's most), freed memory kept (up to 256 MB) and
   one heap for every thread let the passes reuse each other's pages: 14,500
   faults, 6-8 % less CPU time (paired, medians of 5 and 7). The price is
   peak RSS, as freed blocks stay in the heap: analyze's 3-5 MB more,
   convert's and the explorer's first screen's 16-18 MB (91 -> 107 MB).
   The big per-event arrays are vec.h's mappings on huge pages, not malloc's.
   Figures never depend on it. */
void cli_tune_malloc(void)
{
#if defined(__GLIBC__) && defined(M_ARENA_MAX) /* the knobs are glibc's */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
    mallopt(M_ARENA_MAX, 1);
#endif
}

int cli_report_done(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return EXIT_OK;
    fprintf(stderr, "torch2pprof: <stdout>: cannot write the report: %s\n",
            errno ? strerror(errno) : "write error");
    return EXIT_INPUT;
}

int cli_range_resolve(const char *prog, const char *text, const model *whole, time_range *r)
{
    range_spec rs;
    t2p_error err;
    char vis[1200];
    if (range_parse(text, &rs, &err) < 0 || range_resolve(whole, &rs, r, &err) < 0) {
        fprintf(stderr, "%s: --range: %s\n", prog, cli_shown(err.reason, vis, sizeof vis));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
