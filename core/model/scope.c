/* The scope of every view; see core/model/scope.h. */
#include "config.h"

#include "core/model/scope.h"
#include "core/model/model_nodes.h" /* model_outer_nodes */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scope {
    const model *m;
    scope_entry e[SCOPE_MAX];
    int n;
    char filter[SCOPE_TEXT];
    uint32_t gen;
    uint8_t *op_hit; /* per op: its name passes the filter */
    scope_mask mask[2]; /* [0] per-track nodes, [1] merged */
    int64_t busy;
    uint32_t busy_gen;
    /* figures in the scope (scope_ops ...) */
    scope_fig *fops, *fcats, *ftracks;
    uint32_t figs_gen;
    uint32_t *op_cat;  /* per op: its category's index */
    uint8_t *outer;    /* model_outer_nodes (NULL until needed) */
    int64_t *sort_key; /* per op: scope_sort_ops's keys (NULL until needed) */
    const uint8_t *only; /* scope_restrict's mask over the per-track nodes, or NULL */
};

/* Writes to every page of a fresh allocation: a focus must not pay for
   fresh pages (page faults cost more than the passes here). */
static void prefault(void *p, size_t size)
{
    volatile unsigned char *b = p;
    for (size_t i = 0; i < size; i += 4096)
        b[i] = 0;
}

static void mask_done(scope_mask *k)
{
    free(k->shown);
    free(k->sel);
    free(k->scum);
    free(k->sdev);
    free(k->bits);
    free(k->scalls);
    memset(k, 0, sizeof *k);
}

/* The arrays, allocated up front and kept for every later scope. */
static int mask_alloc(scope_mask *k, size_t n)
{
    n = n ? n : 1;
    k->shown = malloc(n);
    k->sel = malloc(n);
    k->scum = malloc(n * sizeof *k->scum);
    k->sdev = malloc(n * sizeof *k->sdev);
    k->bits = malloc(n * sizeof *k->bits);
    k->scalls = malloc(n * sizeof *k->scalls);
    if (!k->shown || !k->sel || !k->scum || !k->sdev || !k->bits || !k->scalls)
        return -1;
    prefault(k->scalls, n * sizeof *k->scalls);
    prefault(k->shown, n);
    prefault(k->sel, n);
    prefault(k->scum, n * sizeof *k->scum);
    prefault(k->sdev, n * sizeof *k->sdev);
    prefault(k->bits, n * sizeof *k->bits);
    return 0;
}

scope *scope_new(const model *m)
{
    scope *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->m = m;
    s->gen = 1;
    s->op_hit = malloc(m->nops ? m->nops : 1);
    if (!s->op_hit || mask_alloc(&s->mask[0], m->nnodes) < 0 ||
        mask_alloc(&s->mask[1], m->nmnodes) < 0) {
        scope_free(s);
        return NULL;
    }
    return s;
}

void scope_free(scope *s)
{
    if (!s)
        return;
    mask_done(&s->mask[0]);
    mask_done(&s->mask[1]);
    free(s->op_hit);
    free(s->fops);
    free(s->fcats);
    free(s->ftracks);
    free(s->op_cat);
    free(s->outer);
    free(s->sort_key);
    free(s);
}

int scope_push(scope *s, enum scope_kind kind, uint32_t id)
{
    if (s->n >= SCOPE_MAX - 1)
        return -1;
    s->e[s->n].kind = kind;
    s->e[s->n].id = id;
    s->n++;
    s->gen++;
    return 0;
}

bool scope_pop(scope *s)
{
    if (s->n == 0)
        return false;
    s->n--;
    s->gen++;
    return true;
}

int scope_depth(const scope *s)
{
    return s->n;
}

const scope_entry *scope_entry_at(const scope *s, int i)
{
    return i >= 0 && i < s->n ? &s->e[i] : NULL;
}

void scope_set_filter(scope *s, const char *text)
{
    snprintf(s->filter, sizeof s->filter, "%s", text ? text : "");
    s->gen++;
}

const char *scope_filter(const scope *s)
{
    return s->filter;
}

bool scope_name_passes(const scope *s, const char *name)
{
    return !s->filter[0] || select_name_has(name, strlen(name), s->filter, strlen(s->filter));
}

