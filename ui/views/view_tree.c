/* The Tree view: the call tree, one per track or merged across tracks,
   under the scope (focus and filter) with pprof's figures: a node's total
   is the selected stacks' time at or below it. Rows come from
   ui/tree_rows.c; this file adds figures, names, keys and search. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/load/pyframe.h"
#include "core/model/select.h"
#include "ui/tree_mem.h"
#include "ui/tree_moves.h"
#include "ui/tree_rows.h"
#include "ui/view.h"
#include "ui/view_impl.h"
#include "ui/views/view_source.h"
#include "ui/views/view_tree.h"
#include "ui/views/view_util.h"

enum { C_NAME, C_CALLS, C_SELF, C_TOTAL, C_PCT, C_DSELF, C_DTOTAL };

/* At 80 columns a GPU trace keeps Total, %, Self, Calls and Dev total */
static const col cols[] = {
    { C_TOTAL, "Total ms", 11, MODEL_SORT_TOTAL, 0, false, false, false },
    { C_PCT, "%", 5, -1, 0, false, false, false }, /* total of the scope's time */
    { C_SELF, "Self ms", 11, MODEL_SORT_SELF, 0, false, false, false },
    { C_CALLS, "Calls", 10, MODEL_SORT_CALLS, 1, false, false, false },
    { C_DSELF, "Dev self ms", 12, MODEL_SORT_DEVICE_SELF, 2, true, false, false },
    { C_DTOTAL, "Dev total ms", 12, MODEL_SORT_DEVICE_TOTAL, 1, true, false, false },
    { C_NAME, "Name", 24, MODEL_SORT_NAME, 0, false, true, true },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_TOTAL, MODEL_SORT_SELF, MODEL_SORT_CALLS,
                                         MODEL_SORT_DEVICE_SELF, MODEL_SORT_DEVICE_TOTAL,
                                         MODEL_SORT_NAME, MODEL_SORT_N };

/* One call tree as displayed. */
struct one {
    view *v;
    bool merged;
    tree_rows rows;
    uint32_t scope_gen, order_gen; /* what its rows were last made for */
    /* search: the matches of fpat, for the scope and order they were found in */
    uint8_t *hit;
    const uint32_t *found;
    size_t nfound;
    uint32_t fgen, fscope;
    bool fshort; /* the names matched were the short ones (s) */
    char fpat[SEARCH_TEXT];
    /* p: Python frames hidden (v->hide_python): skipped by the rows, their
       self time lifted into the nearest shown ancestor's, per node, under
       the scope (stale after a scope change) */
    bool hidden, lift_stale;
    uint8_t *skip;
    int64_t *lift_self, *lift_dev;
};

struct tree_state {
    struct one t[2]; /* [0] per track, [1] merged */
    bool merged;     /* which one is shown */
    bool reveal;     /* the next scope opens the way to the selected frames */
    uint32_t tnode;  /* the node under the cursor after the last key */
    enum model_sort sort; /* its own sort: by total time from the start */
    bool reverse;
    uint8_t *op_hit; /* search: per op, its name matches */
};

typedef view_fig fig;

static struct tree_state *st(view *v)
{
    return view_state(v, VIEW_TREE);
}

static struct one *cur(view *v)
{
    struct tree_state *s = st(v);
    return &s->t[s->merged ? 1 : 0];
}

static bool is_root(const struct one *o, uint32_t u)
{
    return o->rows.nodes[u].parent == MODEL_NONE;
}

static const scope_mask *mask_of(struct one *o)
{
    const scope_mask *k = scope_mask_of(view_scope(o->v), o->merged);
    return k && k->active ? k : NULL;
}

