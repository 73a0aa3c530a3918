/* The e key: the scope on screen (focus and filter; the whole trace when
   there is none) written to pprof beside the user, never over a file. */
#include "config.h"

#include "ui/cmp.h"
#include "ui/view_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fmt.h"
#include "core/pprof.h"
#include "core/select.h"

/* The mask of the scope. select_nodes when a select_spec can say it, so the
   export agrees with `torch2pprof convert --focus ...` by construction; the
   view's own mask for what it cannot (a category, a per-track node). */
static uint8_t *export_mask(view *v, t2p_error *err)
{
    select_spec s;
    if (scope_spec(v->scope, &s))
        return select_nodes(v->m, &s, err);
    uint8_t *keep = scope_keep(v->scope);
    if (!keep)
        error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory selecting the stacks");
    return keep;
}

struct progress {
    view *v;
    const char *path;
};

static int on_progress(uint64_t done, uint64_t total, void *ctx)
{
    struct progress *p = ctx;
    return p->v->export_progress(p->path, done, total, p->v->export_ctx);
}

int view_export(view *v)
{
    t2p_error err;
    char msg[1200];
    uint8_t *keep = NULL;
    bool all = !scope_active(v->scope);

    if (v->cmp) /* comparing: e writes the diff profile, from whichever view */
        return cmp_export(v);

    error_clear(&err);
    if (!all && !(keep = export_mask(v, &err))) {
        snprintf(v->status, sizeof v->status, "export failed: %s",
                 error_format(&err, msg, sizeof msg));
        return -1;
    }
    struct progress prog = { v, NULL };
    pprof_opts po = { .keep = keep, .tool_version = "torch2pprof-tui " PACKAGE_VERSION,
                      .no_overwrite = true, .progress = v->export_progress ? on_progress : NULL,
                      .progress_ctx = &prog };
    pprof_summary sum;
    int rc = -1;
    char *path = NULL;
    /* another process may take the free name between the look and the
       write: no_overwrite refuses it, and the next free name is tried */
    for (int attempt = 0; attempt < 5 && rc < 0; attempt++) {
        free(path);
        path = pprof_free_path(v->export_dir, v->m->tr->path);
        if (!path) {
            error_set(&err, T2P_ERR_NOMEM, NULL, -1, "out of memory");
            break;
        }
        prog.path = path;
        rc = pprof_write(v->m, &po, path, &sum, &err);
        if (rc < 0 && !(err.kind == T2P_ERR_IO && err.sys_errno == EEXIST))
            break;
    }
    if (rc == 0) {
        char a[32], b[32], c[32];
        snprintf(v->status, sizeof v->status, "exported %s: %s samples, total %s ms%s%s (%s)",
                 path, fmt_count(sum.samples, a, sizeof a), fmt_ms(sum.total_ns, b, sizeof b),
                 sum.device_ns ? ", device " : "",
                 sum.device_ns ? fmt_ms(sum.device_ns, c, sizeof c) : "",
                 all ? "whole trace" : "focus and filter applied");
    } else if (err.kind == T2P_ERR_CANCELLED) {
        snprintf(v->status, sizeof v->status, "export cancelled: nothing written");
    } else {
        snprintf(v->status, sizeof v->status, "export failed: %s",
                 error_format(&err, msg, sizeof msg));
    }
    free(path);
    free(keep);
    return rc;
}
