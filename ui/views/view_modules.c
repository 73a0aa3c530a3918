/* The Modules view: TensorBoard's Module view (core/analyses/modules.h),
   the nn.Module hierarchy from python_function events with each module's
   occurrences, operators directly under it, host and device self/total
   time. A tree shown indented, first in TensorBoard's order (roots by
   name, children as its walk reached them); < > r sort the children of
   each module (the roots too) by a column. Built on first show from TensorBoard's
   own tree over the whole trace: a focus does not narrow it, the filter
   keeps the modules whose name holds the text. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/derived.h"
#include "core/analyses/modules.h"
#include "ui/view_impl.h"
#include "ui/views/view_util.h"

enum { C_NAME, C_OCC, C_OPS, C_HSELF, C_HTOTAL, C_DSELF, C_DTOTAL, C_AVG };

static const col cols[] = {
    { C_NAME, "Module", 24, MODEL_SORT_NAME, 0, false, true, true },
    { C_OCC, "Occurrences", 12, MODEL_SORT_CALLS, 0, false, false, false },
    { C_OPS, "Operators", 9, -1, 2, false, false, false },
    { C_HSELF, "Host self ms", 12, MODEL_SORT_SELF, 0, false, false, false },
    { C_HTOTAL, "Host total ms", 13, MODEL_SORT_TOTAL, 0, false, false, false },
    { C_DSELF, "Dev self ms", 12, MODEL_SORT_DEVICE_SELF, 1, true, false, false },
    { C_DTOTAL, "Dev total ms", 12, MODEL_SORT_DEVICE_TOTAL, 1, true, false, false },
    { C_AVG, "Avg ms", 10, MODEL_SORT_AVG, 3, false, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

/* TensorBoard's order first (its roots by name, each module's children in
   the order its walk reached them: core/analyses/modules.h), then the
   columns'; the view keeps its own (the Ops view's sort is not its) */
#define PLUGIN_ORDER ((enum model_sort)((int)MODEL_SORT_N + 1))
static const enum model_sort sorts[] = { PLUGIN_ORDER, MODEL_SORT_NAME, MODEL_SORT_CALLS,
                                         MODEL_SORT_SELF, MODEL_SORT_TOTAL, MODEL_SORT_AVG,
                                         MODEL_SORT_DEVICE_SELF, MODEL_SORT_DEVICE_TOTAL,
                                         MODEL_SORT_N };

struct modules_state {
    const modules *mo; /* core's (derived_modules) */
    bool failed;
    uint32_t *stack; /* entries to visit, for rebuild */
    enum model_sort sort; /* PLUGIN_ORDER or a column's */
    bool reverse;
};

static struct modules_state *st(view *v)
{
    return view_state(v, VIEW_MODULES);
}

static int mod_open(view *v)
{
    struct modules_state *s = view_state_new(v, VIEW_MODULES, sizeof(struct modules_state));
    if (!s)
        return -1;
    s->sort = PLUGIN_ORDER;
    return 0;
}

static void mod_close(view *v)
{
    struct modules_state *s = st(v);
    if (s) {
        free(s->stack);
    }
    free(s);
}

/* The hierarchy, asked of core the first time the view is shown (it costs
   a pass over the trace that the other views do not need; the Ops view's I
   shares its TensorBoard tree). */
static const modules *mods(view *v)
{
    struct modules_state *s = st(v);
    if (!s->mo && !s->failed) {
        t2p_error err;
        struct derived *d = view_derived(v, v->m);
        if (!d || !(s->mo = derived_modules(d, v->m, &err)) ||
            !(s->stack = malloc((s->mo->nentries ? s->mo->nentries : 1) * sizeof *s->stack))) {
            s->failed = true;
            view_status_set(v, "out of memory: no module view");
        }
    }
    return s->failed ? NULL : s->mo;
}

static int64_t key_of(const modules_stats *m, enum model_sort so)
{
    switch (so) {
    case MODEL_SORT_CALLS: return (int64_t)m->occurrences;
    case MODEL_SORT_TOTAL: return m->host_total_ns;
    case MODEL_SORT_AVG: return (int64_t)modules_avg_ns(m);
    case MODEL_SORT_DEVICE_SELF: return m->dev_self_ns;
    case MODEL_SORT_DEVICE_TOTAL: return m->dev_total_ns;
    default: return m->host_self_ns;
    }
}

/* Pushes the siblings from first on (in the sort, the last one first so
   that the first pops first). */