static void fig_one(const struct one *o, const scope_mask *k, uint32_t u, fig *f)
{
    const model_node *nd = &o->rows.nodes[u];
    bool root = nd->parent == MODEL_NONE;
    f->calls = root && k ? k->scalls[u] : nd->calls; /* a root: the scope's calls on it */
    if (nd->gpu) {
        /* GPU work under its launch: its GPU events and their time */
        int64_t t = !k || k->sel[u] ? nd->dev_total_ns : 0;
        f->calls = !k || k->sel[u] ? nd->dev_events : 0;
        f->self_ns = f->total_ns = 0; /* no CPU time: drawn as "-" */
        f->dev_total_ns = t;
        f->dev_self_ns = 0;
        return;
    }
    if (k) {
        f->self_ns = !root && k->sel[u] ? nd->self_ns : 0;
        f->total_ns = k->scum[u];
        f->dev_self_ns = !root && k->sel[u] ? nd->dev_self_ns : 0;
        f->dev_total_ns = k->sdev[u];
        /* a GPU op's frame shows its own GPU time, as its op does */
        if (!root && o->v->m->ops[nd->op].gpu)
            f->dev_total_ns = k->sel[u] ? nd->dev_total_ns : 0;
    } else {
        f->self_ns = nd->self_ns; /* 0 on a root: it is no call */
        f->total_ns = nd->total_ns;
        f->dev_self_ns = nd->dev_self_ns;
        f->dev_total_ns = nd->dev_total_ns;
    }
    if (o->hidden) { /* the hidden Python frames' own time, as pprof -hide does */
        f->self_ns += o->lift_self[u];
        f->dev_self_ns += o->lift_dev[u];
    }
}

/* A row's figures: its node's, summed over the siblings merged into it
   when the Python frames are hidden (tree_rows_rep). */
static void fig_of(const struct one *o, const scope_mask *k, uint32_t u, fig *f)
{
    fig_one(o, k, u, f);
    for (uint32_t x = tree_rows_fold_next(&o->rows, u); x != MODEL_NONE;
         x = tree_rows_fold_next(&o->rows, x)) {
        fig g;
        fig_one(o, k, x, &g);
        f->calls += g.calls;
        f->self_ns += g.self_ns;
        f->total_ns += g.total_ns;
        f->dev_self_ns += g.dev_self_ns;
        f->dev_total_ns += g.dev_total_ns;
    }
}

static int64_t fig_key(const fig *f, enum model_sort s)
{
    return model_sort_key(s, f->calls, f->self_ns, f->total_ns, f->dev_self_ns, f->dev_total_ns);
}

/* A node's name; *split (when not NULL) gets where its secondary text
   starts (a Python frame's file:line, an operator's "@ file:line fn"), or
   SIZE_MAX when it has none. */
static const char *node_name_sec(const struct one *o, uint32_t u, char *buf, size_t size,
                                 size_t *len, size_t *split)
{
    const model *m = o->v->m;
    size_t nosplit;
    if (!split)
        split = &nosplit;
    *split = SIZE_MAX;
    const model_node *nd = &o->rows.nodes[u];
    if (nd->parent == MODEL_NONE) {
        if (o->merged)
            snprintf(buf, size, "(all tracks)");
        else
            trace_track_fullname(m->tr, nd->track, buf, size);
        *len = strlen(buf);
        return buf;
    }
    pyframe f = { 0 };
    const char *name = view_op_label(o->v, nd->op, buf, size, len, split);
    if (name == buf)
        return buf; /* a Python frame */
    if (!o->merged && m->node_stack && m->node_stack[u] != STRTAB_NONE && !o->v->hide_python) {
        /* an operator with a Call stack: the Python line that called it tells
           apart the siblings one operator makes from several lines */
        uint32_t outer = STRTAB_NONE;
        for (uint32_t p = nd->parent; p != MODEL_NONE && outer == STRTAB_NONE;
             p = m->nodes[p].parent)
            outer = m->node_stack[p];
        const char *text;
        size_t tlen, pos = 0;
        pyframe_added(m, m->node_stack[u], outer, &text, &tlen);
        while (pyframe_next(text, tlen, &pos, &f) && !f.file_len)
            ;
        if (tlen && f.file_len) {
            size_t nlen = *len; /* the name as shown: short or full */
            /* file:line first, the directory last: a narrow screen cuts
               the directory, never the file */
            size_t base = f.file_len;
            while (base > 0 && f.file[base - 1] != '/')
                base--;
            *len = (size_t)snprintf(buf, size, "%.*s  @ %.*s:%u %.*s%s%.*s%s", (int)nlen, name,
                                    (int)(f.file_len - base), f.file + base, (unsigned)f.line,
                                    (int)f.func_len, f.func, base ? "  (" : "", (int)base,
                                    f.file, base ? ")" : "");
            if (*len >= size)
                *len = size - 1;
            *split = nlen + 2;
            return buf;
        }
    }
    return name;
}

