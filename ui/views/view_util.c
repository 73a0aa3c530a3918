/* What the views share beyond the machinery of ui/view.c: the names rows
   show operators by, the keyed sort every table and tree orders by, track
   labels and figures, and the common cells. See ui/view_impl.h. */
#include "config.h"

#include "ui/view_impl.h"
#include "ui/views/view_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/base/vec.h"
#include "core/load/pyframe.h"
#include "core/model/shortname.h"
#include "core/analyses/derived.h"

const char *view_op_name(view *v, uint32_t op, size_t *len)
{
    if (v->short_names && !v->sn)
        v->sn = shortname_new(v->m); /* out of memory: full names */
    if (v->short_names && v->sn)
        return shortname_op(v->sn, op, len);
    *len = strtab_len(v->m->tr->strs, v->m->ops[op].name);
    return model_op_name(v->m, op);
}

/* An operator as its rows show it: a Python frame event as "forward
   model.py:10" (into buf; *split where the dimmed file:line starts), any
   other by view_op_name (short or full; *split SIZE_MAX). */
const char *view_op_label(view *v, uint32_t op, char *buf, size_t size, size_t *len,
                          size_t *split)
{
    const model *m = v->m;
    pyframe f = { 0 };
    *split = SIZE_MAX;
    if (!m->opts.no_python && pyframe_of_op(m, op, &f)) {
        *len = (size_t)snprintf(buf, size, "%.*s  %.*s:%u", (int)f.func_len, f.func,
                                (int)f.file_len, f.file, (unsigned)f.line);
        if (*len >= size)
            *len = size - 1;
        *split = f.func_len + 2;
        return buf;
    }
    return view_op_name(v, op, len);
}

int view_rows_push(view_rows *r, uint32_t id)
{
    if (vec_grow_heap((void **)&r->ids, &r->cap, r->n, sizeof *r->ids) < 0)
        return -1;
    r->ids[r->n++] = id;
    return 0;
}

view_keyed *view_keyed_buf(view *v, size_t n)
{
    if (n > v->kcap) {
        size_t nc = v->kcap ? v->kcap : 64;
        while (nc < n)
            nc *= 2;
        view_keyed *p = realloc(v->kbuf, nc * sizeof *p);
        if (!p)
            return NULL;
        v->kbuf = p;
        v->kcap = nc;
    }
    return v->kbuf;
}

/* qsort has no context argument in C11; one sort runs at a time per thread */
static _Thread_local struct { bool by_name, reverse; } kctx;

static int cmp_keyed(const void *pa, const void *pb)
{
    const view_keyed *a = pa, *b = pb;
    int r = 0;
    if (!kctx.by_name)
        r = a->key > b->key ? -1 : a->key < b->key;
    if (r == 0)
        r = strcmp(a->name, b->name);
    if (r == 0)
        r = a->id < b->id ? -1 : a->id > b->id;
    return kctx.reverse ? -r : r;
}

void view_keyed_sort(view_keyed *k, size_t n, bool by_name, bool reverse)
{
    kctx.by_name = by_name;
    kctx.reverse = reverse;
    qsort(k, n, sizeof *k, cmp_keyed);
}

void view_cell_ms(cols_line *l, int64_t ns, int width)
{
    char t[64];
    fmt_ms(ns, t, sizeof t);
    cols_cell(l, t, strlen(t), width, true);
}

void view_cell_count(cols_line *l, uint64_t n, int width)
{
    char t[64];
    fmt_count(n, t, sizeof t);
    cols_cell(l, t, strlen(t), width, true);
}

void view_cell_pct(cols_line *l, int64_t part, int64_t whole, int width)
{
    char t[64];
    fmt_pct(part, whole, t, sizeof t);
    cols_cell(l, t, strlen(t), width, true);
}

struct derived *view_derived(view *v, const model *m)
{
    return derived_set_of(&v->derived, m);
}
