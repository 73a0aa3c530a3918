/* The terminal side of torch2pprof-tui; see ui/draw.h. */
#include "config.h"

/* curses.h declares a function trace(), the model's type name: rename it. */
#define trace curses_trace_fn
#include <curses.h>
#undef trace

#include "ui/draw.h"
#include <stdio.h>
#include <string.h>

#include "core/base/fmt.h"
#include "ui/glyph.h"
#include "ui/keys.h"
#include "ui/mouse.h"
#include "ui/screen.h"

enum { PAIR_TITLE = 1, PAIR_HEAD, PAIR_SEL, PAIR_GPU, PAIR_STATUS, PAIR_BAR, PAIR_WORSE,
       PAIR_BETTER, PAIR_ROLE0 };

/* The Steps view's role letters and their colours, in role order: Kernel,
   Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec, Other. */
static const char role_letters[] = "KMSCRDPO";
static const short role_colours[] = { COLOR_GREEN, COLOR_CYAN, COLOR_BLUE, COLOR_RED,
                                      COLOR_YELLOW, COLOR_MAGENTA, COLOR_WHITE, COLOR_BLACK };

static bool opened;
static bool colour;
static bool ascii; /* the locale is not UTF-8: glyphs as ASCII (ui/glyph.h) */

/* mvaddstr, through glyph_to_ascii when the terminal cannot show UTF-8 */
static void put(int y, int x, const char *s)
{
    char tmp[8192];
    mvaddstr(y, x, glyph_line(s, ascii, tmp, sizeof tmp));
}

int draw_open(bool no_color)
{
    if (opened)
        return 0;
    if (!initscr())
        return -1;
    opened = true;
    ascii = !glyph_locale_utf8();
    cbreak(); /* not raw: Ctrl-C still raises SIGINT, which the main loop turns into quit */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25); /* Esc is a key of its own here, not only a prefix */
    colour = !no_color && has_colors();
    if (colour) {
        start_color();
        use_default_colors();
        init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
        init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_WHITE);
        init_pair(PAIR_SEL, COLOR_BLACK, COLOR_YELLOW);
        init_pair(PAIR_GPU, COLOR_MAGENTA, -1);
        init_pair(PAIR_STATUS, COLOR_YELLOW, -1);
        init_pair(PAIR_BAR, COLOR_BLACK, COLOR_GREEN);
        init_pair(PAIR_WORSE, COLOR_RED, -1);   /* comparing: slower */
        init_pair(PAIR_BETTER, COLOR_GREEN, -1); /* comparing: faster */
        for (int r = 0; r < 8; r++)
            init_pair((short)(PAIR_ROLE0 + r), r == 7 ? COLOR_WHITE : COLOR_BLACK, role_colours[r]);
    }
    return 0;
}

void draw_close(void)
{
    if (!opened)
        return;
    opened = false;
    curs_set(1);
    endwin();
}

bool draw_is_open(void)
{
    return opened;
}

void draw_size(int *width, int *height)
{
    *width = COLS;
    *height = LINES;
}

static struct { int kind, x, y; } last_mouse;

void draw_mouse(bool on)
{
    if (!opened)
        return;
    mmask_t want = on ? BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                        | BUTTON5_PRESSED
#endif
                      : 0;
    mousemask(want, NULL);
}

void draw_mouse_event(int *kind, int *x, int *y)
{
    *kind = last_mouse.kind;
    *x = last_mouse.x;
    *y = last_mouse.y;
}

/* A curses mouse event as DRAW_MOUSE, or -1 for one the explorer ignores. */
static int mouse_key(void)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return -1;
    if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
        last_mouse.kind = MOUSE_DOUBLE;
    else if (ev.bstate & BUTTON1_CLICKED)
        last_mouse.kind = MOUSE_CLICK;
    else if (ev.bstate & BUTTON4_PRESSED)
        last_mouse.kind = MOUSE_WHEEL_UP;