static const char *node_name(const struct one *o, uint32_t u, char *buf, size_t size,
                             size_t *len)
{
    return node_name_sec(o, u, buf, size, len, NULL);
}

static void sort_kids(void *ctx, uint32_t *ids, size_t n)
{
    struct one *o = ctx;
    view *v = o->v;
    view_keyed *k = view_keyed_buf(v, n);
    if (!k)
        return; /* out of memory: creation order is still a valid order */
    const scope_mask *mk = mask_of(o);
    char tmp[300];
    for (size_t i = 0; i < n; i++) {
        fig f;
        size_t len;
        fig_of(o, mk, ids[i], &f);
        enum model_sort so = st(v)->sort;
        k[i].key = (int)so >= TREE_MEM_SORT0 ? tree_mem_key(v, o->merged, ids[i], (int)so)
                                             : fig_key(&f, so);
        k[i].id = ids[i];
        /* a root has no self time of its own: rank tracks by their time */
        if (is_root(o, ids[i]) && (so == MODEL_SORT_SELF || so == MODEL_SORT_DEVICE_SELF))
            k[i].key = so == MODEL_SORT_SELF ? f.total_ns : f.dev_total_ns;
        /* a name made in tmp (a track, a Python frame, a Call stack line) is
           copied: tmp is the next node's */
        const char *name = node_name(o, ids[i], tmp, sizeof tmp, &len);
        k[i].owned = name == tmp;
        k[i].name = k[i].owned ? strdup(tmp) : name;
        if (!k[i].name) {
            k[i].name = ""; /* out of memory: ties fall back to creation order */
            k[i].owned = false;
        }
    }
    view_keyed_sort(k, n, st(v)->sort == MODEL_SORT_NAME, st(v)->reverse);
    for (size_t i = 0; i < n; i++) {
        ids[i] = k[i].id;
        if (k[i].owned)
            free((char *)k[i].name);
    }
}

/* p: skips the Python frames or stops skipping them. */
static void set_hidden(view *v, struct one *o, bool on)
{
    const model *m = v->m;
    size_t n = o->rows.n;
    if (on && !o->skip) {
        o->skip = calloc(n ? n : 1, 1);
        o->lift_self = malloc((n ? n : 1) * sizeof *o->lift_self);
        o->lift_dev = malloc((n ? n : 1) * sizeof *o->lift_dev);
        if (!o->skip || !o->lift_self || !o->lift_dev) {
            view_status_set(v, "out of memory hiding the Python frames");
            return;
        }
        for (size_t u = 0; u < n; u++) {
            const model_node *nd = &o->rows.nodes[u];
            o->skip[u] = nd->parent != MODEL_NONE && !nd->gpu &&
                         pyframe_is_cat(model_op_cat(m, nd->op));
        }
    }
    if (tree_rows_set_skip(&o->rows, on ? o->skip : NULL) < 0) {
        view_status_set(v, "out of memory hiding the Python frames");
        return;
    }
    o->hidden = on;
    o->lift_stale = true;
}

/* The self time each shown node takes from the hidden frames below it (in
   the scope: only selected frames count, as their own rows would). */
static void lift(struct one *o, const scope_mask *k)
{
    size_t n = o->rows.n;
    memset(o->lift_self, 0, n * sizeof *o->lift_self);
    memset(o->lift_dev, 0, n * sizeof *o->lift_dev);
    for (size_t u = 0; u < n; u++) {
        if (!o->skip[u] || (k && !k->sel[u]))
            continue;
        uint32_t p = tree_rows_parent(&o->rows, (uint32_t)u);
        o->lift_self[p] += o->rows.nodes[u].self_ns;
        o->lift_dev[p] += o->rows.nodes[u].dev_self_ns;
    }
    o->lift_stale = false;
}

