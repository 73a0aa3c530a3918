#include "config.h"

#include "core/pprof/pprof_loc.h"

#include <stdlib.h>
#include <string.h>

#include "core/load/pyframe.h"
#include "core/base/vec.h"

typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

static int64_t str_id(pprof_locs *L, const char *s, size_t len)
{
    uint32_t id = strtab_intern_utf8(L->strs, s, len);
    return id == STRTAB_NONE ? -1 : (int64_t)id;
}

int pprof_locs_init(pprof_locs *L, const model *m, strtab *strs, const shortnames *sn)
{
    memset(L, 0, sizeof *L);
    L->m = m;
    L->strs = strs;
    L->short_names = sn;
    size_t nn = m->nnodes ? m->nnodes : 1;
    L->ld = calloc(nn, sizeof *L->ld);
    L->outer = malloc(nn * sizeof *L->outer);
    L->oploc = calloc(m->nops ? m->nops : 1, sizeof *L->oploc);
    L->frames = strtab_new();
    if (!L->ld || !L->outer || !L->oploc || !L->frames || hmap_init(&L->funcmap, 256) < 0)
        return -1;
    return 0;
}

void pprof_locs_done(pprof_locs *L)
{
    free(L->locs);
    free(L->loc_ptrs);
    free(L->lines);
    free(L->line_ptrs);
    free(L->funcs);
    free(L->func_ptrs);
    free(L->oploc);
    strtab_free(L->frames);
    free(L->frameloc);
    hmap_done(&L->funcmap);
    free(L->outer);
    free(L->ld);
}

/* A new function (name, file); Python frames share one per (name, file),
   operators get one each. Returns its id, 0 when out of memory. */
static uint32_t add_function(pprof_locs *L, int64_t nid, int64_t fid, int64_t start, bool shared)
{
    uint64_t key = (uint64_t)nid << 32 | (uint64_t)fid;
    if (shared) {
        uint32_t func = hmap_get(&L->funcmap, key);
        if (func != UINT32_MAX)
            return func;
    }
    if (vec_grow_heap((void **)&L->funcs, &L->funccap, L->nfuncs, sizeof *L->funcs) < 0)
        return 0;
    pb_function *f = &L->funcs[L->nfuncs];
    perftools__profiles__function__init(f);
    f->id = ++L->nfuncs;
    /* no system_name: pprof takes a function whose system name equals its
       name for an unsymbolized C++ one and cuts "(...)" and "<...>" out of
       it, which would turn "Memcpy HtoD (Pageable -> Device)" into
       "Memcpy HtoD " and merge every templated kernel of one name */
    f->name = nid;
    f->filename = fid;
    f->start_line = start;
    if (shared && hmap_put(&L->funcmap, key, (uint32_t)f->id) < 0)
        return 0;
    return (uint32_t)f->id;
}

/* A new location: one line of func. Returns its id, 0 when out of memory.
   Only ids here: pprof_locs_finish links the structs once nothing moves. */
static uint32_t add_location(pprof_locs *L, uint32_t func, int64_t line)
{
    if (!func)
        return 0;
    if (L->nlocs == L->loccap) {
        size_t nc = L->loccap ? L->loccap * 2 : 64;
        pb_location *nl = realloc(L->locs, nc * sizeof *nl);
        if (!nl)
            return 0;
        L->locs = nl;
        pb_line *nn = realloc(L->lines, nc * sizeof *nn);
        if (!nn)
            return 0;
        L->lines = nn;
        L->loccap = nc;
    }
    pb_line *ln = &L->lines[L->nlocs];
    perftools__profiles__line__init(ln);
    ln->function_id = func;
    ln->line = line;
    pb_location *l = &L->locs[L->nlocs];
    perftools__profiles__location__init(l);
    l->id = ++L->nlocs;
    l->mapping_id = 1;
    return (uint32_t)l->id;
}

/* An operator's location: its name, its category as the file name (with
   --short-names the short name, the full one as system name); a Python
   frame event's: its function, file and line (where the function starts). */
static uint32_t op_location(pprof_locs *L, uint32_t op)
{
    const model *m = L->m;
    const trace *tr = m->tr;
    const model_op *o = &m->ops[op];
    pyframe f;
    if (!m->opts.no_python && pyframe_of_op(m, op, &f)) {
        int64_t nid = str_id(L, f.func, f.func_len), fid = str_id(L, f.file, f.file_len);
        if (nid < 0 || fid < 0)
            return 0;
        return add_location(L, add_function(L, nid, fid, f.line, true), f.line);
    }
    size_t nlen = strtab_len(tr->strs, o->name);
    int64_t nid = str_id(L, trace_str(tr, o->name), nlen);
    int64_t fid = str_id(L, trace_str(tr, o->cat), strtab_len(tr->strs, o->cat));
    if (nid < 0 || fid < 0)
        return 0;
    int64_t sys = 0;
    if (L->short_names) {
        /* the function shows the short name; the full one stays as its
           system name (they differ, so pprof leaves both as they are) */
        size_t len;
        const char *sn = shortname_op(L->short_names, op, &len);
        if (len != nlen) {
            sys = nid;
            if ((nid = str_id(L, sn, len)) < 0)
                return 0;
        }
    }
    uint32_t func = add_function(L, nid, fid, 0, false);
    if (func)
        L->funcs[func - 1].system_name = sys;
    return add_location(L, func, 0);
}

