/* The screen as lines of text: the chrome (title, scope, tabs, column
   header above the body; footer and hint bar below) and the body rows,
   described here and nowhere else. ui/draw.c paints these lines, --replay
   prints them. */
#include "config.h"

#include "ui/screen.h"

#include "ui/cmp.h"
#include "ui/keys.h"
#include "ui/view.h"
#include "ui/view_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"

static int layout(view *v, const col **out, int *namew)
{
    const struct view_ops *o = v->ops[v->tab];
    const col *c = o->cols_of ? o->cols_of(v) : NULL;
    return cols_layout_sorted(c ? c : o->cols, v->width, v->gpu, o->namecap, (int)view_sort(v),
                              out, namew);
}

/* Each figure named for what it is: the window (wall time), the CPU time
   summed over the threads (more than the window when threads overlap),
   the GPU's busy time (some stream at work). */
static void title(view *v, cols_line *l)
{
    const model *m = v->m;
    char a[32], b[32], c[32], d[32], e[32], tmp[1200];
    if (v->cmp) {
        cmp_title(v, tmp, sizeof tmp);
        cols_cell(l, tmp, strlen(tmp), v->width, false);
        return;
    }
    /* a scoped model (a step) says so first */
    size_t o = (size_t)snprintf(tmp, sizeof tmp, "%s%s%s%s | window %s ms | CPU time %s ms (%.2fx window, all threads)",
             m->scope_note, m->scope_note[0] ? " | " : "",
             m->tr->path, m->tr->truncated ? " (truncated)" : "", fmt_ms(m->window_ns, a, sizeof a),
             fmt_ms(m->cpu_ns, b, sizeof b),
             m->window_ns ? (double)m->cpu_ns / (double)m->window_ns : 0.0);
    if (v->gpu && o < sizeof tmp)
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, " | GPU busy %s ms (%s%% of window)",
                              fmt_ms(m->gpu_busy_ns, c, sizeof c),
                              fmt_pct(m->gpu_busy_ns, m->window_ns, e, sizeof e));
    if (o < sizeof tmp)
        snprintf(tmp + o, sizeof tmp - o, " | %s events | %s tracks",
                 fmt_count(m->complete_events, d, sizeof d),
                 fmt_count(m->tracks_with_events, e, sizeof e));
    cols_cell(l, tmp, strlen(tmp), v->width, false);
}

static void crumb(view *v, cols_line *l)
{
    char tmp[2000], a[32], b[32], f[300];
    size_t o = 0;
    scope *s = v->scope;
    if (v->m->tr->truncated)
        o = (size_t)snprintf(tmp, sizeof tmp, "TRUNCATED TRACE (%s): figures cover the events read | ",
                             v->m->tr->truncated_reason);
    /* what views set for every view (a rank), else all; the views owning
       the outer parts (Ranks) come later in tab order */
    size_t head = o += (size_t)snprintf(tmp + o, sizeof tmp - o, "Scope: ");
    for (int k = VIEW_NVIEWS - 1; k >= 0 && o < sizeof tmp; k--)
        if (v->ops[k]->scope_part) {
            v->ops[k]->scope_part(v, f, sizeof f);
            if (f[0])
                o += (size_t)snprintf(tmp + o, sizeof tmp - o, "%s%s", o > head ? ", " : "", f);
        }
    /* then the scope of the model shown (the steps or the range a view
       scoped every view to), as the model names it ("Step 1011", "range
       1.0-2.0 ms"), lower-case inside the line: whichever view made it */
    const char *note = v->m->scope.kind != MODEL_SCOPE_NONE ? v->m->scope_note : "";
    if (note[0] && o < sizeof tmp)
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, "%s%c%s", o > head ? ", " : "",
                              tolower((unsigned char)note[0]), note + 1);
    if (o == head && o < sizeof tmp)
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, "all");
    for (int i = 0; i < scope_depth(s) && o < sizeof tmp; i++) {
        scope_entry_text(s, scope_entry_at(s, i), f, sizeof f);
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, " \xe2\x80\xba %s", f); /* › */
    }
    if (scope_filter(s)[0] && o < sizeof tmp)
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, " | filter \"%s\"", scope_filter(s));
    if (scope_active(s) && o < sizeof tmp) {
        int64_t busy = scope_busy(s);
        /* the selected stacks' self time summed: the scope's total time */
        snprintf(tmp + o, sizeof tmp - o, " | its total time %s ms (%s%% of all)",
                 fmt_ms(busy, a, sizeof a), fmt_pct(busy, v->m->busy_ns, b, sizeof b));
    }
    cols_cell(l, tmp, strlen(tmp), v->width, false);
}