/* Brings a tree's rows up to the scope and the order. */
static void sync(view *v, struct one *o)
{
    scope *s = view_scope(v);
    if (o->hidden != v->hide_python) {
        set_hidden(v, o, v->hide_python);
        o->order_gen = 0;
    }
    if (o->scope_gen != scope_gen(s)) {
        const scope_mask *k = scope_mask_of(s, o->merged);
        if (!k)
            view_status_set(v, "out of memory computing the focus");
        bool on = k && k->active;
        tree_rows_set_shown(&o->rows, on ? k->shown : NULL, on && st(v)->reveal ? k->sel : NULL);
        if (on)
            st(v)->reveal = false;
        o->scope_gen = scope_gen(s);
        o->order_gen = 0;
        o->lift_stale = true;
    }
    if (o->hidden && o->lift_stale)
        lift(o, mask_of(o));
    if (o->order_gen != v->order_gen) {
        tree_rows_resort(&o->rows);
        o->order_gen = v->order_gen;
    }
}

/* How a tree opens: GPU streams folded (their kernels are also under their
   launches), and the heaviest CPU path unfolded down to its leaf, as perf
   report and pprof's web view lead the eye to it. */
static void first_unfold(const model *m, tree_rows *t)
{
    uint32_t u = MODEL_NONE;
    for (size_t k = 0; k < t->ntops; k++) {
        uint32_t r = t->tops[k];
        const model_node *nd = &t->nodes[r];
        bool gpu = nd->gpu || (t->nodes == m->nodes && m->tracks[nd->track].stream != MODEL_NONE);
        if (gpu)
            tree_rows_expand(t, r, false);
        else if (u == MODEL_NONE || nd->total_ns > t->nodes[u].total_ns)
            u = r;
    }
    /* find the deepest node to unfold, then unfold it and its ancestors
       from the bottom up: top down, each unfold would add its rows to every
       unfolded ancestor, quadratic in the depth (22 s at 100k levels) */
    uint32_t last = MODEL_NONE;
    while (u != MODEL_NONE) {
        if (!tree_rows_has_kids(t, u))
            break;
        last = u;
        uint32_t best = MODEL_NONE;
        for (uint32_t k = t->kid_start[u]; k < t->kid_start[u + 1]; k++) {
            uint32_t c = t->kids[k];
            if (!t->nodes[c].gpu &&
                (best == MODEL_NONE || t->nodes[c].total_ns > t->nodes[best].total_ns))
                best = c;
        }
        u = best;
    }
    if (last != MODEL_NONE) {
        tree_rows_expand(t, last, true);
        tree_rows_reveal(t, last);
    }
}

static int one_open(view *v, struct one *o, bool merged)
{
    const model *m = v->m;
    o->v = v;
    o->merged = merged;
    size_t nt = 0;
    uint32_t *tops = malloc((m->ntracks + 1) * sizeof *tops);
    if (!tops)
        return -1;
    if (merged) {
        if (m->nmnodes)
            tops[nt++] = 0;
    } else {
        for (size_t k = 0; k < m->ntracks; k++)
            if (m->tracks[k].events)
                tops[nt++] = m->tracks[k].root;
    }
    int rc = tree_rows_init(&o->rows, merged ? m->mnodes : m->nodes,
                            merged ? m->nmnodes : m->nnodes, tops, nt);
    free(tops);
    if (rc < 0)
        return -1;
    tree_rows_set_sort(&o->rows, sort_kids, o);
    first_unfold(m, &o->rows);
    return 0;
}

static int tree_open(view *v)
{
    struct tree_state *s = view_state_new(v, VIEW_TREE, sizeof *s);
    if (!s)
        return -1;
    s->tnode = MODEL_NONE;
    s->sort = MODEL_SORT_TOTAL;
    s->op_hit = malloc(v->m->nops ? v->m->nops : 1);
    if (!s->op_hit || one_open(v, &s->t[0], false) < 0 || one_open(v, &s->t[1], true) < 0)
        return -1;
    return 0;
}

static void tree_close(view *v)
{
    struct tree_state *s = st(v);
    if (!s)
        return;
    for (int i = 0; i < 2; i++) {
        tree_rows_done(&s->t[i].rows);
        free(s->t[i].hit);
        free(s->t[i].skip);
        free(s->t[i].lift_self);
        free(s->t[i].lift_dev);
    }
    free(s->op_hit);
    free(s);
}

