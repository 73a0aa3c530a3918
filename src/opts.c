/* Parsing and help from the one table of options (src/opts.h). */
#include "config.h"

#include "src/opts.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/range.h"
#include "core/base/fmt.h"
#include "src/args.h"

static bool takes(const opts_cmd *c, const opt_def *d)
{
    return (d->progs & c->prog) != 0;
}

static const char *shown(const char *s, char *buf, size_t size)
{
    return fmt_visible(s, strlen(s), buf, size);
}

int opts_usage_error(const opts_cmd *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", c->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", c->name);
    return EXIT_USAGE;
}

/* Edit distance of a and b (short strings: option names). */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *opts_closest(const opts_cmd *c, const char *name)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1, len = strlen(name);
    for (size_t i = 0; i < opts_count; i++) {
        const opt_def *d = &opts_table[i];
        if (!takes(c, d))
            continue;
        size_t dd = distance(name, d->name);
        /* a name that holds the given one (--memory for no-memory) is close too */
        if (len >= 3 && strstr(d->name, name) && dd > 1)
            dd = 2;
        if (dd < bestd) {
            bestd = dd;
            best = d->name;
        }
    }
    size_t limit = len <= 2 ? 1 : len <= 8 ? 2 : 3;
    return bestd <= limit ? best : NULL;
}

/* The long option of c named name (exactly, or by an unambiguous
   prefix). NULL after printing the usage error. */
static const opt_def *find_long(const opts_cmd *c, const char *name, size_t len,
                                const char *spelled)
{
    const opt_def *hit = NULL;
    size_t nprefix = 0;
    for (size_t i = 0; i < opts_count; i++) {
        const opt_def *d = &opts_table[i];
        if (!takes(c, d) || strncmp(d->name, name, len) != 0)
            continue;
        if (strlen(d->name) == len)
            return d;
        hit = d;
        nprefix++;
    }
    if (nprefix == 1)
        return hit;
    char vis[300], nm[128];
    if (nprefix > 1) {
        char list[600] = "";
        size_t at = 0;
        for (size_t i = 0; i < opts_count && at < sizeof list - 64; i++) {
            const opt_def *d = &opts_table[i];
            if (takes(c, d) && strncmp(d->name, name, len) == 0)
                at += (size_t)snprintf(list + at, sizeof list - at, "%s--%s", at ? ", " : "",
                                       d->name);
        }
        opts_usage_error(c, "option '%s' is ambiguous (%s)", shown(spelled, vis, sizeof vis), list);
        return NULL;
    }
    snprintf(nm, sizeof nm, "%.*s", (int)(len < sizeof nm - 1 ? len : sizeof nm - 1), name);
    const char *close = opts_closest(c, nm);
    if (close)
        opts_usage_error(c, "unknown option '%s' (did you mean '--%s'?)",
                         shown(spelled, vis, sizeof vis), close);
    else
        opts_usage_error(c, "unknown option '%s'", shown(spelled, vis, sizeof vis));
    return NULL;
}

/* A single-dash argument that is a long option of c (-top, -json): the
   Go torch2pprof's spelling. Only exact names, so -o stays a letter. */
static const opt_def *single_dash_long(const opts_cmd *c, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (len < 2)
        return NULL;
    for (size_t i = 0; i < opts_count; i++) {
        const opt_def *d = &opts_table[i];
        if (takes(c, d) && strlen(d->name) == len && strncmp(d->name, arg, len) == 0)
            return d;
    }
    return NULL;
}

static const opt_def *find_letter(const opts_cmd *c, char l)
{
    for (size_t i = 0; i < opts_count; i++)
        if (opts_table[i].letter == l && takes(c, &opts_table[i]))
            return &opts_table[i];
    return NULL;
}

void opts_parsed_done(opts_parsed *p)
{
    if (!p)
        return;
    free(p->hits);
    free(p->operands);
    p->hits = NULL;
    p->operands = NULL;
    p->nhits = p->noperands = 0;
}

/* Where a long option's name is spelled in messages: "--top". */
static const char *long_spelling(const opt_def *d)
{
    static char buf[4][80];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "--%s", d->name);
    return buf[k];
}

int opts_parse(const opts_cmd *c, int argc, char **argv, opts_parsed *p, int *rc)
{
    char vis[300];
    memset(p, 0, sizeof *p);
    size_t n = argc > 0 ? (size_t)argc : 1;
    p->hits = malloc(n * sizeof *p->hits);
    p->operands = malloc(n * sizeof *p->operands);
    if (!p->hits || !p->operands) {
        fprintf(stderr, "%s: out of memory\n", c->name);
        *rc = EXIT_INPUT;
        goto fail;
    }
    *rc = EXIT_USAGE;
    bool options = true;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (!options || a[0] != '-' || a[1] == '\0') {
            p->operands[p->noperands++] = a; /* "-" is standard input */
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options = false;
            continue;
        }
        const opt_def *d;
        const char *value = NULL;
        bool inline_value = false;
        if (a[1] == '-' || (d = single_dash_long(c, a + 1))) {
            const char *name = a + (a[1] == '-' ? 2 : 1);
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            char spelled[128];
            snprintf(spelled, sizeof spelled, "%.*s", (int)(eq ? eq - a : (long)strlen(a)), a);
            if (!(d = find_long(c, name, len, spelled)))
                goto fail;
            if (eq) {
                value = eq + 1;
                inline_value = true;
            }
            if (inline_value && !d->value) {
                opts_usage_error(c, "option '--%s' takes no value", d->name);
                goto fail;
            }
            if (d->value && !inline_value) {
                if (i + 1 >= argc) {
                    opts_usage_error(c, "option '--%s' needs a value (%s)", d->name, d->value);
                    goto fail;
                }
                value = argv[++i];
            }
            p->hits[p->nhits++] = (opt_hit){ d->id, value, long_spelling(d) };
            continue;
        }
        /* short letters: -V, -h, -o OUT, -oOUT, -hV */
        for (const char *l = a + 1; *l; l++) {
            if (!(d = find_letter(c, *l))) {
                char one[3] = { '-', *l, 0 };
                opts_usage_error(c, "unknown option '%s'%s", shown(one, vis, sizeof vis),
                                 l == a + 1 && strlen(a) > 2 ? " (long options take two dashes)"
                                                             : "");
                goto fail;
            }
            if (!d->value) {
                p->hits[p->nhits++] = (opt_hit){ d->id, NULL, long_spelling(d) };
                continue;
            }
            if (l[1]) {
                value = l + 1;
            } else if (i + 1 < argc) {
                value = argv[++i];
            } else {
                opts_usage_error(c, "option '-%c' needs a value (%s)", *l, d->value);
                goto fail;
            }
            p->hits[p->nhits++] = (opt_hit){ d->id, value, long_spelling(d) };
            break;
        }
    }
    *rc = EXIT_OK;
    return 0;