/* ---- carrying a scope to another model of the same trace (a step) ---- */

static bool same_op(const model *a, uint32_t oa, const model *b, uint32_t ob)
{
    return !strcmp(model_op_name(a, oa), model_op_name(b, ob)) &&
           !strcmp(model_op_cat(a, oa), model_op_cat(b, ob));
}

static uint32_t op_in(const model *to, const model *from, uint32_t op)
{
    for (size_t i = 0; i < to->nops; i++)
        if (same_op(to, (uint32_t)i, from, op))
            return (uint32_t)i;
    return MODEL_NONE;
}

/* Node u of from's tree (nodes or mnodes) in to's: the same path of
   operators (GPU nodes, Python stacks and streams alike) from the root. */
static uint32_t node_in(const model *to, const model *from, uint32_t u, bool merged)
{
    const model_node *fn = merged ? from->mnodes : from->nodes;
    const model_node *tn = merged ? to->mnodes : to->nodes;
    if (fn[u].parent == MODEL_NONE) /* a root: its track's, or the one merged root */
        return merged ? 0 : fn[u].track < to->ntracks ? to->tracks[fn[u].track].root : MODEL_NONE;
    uint32_t p = node_in(to, from, fn[u].parent, merged);
    if (p == MODEL_NONE)
        return MODEL_NONE;
    for (uint32_t c = tn[p].first_child; c != MODEL_NONE; c = tn[c].next_sibling) {
        if (!same_op(to, tn[c].op, from, fn[u].op) || tn[c].gpu != fn[u].gpu ||
            tn[c].stream != fn[u].stream)
            continue;
        /* one trace: a Call stack is the same strtab id in both */
        if (!merged && from->node_stack && to->node_stack &&
            from->node_stack[u] != to->node_stack[c])
            continue;
        return c;
    }
    return MODEL_NONE;
}

int scope_carry(scope *to, const scope *from)
{
    const model *a = from->m, *b = to->m;
    scope_set_filter(to, from->filter);
    for (int i = 0; i < from->n; i++) {
        const scope_entry *e = &from->e[i];
        uint32_t id = MODEL_NONE;
        switch (e->kind) {
        case SCOPE_OP: id = op_in(b, a, e->id); break;
        case SCOPE_CAT:
            for (size_t c = 0; c < b->ncats && id == MODEL_NONE; c++)
                if (!strcmp(trace_str(b->tr, b->cats[c].name), trace_str(a->tr, a->cats[e->id].name)))
                    id = (uint32_t)c;
            break;
        case SCOPE_NODE: id = a->tr == b->tr ? node_in(b, a, e->id, false) : MODEL_NONE; break;
        case SCOPE_MNODE: id = node_in(b, a, e->id, true); break;
        case SCOPE_TRACK: id = a->tr == b->tr ? e->id : MODEL_NONE; break;
        }
        if (id == MODEL_NONE || scope_push(to, e->kind, id) < 0)
            return i;
    }
    return from->n;
}

bool scope_per_track(const scope *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->e[i].kind == SCOPE_NODE || s->e[i].kind == SCOPE_TRACK)
            return true;
    return false;
}

bool scope_active(const scope *s)
{
    return s->n > 0 || s->filter[0] || s->only;
}

void scope_restrict(scope *s, const uint8_t *keep)
{
    s->only = keep;
    s->gen++;
}

uint32_t scope_gen(const scope *s)
{
    return s->gen;
}

/* Whether node i of a tree (not a root) passes entry e. */
static bool kind_hit(const model *m, bool merged, const model_node *nodes, const scope_entry *e,
                     uint32_t i)
{
    const model_node *nd = &nodes[i];
    switch (e->kind) {
    case SCOPE_OP: return nd->op == e->id;
    case SCOPE_CAT: return m->ops[nd->op].cat == m->cats[e->id].name;
    case SCOPE_NODE: return merged ? i == m->node_merged[e->id] : i == e->id;
    case SCOPE_MNODE: return merged ? i == e->id : m->node_merged[i] == e->id;
    case SCOPE_TRACK:
        return !merged && (nd->track == e->id || (nd->gpu && nd->stream == e->id));
    }
    return false;
}

