/* The Source pane: v on a Python frame in the Tree opens the frame's file
   at its line, each line with the self and total time of the frames at that
   line, as pprof -list and perf annotate show them. The figures are
   core/pylines' (analyze --by-line's) over the scope, as every view's: the
   model on screen (a step's, when one is selected) and the stacks the focus
   and filter select. The file is found by core/srcfile (as recorded, then under
   --source-path); when it is not, the pane says what it tried and still
   lists the lines that have time. Esc or q goes back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/derived.h"
#include "core/analyses/pylines.h"
#include "core/base/fmt.h"
#include "core/analyses/srcfile.h"
#include "core/model/scope.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_source.h"
#include "ui/views/view_util.h"

enum { C_LINE, C_SELF, C_TOTAL, C_TEXT };

static const col cols[] = {
    { C_LINE, "Line", 7, -1, 0, false, false, false },
    { C_SELF, "Self ms", 12, -1, 0, false, false, false },
    { C_TOTAL, "Total ms", 12, -1, 0, false, false, false },
    { C_TEXT, "Source", 20, -1, 0, false, true, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_N };

/* Row ids: a line number (1-based), or MSG + k for the k-th message line. */
#define MSG 0x80000000u
#define NMSG 16

struct src_state {
    const pylines *pl;    /* of the scope of pl_gen (core's: derived_pylines); NULL
                             before the first v */
    uint32_t pl_gen;      /* scope_gen when pl was built */
    bool pl_scoped;       /* pl counts a focus or filter's stacks only */
    char file[1024];      /* the frame's file, as recorded */
    unsigned line;        /* the frame's line */
    srcfile sf;           /* path NULL when not found */
    char msg[NMSG][600];  /* not found: what was tried */
    size_t nmsg;
    int64_t *self, *total; /* per line number, nfig of them */
    size_t nfig;
    bool open;             /* a frame was opened */
};

static struct src_state *st(view *v)
{
    return view_state(v, VIEW_SOURCE);
}

static int src_open(view *v)
{
    struct src_state *s = view_state_new(v, VIEW_SOURCE, sizeof *s);
    if (!s)
        return -1;
    return 0;
}

static void reset(struct src_state *s)
{
    srcfile_done(&s->sf);
    free(s->self);
    free(s->total);
    s->self = s->total = NULL;
    s->nfig = s->nmsg = 0;
    s->open = false;
}

static void src_close(view *v)
{
    struct src_state *s = st(v);
    if (!s)
        return;
    reset(s);
    free(s);
}

/* The figures of file s->file per line: every pylines entry of that file
   at that line (two functions on one line add up, as in pprof -list). */
static int figures(struct src_state *s)
{
    size_t flen = strlen(s->file), n = pylines_count(s->pl), maxl = 0;
    for (size_t i = 0; i < n; i++) {
        const pyline *p = pylines_get(s->pl, i);
        if (p->file_len == flen && !memcmp(p->file, s->file, flen) && p->line > maxl)
            maxl = p->line;
    }
    s->nfig = maxl + 1;
    s->self = calloc(s->nfig, sizeof *s->self);
    s->total = calloc(s->nfig, sizeof *s->total);
    if (!s->self || !s->total)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const pyline *p = pylines_get(s->pl, i);
        if (p->file_len == flen && !memcmp(p->file, s->file, flen)) {
            s->self[p->line] += p->self_ns;
            s->total[p->line] += p->total_ns;
        }
    }
    return 0;
}

static int add_tried(void *ctx, const char *path)
{
    struct src_state *s = ctx;
    if (s->nmsg < NMSG - 1)
        snprintf(s->msg[s->nmsg++], sizeof s->msg[0], "  tried %s", path);
    return 0;
}

static bool has_time(const struct src_state *s, size_t line)
{
    return line < s->nfig && (s->self[line] || s->total[line]);
}

static int src_rebuild(view *v, view_rows *r)
{
    struct src_state *s = st(v);
    if (!s->open)
        return 0;
    for (size_t k = 0; k < s->nmsg; k++)
        if (view_rows_push(r, MSG + (uint32_t)k) < 0)
            return -1;
    /* the file's lines, and any line with time past its end (another
       version of the file); without the file, the lines with time */
    size_t maxfig = s->nfig ? s->nfig - 1 : 0;
    size_t last = s->sf.nlines > maxfig ? s->sf.nlines : maxfig;
    for (size_t l = 1; l <= last; l++)
        if ((s->sf.path || has_time(s, l)) && view_rows_push(r, (uint32_t)l) < 0)
            return -1;
    return 0;
}

/* Line text with tabs as spaces (to the next multiple of 8). */
static size_t expand(const char *t, char *buf, size_t size)
{
    size_t o = 0;
    for (; *t && o + 9 < size; t++) {
        if (*t == '\t') {
            do
                buf[o++] = ' ';
            while (o % 8);
        } else {
            buf[o++] = *t;
        }
    }
    buf[o] = '\0';
    return o;
}

static const char *src_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    struct src_state *s = st(v);
    const char *t = "";
    if (id >= MSG)
        t = s->msg[id - MSG];
    else if (srcfile_line(&s->sf, id))
        t = srcfile_line(&s->sf, id);
    *len = expand(t, buf, size);
    return buf;
}

