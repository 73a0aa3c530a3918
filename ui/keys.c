/* The key table; see ui/keys.h. */
#include "config.h"

#include "ui/keys.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/base/fmt.h"
#include "ui/view_types.h"

#define TREE KEYS_VIEW(VIEW_TREE)
#define TABLES (KEYS_VIEW(VIEW_OPS) | KEYS_VIEW(VIEW_CATS) | KEYS_VIEW(VIEW_THREADS))
#define RANKS (KEYS_VIEW(VIEW_RANKS) | KEYS_VIEW(VIEW_ALLRANKS))
#define DRILL (KEYS_VIEW(VIEW_OPS) | KEYS_VIEW(VIEW_CATS))
#define SOURCE KEYS_VIEW(VIEW_SOURCE)
#define CALLERS KEYS_VIEW(VIEW_CALLERS)
#define TREES (TREE | CALLERS)
#define MEMORY KEYS_VIEW(VIEW_MEMORY)
#define TIMELINE KEYS_VIEW(VIEW_TIMELINE)
#define GPU KEYS_VIEW(VIEW_GPU)
#define KERNELS KEYS_VIEW(VIEW_KERNELS)
#define CHOOSER KEYS_VIEW(VIEW_CHOOSER)

/* In hint bar order; the first row for a key and view wins. */
static const key_def table[] = {
    { 'q', ACT_QUIT, 0, KEYS_ALL, "quit", "q quit", 0 },
    { '?', ACT_HELP, 0, KEYS_ALL, "this help", "? help", 0 },
    { VK_F1, ACT_HELP, 0, KEYS_ALL, "this help", NULL, 0 },
    { KEYS_DIGITS, ACT_VIEW, 0, KEYS_ALL, "#views", "#views", 0 },
    { VK_TAB, ACT_NEXT_VIEW, 0, KEYS_ALL, "next view", NULL, 0 },
    { VK_BTAB, ACT_PREV_VIEW, 0, KEYS_ALL, "previous view", NULL, 0 },
    { 'V', ACT_CHOOSE, 0, KEYS_ALL, "the list of every view, to choose one (the digits reach nine)",
      NULL, 0 },
    { VK_ENTER, ACT_OPEN, 0, TREES, "expand, or go to the first child", NULL, 0 },
    { VK_RIGHT, ACT_OPEN, 0, TREES, "expand, or go to the first child", NULL, 0 },
    { 'l', ACT_OPEN, 0, TREES, "expand, or go to the first child", NULL, 0 },
    { VK_ENTER, ACT_DRILL, 0, KEYS_VIEW(VIEW_RANKS),
      "on a rank: every view shows that rank; on (all ranks): the All ranks view",
      "Enter show rank", 0 },
    { VK_ENTER, ACT_DRILL, 0, KEYS_VIEW(VIEW_ALLRANKS),
      "on an operator: every view shows the rank holding its max, filtered to it",
      "Enter worst rank", 0 },
    { VK_ENTER, ACT_DRILL, 0, KEYS_VIEW(VIEW_COLLECTIVES),
      "on a call: its ranks' waits for the last one, longest first, in the footer",
      "Enter waits", 0 },
    { VK_ENTER, ACT_DRILL, 0, KEYS_VIEW(VIEW_STEPS),
      "on a step: every view shows that step alone (Esc: the whole trace again)",
      "Enter scope to step", 0 },
    { VK_ENTER, ACT_DRILL, 0, MEMORY,
      "on an operator: the Tree of its stacks with its device's memory columns (Esc: back)",
      "Enter tree", 0 },
    { VK_ENTER, ACT_DRILL, 0, GPU,
      "on a stream: its launches by delay, outliers first; on a launch: the Tree of the operator that launched it",
      "Enter launches", 0 },
    { 'e', ACT_EXPORT, 0, GPU,
      "export the stream's GPU time by the stacks that launched it (asks where)", NULL, 0 },
    { VK_ENTER, ACT_DRILL, 0, KERNELS,
      "on a kernel: the operators that launched it, with their share of its time; on one of "
      "those: the Tree of its stacks, focused in every view (Esc: back)",
      "Enter launchers", 0 },
    { '<', ACT_SORT_PREV, 0, KERNELS,
      "sort by the previous column: total, calls, mean, min, max, blocks/SM, occupancy, "
      "tensor cores, name", NULL, 0 },
    { '>', ACT_SORT_NEXT, 0, KERNELS, "sort by the next column", NULL, 0 },
    { 'r', ACT_REVERSE, 0, KERNELS, "reverse the sort", NULL, 0 },
    { 'e', ACT_EXPORT, 0, KERNELS,
      "export the kernels shown, their time by launching stack (convert --kernels; on one kernel's launchers, that kernel: --kernel)", NULL, 0 },
    { VK_ENTER, ACT_DRILL, 0, CHOOSER, "show the view under the cursor", "Enter show", 0 },
    { VK_ESC, ACT_BACK, 0, CHOOSER, "back to the view it was opened from (q, V too)",
      "Esc/q back", 0 },
    /* the Memory view sorts by its own figures: said in its section */
    { '<', ACT_SORT_PREV, 0, MEMORY, "sort by the previous figure: alloc size, allocs, increase",
      NULL, 0 },
    { '>', ACT_SORT_NEXT, 0, MEMORY, "sort by the next figure", NULL, 0 },
    { 'r', ACT_REVERSE, 0, MEMORY, "reverse the sort", NULL, 0 },
    /* the Timeline: time along the row, the cursor a time on a track */
    { '+', ACT_TL_ZOOM_IN, 0, TIMELINE, "zoom in around the cursor (= too)", "+/- zoom", 0 },
    { '=', ACT_TL_ZOOM_IN, 0, TIMELINE, "zoom in around the cursor", NULL, 0 },
    { '-', ACT_TL_ZOOM_OUT, 0, TIMELINE, "zoom out around the cursor", NULL, 0 },
    { '0', ACT_TL_ZOOM_ALL, 0, TIMELINE, "zoom out to the whole trace", "0 all", 0 },
    { VK_LEFT, ACT_TL_LEFT, 0, TIMELINE, "cursor one column earlier (h too)", NULL, 0 },
    { 'h', ACT_TL_LEFT, 0, TIMELINE, "cursor one column earlier", NULL, 0 },
    { VK_RIGHT, ACT_TL_RIGHT, 0, TIMELINE, "cursor one column later (l too)", NULL, 0 },
    { 'l', ACT_TL_RIGHT, 0, TIMELINE, "cursor one column later", NULL, 0 },
    { 'H', ACT_TL_PAN_LEFT, 0, TIMELINE, "pan half a screen earlier", "H/L pan", 0 },
    { 'L', ACT_TL_PAN_RIGHT, 0, TIMELINE, "pan half a screen later", NULL, 0 },
    { '.', ACT_TL_NEXT_EVENT, 0, TIMELINE, "next event on the cursor's track", ",/. event", 0 },
    { ',', ACT_TL_PREV_EVENT, 0, TIMELINE, "previous event on the cursor's track", NULL, 0 },
    { '{', ACT_TL_MARK_START, 0, TIMELINE,
      "mark the range's start at the cursor (then } its end: every view covers the range; Esc clears it)",
      "{/} range", 0 },
    { '}', ACT_TL_MARK_END, 0, TIMELINE, "mark the range's end at the cursor: every view covers it",
      NULL, 0 },
    { VK_ENTER, ACT_DRILL, 0, TIMELINE,
      "on an event: the Tree of its operator's stacks, focused in every view; on the steps row: "
      "the step's window as the range", "Enter focus", 0 },
    { VK_ENTER, ACT_DRILL, 0, KEYS_ALL, "the Tree of every stack through the operator, category or track",
      "Enter drill down", TABLES },
    { VK_LEFT, ACT_CLOSE, 0, TREES, "collapse, or go to the parent", "\xe2\x86\x90\xe2\x86\x92 fold", 0 },
    { 'h', ACT_CLOSE, 0, TREES, "collapse, or go to the parent", NULL, 0 },
    { '+', ACT_EXPAND, 0, TREES, "expand one node", NULL, 0 },
    { '-', ACT_COLLAPSE, 0, TREES, "collapse one node", NULL, 0 },
    { '*', ACT_EXPAND_SUBTREE, 0, TREES, "expand the whole subtree", NULL, 0 },
    { 'E', ACT_EXPAND_ALL, 0, TREES, "expand all", "E/C all", 0 },
    { 'C', ACT_COLLAPSE_ALL, 0, TREES, "collapse all", NULL, 0 },
    { ' ', ACT_TOGGLE, 0, TREES, "fold or unfold the node (a double-click too)", NULL, 0 },
    { 'f', ACT_FOCUS, 0, TREE, "focus the selected tree node (its stacks only)", "f focus", 0 },
    { 'm', ACT_MERGE, 0, TREE, "one tree per track / merged", "m merge", 0 },
    { 'c', ACT_ALL_TABLE, 0, KEYS_VIEW(VIEW_ALLRANKS), "operators / categories merged over the ranks",
      "c ops/cats", 0 },
    { VK_ESC, ACT_BACK, 0, KEYS_ALL, "back one level", "Esc back", 0 },
    { VK_BACKSPACE, ACT_BACK, 0, KEYS_ALL, "back one level", NULL, 0 },
    { VK_UP, ACT_UP, 0, KEYS_ALL, "move up", NULL, 0 },
    { 'k', ACT_UP, 0, KEYS_ALL, "move up", NULL, 0 },
    { VK_DOWN, ACT_DOWN, 0, KEYS_ALL, "move down", NULL, 0 },
    { 'j', ACT_DOWN, 0, KEYS_ALL, "move down", NULL, 0 },
    { VK_PGUP, ACT_PGUP, 0, KEYS_ALL, "page up", NULL, 0 },
    { VK_PGDN, ACT_PGDN, 0, KEYS_ALL, "page down", NULL, 0 },
    { VK_HOME, ACT_HOME, 0, KEYS_ALL, "first row", NULL, 0 },
    { 'g', ACT_HOME, 0, KEYS_ALL, "first row", NULL, 0 },
    { VK_END, ACT_END, 0, KEYS_ALL, "last row", NULL, 0 },
    { 'G', ACT_END, 0, KEYS_ALL, "last row", NULL, 0 },
    { '<', ACT_SORT_PREV, 0, KEYS_ALL, "sort by the previous column", "</> sort", 0 },
    { '>', ACT_SORT_NEXT, 0, KEYS_ALL, "sort by the next column", NULL, 0 },
    { 'r', ACT_REVERSE, 0, KEYS_ALL, "reverse the sort", "r reverse",
      TABLES | RANKS | KEYS_VIEW(VIEW_STEPS) | MEMORY },
    { '/', ACT_SEARCH, 0, KEYS_ALL, "search as you type, folded nodes too", "/ search", 0 },
    { 'n', ACT_NEXT_MATCH, 0, KEYS_ALL, "next match", NULL, 0 },
    { 'N', ACT_PREV_MATCH, 0, KEYS_ALL, "previous match", NULL, 0 },
    { '\\', ACT_FILTER, 0, KEYS_ALL, "keep rows whose name holds text (Enter applies, Esc clears)",
      "\\ filter", 0 },
    { '[', ACT_STEP_PREV, 0, KEYS_ALL, "every view shows the previous step (the last one from the whole trace)",
      "[/] step", KEYS_VIEW(VIEW_STEPS) },
    { ']', ACT_STEP_NEXT, 0, KEYS_ALL, "every view shows the next step (the first one from the whole trace)",
      NULL, 0 },
    { 'e', ACT_EXPORT, 0, KEYS_ALL, "export the scope to pprof (asks where; never overwrites)",
      "e export", 0 },
    { 's', ACT_SHORT_NAMES, 0, KEYS_ALL, "short names: no return type, template or arguments",
      NULL, 0 },
    { 'b', ACT_CMP_FIGS, 0, KEYS_ALL, "comparing (--base): figures of the new trace, the base, their delta",
      NULL, 0 },
    { 'p', ACT_PYTHON, 0, KEYS_ALL,
      "hide or show the Python frames (hidden: their self time is their caller's)", NULL, 0 },
    { 'v', ACT_SOURCE, 0, TREE,
      "on a Python frame: its source file at that line, with the time per line (--source-path DIR)",
      NULL, 0 },
    { 'i', ACT_CALLERS, 0, TREE | KEYS_VIEW(VIEW_OPS) | CALLERS,
      "callers (bottom-up, as pprof -peek): each operator's callers, with the time through them",
      "i callers", 0 },
    { 'I', ACT_BY_SHAPE, 0, KEYS_VIEW(VIEW_OPS),
      "group by input shape (TensorBoard's Operator view: its tree, the whole trace) / by name",
      "I by shape", 0 },
    /* the callers pane: the tree's moves (TREES), q, Esc and i go back */
    { VK_ESC, ACT_BACK, 0, CALLERS, "back (q, i too)", "Esc/q back", 0 },
    /* the source pane: q and Esc go back (its own action), the moves are everyone's */
    { VK_ESC, ACT_BACK, 0, SOURCE, "back to the Tree (q too)", "Esc/q back", 0 },
    { VK_UP, ACT_UP, 0, SOURCE, "move up (Down, PgUp, PgDn, g, G: as everywhere)",
      "Up/Down PgUp/PgDn g/G move", 0 },
    { '/', ACT_SEARCH, 0, SOURCE, "search the file (n, N: the next, previous match)",
      "/ search", 0 },
    { 0, ACT_NONE, 0, 0, NULL, NULL, 0 }
};