/* A Call stack frame's location (one per distinct frame text), 0 when out of memory. */
static uint32_t frame_location(pprof_locs *L, const pyframe *f)
{
    uint32_t id = strtab_intern(L->frames, f->text, f->len);
    if (id == STRTAB_NONE)
        return 0;
    if (id >= L->framecap) {
        size_t had = L->framecap;
        if (vec_grow_heap((void **)&L->frameloc, &L->framecap, id, sizeof *L->frameloc) < 0)
            return 0;
        memset(L->frameloc + had, 0, (L->framecap - had) * sizeof *L->frameloc);
    }
    if (!L->frameloc[id]) {
        int64_t nid = str_id(L, f->func, f->func_len), fid = str_id(L, f->file, f->file_len);
        if (nid < 0 || fid < 0)
            return 0;
        L->frameloc[id] = add_location(L, add_function(L, nid, fid, 0, true), f->line);
    }
    return L->frameloc[id];
}

void pprof_locs_outer(pprof_locs *L)
{
    const model *m = L->m;
    for (size_t i = 0; i < m->nnodes; i++) {
        uint32_t p = m->nodes[i].parent;
        L->outer[i] = STRTAB_NONE;
        if (p == MODEL_NONE || !m->node_stack)
            continue;
        L->outer[i] = m->node_stack[p] != STRTAB_NONE ? m->node_stack[p] : L->outer[p];
    }
}

int pprof_locs_node(pprof_locs *L, uint32_t node)
{
    const model *m = L->m;
    const model_node *nd = &m->nodes[node];
    if (nd->parent == MODEL_NONE) {
        L->ld[node] = 0;
        return 0;
    }
    const char *text;
    size_t len;
    if (L->hide_op) {
        /* a hidden frame adds nothing; a shown one adds itself without its
           Call stack */
        bool hid = L->hide_op[nd->op];
        L->ld[node] = L->ld[nd->parent] + (hid ? 0 : 1);
        if (!hid && !L->oploc[nd->op] && !(L->oploc[nd->op] = op_location(L, nd->op)))
            return -1;
        return 0;
    }
    size_t nf = pyframe_added(m, m->node_stack ? m->node_stack[node] : STRTAB_NONE,
                              L->outer[node], &text, &len);
    L->ld[node] = L->ld[nd->parent] + 1 + (uint32_t)nf;
    if (!L->oploc[nd->op] && !(L->oploc[nd->op] = op_location(L, nd->op)))
        return -1;
    pyframe f;
    for (size_t pos = 0; pyframe_next(text, len, &pos, &f);)
        if (!frame_location(L, &f))
            return -1;
    return 0;
}

size_t pprof_locs_fill(const pprof_locs *L, uint32_t node, uint64_t *at)
{
    const model *m = L->m;
    size_t n = 0;
    if (L->hide_op) {
        if (!L->hide_op[m->nodes[node].op])
            at[n++] = L->oploc[m->nodes[node].op];
        return n;
    }
    at[n++] = L->oploc[m->nodes[node].op];
    if (m->node_stack && m->node_stack[node] != STRTAB_NONE) {
        const char *text;
        size_t len;
        pyframe f;
        pyframe_added(m, m->node_stack[node], L->outer[node], &text, &len);
        for (size_t pos = 0; pyframe_next(text, len, &pos, &f);)
            at[n++] = L->frameloc[strtab_find(L->frames, f.text, f.len)];
    }
    return n;
}

int pprof_locs_finish(pprof_locs *L)
{
    L->loc_ptrs = malloc((L->nlocs ? L->nlocs : 1) * sizeof *L->loc_ptrs);
    L->line_ptrs = malloc((L->nlocs ? L->nlocs : 1) * sizeof *L->line_ptrs);
    L->func_ptrs = malloc((L->nfuncs ? L->nfuncs : 1) * sizeof *L->func_ptrs);
    if (!L->loc_ptrs || !L->line_ptrs || !L->func_ptrs)
        return -1;
    for (size_t k = 0; k < L->nlocs; k++) {
        L->line_ptrs[k] = &L->lines[k];
        L->locs[k].n_line = 1;
        L->locs[k].line = &L->line_ptrs[k];
        L->loc_ptrs[k] = &L->locs[k];
    }
    for (size_t k = 0; k < L->nfuncs; k++)
        L->func_ptrs[k] = &L->funcs[k];
    return 0;
}