/* One pass down (which entries each stack passes), one pass up (which
   nodes lead to a selected stack, and the selected time below each). Node
   indices are greater than their parent's in both trees. */
static void mask_compute(scope *s, scope_mask *k, bool merged)
{
    const model *m = s->m;
    const model_node *nodes = merged ? m->mnodes : m->nodes;
    size_t n = merged ? m->nmnodes : m->nnodes;
    k->gen = s->gen;
    if (!scope_active(s)) {
        k->active = false;
        s->busy = m->busy_ns;
        s->busy_gen = s->gen;
        return;
    }
    k->active = true;
    int nent = s->n + (s->filter[0] ? 1 : 0);
    uint32_t all = nent >= 32 ? UINT32_MAX : ((uint32_t)1 << nent) - 1;
    if (s->filter[0])
        for (size_t o = 0; o < m->nops; o++)
            s->op_hit[o] = select_name_has(model_op_name(m, (uint32_t)o),
                                           strtab_len(m->tr->strs, m->ops[o].name), s->filter,
                                           strlen(s->filter));
    int64_t busy = 0;
    for (size_t i = 0; i < n; i++) {
        const model_node *nd = &nodes[i];
        uint8_t sel = 0;
        if (nd->parent == MODEL_NONE) {
            k->bits[i] = 0;
        } else {
            uint32_t b = k->bits[nd->parent];
            for (int f = 0; f < s->n; f++)
                if (kind_hit(m, merged, nodes, &s->e[f], (uint32_t)i))
                    b |= (uint32_t)1 << f;
            if (s->filter[0] && s->op_hit[nd->op])
                b |= (uint32_t)1 << s->n;
            k->bits[i] = b;
            sel = b == all && (merged || !s->only || s->only[i]);
        }
        k->sel[i] = k->shown[i] = sel;
        k->scum[i] = sel ? nd->self_ns : 0;
        k->sdev[i] = sel ? nd->dev_leaf_ns : 0;
        k->scalls[i] = 0;
        busy += k->scum[i];
    }
    s->busy = busy;
    s->busy_gen = s->gen;
    for (size_t i = n; i-- > 0;) {
        uint32_t p = nodes[i].parent;
        if (p == MODEL_NONE)
            continue;
        if (k->shown[i])
            k->scalls[i] += nodes[i].calls;
        k->scum[p] += k->scum[i];
        k->sdev[p] += k->sdev[i];
        k->scalls[p] += k->scalls[i];
        k->shown[p] |= k->shown[i];
    }
}

const scope_mask *scope_mask_of(scope *s, bool merged)
{
    scope_mask *k = &s->mask[merged ? 1 : 0];
    if (!k->shown)
        return NULL;
    if (k->gen != s->gen)
        mask_compute(s, k, merged);
    return k;
}

int64_t scope_busy(scope *s)
{
    if (s->busy_gen != s->gen)
        scope_mask_of(s, false);
    return s->busy;
}

void scope_entry_text(const scope *s, const scope_entry *e, char *buf, size_t size)
{
    const model *m = s->m;
    switch (e->kind) {
    case SCOPE_OP: snprintf(buf, size, "%s", model_op_name(m, e->id)); break;
    case SCOPE_CAT: snprintf(buf, size, "category %s", trace_str(m->tr, m->cats[e->id].name)); break;
    case SCOPE_NODE: snprintf(buf, size, "%s (one track)", model_op_name(m, m->nodes[e->id].op)); break;
    case SCOPE_MNODE: snprintf(buf, size, "%s (this stack)", model_op_name(m, m->mnodes[e->id].op)); break;
    case SCOPE_TRACK: {
        const trace *tr = m->tr;
        char lab[256];
        trace_track_label(tr, e->id, lab, sizeof lab);
        snprintf(buf, size, "track %s", lab);
        break;
    }
    }
}

bool scope_spec(const scope *s, select_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->focus_op = MODEL_NONE;
    spec->focus_mnode = MODEL_NONE;
    bool ok = true;
    for (int i = 0; i < s->n; i++) {
        const scope_entry *e = &s->e[i];
        if (e->kind == SCOPE_OP && spec->focus_op == MODEL_NONE)
            spec->focus_op = e->id;
        else if (e->kind == SCOPE_MNODE && spec->focus_mnode == MODEL_NONE)
            spec->focus_mnode = e->id;
        else
            ok = false;
    }
    if (s->filter[0])
        spec->filter = s->filter;
    return ok;
}