const key_def *keys_table(void)
{
    return table;
}

static bool applies(unsigned views, int vi)
{
    return views == KEYS_ALL || (views & KEYS_VIEW(vi));
}

enum key_act keys_action(int key, int vi, int nviews, int *arg)
{
    for (const key_def *k = table; k->act != ACT_NONE; k++)
        if (k->key == KEYS_DIGITS && key >= '1' && key < '1' + nviews && key <= '9' &&
            applies(k->views, vi)) {
            *arg = key - '1';
            return k->act;
        } else if (k->key == key && applies(k->views, vi)) {
            *arg = k->arg;
            return k->act;
        }
    *arg = 0;
    return ACT_NONE;
}

/* Keys with a name of their own; in --replay scripts they are written <Name>. */
static const struct { const char *name; int key; const char *label; } named[] = {
    { "Up", VK_UP, "Up" }, { "Down", VK_DOWN, "Down" }, { "Left", VK_LEFT, "Left" },
    { "Right", VK_RIGHT, "Right" }, { "PgUp", VK_PGUP, "PgUp" }, { "PgDn", VK_PGDN, "PgDn" },
    { "Home", VK_HOME, "Home" }, { "End", VK_END, "End" }, { "Enter", VK_ENTER, "Enter" },
    { "Esc", VK_ESC, "Esc" }, { "BS", VK_BACKSPACE, "Backspace" }, { "Tab", VK_TAB, "Tab" },
    { "BTab", VK_BTAB, "Shift-Tab" }, { "F1", VK_F1, "F1" }, { "lt", '<', "<" },
    { "gt", '>', ">" }, { "Space", ' ', "Space" }, { "CtrlU", 0x15, "Ctrl-U" },
};

