/* The explorer suites' fixture: a trace, its model and a view over it,
   driven without a terminal. Include after <cmocka.h>. */
#ifndef T2P_TESTS_UNIT_VIEW_H
#define T2P_TESTS_UNIT_VIEW_H

#include <stdlib.h>
#include <unistd.h>

#include "core/model/model.h"
#include "core/load/trace.h"
#include "tests/unit/unit.h"
#include "ui/screen.h"
#include "ui/view.h"
#include "ui/view_export.h"
#include "ui/view_key.h"
#include "ui/view_table.h"

struct fixture {
    char *path; /* a temp file of unit_view_open_text, removed on close; else NULL */
    trace *tr;
    model *m;
    view *v;
};

/* path's trace in a view made with vo (NULL: the defaults), 120x40. */
static inline struct fixture *unit_view_open(const char *path, const view_opts *vo)
{
    struct fixture *f = calloc(1, sizeof *f);
    t2p_error err;
    assert_non_null(f);
    f->tr = trace_load(path, NULL, &err);
    assert_non_null(f->tr);
    f->m = model_build(f->tr, NULL, &err);
    assert_non_null(f->m);
    f->v = view_table_new(f->m, vo);
    assert_non_null(f->v);
    view_resize(f->v, 120, 40);
    return f;
}

/* text as a trace file (a temp file), opened as unit_view_open does. */
static inline struct fixture *unit_view_open_text(const char *text, const view_opts *vo)
{
    char *path = unit_write_tmp(text);
    struct fixture *f = unit_view_open(path, vo);
    f->path = path;
    return f;
}

static inline void unit_view_close(struct fixture *f)
{
    view_free(f->v);
    model_free(f->m);
    trace_free(f->tr);
    if (f->path) {
        unlink(f->path);
        free(f->path);
    }
    free(f);
}

#endif