uint8_t *scope_keep(scope *s)
{
    const model *m = s->m;
    const scope_mask *k = scope_mask_of(s, false);
    if (!k)
        return NULL;
    uint8_t *keep = malloc(m->nnodes ? m->nnodes : 1);
    if (!keep)
        return NULL;
    for (size_t i = 0; i < m->nnodes; i++)
        keep[i] = m->nodes[i].parent == MODEL_NONE ? 0 : k->active ? k->sel[i] : 1;
    return keep;
}

/* ---------------------------------------------------------------- figures */

static int figs_alloc(scope *s)
{
    const model *m = s->m;
    if (s->fops)
        return 0;
    s->fops = malloc((m->nops ? m->nops : 1) * sizeof *s->fops);
    s->fcats = malloc((m->ncats ? m->ncats : 1) * sizeof *s->fcats);
    s->ftracks = malloc((m->ntracks ? m->ntracks : 1) * sizeof *s->ftracks);
    s->op_cat = malloc((m->nops ? m->nops : 1) * sizeof *s->op_cat);
    /* outer[i]: the outermost frame of its op on its stack, where cum
       counts a stack once (model_outer_nodes, as select_cum) */
    s->outer = model_outer_nodes(m);
    if (!s->fops || !s->fcats || !s->ftracks || !s->op_cat || !s->outer) {
        free(s->fops);
        free(s->fcats);
        free(s->ftracks);
        free(s->op_cat);
        free(s->outer);
        s->fops = s->fcats = s->ftracks = NULL;
        s->op_cat = NULL;
        s->outer = NULL;
        return -1;
    }
    for (size_t o = 0; o < m->nops; o++) {
        s->op_cat[o] = 0;
        for (size_t c = 0; c < m->ncats; c++)
            if (m->cats[c].name == m->ops[o].cat) {
                s->op_cat[o] = (uint32_t)c;
                break;
            }
    }
    return 0;
}

/* One pass over the per-track nodes under the scope's mask. */
static int figs_compute(scope *s)
{
    const model *m = s->m;
    const scope_mask *k = scope_mask_of(s, false);
    if (!k || !k->active || figs_alloc(s) < 0)
        return -1;
    if (s->figs_gen == s->gen)
        return 0;
    memset(s->fops, 0, m->nops * sizeof *s->fops);
    memset(s->fcats, 0, m->ncats * sizeof *s->fcats);
    memset(s->ftracks, 0, m->ntracks * sizeof *s->ftracks);
    for (size_t i = 0; i < m->nnodes; i++) {
        const model_node *nd = &m->nodes[i];
        if (!k->shown[i] || nd->parent == MODEL_NONE)
            continue;
        scope_fig *f = &s->fops[nd->op];
        f->calls += nd->calls;
        f->total_ns += k->scum[i];
        if (s->outer[i])
            f->cum_ns += k->scum[i];
        f->dev_total_ns += k->sdev[i]; /* each GPU event once: at its leaf */
        scope_fig *t = &s->ftracks[nd->track];
        t->calls += nd->calls;
        if (!k->sel[i])
            continue;
        f->self_ns += nd->self_ns;
        f->dev_self_ns += nd->dev_self_ns;
        f->dev_events += nd->dev_events;
        t->self_ns += nd->self_ns;
        if (nd->dev_events) {
            uint32_t on = nd->stream != MODEL_NONE ? nd->stream : nd->track;
            s->ftracks[on].dev_total_ns += nd->dev_leaf_ns;
            s->ftracks[on].dev_events += nd->dev_events;
        }
    }
    for (size_t o = 0; o < m->nops; o++) {
        scope_fig *c = &s->fcats[s->op_cat[o]];
        const scope_fig *f = &s->fops[o];
        c->calls += f->calls;
        c->self_ns += f->self_ns;
        c->total_ns += f->total_ns;
        c->cum_ns += f->cum_ns;
        c->dev_self_ns += f->dev_self_ns;
        c->dev_total_ns += f->dev_total_ns;
        c->dev_events += f->dev_events;
    }
    s->figs_gen = s->gen;
    return 0;
}