static void fig_cell(cols_line *l, int64_t ns, int width)
{
    if (ns)
        view_cell_ms(l, ns, width);
    else
        cols_cell(l, ".", 1, width, true); /* as pprof -list: no time here */
}

static void src_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    struct src_state *s = st(v);
    char buf[4200];
    size_t len;
    if (id >= MSG && c->id != C_TEXT) {
        cols_cell(l, "", 0, c->width, true);
        return;
    }
    switch (c->id) {
    case C_LINE: {
        /* the frame's own line is marked */
        char t[32];
        int n = snprintf(t, sizeof t, "%s%u", id == s->line ? "> " : "", (unsigned)id);
        cols_cell(l, t, (size_t)n, c->width, true);
        break;
    }
    case C_SELF: fig_cell(l, id < s->nfig ? s->self[id] : 0, c->width); break;
    case C_TOTAL: fig_cell(l, id < s->nfig ? s->total[id] : 0, c->width); break;
    default: {
        const char *t = src_name(v, id, buf, sizeof buf, &len);
        cols_cell(l, t, len, namew, false);
    }
    }
}

/* s->pl for the scope on screen, built again when the scope changed since
   (a new model closes the pane's state). 0, or -1 with err set. */
static int lines_of_scope(view *v, struct src_state *s, t2p_error *err)
{
    uint32_t gen = scope_gen(v->scope);
    if (s->pl && s->pl_gen == gen)
        return 0;
    bool scoped = scope_active(v->scope);
    uint8_t *keep = NULL;
    if (scoped && !(keep = scope_keep(v->scope))) {
        error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory counting source lines");
        return -1;
    }
    struct derived *d = view_derived(v, v->m);
    const pylines *pl = d ? derived_pylines(d, v->m, keep, err) : NULL;
    if (!d)
        error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory counting source lines");
    free(keep); /* derived keeps a copy */
    if (!pl)
        return -1;
    s->pl = pl;
    s->pl_gen = gen;
    s->pl_scoped = scoped;
    return 0;
}

void view_source_open(view *v, const char *file, size_t len, unsigned line)
{
    struct src_state *s = st(v);
    t2p_error err;
    reset(s);
    snprintf(s->file, sizeof s->file, "%.*s", (int)len, file);
    s->line = line;
    if (lines_of_scope(v, s, &err) < 0) {
        view_status_set(v, "%s", err.reason);
        return;
    }
    if (figures(s) < 0) {
        reset(s);
        view_status_set(v, "out of memory reading the source");
        return;
    }
    if (srcfile_load(&s->sf, file, len, v->source_path, &err) < 0) {
        srcfile_done(&s->sf);
        if (err.kind == T2P_ERR_IO && err.file[0] == '\0') {
            /* not found: each path tried on a line of its own */
            snprintf(s->msg[s->nmsg++], sizeof s->msg[0], "%s: source not found%s", s->file,
                     v->source_path ? "" : " (--source-path DIR looks under DIR too)");
            srcfile_candidates(file, len, v->source_path, add_tried, s);
        } else {
            snprintf(s->msg[s->nmsg++], sizeof s->msg[0], "%.250s: %.300s", err.file, err.reason);
        }
    }
    s->open = true;
    view_pane_open(v, VIEW_SOURCE);
    /* the cursor on the frame's line, in the middle of the page */
    size_t n = view_nrows(v), at = 0;
    for (size_t i = 0; i < n; i++)
        if (view_row(v, i) == line)
            at = i;
    v->cur[VIEW_SOURCE] = at;
    size_t half = (size_t)(v->page / 2);
    v->top[VIEW_SOURCE] = at > half ? at - half : 0;
    view_clamp(v);
    if (s->sf.path)
        view_status_set(v, "%s:%u", s->sf.path, line);
}

static int src_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    switch (act) {
    case ACT_UP: case ACT_DOWN: case ACT_PGUP: case ACT_PGDN: case ACT_HOME: case ACT_END:
    case ACT_SEARCH: case ACT_NEXT_MATCH: case ACT_PREV_MATCH: case ACT_HELP: case ACT_VIEW:
        return -1;
    case ACT_BACK: case ACT_QUIT:
        view_pane_close(v);
        return VIEW_DRAW_ALL;
    default:
        return 0; /* sorting, filters, focus: nothing to do on a file */
    }
}

static void src_tabinfo(view *v, char *buf, size_t size)
{
    struct src_state *s = st(v);
    if (s->open && !s->sf.path) {
        snprintf(buf, size, "  %s:%u", s->file, s->line);
    } else if (s->open) {
        /* what the figures cover: a step's model, the focus and filter */
        const char *over = !model_is_scoped(v->m) ? "whole trace"
                           : v->m->scope_note[0]  ? v->m->scope_note
                                                  : "the selection";
        snprintf(buf, size, "  %s:%u  self and total ms of its lines, %s%s", s->file, s->line,
                 over, s->pl_scoped ? ", in the scope" : "");
    }
}

const struct view_ops view_source_ops = {
    .name = "source",
    .label = "Source",
    .cols = cols,
    .sorts = sorts,
    .open = src_open,
    .close = src_close,
    .rebuild = src_rebuild,
    .name_of = src_name,
    .cell = src_cell,
    .action = src_action,
    .tabinfo = src_tabinfo,
};