static size_t tree_count(view *v)
{
    struct one *o = cur(v);
    sync(v, o);
    return tree_rows_count(&o->rows);
}

static uint32_t tree_row(view *v, size_t i)
{
    struct one *o = cur(v);
    sync(v, o);
    uint32_t u = tree_rows_at(&o->rows, i);
    return u == MODEL_NONE ? UINT32_MAX : u;
}

static size_t tree_refresh(view *v)
{
    struct one *o = cur(v);
    sync(v, o);
    /* keep the cursor on the node it was on, or the nearest one shown */
    return tree_rows_near(&o->rows, st(v)->tnode);
}

static const char *tree_name(view *v, uint32_t u, char *buf, size_t size, size_t *len)
{
    return node_name(cur(v), u, buf, size, len);
}

static void tree_cell(view *v, uint32_t u, const col *c, int namew, cols_line *l)
{
    struct one *o = cur(v);
    const model_node *nd = &o->rows.nodes[u];
    fig f;
    fig_of(o, mask_of(o), u, &f);
    switch (c->id) {
    case C_NAME: {
        char nb[600], pre[64];
        size_t len, split;
        const char *s = node_name_sec(o, u, nb, sizeof nb, &len, &split);
        /* indent, capped so that deep stacks still show a name */
        int ind = (int)tree_rows_depth(&o->rows, u) * 2;
        if (ind > namew / 2)
            ind = namew / 2;
        if (ind > 40)
            ind = 40;
        cols_pad(l, (size_t)ind);
        const char *mark = !tree_rows_has_kids(&o->rows, u) ? "  "
                           : tree_rows_expanded(&o->rows, u) ? "\xe2\x96\xbe " : "\xe2\x96\xb8 ";
        size_t n = (size_t)snprintf(pre, sizeof pre, "%s%s", mark, nd->gpu ? "[GPU] " : "");
        cols_put(l, pre, n);
        cols_cell_sec(l, s, len, split, namew - ind - (int)fmt_width(pre, n));
        break;
    }
    case C_TOTAL: case C_SELF:
        if (nd->gpu)
            cols_cell(l, "-", 1, c->width, true);
        else
            view_cell_ms(l, c->id == C_TOTAL ? f.total_ns : f.self_ns, c->width);
        break;
    case C_CALLS: view_cell_count(l, f.calls, c->width); break;
    case C_PCT:
        if (nd->gpu)
            cols_cell(l, "-", 1, c->width, true);
        else
            view_cell_pct(l, f.total_ns, scope_busy(view_scope(v)), c->width);
        break;
    case C_DSELF: view_cell_ms(l, f.dev_self_ns, c->width); break;
    case C_DTOTAL: view_cell_ms(l, f.dev_total_ns, c->width); break;
    default:
        if (!tree_mem_cell(v, o->merged, u, c, l)) /* entered from the Memory view */
            cols_cell(l, "", 0, c->width, true);
    }
}

static bool tree_gpu(view *v, uint32_t u)
{
    return cur(v)->rows.nodes[u].gpu;
}

/* its view_ops.focus: view_push_focus (ui/view.c) comes here */
static void tree_push_focus(view *v, enum scope_kind kind, uint32_t id)
{
    struct tree_state *s = st(v);
    if (!view_scope_push(v, kind, id))
        return;
    /* pprof's focus: every stack through it, in the merged tree; what only
       the per-track trees can tell (a track, a per-track node) in those */
    s->merged = !scope_per_track(view_scope(v));
    v->tab = VIEW_TREE;
    s->reveal = true; /* open the way to the selected frames (sync) */
    struct one *o = cur(v);
    sync(v, o);
    if (kind == SCOPE_NODE || kind == SCOPE_MNODE)
        tree_rows_expand(&o->rows, kind == SCOPE_NODE && s->merged ? v->m->node_merged[id] : id,
                         true);
    v->stale[VIEW_TREE] = false;
    /* the cursor on the first selected frame: after its ancestors */
    const scope_mask *k = mask_of(o);
    size_t n = tree_rows_count(&o->rows), i = 0;
    v->cur[VIEW_TREE] = 0;
    v->top[VIEW_TREE] = 0;
    for (uint32_t u = n ? tree_rows_at(&o->rows, 0) : MODEL_NONE; u != MODEL_NONE;
         u = tree_rows_next(&o->rows, u), i++)
        if (k && k->sel[u]) {
            v->cur[VIEW_TREE] = i;
            break;
        }
    tree_rows_dirty(&o->rows);
    view_clamp(v);
    v->status[0] = '\0';
}