const scope_fig *scope_ops(scope *s)
{
    return figs_compute(s) < 0 ? NULL : s->fops;
}

const scope_fig *scope_cats(scope *s)
{
    return figs_compute(s) < 0 ? NULL : s->fcats;
}

const scope_fig *scope_tracks(scope *s)
{
    return figs_compute(s) < 0 ? NULL : s->ftracks;
}

size_t scope_sort_ops(scope *s, enum model_sort key, bool reverse, uint32_t *order)
{
    const model *m = s->m;
    const scope_fig *f = scope_ops(s);
    if (!f) {
        model_sort_ops(m, key, reverse, order);
        return m->nops;
    }
    if (!s->sort_key && !(s->sort_key = malloc((m->nops ? m->nops : 1) * sizeof *s->sort_key)))
        return 0; /* out of memory: no rows rather than unsorted ones */
    size_t n = 0;
    for (size_t o = 0; o < m->nops; o++) {
        const scope_fig *g = &f[o];
        if (!g->calls && !g->total_ns && !g->dev_total_ns && !g->dev_events)
            continue;
        order[n++] = (uint32_t)o;
        s->sort_key[o] = model_sort_key(key, g->calls, g->self_ns, g->total_ns, g->dev_self_ns,
                                        g->dev_total_ns);
    }
    /* model_sort_ops's rule, over the scope's figures */
    model_sort_ops_keyed(m, key, reverse, s->sort_key, order, n);
    return n;
}

uint32_t scope_op_cat(scope *s, uint32_t op)
{
    if (figs_alloc(s) < 0)
        return 0;
    return s->op_cat[op];
}

/* ------------------------------------------- the scope on a command line */

/* The path of merged node u from the merged root, names joined by '>';
   a path of one starts with '>' so that it is not read as an operator
   anywhere. -1 when it does not fit. */
/* Whether a sibling of merged node u has u's name (and so another
   category: a node is one operator, a name and a category): then a path
   names u with its category too, NAME{cat=CATEGORY}, else the first of
   them would be found in its place (amd_mi250's ProfilerStep* is a
   user_annotation and a gpu_user_annotation under one root). */
static bool mnode_name_shared(const model *m, uint32_t u)
{
    uint32_t p = m->mnodes[u].parent;
    const char *name = model_op_name(m, m->mnodes[u].op);
    for (uint32_t c = m->mnodes[p].first_child; c != MODEL_NONE; c = m->mnodes[c].next_sibling)
        if (c != u && !strcmp(model_op_name(m, m->mnodes[c].op), name))
            return true;
    return false;
}

static int mnode_path(const model *m, uint32_t u, char *buf, size_t size)
{
    uint32_t chain[256];
    size_t n = 0;
    for (uint32_t p = u; p != MODEL_NONE && m->mnodes[p].parent != MODEL_NONE;
         p = m->mnodes[p].parent) {
        if (n == sizeof chain / sizeof chain[0])
            return -1;
        chain[n++] = p;
    }
    size_t len = 0;
    if (n == 1)
        buf[len++] = '>';
    for (size_t i = n; i-- > 0;) {
        uint32_t op = m->mnodes[chain[i]].op;
        bool shared = mnode_name_shared(m, chain[i]);
        int w = snprintf(buf + len, size - len, "%s%s%s%s%s", i + 1 < n ? ">" : "",
                         model_op_name(m, op), shared ? "{cat=" : "",
                         shared ? model_op_cat(m, op) : "", shared ? "}" : "");
        if (w < 0 || (size_t)w >= size - len)
            return -1;
        len += (size_t)w;
    }
    if (n == 1 && len >= size)
        return -1;
    buf[len] = '\0';
    return 0;
}

