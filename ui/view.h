/* The explorer's view state: which tab, which rows in which order, where the
   cursor is, what is expanded, focused, searched and filtered. Plain C with
   no curses, so unit tests and the headless --replay mode drive it exactly as
   the terminal does. It also lays out each screen line as text (columns,
   widths, ellipsis), so that ui/draw.c only paints strings.

   Cost model: a key press never walks the events. Ops, categories and
   threads are small arrays from the model. The call trees are walked only
   where the user looks: children are sorted once per (node, sort, scope) and
   cached, and expanding or collapsing a node splices its rows into the
   visible list. A change of focus or filter costs one pass over the nodes. */
#ifndef T2P_VIEW_H
#define T2P_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "core/select.h"

enum view_tab { VIEW_OPS, VIEW_CATS, VIEW_TREE, VIEW_THREADS, VIEW_NTABS };

/* Keys that are not plain bytes; the terminal front maps curses codes to
   these, the replay mode maps <Name> tokens. Above the Unicode range. */
enum view_keycode {
    VK_UP = 0x110000, VK_DOWN, VK_LEFT, VK_RIGHT, VK_PGUP, VK_PGDN, VK_HOME, VK_END,
    VK_ENTER, VK_ESC, VK_BACKSPACE, VK_TAB, VK_BTAB, VK_F1
};

/* What view_key changed: the parts of the screen to repaint, or quit. */
enum {
    VIEW_DRAW_TITLE = 1,  /* title and focus lines */
    VIEW_DRAW_TABS = 2,
    VIEW_DRAW_BODY = 4,   /* column header and rows */
    VIEW_DRAW_FOOTER = 8,
    VIEW_DRAW_ALL = 15,
    VIEW_QUIT = 0x100
};

/* Input modes: keys go to the table, or to a one-line prompt. */
enum view_mode { VIEW_MODE_NORMAL, VIEW_MODE_SEARCH, VIEW_MODE_FILTER, VIEW_MODE_HELP };

enum view_focus_kind {
    VIEW_FOCUS_OP,    /* stacks through an operator (Enter in Ops) */
    VIEW_FOCUS_CAT,   /* stacks through any operator of a category (Enter in Categories) */
    VIEW_FOCUS_NODE,  /* stacks at or below a per-track node (f in the per-track tree) */
    VIEW_FOCUS_MNODE  /* stacks at or below a merged node (f in the merged tree) */
};

typedef struct view_focus {
    enum view_focus_kind kind;
    uint32_t id;
    /* where to return on Esc */
    enum view_tab prev_tab;
    size_t prev_cursor, prev_top;
    bool prev_merged;
    uint32_t prev_node; /* the tree's cursor node when the focus came from the tree */
} view_focus;

#define VIEW_MAX_FOCUS 16
#define VIEW_TEXT 256

/* One call tree as displayed: the per-track trees (nodes) or the merged one. */
typedef struct view_tree {
    const model_node *nodes;
    size_t n;
    bool merged;
    uint32_t *kid_start; /* n+1: children of i are kids[kid_start[i] .. kid_start[i+1]) */
    uint32_t *kids;
    uint32_t *sorted_gen; /* per node: the gen its kids were last sorted at */
    uint32_t *tops;       /* top-level rows: track roots, or the merged root */
    size_t ntops;
    uint32_t tops_gen;
    uint8_t *expanded;
    uint32_t *rowsz;     /* rows node i takes when shown (see tree_size_all) */
    uint32_t *pos;       /* index of node i among its parent's children, in their order */
    /* the scope (focus and filter) over this tree, when active */
    bool active;
    uint32_t *bits;      /* scratch: which scope tests the stack to each node passes */
    uint8_t *shown;      /* node is on a path to a selected stack */
    uint8_t *sel;        /* the stack ending at the node is selected */
    int64_t *scum;       /* self time of the selected stacks at or below the node */
    int64_t *sdev;       /* device time of the selected stacks at or below */
    uint32_t scope_gen;  /* view scope_gen this was computed for */
} view_tree;

/* The figures a row shows (what the tree sorts children by). */
typedef struct view_fig {
    uint64_t calls;
    int64_t self_ns, total_ns, dev_self_ns, dev_total_ns;
} view_fig;

/* A row id with its sort key, for sorting children and tracks. */
struct keyed {
    int64_t key;
    const char *name;
    uint32_t id;
};