/* Tab i of the tab line as drawn: "[N Label] " for the current view,
   " N Label  " for the others; past the ninth without N. */
static int tab_text(const view *v, int i, char *buf, size_t size)
{
    /* the digits stop at nine: the views after them (Tab, V) show none */
    if (i >= 9)
        return snprintf(buf, size, i == (int)v->tab ? "[%s] " : " %s  ", v->ops[i]->label);
    return snprintf(buf, size, i == (int)v->tab ? "[%d %s] " : " %d %s  ", i + 1,
                    v->ops[i]->label);
}

/* Whether tab i is on the tab line: the nine with a digit, and the current
   one when it is past them (the others: Tab, or V's list of every view), so
   that the line keeps room for the sort and the view's own figures. */
static bool tab_shown(const view *v, int i)
{
    return i < 9 || i == (int)v->tab;
}

/* The first tab drawn: 0, unless the current one would end past the
   screen's edge (more views than a narrow screen holds); then the tabs
   before it give way, behind a "<". */
static int first_tab(const view *v)
{
    char t[128];
    int w[VIEW_NTABS], sum = 0, cur = v->tab < VIEW_NTABS ? (int)v->tab : 0, from = 0;
    for (int i = 0; i <= cur; i++) {
        int n = tab_shown(v, i) ? tab_text(v, i, t, sizeof t) : 0;
        w[i] = n > 0 ? (int)fmt_width(t, strlen(t)) : 0;
        sum += w[i];
    }
    while (from < cur && sum > v->width - 1) {
        sum -= w[from++];
        if (from == 1)
            sum += 1; /* the "<" */
    }
    return from;
}

int view_tab_at(const view *v, int x)
{
    char t[128];
    int from = first_tab(v);
    int at = from ? 1 : 0;
    for (int i = from; i < VIEW_NTABS; i++) {
        if (!tab_shown(v, i))
            continue;
        int n = tab_text(v, i, t, sizeof t);
        int w = n > 0 ? (int)fmt_width(t, strlen(t)) : 0;
        if (x >= at && x < at + w)
            return i;
        at += w;
    }
    return -1;
}

static void tabs(view *v, cols_line *l)
{
    char tmp[800];
    size_t o = 0;
    int from = first_tab(v);
    if (from)
        tmp[o++] = '<';
    int hidden = 0;
    for (int i = from; i < VIEW_NTABS && o < sizeof tmp; i++) {
        if (tab_shown(v, i))
            o += (size_t)tab_text(v, i, tmp + o, sizeof tmp - o);
        else
            hidden++;
    }
    if (hidden && o < sizeof tmp) /* the views without a tab: V lists them */
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, " +%d (V) ", hidden);
    if (v->tab >= VIEW_NTABS && o < sizeof tmp) /* a pane: no tab of its own */
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, "[%s]", v->ops[v->tab]->label);
    else if (o < sizeof tmp && view_sorts(v)) /* a view with one order says no sort */
        o += (size_t)snprintf(tmp + o, sizeof tmp - o, "  sort: %s%s", view_sort_name(v),
                              view_sort_arrow(v));
    const struct view_ops *vo = v->ops[v->tab];
    if (vo->tabinfo && o < sizeof tmp)
        vo->tabinfo(v, tmp + o, sizeof tmp - o);
    cols_cell(l, tmp, strlen(tmp), v->width, false);
}

static void colheader(view *v, cols_line *l)
{
    const col *cols[COLS_MAX];
    int namew;
    int k = layout(v, cols, &namew);
    for (int i = 0; i < k; i++) {
        char t[64], cut[64];
        bool sorted = cols[i]->sort == (int)view_sort(v);
        const char *title = cols[i]->title;
        size_t tl = strlen(title);
        int w = cols[i]->width;
        if (sorted && !cols[i]->name && (int)fmt_width(title, tl) + 1 > w) {
            /* the arrow always shows: "Dev total ms" loses its unit, a
               title without one is cut ("Self alloc…▼") */
            if (tl > 3 && !strcmp(title + tl - 3, " ms") && (int)fmt_width(title, tl - 3) + 1 <= w) {
                tl -= 3;
            } else if (w > 1) {
                title = fmt_ellipsize(title, tl, (size_t)w - 1, cut, sizeof cut);
                tl = strlen(title);
            }
        }
        snprintf(t, sizeof t, "%.*s%s", (int)tl, title, sorted ? view_sort_arrow(v) : "");
        if (i)
            cols_put(l, " ", 1);
        cols_cell(l, t, strlen(t), cols[i]->name ? namew : cols[i]->width, !cols[i]->left);
    }
    cols_pad_to(l, v->width);
}