int scope_entry_arg(const scope *s, const scope_entry *e, const char **opt, char *val,
                    size_t size, const char **opt2, char *val2, size_t size2)
{
    const model *m = s->m;
    int w = 0;
    *opt2 = "";
    if (size2)
        val2[0] = '\0';
    switch (e->kind) {
    case SCOPE_OP:
        *opt = "focus";
        w = snprintf(val, size, "%s", model_op_name(m, e->id));
        break;
    case SCOPE_CAT:
        *opt = "category";
        w = snprintf(val, size, "%s", trace_str(m->tr, m->cats[e->id].name));
        break;
    case SCOPE_MNODE:
        *opt = "focus";
        return mnode_path(m, e->id, val, size);
    case SCOPE_TRACK:
        *opt = "track";
        trace_track_fullname(m->tr, e->id, val, size);
        return strlen(val) + 1 < size ? 0 : -1;
    case SCOPE_NODE:
        *opt = "track";
        trace_track_fullname(m->tr, m->nodes[e->id].track, val, size);
        *opt2 = "focus";
        return m->node_merged ? mnode_path(m, m->node_merged[e->id], val2, size2) : -1;
    }
    return w < 0 || (size_t)w >= size ? -1 : 0;
}

/* The merged node at path text ("A>B>C" from the root; a leading '>'
   allowed), names matched whole: an operator name may hold '>' itself
   (C++ templates), so each child is tried as a prefix. A name followed by
   {cat=CATEGORY} (mnode_path's spelling of siblings of one name) matches
   the one of that category alone. MODEL_NONE when there is none. */
static uint32_t mnode_at(const model *m, uint32_t from, const char *text)
{
    if (!*text)
        return from;
    for (uint32_t c = m->mnodes[from].first_child; c != MODEL_NONE; c = m->mnodes[c].next_sibling) {
        const char *name = model_op_name(m, m->mnodes[c].op);
        size_t n = strlen(name);
        if (strncmp(text, name, n) != 0)
            continue;
        const char *rest = text + n;
        if (!strncmp(rest, "{cat=", 5)) {
            const char *cat = model_op_cat(m, m->mnodes[c].op);
            size_t cn = strlen(cat);
            if (strncmp(rest + 5, cat, cn) != 0 || rest[5 + cn] != '}')
                continue;
            rest += 5 + cn + 1;
        }
        if (*rest != '\0' && *rest != '>')
            continue;
        uint32_t r = mnode_at(m, c, *rest ? rest + 1 : rest);
        if (r != MODEL_NONE)
            return r;
    }
    return MODEL_NONE;
}

int scope_push_arg(scope *s, const char *opt, const char *val)
{
    const model *m = s->m;
    uint32_t id = MODEL_NONE;
    enum scope_kind kind = SCOPE_OP;
    char lab[512];
    if (!strcmp(opt, "focus")) {
        if (val[0] != '>')
            for (size_t i = 0; i < m->nops && id == MODEL_NONE; i++)
                if (!strcmp(model_op_name(m, (uint32_t)i), val))
                    id = (uint32_t)i;
        if (id == MODEL_NONE && m->nmnodes) {
            kind = SCOPE_MNODE;
            id = mnode_at(m, 0, val[0] == '>' ? val + 1 : val);
            if (id == 0)
                id = MODEL_NONE; /* the root is no path */
        }
        /* a per-track node: --track LABEL then --focus PATH, said back as
           one entry (the node on that track) when the track has it */
        if (id != MODEL_NONE && kind == SCOPE_MNODE && s->n > 0 &&
            s->e[s->n - 1].kind == SCOPE_TRACK) {
            uint32_t t = s->e[s->n - 1].id;
            for (size_t i = 0; i < m->nnodes; i++)
                if (m->nodes[i].track == t && m->node_merged && m->node_merged[i] == id &&
                    m->nodes[i].parent != MODEL_NONE) {
                    s->n--; /* the track entry becomes the node entry */
                    kind = SCOPE_NODE;
                    id = (uint32_t)i;
                    break;
                }
        }
    } else if (!strcmp(opt, "category")) {
        kind = SCOPE_CAT;
        for (size_t c = 0; c < m->ncats && id == MODEL_NONE; c++)
            if (!strcmp(trace_str(m->tr, m->cats[c].name), val))
                id = (uint32_t)c;
    } else if (!strcmp(opt, "track")) {
        kind = SCOPE_TRACK;
        for (size_t t = 0; t < m->ntracks && id == MODEL_NONE; t++)
            if (!strcmp(trace_track_fullname(m->tr, (uint32_t)t, lab, sizeof lab), val))
                id = (uint32_t)t;
    }
    if (id == MODEL_NONE)
        return 1;
    return scope_push(s, kind, id);
}