fail:
    opts_parsed_done(p);
    return -1;
}

int opts_number(const opts_cmd *c, const opt_hit *h, long min, long max, long *out)
{
    char *end, vis[300];
    long v = strtol(h->value, &end, 10);
    if (*end || end == h->value || v < min || v > max) {
        if (max == __LONG_MAX__)
            return opts_usage_error(c, "%s wants a number >= %ld, not '%s'", h->spelled, min,
                                    shown(h->value, vis, sizeof vis));
        return opts_usage_error(c, "%s wants a number from %ld to %ld, not '%s'", h->spelled, min,
                                max, shown(h->value, vis, sizeof vis));
    }
    *out = v;
    return 0;
}

int opts_common(const opts_cmd *c, const opt_hit *h, opts_common_vals *v)
{
    switch (h->id) {
    case OPT_PARTIAL: v->partial = v->partial_given = true; return 1;
    case OPT_STRICT: v->strict = true; return 1;
    case OPT_KEEP_STEPS: v->keep_steps = true; return 1;
    case OPT_NO_PYTHON: v->no_python = true; return 1;
    case OPT_SHORT_NAMES: v->short_names = true; return 1;
    case OPT_STEP: v->step = h->value; return 1;
    case OPT_RANGE: {
        /* a malformed range is refused before a long load */
        range_spec rs;
        t2p_error err;
        char vis[1200];
        if (range_parse(h->value, &rs, &err) < 0) {
            opts_usage_error(c, "--range: %s",
                             fmt_visible(err.reason, strlen(err.reason), vis, sizeof vis));
            return -1;
        }
        v->range = h->value;
        return 1;
    }
    case OPT_BASE: v->base = h->value; return 1;
    case OPT_FOCUS:
    case OPT_CATEGORY:
    case OPT_TRACK:
        if (v->nentries == SCOPE_MAX - 1) {
            opts_usage_error(c, "at most %d of --focus, --category and --track", SCOPE_MAX - 1);
            return -1;
        }
        v->entries[v->nentries++] = (export_entry){ h->id == OPT_FOCUS      ? "focus"
                                                    : h->id == OPT_CATEGORY ? "category"
                                                                            : "track",
                                                    h->value };
        return 1;
    case OPT_FILTER: v->filter = h->value; return 1;
    case OPT_RANK:
        if (opts_number(c, h, 0, __LONG_MAX__, &v->rank) != 0)
            return -1;
        v->has_rank = true;
        return 1;
    case OPT_JOBS: return opts_number(c, h, 1, 4096, &v->jobs) == 0 ? 1 : -1;
    default: return 0;
    }
}

/* ---------------------------------------------------------------- help */

#define HELP_COL 22

void opts_help(const opts_cmd *c, FILE *f)
{
    fputs(c->synopsis, f);
    if (c->about)
        fprintf(f, "\n%s", c->about);
    fputs("\nOptions:\n", f);
    for (size_t i = 0; i < opts_count; i++) {
        const opt_def *d = &opts_table[i];
        if (!takes(c, d))
            continue;
        if (d->heading)
            fprintf(f, "\n%s:\n", d->heading);
        char head[96];
        int n;
        if (d->letter)
            n = snprintf(head, sizeof head, "  -%c, --%s%s%s", d->letter, d->name,
                         d->value ? " " : "", d->value ? d->value : "");
        else
            n = snprintf(head, sizeof head, "      --%s%s%s", d->name, d->value ? " " : "",
                         d->value ? d->value : "");
        fputs(head, f);
        if (n + 2 > HELP_COL) {
            fputc('\n', f);
            n = 0;
        }
        /* the paragraph wrapped to 80 columns, from HELP_COL on */
        const char *t = d->help;
        int pad = HELP_COL - n;
        while (*t) {
            size_t room = 80 - HELP_COL, len = strlen(t);
            if (len > room) {
                len = room;
                while (len > 0 && t[len] != ' ')
                    len--;
                if (len == 0)
                    len = strcspn(t, " ");
            }
            fprintf(f, "%*s%.*s\n", pad, "", (int)len, t);
            t += len;
            while (*t == ' ')
                t++;
            pad = HELP_COL;
        }
    }
    if (c->after)
        fprintf(f, "\n%s", c->after);
}
