/* The e key: the scope on screen (focus and filter; the whole trace when
   there is none) written to pprof where the user says, never over a file.
   e opens a prompt holding ./NAME.pb.gz (a free name); Enter writes there,
   Esc cancels. ~ and ~user are expanded as in a shell. A path that exists,
   a directory that cannot be written, a name the file system refuses (too
   long) or a path longer than a path may be keeps the prompt open with the
   reason, for another path: what is written is always exactly the path
   shown. */
#include "config.h"

#include "ui/cmp.h"
#include "ui/view_impl.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/base/fmt.h"
#include "core/pprof/pprof.h"
#include "core/model/select.h"

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

/* Whether the mode bits let this user write in a directory: the class the
   process is in (owner, group, others), as for any user. Root passes
   access(2) everywhere, but a directory nobody may write (a shared 0555
   folder) is not one to drop files in just because root can. */
static bool mode_allows(const struct stat *st)
{
    if (st->st_uid == geteuid())
        return st->st_mode & S_IWUSR;
    if (st->st_gid == getegid())
        return st->st_mode & S_IWGRP;
    gid_t groups[256];
    int n = getgroups(256, groups);
    for (int i = 0; i < n; i++)
        if (groups[i] == st->st_gid)
            return st->st_mode & S_IWGRP;
    return st->st_mode & S_IWOTH;
}

/* Why path's directory cannot take a new file (the status text), or NULL
   when it can. */
static const char *dir_problem(const char *path, char *why, size_t size)
{
    char dir[PATH_MAX]; /* path is shorter */
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct stat st;
    struct statvfs vfs;
    const char *reason = NULL;
    if (stat(dir, &st) < 0)
        reason = strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        reason = strerror(ENOTDIR);
    else if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
        reason = strerror(EROFS);
    else if (!mode_allows(&st))
        reason = strerror(EACCES);
    else if (access(dir, W_OK | X_OK) < 0)
        reason = strerror(errno);
    if (!reason)
        return NULL;
    snprintf(why, size, "cannot write in %s: %s", dir, reason);
    return why;
}

/* ~, ~/x, ~user and ~user/x as a shell expands them: HOME for ~ (the
   password entry when HOME is unset or empty), the user's home for ~user;
   a user that does not exist stays as typed, as in a shell. False when the
   result does not fit in size bytes. */
static bool expand_home(const char *in, char *out, size_t size)
{
    const char *home = NULL;
    size_t ulen = 0;
    if (in[0] == '~') {
        const char *slash = strchr(in, '/');
        ulen = slash ? (size_t)(slash - in) - 1 : strlen(in) - 1;
        struct passwd *pw = NULL;
        if (ulen == 0) {
            home = getenv("HOME");
            if (!home || !*home)
                pw = getpwuid(getuid());
        } else {
            char user[256]; /* longer than any login name */
            if (ulen < sizeof user) {
                memcpy(user, in + 1, ulen);
                user[ulen] = '\0';
                pw = getpwnam(user);
            }
        }
        if (pw)
            home = pw->pw_dir;
    }
    int n;
    if (home && *home)
        n = snprintf(out, size, "%s%s", home, in + 1 + ulen);
    else
        n = snprintf(out, size, "%s", in);
    return n >= 0 && (size_t)n < size;
}

static int too_long(view *v)
{
    view_status_set(v, "path too long (a path has at most %d bytes): type a shorter one",
                    PATH_MAX - 1);
    return VIEW_EXPORT_RETRY;
}

/* The name the prompt offers: NAME.pb.gz free in dir. */
static char *default_path(view *v, const char *dir)
{
    if (v->cmp)
        return cmp_export_name(v, dir);
    return pprof_free_path(dir, v->m->tr->path);
}

static int write_scope(view *v, const char *path, t2p_error *err)
{
    uint8_t *keep = NULL;
    bool all = !scope_active(v->scope);
    if (!all && !(keep = export_mask(v, err)))
        return -1;
    struct progress prog = { v, path };
    pprof_opts po = { .keep = keep, .tool_version = "torch2pprof-tui " PACKAGE_VERSION,
                      .no_overwrite = true, .progress = v->export_progress ? on_progress : NULL,
                      .progress_ctx = &prog };
    pprof_summary sum;
    int rc = pprof_write(v->m, &po, path, &sum, err);
    if (rc == 0) {
        /* a sample per stack: what the user exported is stacks, their calls
           and their time, as the screen shows them */
        char a[32], b[32], c[32], d[32];
        /* a path of any length leaves room for the figures: its tail */
        const char *shown = fmt_tail(path, strlen(path), 200);
        snprintf(v->status, sizeof v->status, "exported %s%s: %s stacks, %s calls, %s ms%s%s (%s)",
                 shown > path ? "…" : "", shown, fmt_count(sum.samples, a, sizeof a),
                 fmt_count(sum.calls, d, sizeof d),
                 fmt_ms(sum.total_ns, b, sizeof b),
                 sum.device_ns ? ", device " : "",
                 sum.device_ns ? fmt_ms(sum.device_ns, c, sizeof c) : "",
                 /* a model scoped to a step or a range says which */
                 all ? (v->m->scope_note[0] ? v->m->scope_note : "whole trace")
                     : "focus and filter applied");
    }
    free(keep);
    return rc;
}

