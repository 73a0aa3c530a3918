/* The one key table: each row binds a key to an action, says in which
   views it applies and carries its help text. Dispatch (ui/view_key.c), the help
   screen, the hint bar and the --replay key names all read this table, so
   they cannot drift apart. No curses here. */
#ifndef T2P_KEYS_H
#define T2P_KEYS_H

#include <stdbool.h>
#include <stddef.h>

/* Keys that are not plain bytes; the terminal front maps curses codes to
   these, --replay maps <Name> tokens. Above the Unicode range. */
enum view_keycode {
    VK_UP = 0x110000, VK_DOWN, VK_LEFT, VK_RIGHT, VK_PGUP, VK_PGDN, VK_HOME, VK_END,
    VK_ENTER, VK_ESC, VK_BACKSPACE, VK_TAB, VK_BTAB, VK_F1
};

/* What a key asks for. A view handles the ones it knows first; the rest
   go to the generic actions of ui/view_key.c. */
enum key_act {
    ACT_NONE,
    /* generic */
    ACT_QUIT, ACT_HELP, ACT_UP, ACT_DOWN, ACT_PGUP, ACT_PGDN, ACT_HOME, ACT_END,
    ACT_VIEW, /* arg: the view's index */
    ACT_NEXT_VIEW, ACT_PREV_VIEW, ACT_SORT_PREV, ACT_SORT_NEXT, ACT_REVERSE,
    ACT_DRILL, ACT_BACK, ACT_SEARCH, ACT_NEXT_MATCH, ACT_PREV_MATCH, ACT_FILTER, ACT_EXPORT,
    /* trees */
    ACT_OPEN, ACT_CLOSE, ACT_EXPAND, ACT_COLLAPSE, ACT_EXPAND_SUBTREE, ACT_EXPAND_ALL,
    ACT_COLLAPSE_ALL, ACT_MERGE, ACT_FOCUS,
    ACT_TOGGLE, /* fold or unfold the node: Space, a double-click */
    /* Python frames: the source pane of the frame under the cursor */
    ACT_SOURCE, ACT_PYTHON,
    /* the Callers pane (bottom-up) of the op under the cursor */
    ACT_CALLERS,
    /* comparing (--base) */
    ACT_CMP_FIGS,
    /* steps: from every view */
    ACT_STEP_PREV, ACT_STEP_NEXT,
    /* All ranks: operators / categories merged over the ranks */
    ACT_ALL_TABLE,
    /* names: short or full, from every view */
    ACT_SHORT_NAMES,
    /* the Timeline: the time cursor, the window shown, the range */
    ACT_TL_LEFT, ACT_TL_RIGHT, ACT_TL_PAN_LEFT, ACT_TL_PAN_RIGHT, ACT_TL_ZOOM_IN,
    ACT_TL_ZOOM_OUT, ACT_TL_ZOOM_ALL, ACT_TL_NEXT_EVENT, ACT_TL_PREV_EVENT, ACT_TL_MARK_START,
    ACT_TL_MARK_END,
    /* the view chooser: a list of every view (those past nine have no digit) */
    ACT_CHOOSE,
    /* Ops: rows by (operator, input shape), as TensorBoard's Operator view */
    ACT_BY_SHAPE,
    ACT_N
};

/* In the table: the digits 1 to the number of views, each going to its view. */
#define KEYS_DIGITS (-3)

/* Views a key applies in: a bit per view index; KEYS_ALL for every view. */
#define KEYS_ALL 0u

typedef struct key_def {
    int key;          /* a byte or a view_keycode */
    enum key_act act;
    int arg;
    unsigned views;   /* KEYS_ALL, or bits (1u << view index) */
    const char *help; /* what the action does, for the help screen */
    const char *hint; /* its entry in the hint bar, or NULL */
    unsigned hint_views; /* where the hint shows; KEYS_ALL: wherever the key applies */
} key_def;

#define KEYS_VIEW(i) (1u << (i))

/* The action of key in view index vi of nviews; ACT_NONE when unbound.
   *arg gets the row's argument (for a digit: the view's index). */
enum key_act keys_action(int key, int vi, int nviews, int *arg);

/* The table, ended by a row with act ACT_NONE. */
const key_def *keys_table(void);

/* The name of a key for people: "Up", "Enter", "Shift-Tab", "q". Into buf. */
const char *keys_name(int key, char *buf, size_t size);

/* A --replay script's next key; *s advances. 0 at the end, -1 for an
   unknown <Name> (name then holds it). name gets the key as written. */
int keys_script_next(const char **s, char *name, size_t size);

/* The help screen from the table, lines ended by '\n': each action with
   its keys, grouped by the views they apply in. labels[i] is view i's name,
   for nlabels views of which the first nviews have a digit (the others are
   panes). A new string as long as the table needs (the caller frees it),
   *nlines its lines; NULL when out of memory. */
char *keys_help_new(const char *const *labels, int nlabels, int nviews, size_t *nlines);
/* The hint bar of view index `view` for a screen cols columns wide, into
   buf: whole hints in the table's order, as many as fit (never one cut in
   the middle). A pane (view >= nviews) hints only at the keys that name it. */
const char *keys_hint(int view, int nviews, size_t cols, char *buf, size_t size);
/* The same without the hints of the actions in off (ended by ACT_NONE;
   NULL: none): what a view cannot do there is not offered. */
const char *keys_hint_but(int view, int nviews, const enum key_act *off, size_t cols, char *buf,
                          size_t size);

#endif