#ifdef BUTTON5_PRESSED
    else if (ev.bstate & BUTTON5_PRESSED)
        last_mouse.kind = MOUSE_WHEEL_DOWN;
#endif
    else
        return -1;
    last_mouse.x = ev.x;
    last_mouse.y = ev.y;
    return DRAW_MOUSE;
}

int draw_key(int timeout_ms)
{
    timeout(timeout_ms);
    int c = getch();
    switch (c) {
    case ERR: return -1;
    case KEY_MOUSE: return mouse_key();
    case KEY_RESIZE: return DRAW_RESIZE;
    case KEY_UP: return VK_UP;
    case KEY_DOWN: return VK_DOWN;
    case KEY_LEFT: return VK_LEFT;
    case KEY_RIGHT: return VK_RIGHT;
    case KEY_PPAGE: return VK_PGUP;
    case KEY_NPAGE: return VK_PGDN;
    case KEY_HOME: return VK_HOME;
    case KEY_END: return VK_END;
    case KEY_ENTER: case '\n': case '\r': return VK_ENTER;
    case 27: return VK_ESC;
    case KEY_BACKSPACE: case 127: case 8: return VK_BACKSPACE;
    case '\t': return VK_TAB;
    case KEY_BTAB: return VK_BTAB;
    case KEY_F(1): return VK_F1;
    default: return c >= 0 && c < 256 ? c : 0;
    }
}

static attr_t attr_of(int pair, attr_t mono)
{
    return colour ? COLOR_PAIR(pair) : mono;
}

/* One screen line: the text, then blanks to the edge in the same attribute. */
static void line(int y, const char *s, attr_t a)
{
    attrset(a);
    put(y, 0, s);
    clrtoeol();
    if (a != A_NORMAL) {
        /* clrtoeol uses the background, not attrset: pad by hand */
        int cy, cx;
        getyx(stdscr, cy, cx);
        (void)cy;
        for (int x = cx; x < COLS; x++)
            addch(' ');
    }
    attrset(A_NORMAL);
}

static void draw_help(view *v)
{
    erase();
    for (size_t i = 0; view_help_line(v, i) && (int)i < LINES; i++)
        line((int)i, view_help_line(v, i), i == 0 ? attr_of(PAIR_TITLE, A_REVERSE) : A_NORMAL);
    refresh();
}

static attr_t style_attr(enum view_style st)
{
    switch (st) {
    case VIEW_STYLE_TITLE: return attr_of(PAIR_TITLE, A_REVERSE);
    case VIEW_STYLE_WARN: return attr_of(PAIR_STATUS, A_REVERSE) | A_BOLD;
    case VIEW_STYLE_SCOPED: return A_BOLD;
    case VIEW_STYLE_TABS: return A_BOLD;
    case VIEW_STYLE_HEADER: return attr_of(PAIR_HEAD, A_REVERSE) | A_BOLD;
    case VIEW_STYLE_CURSOR: return attr_of(PAIR_SEL, A_REVERSE);
    case VIEW_STYLE_ROW_GPU: return attr_of(PAIR_GPU, A_BOLD);
    case VIEW_STYLE_ROW_WORSE: return attr_of(PAIR_WORSE, A_NORMAL);
    case VIEW_STYLE_ROW_BETTER: return attr_of(PAIR_BETTER, A_NORMAL);
    case VIEW_STYLE_STATUS: return attr_of(PAIR_STATUS, A_BOLD);
    case VIEW_STYLE_KEYS: return attr_of(PAIR_TITLE, A_REVERSE);
    default: return A_NORMAL;
    }
}

/* Repaints the role letters of a bar on line y in their colours (the
   letters stay: a copy of the screen still reads without colour). */
static void colour_bar(int y, int x0, int w)
{
    for (int x = x0; x < x0 + w && x < COLS; x++) {
        chtype ch = mvinch(y, x) & A_CHARTEXT;
        const char *p = ch ? strchr(role_letters, (int)ch) : NULL;
        if (p && *p)
            mvaddch(y, x, ch | COLOR_PAIR(PAIR_ROLE0 + (int)(p - role_letters)));
    }
}