int view_export_to(view *v, const char *typed)
{
    char path[PATH_MAX], why[PATH_MAX + 128];
    t2p_error err;
    struct stat st;
    error_clear(&err);
    if (!expand_home(typed, path, sizeof path))
        return too_long(v);
    if (!path[0]) {
        view_status_set(v, "type a file name");
        return VIEW_EXPORT_RETRY;
    }
    /* a directory: the offered name inside it */
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        char *name = default_path(v, path);
        if (!name) {
            view_status_set(v, "export failed: out of memory");
            return -1;
        }
        int n = snprintf(path, sizeof path, "%s", name);
        free(name);
        if (n < 0 || (size_t)n >= sizeof path)
            return too_long(v);
    }
    if (lstat(path, &st) == 0) {
        view_status_set(v, "%s exists: type another name (never overwritten)", path);
        return VIEW_EXPORT_RETRY;
    }
    int lstat_errno = errno;
    if (dir_problem(path, why, sizeof why)) {
        view_status_set(v, "%s: type another path", why);
        return VIEW_EXPORT_RETRY;
    }
    /* the directory is fine but the name is not (a component longer than
       the file system takes): the write would fail the same way */
    if (lstat_errno != ENOENT) {
        const char *shown = fmt_tail(path, strlen(path), 200);
        view_status_set(v, "cannot write %s%s: %s: type another name", shown > path ? "…" : "",
                        shown, strerror(lstat_errno));
        return VIEW_EXPORT_RETRY;
    }
    int rc = v->cmp ? cmp_export_to(v, path, &err) : write_scope(v, path, &err);
    if (rc == 0)
        return 0;
    char msg[1200];
    if (err.kind == T2P_ERR_CANCELLED) {
        view_status_set(v, "export cancelled: nothing written");
        return -1;
    }
    /* another process took the name between the look and the write */
    if (err.kind == T2P_ERR_IO && err.sys_errno == EEXIST) {
        view_status_set(v, "%s exists: type another name (never overwritten)", path);
        return VIEW_EXPORT_RETRY;
    }
    view_status_set(v, "export failed: %s", error_format(&err, msg, sizeof msg));
    return -1;
}

int view_export_begin(view *v)
{
    char *path = default_path(v, v->export_dir);
    if (!path) {
        view_status_set(v, "export failed: out of memory choosing the file name");
        return VIEW_DRAW_FOOTER;
    }
    v->mode = VIEW_MODE_EXPORT;
    v->status[0] = '\0';
    size_t n = strlen(path);
    if (n < sizeof v->srch.prompt) {
        memcpy(v->srch.prompt, path, n + 1);
    } else {
        /* never a cut path to write to: an empty prompt that says why */
        v->srch.prompt[0] = '\0';
        too_long(v);
    }
    free(path);
    return VIEW_DRAW_FOOTER;
}

int view_export_key(view *v, int key)
{
    switch (key) {
    case VK_ENTER:
        if (view_export_to(v, v->srch.prompt) != VIEW_EXPORT_RETRY)
            v->mode = VIEW_MODE_NORMAL;
        return VIEW_DRAW_ALL;
    case VK_ESC:
        v->mode = VIEW_MODE_NORMAL;
        view_status_set(v, "export cancelled: nothing written");
        return VIEW_DRAW_FOOTER;
    default:
        if (!search_edit(v->srch.prompt, sizeof v->srch.prompt, key)) {
            if (key >= 0x20 && key <= 0xff && key != 0x7f) { /* a character, no room */
                too_long(v);
                return VIEW_DRAW_FOOTER;
            }
            return 0;
        }
        v->status[0] = '\0'; /* the reason of a refused path goes once the text changes */
        return VIEW_DRAW_FOOTER;
    }
}

int view_export(view *v)
{
    char *path = default_path(v, v->export_dir);
    if (!path) {
        view_status_set(v, "export failed: out of memory choosing the file name");
        return -1;
    }
    int rc = view_export_to(v, path);
    free(path);
    return rc == 0 ? 0 : -1;
}