typedef struct view {
    const model *m;
    const char *export_dir; /* where e writes; "." by default */
    size_t top_ops;         /* --top: 0 for all */

    enum view_tab tab;
    enum view_mode mode;
    enum model_sort sort;
    bool reverse;
    bool merged; /* the tree tab shows the merged tree */
    bool gpu;    /* the trace has GPU work: device columns shown */

    int width, height, page; /* screen size and body rows */

    /* rows of the flat tabs; the tree's rows are virtual (see view.c) */
    uint32_t *rows[VIEW_NTABS];
    size_t nrows[VIEW_NTABS], caprows[VIEW_NTABS];
    size_t cur[VIEW_NTABS], top[VIEW_NTABS];
    bool stale[VIEW_NTABS]; /* rows must be rebuilt before use */

    uint32_t *op_order; /* ops in the current sort */
    uint32_t *cat_order;
    bool order_stale;

    view_tree trees[2]; /* [0] per-track, [1] merged */
    uint32_t gen;       /* bumped when sort or scope change child order */

    view_focus focus[VIEW_MAX_FOCUS];
    int nfocus;
    char filter[VIEW_TEXT];   /* applied filter, "" for none */
    char prompt[VIEW_TEXT];   /* text being typed in a prompt */
    char search[VIEW_TEXT];   /* last search */
    size_t search_from;       /* the row incremental search started at */
    uint32_t scope_gen;       /* bumped when focus or filter change */
    uint8_t *op_hit;          /* scratch per op */
    int64_t scope_busy_ns;    /* self time of the scope's stacks */
    bool reveal;              /* the next scope pass opens the way to selected frames */

    uint32_t tnode;           /* the node under the tree's cursor after the last key */
    size_t rc_i;              /* the last tree row looked up, and its node */
    uint32_t rc_node;

    char status[VIEW_TEXT * 4];
    uint32_t *scratch;  /* row splicing */
    size_t scratch_cap;
    struct keyed *kbuf; /* sort keys */
    size_t kcap;
} view;

typedef struct view_opts {
    enum view_tab tab;
    enum model_sort sort;
    const char *export_dir; /* NULL: "." */
    size_t top;             /* list only the first top operators; 0: all */
} view_opts;

/* A view over m (which must outlive it). NULL when out of memory. */
view *view_new(const model *m, const view_opts *o);
void view_free(view *v);

/* The screen size; the body gets height - 6 rows. */
void view_resize(view *v, int width, int height);

/* Applies one key (a byte or a view_keycode). Returns VIEW_DRAW_* bits or VIEW_QUIT. */
int view_key(view *v, int key);

/* The rows of the current tab (rebuilt when stale). */
size_t view_nrows(view *v);
uint32_t view_row(view *v, size_t i);
size_t view_cursor(const view *v);
size_t view_top(const view *v);

/* The name a row shows in full (op, category, node or track label). */
const char *view_row_name(view *v, size_t i, char *buf, size_t size, size_t *len);

/* Figures of a tree node as the tree shows them: the model's figures, or,
   under a focus or filter, those of the selected stacks only. */
void view_node_fig(view *v, uint32_t node, view_fig *f);

/* Text of the screen lines, width columns, UTF-8 into buf. */
void view_title(view *v, char *buf, size_t size);   /* file, window, busy, events, tracks */
void view_crumb(view *v, char *buf, size_t size);   /* the focus breadcrumb and scope */
void view_tabs(view *v, char *buf, size_t size);
void view_colheader(view *v, char *buf, size_t size);
/* Row i of the current tab; *gpu set for GPU work (drawn apart). */
void view_line(view *v, size_t i, char *buf, size_t size, bool *gpu);
void view_footer(view *v, char *buf, size_t size);  /* prompt, status, or the row's full name */
void view_keys(view *v, char *buf, size_t size);    /* the main keys */
/* Help screen lines; NULL after the last. */
const char *view_help_line(size_t i);

/* The export scope: the focus and filter as a select_spec (tests off when
   there is none). Returns false when the scope has a part select_spec cannot
   say (a category or per-track node focus); view_keep then gives the mask. */
bool view_scope(view *v, select_spec *s);

/* The scope as a mask over model->nodes, like select_nodes: 1 for a selected
   stack, roots 0. NULL when out of memory. Caller frees. */
uint8_t *view_keep(view *v);

/* Writes the scope to pprof in export_dir (never overwriting) and sets the
   status line. Returns 0 or -1. */
int view_export(view *v);

/* Replaces the focus stack: for tests and --replay scripts. */
void view_push_focus(view *v, enum view_focus_kind kind, uint32_t id);

#endif