void draw_screen(view *v)
{
    char buf[8192];
    enum view_mode mode = view_mode_of(v);
    if (mode == VIEW_MODE_HELP) {
        draw_help(v);
        return;
    }
    int h = LINES, footw = 0;
    for (int y = 0; y < h; y++) {
        enum view_style st;
        view_span sec;
        view_screen_line_sec(v, y, buf, sizeof buf, &st, &sec);
        line(y, buf, style_attr(st));
        /* secondary text dimmed; without colours it stays as it is */
        if (colour && sec.w > 0 && st != VIEW_STYLE_CURSOR) {
            attr_t a = style_attr(st);
            mvchgat(y, sec.x0, sec.w, (a & ~A_COLOR) | A_DIM, (short)PAIR_NUMBER(a), NULL);
        }
        int x0, w;
        if (colour && view_bar_span(v, y, &x0, &w))
            colour_bar(y, x0, w);
        if (st == VIEW_STYLE_FOOTER || st == VIEW_STYLE_STATUS)
            footw = (int)fmt_width(buf, strlen(buf));
    }
    int px = view_prompt_col(v);
    if (px >= 0) {
        curs_set(1);
        /* the cursor where the typed text ends */
        move(h - 2, px < footw ? px : footw);
    } else {
        curs_set(0);
    }
    refresh();
}

/* The progress screen: "what path", a bar at done of total, then line. */
static void progress_screen(const char *path, uint64_t done, uint64_t total, const char *what,
                            const char *line)
{
    char msg[1200], cut[1200];
    int w = COLS > 84 ? 80 : COLS - 4;
    int y = LINES / 2 - 2;
    if (w < 10 || y < 0)
        return;
    erase();
    snprintf(msg, sizeof msg, "%s %s", what, path);
    fmt_ellipsize(msg, strlen(msg), (size_t)w, cut, sizeof cut);
    put(y, 2, cut);
    double f = total ? (double)done / (double)total : 0;
    if (f > 1)
        f = 1;
    int fill = (int)(f * (w - 2));
    mvaddch(y + 1, 2, '[');
    attrset(attr_of(PAIR_BAR, A_REVERSE));
    for (int x = 0; x < fill; x++)
        addch(' ');
    attrset(A_NORMAL);
    for (int x = fill; x < w - 2; x++)
        addch(colour ? ' ' : '.');
    addch(']');
    fmt_ellipsize(line, strlen(line), (size_t)w, cut, sizeof cut);
    put(y + 2, 2, cut);
    refresh();
}

void draw_progress(const char *path, uint64_t done, uint64_t total, uint64_t events,
                   double seconds, const char *what)
{
    char a[32], b[32], c[32], msg[400];
    double f = total ? (double)done / (double)total : 0;
    snprintf(msg, sizeof msg, "%s of %s bytes (%.0f%%)   %s events   %.1f s   Ctrl-C cancels",
             fmt_count(done, a, sizeof a), fmt_count(total, b, sizeof b), f > 1 ? 100 : f * 100,
             fmt_count(events, c, sizeof c), seconds);
    progress_screen(path, done, total, what, msg);
}

void draw_export_progress(const char *path, uint64_t done, uint64_t total, double seconds)
{
    char a[32], b[32], msg[400];
    double f = total ? (double)done / (double)total : 0;
    snprintf(msg, sizeof msg, "%s of %s stack entries (%.0f%%)   %.1f s   Ctrl-C cancels",
             fmt_count(done, a, sizeof a), fmt_count(total, b, sizeof b), f > 1 ? 100 : f * 100,
             seconds);
    progress_screen(path, done, total, "Exporting", msg);
}

void draw_text(const char *text)
{
    char line[1200];
    erase();
    int y = 1;
    for (const char *p = text; *p && y < LINES - 1; y++) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        put(y, 2, line);
        p += n + (e ? 1 : 0);
    }
    refresh();
}