const char *keys_name(int key, char *buf, size_t size)
{
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (named[i].key == key) {
            snprintf(buf, size, "%s", named[i].label);
            return buf;
        }
    snprintf(buf, size, "%c", key);
    return buf;
}

int keys_script_next(const char **s, char *name, size_t size)
{
    const char *p = *s;
    /* white space separates keys ("2 3 E"); <Space> is the space key */
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (!*p) {
        *s = p;
        return 0;
    }
    if (*p == '<') {
        const char *e = p + 1;
        while ((*e >= 'A' && *e <= 'Z') || (*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9'))
            e++;
        if (*e == '>' && e > p + 1) {
            size_t n = (size_t)(e - p - 1);
            for (size_t i = 0; i < sizeof named / sizeof *named; i++)
                if (strlen(named[i].name) == n && !strncmp(p + 1, named[i].name, n)) {
                    snprintf(name, size, "<%s>", named[i].name);
                    *s = e + 1;
                    return named[i].key;
                }
            snprintf(name, size, "%.*s", (int)(n + 2), p);
            *s = e + 1;
            return -1;
        }
    }
    snprintf(name, size, "%c", *p);
    *s = p + 1;
    return (unsigned char)*p;
}

static bool is_off(const enum key_act *off, enum key_act act)
{
    for (; off && *off != ACT_NONE; off++)
        if (*off == act)
            return true;
    return false;
}

const char *keys_hint(int vi, int nviews, size_t cols, char *buf, size_t size)
{
    return keys_hint_but(vi, nviews, NULL, cols, buf, size);
}

const char *keys_hint_but(int vi, int nviews, const enum key_act *off, size_t cols, char *buf,
                          size_t size)
{
    size_t o = 0, w = 0;
    buf[0] = '\0';
    for (const key_def *k = table; k->act != ACT_NONE; k++) {
        if (!k->hint || !applies(k->views, vi) || is_off(off, k->act) ||
            (k->hint_views && !(k->hint_views & KEYS_VIEW(vi))) ||
            (vi >= nviews && !(k->views & KEYS_VIEW(vi))))
            continue;
        char one[64];
        if (!strcmp(k->hint, "#views"))
            snprintf(one, sizeof one, "1-%d views", nviews > 9 ? 9 : nviews);
        else
            snprintf(one, sizeof one, "%s", k->hint);
        /* whole hints only, in table order: the first that does not fit
           ends the bar (? help lists them all) */
        size_t sep = o ? 2 : 0, len = strlen(one), ow = fmt_width(one, len);
        if (w + sep + ow > cols || o + sep + len + 1 > size)
            break;
        memcpy(buf + o, "  ", sep);
        memcpy(buf + o + sep, one, len + 1);
        o += sep + len;
        w += sep + ow;
    }
    return buf;
}

/* The views of a mask as text: "every view", "Tree", "Ops, Categories". */
static void views_text(unsigned views, const char *const *labels, int nlabels, char *buf,
                       size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    if (views == KEYS_ALL) {
        snprintf(buf, size, "Every view");
        return;
    }
    for (int i = 0; i < nlabels && o < size; i++)
        if (views & KEYS_VIEW(i))
            o += (size_t)snprintf(buf + o, size - o, "%s%s", o ? ", " : "", labels[i]);
}

struct out {
    char *buf;
    size_t size, off;
};

static void out_line(struct out *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* off counts every byte written, past size too: what the whole text needs */
static void out_line(struct out *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = w->off < w->size ? vsnprintf(w->buf + w->off, w->size - w->off, fmt, ap)
                             : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        w->off += (size_t)n;
}

/* One action: its keys, then its text wrapped under itself so that the
   help fits 80 columns. */
static void out_entry(struct out *w, const char *keys, const char *help)
{
    enum { ROOM = 79 - 20 };
    const char *p = help;
    bool first = true;
    while (first || *p) {
        size_t n = strlen(p);
        if (n > ROOM) {
            n = ROOM;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = ROOM;
        }
        out_line(w, "  %-17s %.*s\n", first ? keys : "", (int)n, p);
        p += n;
        while (*p == ' ')
            p++;
        first = false;
    }
}

/* The help into w (cut at its size, w->off counting what all of it needs). */
static void help_write(struct out *w0, const char *const *labels, int nlabels, int nviews)
{
    struct out w = *w0;
    bool done[sizeof table / sizeof *table] = { false };
    char head[256], ks[128], kn[32], help[512];
    out_line(&w, "torch2pprof-tui: keys (Up, Down, PgUp, PgDn scroll; any other key closes)\n");
    /* one group per views mask, in the order the table first names it */
    for (size_t g = 0; table[g].act != ACT_NONE; g++) {
        unsigned views = table[g].views;
        bool seen = false;
        for (size_t e = 0; e < g; e++)
            seen |= table[e].views == views;
        if (seen)
            continue;
        views_text(views, labels, nlabels, head, sizeof head);
        out_line(&w, "\n%s\n", head);
        for (size_t i = g; table[i].act != ACT_NONE; i++) {
            if (done[i] || table[i].views != views)
                continue;
            /* every key of the same action in the same views on one line */
            size_t ko = 0;
            ks[0] = '\0';
            for (size_t j = i; table[j].act != ACT_NONE; j++) {
                if (table[j].act != table[i].act || table[j].views != views)
                    continue;
                done[j] = true;
                if (table[j].key == KEYS_DIGITS)
                    snprintf(kn, sizeof kn, "1-%d", nviews > 9 ? 9 : nviews);
                else
                    keys_name(table[j].key, kn, sizeof kn);
                if (ko < sizeof ks)
                    ko += (size_t)snprintf(ks + ko, sizeof ks - ko, "%s%s", ko ? " " : "", kn);
            }
            if (!strcmp(table[i].help, "#views")) {
                size_t ho = (size_t)snprintf(help, sizeof help, "go to a view:");
                /* the digits stop at nine: the views after them by Tab and V */
                for (int v = 0; v < nviews && ho < sizeof help; v++)
                    ho += v < 9 ? (size_t)snprintf(help + ho, sizeof help - ho, " %d %s", v + 1,
                                                   labels[v])
                                : (size_t)snprintf(help + ho, sizeof help - ho, "%s%s",
                                                   v == 9 ? "; by Tab or V: " : ", ", labels[v]);
            } else {
                snprintf(help, sizeof help, "%s", table[i].help);
            }
            out_entry(&w, ks, help);
        }
    }
    out_line(&w, "\n");
    out_line(&w, "Figures are the model's, as `torch2pprof analyze` prints them (ms).\n");
    out_line(&w, "Under a focus or filter the tree shows only the selected stacks' time,\n");
    out_line(&w, "like pprof.\n");
    out_line(&w, "Search and filter ignore case unless the text has a capital (smart case).\n");
    *w0 = w;
}

char *keys_help_new(const char *const *labels, int nlabels, int nviews, size_t *nlines)
{
    /* measured first: the text grows with the table and the views' names */
    struct out w = { NULL, 0, 0 };
    help_write(&w, labels, nlabels, nviews);
    char *buf = malloc(w.off + 1);
    if (!buf)
        return NULL;
    w = (struct out){ buf, w.off + 1, 0 };
    buf[0] = '\0';
    help_write(&w, labels, nlabels, nviews);
    /* the lines as split on '\n' (out_line may write more than one) */
    *nlines = 0;
    for (const char *p = buf; *p; p++)
        *nlines += *p == '\n' || !p[1];
    return buf;
}