/* v: the source pane at the Python line of node u: its own frame, or the
   innermost frame with a file of its Call stack (the line that called it). */
static int open_source(view *v, const struct one *o, uint32_t u)
{
    const model *m = v->m;
    const model_node *nd = &o->rows.nodes[u];
    pyframe f = { 0 };
    bool found = !is_root(o, u) && !m->opts.no_python && pyframe_of_op(m, nd->op, &f);
    if (!found && !is_root(o, u) && !o->merged && m->node_stack &&
        m->node_stack[u] != STRTAB_NONE) {
        const char *text = trace_str(m->tr, m->node_stack[u]);
        size_t pos = 0, len = strlen(text);
        while (!found && pyframe_next(text, len, &pos, &f))
            found = f.file_len > 0;
    }
    if (!found) {
        view_status_set(v, "not a Python frame: v shows the source of a frame named file.py:line");
        return VIEW_DRAW_FOOTER;
    }
    view_source_open(v, f.file, f.file_len, f.line);
    return VIEW_DRAW_ALL;
}

static int tree_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    struct tree_state *s = st(v);
    struct one *o = cur(v);
    tree_rows *t = &o->rows;
    size_t r = v->cur[VIEW_TREE];
    if (tree_count(v) == 0)
        return -1;
    uint32_t u = tree_row(v, r);
    int mv = view_tree_move(v, t, act, u, !is_root(o, u));
    if (mv >= 0)
        return mv;
    switch (act) {
    case ACT_MERGE: {
        if (!s->merged && scope_per_track(view_scope(v))) {
            view_status_set(v, "this focus is on one track: Esc first to merge the tracks");
            return VIEW_DRAW_FOOTER;
        }
        uint32_t mn = s->merged ? u : is_root(o, u) ? 0 : v->m->node_merged[u];
        s->merged = !s->merged;
        o = cur(v);
        sync(v, o);
        /* stay on the same stack when the other tree shows it */
        uint32_t to = mn;
        if (!s->merged) {
            to = MODEL_NONE;
            for (size_t i = 0; i < v->m->nnodes && mn; i++)
                if (v->m->node_merged[i] == mn &&
                    tree_rows_index_of(&o->rows, (uint32_t)i) != SIZE_MAX) {
                    to = (uint32_t)i;
                    break;
                }
        }
        v->cur[VIEW_TREE] = to == MODEL_NONE ? 0 : tree_rows_near(&o->rows, to);
        view_status_set(v, "%s", s->merged ? "tree merged across tracks" : "one tree per track");
        break;
    }
    case ACT_SOURCE:
        return open_source(v, o, u);
    case ACT_FOCUS:
        if (is_root(o, u)) {
            view_status_set(v, "focus on a frame, not a track");
            return VIEW_DRAW_FOOTER;
        }
        view_push_focus(v, s->merged ? SCOPE_MNODE : SCOPE_NODE, u);
        return VIEW_DRAW_ALL;
    default:
        return -1;
    }
    tree_rows_dirty(&cur(v)->rows);
    view_clamp(v);
    return VIEW_DRAW_BODY | VIEW_DRAW_FOOTER;
}

/* The matching nodes of the tree shown, folded or not, in row order: the
   names are tested once per operator, then one pass over the node array
   (tree_rows_find). Kept while the text, the scope and the order stay. */
