/* The types the explorer's modules share: the views in tab order, what a
   key press redraws, the input modes, the styles of screen lines, the
   options of a new view and the scope as the command line spells it. Types
   and macros only (no module defines anything here), so that the view
   state (ui/view.h), the key table (ui/keys.h), the views and the screen
   can all name them without depending on one another. */
#ifndef T2P_VIEW_TYPES_H
#define T2P_VIEW_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"

/* Every view, in tab order: X(ENUM_SUFFIX, file_suffix). View `name` is
   ui/views/view_name.c and fills `const struct view_ops view_name_ops`. */
#define VIEW_LIST(X)     \
    X(OPS, ops)          \
    X(CATS, cats)        \
    X(TREE, tree)        \
    X(THREADS, threads)  \
    X(STEPS, steps)      \
    X(RANKS, ranks)      \
    X(ALLRANKS, allranks) \
    X(MEMORY, memory)     \
    X(TIMELINE, timeline) \
    X(GPU, gpu)           \
    X(KERNELS, kernels)   \
    X(MODULES, modules)   \
    X(COLLECTIVES, collectives)

/* Panes: views without a tab or a digit, opened by a key from another
   view, back to it with Esc or q (ui/views/view_source.c: v on a Python frame).
   Listed the same way; they come after the tabs. */
#define VIEW_PANES(X) \
    X(SOURCE, source) \
    X(CALLERS, callers) \
    X(CHOOSER, chooser)

#define VIEW_ENUM(E, n) VIEW_##E,
/* the panes number on from VIEW_NTABS: the first pane is VIEW_NTABS */
enum view_tab { VIEW_LIST(VIEW_ENUM) VIEW_NTABS, VIEW_PANE0 = VIEW_NTABS - 1,
                VIEW_PANES(VIEW_ENUM) VIEW_NVIEWS };
#undef VIEW_ENUM

/* What view_key changed: the parts of the screen to repaint, or quit. */
enum {
    VIEW_DRAW_TITLE = 1,  /* title and focus lines */
    VIEW_DRAW_TABS = 2,
    VIEW_DRAW_BODY = 4,   /* column header and rows */
    VIEW_DRAW_FOOTER = 8,
    VIEW_DRAW_ALL = 15,
    VIEW_QUIT = 0x100
};

/* Input modes: keys go to the view, or to a one-line prompt. */
enum view_mode { VIEW_MODE_NORMAL, VIEW_MODE_SEARCH, VIEW_MODE_FILTER, VIEW_MODE_HELP,
                 VIEW_MODE_EXPORT /* e: the path to write */ };

/* The screen, top to bottom: four rows of chrome, the body (one row per
   table row), two rows of chrome. The body has height - VIEW_CHROME rows. */
enum view_style {
    VIEW_STYLE_TITLE,    /* file and the trace's figures */
    VIEW_STYLE_CRUMB,    /* the scope: focus breadcrumb, filter, its busy time */
    VIEW_STYLE_SCOPED,   /* the same while a scope is on */
    VIEW_STYLE_WARN,     /* the same over a truncated trace */
    VIEW_STYLE_TABS,     /* the views, the sort */
    VIEW_STYLE_HEADER,   /* column titles */
    VIEW_STYLE_ROW,      /* a body row */
    VIEW_STYLE_ROW_GPU,  /* a body row of GPU work */
    VIEW_STYLE_ROW_WORSE,  /* comparing: a row that got slower (red) */
    VIEW_STYLE_ROW_BETTER, /* comparing: a row that got faster (green) */
    VIEW_STYLE_CURSOR,   /* the body row under the cursor */
    VIEW_STYLE_EMPTY,    /* a body row past the last one */
    VIEW_STYLE_FOOTER,   /* prompt, or the selected row's full name */
    VIEW_STYLE_STATUS,   /* the footer holding a message */
    VIEW_STYLE_KEYS      /* the hint bar */
};
#define VIEW_CHROME_TOP 4
#define VIEW_CHROME 6

typedef struct view view;
struct compare;
struct view_ops;

typedef struct view_opts {
    enum view_tab tab;
    enum model_sort sort;
    const char *export_dir; /* NULL: "." */
    size_t top;             /* list only the first top operators; 0: all */
    /* where the source pane also looks for a Python frame's file (pprof's
       -source_path); NULL: only where the trace says. Not copied. */
    const char *source_path;
    /* the GPU view's cutoffs (--kernel-wait, --runtime-cutoff,
       --launch-delay-cutoff, as analyze takes them); NULL: HTA's defaults.
       Not copied. */
    const struct hta_opts *hta_opts;
    /* comparing two traces (--base): the Ops, Categories, Tree and Threads views
       become their compare twins (ui/cmp.h) over this, whose new model is
       m; NULL: one trace. Must outlive the view. */
    const struct compare *cmp;
    bool short_names;       /* names shortened as HTA's use_short_name (s toggles) */
    bool hide_python;       /* Python frames hidden from the start (--no-python; p toggles) */
    /* the traces (or directories) as the command line named them, and the
       compare base: what the export's recorded command names. Not copied. */
    const char *const *inputs;
    size_t ninputs;
    const char *base_path;
} view_opts;

struct export_entry;

/* The parts of the scope that views set for every view, as the command
   line spells them (ui/export.c builds `torch2pprof convert ...` from them). */
struct view_scope_args {
    char step[64];        /* --step: "1011", "1009-1011"; "" for every step */
    char range[96];       /* --range: "1204000000ns:1517000000ns"; "" for the whole trace */
    const model *whole;   /* the whole trace's model when v->m is a step's, else NULL */
    bool has_rank;        /* --rank: the rank shown, of a job */
    int64_t rank;
    bool all_ranks;       /* the whole job (All ranks) */
    /* focus entries a view keeps apart from the scope (the compare Tree's
       f), as --focus paths from the top of the stack */
    char focus[8][512];
    int nfocus;
    /* what the view shown exports instead of every stack (convert
       --kernels, --kernel NAME, --modules, --by-shape, --track LABEL): set by that view
       alone, when it is the one shown */
    bool kernels;
    const char *kernel; /* that kernel alone (a string of the model's trace); NULL: every one */
    bool modules;
    bool by_shape;
    char track[512];   /* "" none */
};

/* Display columns [x0, x0 + w) of a screen line; w 0: none. */
typedef struct view_span {
    int x0, w;
} view_span;
/* Called every few million stack entries while e writes path (done of
   total); non-zero cancels the export, which then leaves nothing behind. */
typedef int (*view_export_progress_fn)(const char *path, uint64_t done, uint64_t total,
                                       void *ctx);
#endif