static int push_sorted(view *v, const modules *mo, uint32_t first, uint32_t *stack, size_t *top)
{
    size_t n = 0;
    for (uint32_t c = first; c != MODULES_NONE; c = mo->entries[c].next_sibling)
        n++;
    view_keyed *k = view_keyed_buf(v, n);
    if (!k)
        return -1;
    size_t i = 0;
    enum model_sort so = st(v)->sort;
    for (uint32_t c = first; c != MODULES_NONE; c = mo->entries[c].next_sibling, i++) {
        size_t len;
        /* TensorBoard's order: the entries' own, the first highest */
        k[i].key = so == PLUGIN_ORDER ? (int64_t)(n - i)
                                      : key_of(&mo->stats[mo->entries[c].stats], so);
        /* names of the trace's table end in NUL right after the text */
        k[i].name = modules_name(mo, v->m->tr, mo->entries[c].stats, &len);
        k[i].id = c;
    }
    view_keyed_sort(k, n, so == MODEL_SORT_NAME, st(v)->reverse);
    for (i = n; i-- > 0;)
        stack[(*top)++] = k[i].id;
    return 0;
}

static int mod_rebuild(view *v, view_rows *r)
{
    const modules *mo = mods(v);
    if (mo && !mo->nentries)
        view_status_set(v, "no nn.Module events (python_function with \"Python module id\": "
                           "profile with with_stack=True)");
    if (!mo || !mo->nentries)
        return 0;
    uint32_t *stack = st(v)->stack;
    size_t top = 0;
    if (push_sorted(v, mo, 0, stack, &top) < 0)
        return -1;
    while (top) {
        uint32_t e = stack[--top];
        size_t len;
        const char *name = modules_name(mo, v->m->tr, mo->entries[e].stats, &len);
        if (scope_name_passes(v->scope, name) && view_rows_push(r, e) < 0)
            return -1;
        if (mo->entries[e].nchildren && push_sorted(v, mo, e + 1, stack, &top) < 0)
            return -1;
    }
    return 0;
}

static const char *mod_name(view *v, uint32_t e, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    const modules *mo = st(v)->mo;
    return modules_name(mo, v->m->tr, mo->entries[e].stats, len);
}

static void mod_cell(view *v, uint32_t e, const col *c, int namew, cols_line *l)
{
    const modules *mo = st(v)->mo;
    const modules_entry *en = &mo->entries[e];
    const modules_stats *s = &mo->stats[en->stats];
    char t[600];
    size_t len;
    switch (c->id) {
    case C_NAME: {
        const char *name = modules_name(mo, v->m->tr, en->stats, &len);
        size_t ind = en->depth * 2 < 40 ? en->depth * 2 : 40;
        memset(t, ' ', ind);
        if (len > sizeof t - ind)
            len = sizeof t - ind;
        memcpy(t + ind, name, len);
        cols_cell(l, t, ind + len, namew, false);
        break;
    }
    case C_OCC: view_cell_count(l, s->occurrences, c->width); break;
    case C_OPS: view_cell_count(l, s->operators, c->width); break;
    case C_HSELF: view_cell_ms(l, s->host_self_ns, c->width); break;
    case C_HTOTAL: view_cell_ms(l, s->host_total_ns, c->width); break;
    case C_DSELF: view_cell_ms(l, s->dev_self_ns, c->width); break;
    case C_DTOTAL: view_cell_ms(l, s->dev_total_ns, c->width); break;
    case C_AVG: view_cell_ms(l, (int64_t)modules_avg_ns(s), c->width); break;
    default: cols_cell(l, "", 0, c->width, true);
    }
}

static void mod_tabinfo(view *v, char *buf, size_t size)
{
    const modules *mo = mods(v);
    snprintf(buf, size, "%s", mo && !mo->nentries
                                  ? "  no nn.Module events (profile with with_stack=True)"
                                  : "  TensorBoard's tree, whole trace");
}

/* e exports what is shown: the stacks through nn.Module calls, the other
   Python frames hidden (convert --modules): each module's flat time its
   host self, cum its host total. Only while this view is shown. */
static void mod_scope_args(view *v, struct view_scope_args *a)
{
    if (v->tab == VIEW_MODULES)
        a->modules = true;
}

static void mod_own_sort(view *v, enum model_sort **sort, bool **reverse)
{
    *sort = &st(v)->sort;
    *reverse = &st(v)->reverse;
}

static const char *mod_sort_name(view *v, int sort)
{
    (void)v;
    return sort == (int)PLUGIN_ORDER ? "TensorBoard's order" : NULL;
}

const struct view_ops view_modules_ops = {
    .name = "modules",
    .label = "Modules",
    .cols = cols,
    .namecap = 90,
    .sorts = sorts,
    .own_sort = mod_own_sort,
    .sort_name = mod_sort_name,
    .open = mod_open,
    .close = mod_close,
    .rebuild = mod_rebuild,
    .name_of = mod_name,
    .cell = mod_cell,
    .tabinfo = mod_tabinfo,
    .scope_args = mod_scope_args,
};
