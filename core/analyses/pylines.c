#include "config.h"

#include "core/analyses/pylines.h"

#include <stdlib.h>
#include <string.h>

#include "core/load/pyframe.h"
#include "core/base/strtab.h"
#include "core/base/vec.h"

struct pylines {
    strtab *frames; /* frame text -> line index */
    pyline *lines;
    size_t n, cap;
};

/* The line index of frame f (one with a file), -1 when out of memory. */
static int64_t line_of(pylines *p, const pyframe *f)
{
    uint32_t id = strtab_intern(p->frames, f->text, f->len);
    if (id == STRTAB_NONE)
        return -1;
    if (id == p->n) {
        if (vec_grow_heap((void **)&p->lines, &p->cap, p->n, sizeof *p->lines) < 0)
            return -1;
        p->lines[p->n++] = (pyline){ .file = f->file, .file_len = f->file_len,
                                     .func = f->func, .func_len = f->func_len,
                                     .line = f->line };
    }
    return id;
}

/* Calls fn(p, line, arg) for each line node n puts on its stack (its own
   frame when it is a Python frame event, then the Call stack frames it
   adds). Returns -1 when out of memory. */
static int node_lines(pylines *p, const model *m, const uint32_t *outer, uint32_t n,
                      void (*fn)(pylines *, int64_t, void *), void *arg)
{
    pyframe f;
    if (m->nodes[n].parent == MODEL_NONE)
        return 0;
    if (!m->opts.no_python && pyframe_of_op(m, m->nodes[n].op, &f)) {
        int64_t id = line_of(p, &f);
        if (id < 0)
            return -1;
        fn(p, id, arg);
    }
    if (m->node_stack && m->node_stack[n] != STRTAB_NONE) {
        const char *text;
        size_t len;
        pyframe_added(m, m->node_stack[n], outer[n], &text, &len);
        for (size_t pos = 0; pyframe_next(text, len, &pos, &f);) {
            if (!f.file_len)
                continue;
            int64_t id = line_of(p, &f);
            if (id < 0)
                return -1;
            fn(p, id, arg);
        }
    }
    return 0;
}

struct walk {
    uint32_t *active; /* per line: its frames on the current stack */
    size_t cap;
    int64_t sub;      /* the entered node's subtree self time */
    int grow_failed;
};

static void enter(pylines *p, int64_t id, void *arg)
{
    struct walk *w = arg;
    if ((size_t)id >= w->cap) {
        size_t had = w->cap;
        if (vec_grow_heap((void **)&w->active, &w->cap, (size_t)id, sizeof *w->active) < 0) {
            w->grow_failed = 1;
            return;
        }
        memset(w->active + had, 0, (w->cap - had) * sizeof *w->active);
    }
    if (w->active[id]++ == 0)
        p->lines[id].total_ns += w->sub; /* the outermost frame of the line counts */
}

static void leave(pylines *p, int64_t id, void *arg)
{
    (void)p;
    struct walk *w = arg;
    w->active[id]--;
}

static int cmp_line(const void *a, const void *b)
{
    const pyline *x = a, *y = b;
    if (x->self_ns != y->self_ns)
        return x->self_ns > y->self_ns ? -1 : 1;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    size_t n = x->file_len < y->file_len ? x->file_len : y->file_len;
    int c = memcmp(x->file, y->file, n);
    if (c || x->file_len != y->file_len)
        return c ? c : x->file_len < y->file_len ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    n = x->func_len < y->func_len ? x->func_len : y->func_len;
    c = memcmp(x->func, y->func, n);
    return c ? c : (x->func_len > y->func_len) - (x->func_len < y->func_len);
}

pylines *pylines_build(const model *m, const uint8_t *sel, t2p_error *err)
{
    pylines *p = calloc(1, sizeof *p);
    uint32_t *outer = NULL, *stack = NULL;
    int64_t *sub = NULL;
    struct walk w = { 0 };
    if (!p || !(p->frames = strtab_new()))
        goto nomem;
    size_t nn = m->nnodes ? m->nnodes : 1;
    outer = malloc(nn * sizeof *outer);
    sub = calloc(nn, sizeof *sub);
    stack = malloc(nn * sizeof *stack);
    if (!outer || !sub || !stack)
        goto nomem;
    for (size_t i = 0; i < m->nnodes; i++) {
        uint32_t par = m->nodes[i].parent;
        outer[i] = STRTAB_NONE;
        if (par != MODEL_NONE && m->node_stack)
            outer[i] = m->node_stack[par] != STRTAB_NONE ? m->node_stack[par] : outer[par];
    }
    /* a node's index is greater than its parent's: one backward pass sums
       subtrees (the selected stacks' self time) */
    for (size_t i = m->nnodes; i-- > 0;) {
        if (!sel || sel[i])
            sub[i] += m->nodes[i].self_ns;
        if (m->nodes[i].parent != MODEL_NONE)
            sub[m->nodes[i].parent] += sub[i];
    }
    /* depth first, each line counted at its outermost frame on the stack */
    for (size_t i = 0; i < m->nnodes; i++) {
        if (m->nodes[i].parent != MODEL_NONE)
            continue;
        size_t depth = 0;
        uint32_t n = m->nodes[i].first_child;
        while (n != MODEL_NONE) {
            w.sub = sub[n];
            if (node_lines(p, m, outer, n, enter, &w) < 0 || w.grow_failed)
                goto nomem;
            stack[depth++] = n;
            if (m->nodes[n].first_child != MODEL_NONE) {
                n = m->nodes[n].first_child;
                continue;
            }
            while (depth > 0) {
                uint32_t done = stack[--depth];
                node_lines(p, m, outer, done, leave, &w);
                if (m->nodes[done].next_sibling != MODEL_NONE) {
                    n = m->nodes[done].next_sibling;
                    break;
                }
                n = MODEL_NONE;
            }
        }
    }
    for (size_t i = 0; i < m->nnodes; i++) {
        pyframe f;
        if (m->nodes[i].parent != MODEL_NONE && (!sel || sel[i]) && !m->opts.no_python &&
            pyframe_of_op(m, m->nodes[i].op, &f)) {
            int64_t id = line_of(p, &f);
            if (id < 0)
                goto nomem;
            p->lines[id].self_ns += m->nodes[i].self_ns;
        }
    }
    if (sel) {
        /* lines on no selected stack: not part of the selection */
        size_t k = 0;
        for (size_t i = 0; i < p->n; i++)
            if (p->lines[i].self_ns || p->lines[i].total_ns)
                p->lines[k++] = p->lines[i];
        p->n = k;
    }
    if (p->n)
        qsort(p->lines, p->n, sizeof *p->lines, cmp_line);
    free(outer);
    free(sub);
    free(stack);
    free(w.active);
    return p;
nomem:
    error_set(err, T2P_ERR_NOMEM, m->tr->path, -1, "out of memory counting source lines");
    free(outer);
    free(sub);
    free(stack);
    free(w.active);
    pylines_free(p);
    return NULL;
}

void pylines_free(pylines *p)
{
    if (!p)
        return;
    strtab_free(p->frames);
    free(p->lines);
    free(p);
}

size_t pylines_count(const pylines *p)
{
    return p->n;
}

const pyline *pylines_get(const pylines *p, size_t i)
{
    return &p->lines[i];
}