static void body(view *v, size_t i, cols_line *l, bool *gpu, enum view_style *style)
{
    const struct view_ops *o = v->ops[v->tab];
    const col *cols[COLS_MAX];
    int namew;
    int k = layout(v, cols, &namew);
    uint32_t id = view_row(v, i);
    *gpu = false;
    if (id == UINT32_MAX)
        return;
    for (int c = 0; c < k; c++) {
        if (c)
            cols_put(l, " ", 1);
        o->cell(v, id, cols[c], namew, l);
    }
    *gpu = o->gpu && o->gpu(v, id);
    if (style)
        *style = o->style ? o->style(v, id) : *gpu ? VIEW_STYLE_ROW_GPU : VIEW_STYLE_ROW;
    cols_pad_to(l, v->width);
}

void view_body_line(view *v, size_t i, char *buf, size_t size, bool *gpu)
{
    cols_line l;
    cols_line_init(&l, buf, size);
    body(v, i, &l, gpu, NULL);
}

/* The footer's text before a prompt's typed text. */
static const char *prompt_label(const view *v)
{
    switch (v->mode) {
    case VIEW_MODE_SEARCH: return "/";
    case VIEW_MODE_FILTER: return "filter: ";
    case VIEW_MODE_EXPORT: return "export to: ";
    default: return NULL;
    }
}

/* Where the typed text starts to show: all of it when it fits after the
   label with the cursor, else its tail after an ellipsis (a long export
   path stays editable where it is typed, at its end). Returns a pointer
   into v->srch.prompt; *cut says whether the ellipsis goes before it. */
static const char *prompt_shown(const view *v, const char *lab, bool *cut)
{
    const char *t = v->srch.prompt;
    size_t room = (size_t)(v->width > 0 ? v->width : 1), lw = fmt_width(lab, strlen(lab));
    size_t n = strlen(t);
    *cut = lw + fmt_width(t, n) + 1 > room;
    if (!*cut)
        return t;
    /* room for the ellipsis and the cursor */
    return fmt_tail(t, n, room > lw + 2 ? room - lw - 2 : 0);
}

int view_prompt_col(view *v)
{
    const char *lab = prompt_label(v);
    if (!lab)
        return -1;
    bool cut;
    const char *t = prompt_shown(v, lab, &cut);
    int x = (int)(fmt_width(lab, strlen(lab)) + (cut ? 1 : 0) + fmt_width(t, strlen(t)));
    return x < v->width - 1 ? x : v->width - 1;
}

static void footer(view *v, cols_line *l)
{
    char tmp[SEARCH_PROMPT + 1400];
    if (v->mode == VIEW_MODE_EXPORT) {
        /* a refused path's reason after the text, which stays for editing */
        bool cut;
        const char *t = prompt_shown(v, prompt_label(v), &cut);
        snprintf(tmp, sizeof tmp, "%s%s%s%s%s", prompt_label(v), cut ? "…" : "", t,
                 v->status[0] ? "   " : "", v->status);
    } else if (v->mode == VIEW_MODE_SEARCH || v->mode == VIEW_MODE_FILTER) {
        /* searching: "match 3 of 17" or "not found" as the text is typed */
        bool say = v->status[0] && v->mode == VIEW_MODE_SEARCH;
        snprintf(tmp, sizeof tmp, "%s%.300s%s%.200s%s", v->mode == VIEW_MODE_SEARCH ? "/" : "filter: ",
                 v->srch.prompt, say ? "   (" : "", say ? v->status : "", say ? ")" : "");
    } else if (v->status[0]) {
        snprintf(tmp, sizeof tmp, "%s", v->status);
    } else if (view_nrows(v) == 0) {
        snprintf(tmp, sizeof tmp, "%s", scope_active(v->scope) ? "nothing in this scope" : "no rows");
    } else {
        /* the selected row's full name: the table cuts long ones */
        char nb[600];
        size_t len;
        const char *s = view_row_name(v, v->cur[v->tab], nb, sizeof nb, &len);
        char *p = stpncpy(tmp, s, len < sizeof tmp - 1 ? len : sizeof tmp - 1);
        *p = '\0';
    }
    cols_cell(l, tmp, strlen(tmp), v->width, false);
}

static void hints(view *v, cols_line *l)
{
    char tmp[1200];
    keys_hint_but((int)v->tab, VIEW_NTABS, v->ops[v->tab]->off_acts,
                  (size_t)(v->width > 0 ? v->width : 0), tmp, sizeof tmp);
    cols_cell(l, tmp, strlen(tmp), v->width, false);
}

void view_screen_line(view *v, int y, char *buf, size_t size, enum view_style *style)
{
    view_screen_line_sec(v, y, buf, size, style, NULL);
}

