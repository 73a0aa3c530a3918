/* The ranks' load screen as text; see ui/progress.h. */
#include "config.h"

#include "ui/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"

static double file_fraction(const ranks_file_progress *f)
{
    if (f->stage >= RANKS_BUILDING)
        return 1;
    if (f->stage == RANKS_WAITING || !f->size)
        return 0;
    double x = (double)f->done / (double)f->size;
    return x > 1 ? 1 : x;
}

double progress_ranks_fraction(const ranks_job *j, const ranks_file_progress *p)
{
    double done = 0, all = 0;
    for (size_t i = 0; i < j->nfiles; i++) {
        double sz = p[i].size ? (double)p[i].size : 1;
        all += sz;
        done += sz * file_fraction(&p[i]);
    }
    return all > 0 ? done / all : 0;
}

/* "[#####.....]" of width w (w >= 3) at fraction f, into b. */
static void bar(char *b, int w, double f)
{
    int in = w - 2, fill = (int)(f * in + 0.5);
    b[0] = '[';
    for (int i = 0; i < in; i++)
        b[1 + i] = i < fill ? '#' : '.';
    b[w - 1] = ']';
    b[w] = '\0';
}

static const char *stage_name(enum ranks_stage s)
{
    switch (s) {
    case RANKS_WAITING: return "waiting";
    case RANKS_READING: return "reading";
    case RANKS_BUILDING: return "building";
    case RANKS_DONE: return "done";
    case RANKS_SKIPPED: return "skipped: not a trace";
    default: return "failed";
    }
}

/* Files at work first, then the waiting ones, then the finished. */
static int order_of(enum ranks_stage s)
{
    return s == RANKS_READING || s == RANKS_BUILDING ? 0 : s == RANKS_WAITING ? 1 : 2;
}

struct out {
    char *buf;
    size_t size, off, lines;
    int width;
};

static void put(struct out *o, const char *s)
{
    char cut[1200];
    fmt_ellipsize(s, strlen(s), (size_t)o->width, cut, sizeof cut);
    if (o->off < o->size)
        o->off += (size_t)snprintf(o->buf + o->off, o->size - o->off, "%s\n", cut);
    o->lines++;
}

size_t progress_ranks_text(const ranks_job *j, const ranks_file_progress *p, double seconds,
                           int width, int maxlines, char *buf, size_t size)
{
    struct out o = { buf, size, 0, 0, width < 20 ? 20 : width > 1000 ? 1000 : width };
    char line[1200], b[1001];
    size_t n[RANKS_SKIPPED + 1] = { 0 };
    for (size_t i = 0; i < j->nfiles; i++)
        n[p[i].stage]++;
    if (size)
        buf[0] = '\0';
    double f = progress_ranks_fraction(j, p);
    char failed[96] = "";
    int at = 0;
    if (n[RANKS_FAILED])
        at = snprintf(failed, sizeof failed, ", %zu failed", n[RANKS_FAILED]);
    if (n[RANKS_SKIPPED])
        snprintf(failed + at, sizeof failed - (size_t)at, ", %zu skipped (not traces)",
                 n[RANKS_SKIPPED]);
    snprintf(line, sizeof line,
             "Loading %zu traces: %zu done%s, %zu at work, %zu waiting   %.1f s   Ctrl-C cancels",
             j->nfiles, n[RANKS_DONE], failed, n[RANKS_READING] + n[RANKS_BUILDING],
             n[RANKS_WAITING], seconds);
    put(&o, line);
    int bw = o.width - 6;
    bar(b, bw > 1000 ? 1000 : bw, f);
    snprintf(line, sizeof line, "%s %3.0f%%", b, f * 100);
    put(&o, line);
    if (maxlines < 4)
        return o.lines;
    put(&o, "");
    size_t room = (size_t)maxlines - 3, shown = 0;
    /* the name column: the longest file name, within a third of the screen */
    int namew = 8;
    for (size_t i = 0; i < j->nfiles; i++) {
        const char *s = strrchr(j->files[i].path, '/');
        int w = (int)fmt_width(s ? s + 1 : j->files[i].path, strlen(s ? s + 1 : j->files[i].path));
        if (w > namew)
            namew = w;
    }
    if (namew > o.width / 3)
        namew = o.width / 3;
    int fw = o.width - namew - 18; /* name, bar, " 100% building" */
    if (fw > 40)
        fw = 40;
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < j->nfiles; i++) {
            if (order_of(p[i].stage) != pass)
                continue;
            if (shown + 1 >= room && shown + 1 < j->nfiles) {
                size_t rest = j->nfiles - shown;
                snprintf(line, sizeof line, "... and %zu more", rest);
                put(&o, line);
                return o.lines;
            }
            const char *path = j->files[i].path, *s = strrchr(path, '/');
            char name[600];
            fmt_ellipsize(s ? s + 1 : path, strlen(s ? s + 1 : path), (size_t)namew, name,
                          sizeof name);
            size_t nl = strlen(name), pad = (size_t)namew - fmt_width(name, nl);
            double ff = file_fraction(&p[i]);
            if (fw >= 5)
                bar(b, fw, ff);
            else
                b[0] = '\0';
            snprintf(line, sizeof line, "%s%*s %s %3.0f%% %s", name, (int)pad, "", b, ff * 100,
                     stage_name(p[i].stage));
            put(&o, line);
            shown++;
        }
    return o.lines;
}