static size_t find_all(view *v, struct one *o, const char *pat, const uint32_t **found)
{
    tree_rows *t = &o->rows;
    if (o->hit && o->fgen == t->gen && o->fscope == scope_gen(view_scope(v)) &&
        o->fshort == v->short_names && !strcmp(o->fpat, pat)) {
        *found = o->found;
        return o->nfound;
    }
    uint8_t *op_hit = st(v)->op_hit;
    char buf[600];
    size_t len;
    if (!o->hit && !(o->hit = malloc(t->n ? t->n : 1)))
        return SIZE_MAX;
    /* what the rows show: short names with s, frames as "fn  file:line" */
    size_t plen = strlen(pat), split;
    for (size_t i = 0; i < v->m->nops; i++) {
        const char *name = view_op_label(v, (uint32_t)i, buf, sizeof buf, &len, &split);
        op_hit[i] = select_name_has(name, len, pat, plen);
    }
    for (size_t u = 0; u < t->n; u++)
        o->hit[u] = t->nodes[u].parent == MODEL_NONE
                        ? search_match(node_name(o, (uint32_t)u, buf, sizeof buf, &len), pat)
                        : op_hit[t->nodes[u].op];
    o->nfound = tree_rows_find(t, o->hit, &o->found);
    if (o->nfound == SIZE_MAX)
        return SIZE_MAX;
    o->fgen = t->gen;
    o->fscope = scope_gen(view_scope(v));
    o->fshort = v->short_names;
    snprintf(o->fpat, sizeof o->fpat, "%s", pat);
    *found = o->found;
    return o->nfound;
}

/* The next match after row `from` (or at it), or the previous one,
   wrapping, anywhere in the tree (view_tree_step). */
static void tree_search(view *v, const char *pat, size_t from, int dir, bool at,
                        search_found *f)
{
    struct one *o = cur(v);
    tree_rows *t = &o->rows;
    const uint32_t *m;
    size_t k = find_all(v, o, pat, &m);
    view_tree_step(t, m, k, from, dir, at, f);
}

bool view_tree_merged(view *v)
{
    return st(v)->merged;
}

const struct tree_rows *view_tree_rows(view *v)
{
    struct one *o = cur(v);
    sync(v, o);
    return &o->rows;
}

void view_tree_fig(view *v, uint32_t node, view_fig *f)
{
    struct one *o = cur(v);
    sync(v, o);
    fig_of(o, mask_of(o), node, f);
}

static void tree_own_sort(view *v, enum model_sort **sort, bool **reverse)
{
    *sort = &st(v)->sort;
    *reverse = &st(v)->reverse;
}

static const enum model_sort *tree_sorts_of(view *v)
{
    return tree_mem_sorts(v, sorts);
}

static const char *tree_sort_name(view *v, int sort)
{
    (void)v;
    return tree_mem_sort_name(sort);
}

static void tree_tabinfo(view *v, char *buf, size_t size)
{
    const char *dev = tree_mem_device(v);
    snprintf(buf, size, "%s%s%s%s", st(v)->merged ? "  tree: merged" : "  tree: per track",
             v->hide_python ? ", no Python" : "", dev ? ", memory on " : "", dev ? dev : "");
}

static const col *tree_cols_of(view *v)
{
    return tree_mem_cols(v, cols);
}

static void tree_after_key(view *v)
{
    st(v)->tnode = view_row(v, v->cur[VIEW_TREE]);
}

static uint64_t tree_save(view *v)
{
    uint32_t node = v->tab == VIEW_TREE ? view_row(v, v->cur[VIEW_TREE]) : MODEL_NONE;
    return (uint64_t)st(v)->merged << 32 | node;
}

static void tree_restore(view *v, uint64_t saved)
{
    st(v)->merged = saved >> 32;
    st(v)->tnode = (uint32_t)saved;
}

const struct view_ops view_tree_ops = {
    .name = "tree",
    .label = "Tree",
    .cols = cols,
    .cols_of = tree_cols_of,
    .sorts = sorts,
    .sorts_of = tree_sorts_of,
    .sort_name = tree_sort_name,
    .open = tree_open,
    .close = tree_close,
    .count = tree_count,
    .row = tree_row,
    .refresh = tree_refresh,
    .name_of = tree_name,
    .cell = tree_cell,
    .gpu = tree_gpu,
    .action = tree_action,
    .search = tree_search,
    .tabinfo = tree_tabinfo,
    .own_sort = tree_own_sort,
    .after_key = tree_after_key,
    .save = tree_save,
    .restore = tree_restore,
    .focus = tree_push_focus,
};