void view_screen_line_sec(view *v, int y, char *buf, size_t size, enum view_style *style,
                          view_span *sec)
{
    cols_line l;
    cols_line_init(&l, buf, size);
    if (sec)
        sec->x0 = sec->w = 0;
    int bottom = VIEW_CHROME_TOP + v->page;
    if (y == 0) {
        *style = VIEW_STYLE_TITLE;
        title(v, &l);
    } else if (y == 1) {
        *style = v->m->tr->truncated ? VIEW_STYLE_WARN
                 : scope_active(v->scope) ? VIEW_STYLE_SCOPED : VIEW_STYLE_CRUMB;
        crumb(v, &l);
    } else if (y == 2) {
        *style = VIEW_STYLE_TABS;
        tabs(v, &l);
    } else if (y == 3) {
        *style = VIEW_STYLE_HEADER;
        colheader(v, &l);
    } else if (y < bottom) {
        size_t i = v->top[v->tab] + (size_t)(y - VIEW_CHROME_TOP);
        bool gpu;
        if (i >= view_nrows(v)) {
            *style = VIEW_STYLE_EMPTY;
            return;
        }
        body(v, i, &l, &gpu, style);
        if (i == v->cur[v->tab])
            *style = VIEW_STYLE_CURSOR;
        if (sec && l.sec_end > l.sec_off) {
            sec->x0 = (int)fmt_width(buf, l.sec_off);
            sec->w = (int)fmt_width(buf + l.sec_off, l.sec_end - l.sec_off);
        }
    } else if (y == bottom) {
        *style = v->status[0] && v->mode != VIEW_MODE_EXPORT ? VIEW_STYLE_STATUS : VIEW_STYLE_FOOTER;
        footer(v, &l);
    } else {
        *style = VIEW_STYLE_KEYS;
        hints(v, &l);
    }
}

bool view_bar_span(view *v, int y, int *x0, int *w)
{
    int bottom = VIEW_CHROME_TOP + v->page;
    if (y < VIEW_CHROME_TOP || y >= bottom || v->mode == VIEW_MODE_HELP ||
        v->top[v->tab] + (size_t)(y - VIEW_CHROME_TOP) >= view_nrows(v))
        return false;
    const col *cols[COLS_MAX];
    int namew, x = 0;
    if (!v->ops[v->tab]->bar_col)
        return false;
    int k = layout(v, cols, &namew);
    for (int c = 0; c < k; c++) {
        int cw = cols[c]->name ? namew : cols[c]->width;
        if (v->ops[v->tab]->bar_col == cols[c]->id + 1) {
            *x0 = x;
            *w = cw;
            return true;
        }
        x += cw + 1; /* the space between cells */
    }
    return false;
}

/* The help text and its lines, as long as the key table makes them (it grows
   with the views); false when out of memory. */
static bool help_build(view *v)
{
    const char *labels[VIEW_NVIEWS];
    for (int k = 0; k < VIEW_NVIEWS; k++)
        labels[k] = v->ops[k]->label;
    size_t n = 0;
    char *text = keys_help_new(labels, VIEW_NVIEWS, VIEW_NTABS, &n);
    const char **lines = text ? malloc((n ? n : 1) * sizeof *lines) : NULL;
    if (!lines) {
        free(text);
        return false;
    }
    free(v->help);
    free(v->help_lines);
    v->help = text;
    v->help_lines = lines;
    v->nhelp = 0;
    for (char *p = text; *p && v->nhelp < n;) {
        char *e = strchr(p, '\n');
        lines[v->nhelp++] = p;
        if (!e)
            break;
        *e = '\0';
        p = e + 1;
    }
    return v->nhelp > 0;
}

const char *view_help_line(view *v, size_t i)
{
    if (!v->nhelp && !help_build(v)) {
        /* said on its first line; the next key closes it */
        return i == 0 ? "out of memory: no help to show" : NULL;
    }
    /* the screen: a page of the help from help_top, then where it is */
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    if (i > page)
        return NULL;
    if (i < page)
        return v->help_top + i < v->nhelp ? v->help_lines[v->help_top + i] : "";
    size_t last = v->help_top + page < v->nhelp ? v->help_top + page : v->nhelp;
    snprintf(v->help_foot, sizeof v->help_foot,
             "-- lines %zu-%zu of %zu: \xe2\x86\x91\xe2\x86\x93 PgUp PgDn scroll, any other key closes --",
             v->help_top + 1, last, v->nhelp);
    return v->help_foot;
}

size_t view_help_count(view *v)
{
    view_help_line(v, 0);
    return v->nhelp;
}
