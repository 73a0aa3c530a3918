/* The e key: the scope on screen (focus and filter; the whole trace when
   there is none) written to pprof where the user says, never over a file.
   e opens a prompt holding ./NAME.pb.gz (a free name); Enter writes there,
   Esc cancels. ~ and ~user are expanded as in a shell. A path that exists,
   a directory that cannot be written, a name the file system refuses (too
   long) or a path longer than a path may be keeps the prompt open with the
   reason, for another path: what is written is always exactly the path
   shown. */
#include "config.h"

#include "ui/view_export.h"
#include "ui/views/view_util.h"

#include "ui/cmp.h"
#include "ui/search.h"
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
#include "core/analyses/compare.h"
#include "core/analyses/derived.h"
#include "core/analyses/ranks.h"
#include "core/analyses/steps.h"
#include "core/pprof/export.h"
#include "core/pprof/pprof.h"

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
static void scope_args_of(view *v, struct view_scope_args *sa);

static char *default_path(view *v, const char *dir)
{
    if (v->ranks) { /* every rank: the job's profile, as convert names it */
        struct view_scope_args sa;
        scope_args_of(v, &sa);
        if (sa.all_ranks)
            return pprof_free_path(dir, "job");
    }
    if (v->cmp)
        return cmp_export_name(v, dir);
    return pprof_free_path(dir, v->m->tr->path);
}

/* The scope's parts that views own (the rank, what the view shown
   exports), asked of every view that has one; then the steps or the range
   the model shown is scoped to, as the model says it (model.scope), with
   the whole trace's model it was scoped from. */
static void scope_args_of(view *v, struct view_scope_args *sa)
{
    memset(sa, 0, sizeof *sa);
    for (int k = 0; k < VIEW_NVIEWS; k++)
        if (v->ops[k] && v->ops[k]->scope_args)
            v->ops[k]->scope_args(v, sa);
    const model_scope *sc = &v->m->scope;
    if (sc->kind == MODEL_SCOPE_NONE || v->cmp)
        return;
    struct derived *d = view_derived(v, v->m);
    const model *whole = d ? derived_whole(d) : NULL;
    if (!whole || whole == v->m || model_is_scoped(whole))
        return; /* no whole model to scope again: the profile of what the model holds */
    t2p_error err;
    const steps *st = sc->kind == MODEL_SCOPE_STEPS ? derived_steps(d, &err) : NULL;
    if (sc->kind == MODEL_SCOPE_STEPS && st && sc->last < st->nsteps)
        steps_range_label(st, sc->first, sc->last, sa->step, sizeof sa->step);
    else if (sc->kind == MODEL_SCOPE_RANGE)
        snprintf(sa->range, sizeof sa->range, "%lldns:%lldns", (long long)sc->off_start,
                 (long long)sc->off_end);
    else
        return;
    sa->whole = whole;
}

/* The scope's entries as options: entries[] points into vals (2 per
   entry at most). Returns how many, -1 when one cannot be said. */
static int entry_args(view *v, export_entry *entries, char (*vals)[1024])
{
    int n = 0;
    for (int i = 0; i < scope_depth(v->scope); i++) {
        const char *opt, *opt2;
        if (scope_entry_arg(v->scope, scope_entry_at(v->scope, i), &opt, vals[n], sizeof vals[n],
                            &opt2, vals[n + 1], sizeof vals[n + 1]) < 0)
            return -1;
        entries[n] = (export_entry){ opt, vals[n] };
        n++;
        if (opt2[0]) {
            entries[n] = (export_entry){ opt2, vals[n] };
            n++;
        }
    }
    return n;
}

/* Then the entries views keep apart (the compare Tree's f). */
static int extra_args(const struct view_scope_args *sa, export_entry *entries, int n)
{
    for (int i = 0; i < sa->nfocus && n < 2 * SCOPE_MAX; i++)
        entries[n++] = (export_entry){ "focus", sa->focus[i] };
    /* the stream the GPU view exports */
    if (sa->track[0] && n < 2 * SCOPE_MAX)
        entries[n++] = (export_entry){ "track", sa->track };
    return n;
}

/* `torch2pprof convert ...`: the command that writes this profile again
   (recorded in its comments, shown after e). A new string (caller frees),
   NULL when out of memory. */
static char *export_command(view *v, const struct view_scope_args *sa, const export_entry *entries,
                            int nentries, const char *out)
{
    const char *filter = scope_filter(v->scope);
    size_t size = 256 + 6 * (strlen(v->m->tr->path) + strlen(out) + strlen(filter) +
                             (sa->kernel ? strlen(sa->kernel) : 0));
    for (size_t i = 0; i < v->ninputs; i++)
        size += 6 * strlen(v->inputs[i]) + 4;
    if (v->base_path)
        size += 6 * strlen(v->base_path) + 16;
    for (int i = 0; i < nentries; i++)
        size += 16 + 6 * strlen(entries[i].val);
    char *buf = malloc(size);
    if (!buf)
        return NULL;
    size_t at = (size_t)snprintf(buf, size, "torch2pprof convert");
    if (v->m->opts.keep_steps)
        fmt_shell_word(buf, size, &at, "--keep-steps");
    if (v->cmp && v->base_path) {
        fmt_shell_word(buf, size, &at, "--base");
        fmt_shell_word(buf, size, &at, v->base_path);
    }
    if (sa->has_rank && !sa->all_ranks) {
        char r[32];
        snprintf(r, sizeof r, "%lld", (long long)sa->rank);
        fmt_shell_word(buf, size, &at, "--rank");
        fmt_shell_word(buf, size, &at, r);
    }
    if (sa->step[0]) {
        fmt_shell_word(buf, size, &at, "--step");
        fmt_shell_word(buf, size, &at, sa->step);
    }
    if (sa->range[0]) {
        fmt_shell_word(buf, size, &at, "--range");
        fmt_shell_word(buf, size, &at, sa->range);
    }
    for (int i = 0; i < nentries; i++) {
        char opt[32];
        snprintf(opt, sizeof opt, "--%s", entries[i].opt);
        fmt_shell_word(buf, size, &at, opt);
        fmt_shell_word(buf, size, &at, entries[i].val);
    }
    if (sa->kernel) {
        fmt_shell_word(buf, size, &at, "--kernel");
        fmt_shell_word(buf, size, &at, sa->kernel);
    } else if (sa->kernels) {
        fmt_shell_word(buf, size, &at, "--kernels");
    }
    if (sa->modules)
        fmt_shell_word(buf, size, &at, "--modules");
    if (sa->by_shape)
        fmt_shell_word(buf, size, &at, "--by-shape");
    if (filter[0]) {
        fmt_shell_word(buf, size, &at, "--filter");
        fmt_shell_word(buf, size, &at, filter);
    }
    if (v->hide_python)
        fmt_shell_word(buf, size, &at, "--no-python");
    if (v->short_names)
        fmt_shell_word(buf, size, &at, "--short-names");
    if (v->ninputs)
        for (size_t i = 0; i < v->ninputs; i++)
            fmt_shell_word(buf, size, &at, v->inputs[i]);
    else
        fmt_shell_word(buf, size, &at, v->m->tr->path);
    fmt_shell_word(buf, size, &at, "-o");
    fmt_shell_word(buf, size, &at, out);
    return buf;
}

/* The profile of what is on screen, written by core/pprof/export.c as
   `torch2pprof convert` writes it: the command it records is the one that
   writes the same profile again. */
static int write_scope(view *v, const char *path, t2p_error *err)
{
    struct view_scope_args sa;
    export_entry entries[2 * SCOPE_MAX];
    char (*vals)[1024] = malloc(2 * SCOPE_MAX * sizeof *vals);
    char *command = NULL;
    int rc = -1;
    if (!vals)
        goto nomem;
    scope_args_of(v, &sa);
    int n = entry_args(v, entries, vals);
    if (n >= 0)
        n = extra_args(&sa, entries, n);
    if (n < 0) {
        error_set(err, T2P_ERR_ARG, NULL, -1, "a focus too deep to say on a command line");
        goto out;
    }
    if (!(command = export_command(v, &sa, entries, n, path)))
        goto nomem;
    struct progress prog = { v, path };
    const char *comments[1] = { command };
    model_opts mo = v->m->opts;
    mo.keep = NULL; /* read only while the model was built */
    mo.group = NULL;
    export_args ea = { .step = sa.step[0] ? sa.step : NULL,
                       .range = sa.range[0] ? sa.range : NULL, .entries = entries,
                       .nentries = (size_t)n, .filter = scope_filter(v->scope),
                       .short_names = v->short_names, .hide_python = v->hide_python,
                       .kernels = sa.kernels || sa.kernel, .kernel = sa.kernel,
                       .modules = sa.modules, .by_shape = sa.by_shape,
                       .comments = comments, .ncomments = 1,
                       .tool_version = PACKAGE_VERSION, .no_overwrite = true,
                       .progress = v->export_progress ? on_progress : NULL,
                       .progress_ctx = &prog };
    export_result res;
    if (v->cmp) {
        if (export_diff(v->cmp->base, v->cmp->new, &mo, &ea, path, &res, err) < 0)
            goto out;
    } else if (v->ranks) {
        /* a job: the rank shown, or every rank (All ranks), each packed as
           convert packs it, then merged. The pieces are scratch space in the
           job's files, freed by the merge. */
        ranks_job *j = (ranks_job *)v->ranks;
        for (size_t i = 0; i < j->nloaded; i++) {
            ranks_file *f = &j->files[i];
            if (!f->m || (!sa.all_ranks && f->rank != sa.rank))
                continue;
            /* each rank's steps are its trace's, shared with the views */
            struct derived *d = view_derived(v, f->m);
            const steps *st = d ? derived_steps(d, err) : NULL;
            if (!d)
                error_set(err, T2P_ERR_NOMEM, f->path, -1, "out of memory");
            int prc = st ? export_rank_pack(f, f->m, st, &mo, &ea, err) : -1;
            if (prc < 0) {
                for (size_t k = 0; k < j->nloaded; k++) {
                    free(j->files[k].out);
                    j->files[k].out = NULL;
                }
                goto out;
            }
        }
        if (export_job_write(j, &ea, path, &res.sum, err) < 0)
            goto out;
    } else {
        int64_t rank = ranks_trace_rank(v->m->tr);
        ea.has_rank = rank >= 0;
        ea.rank = rank;
        const model *whole = sa.step[0] || sa.range[0] ? sa.whole : v->m;
        ea.steps = view_derived(v, whole) ? derived_steps(view_derived(v, whole), err) : NULL;
        if (export_trace(whole, v->m->tr, &mo, &ea, path, &res, err) < 0)
            goto out;
    }
    /* what the user exported is stacks, their calls and their time, as the
       screen shows them; then the command that writes it again */
    char a[32], b[32], c[32], d[32];
    const char *shown = fmt_tail(path, strlen(path), 200);
    snprintf(v->status, sizeof v->status, "exported %s%s: %s stacks, %s calls, %s ms%s%s · %s",
             shown > path ? "…" : "", shown, fmt_count(res.sum.samples, a, sizeof a),
             fmt_count(res.sum.calls, d, sizeof d), fmt_ms(res.sum.total_ns, b, sizeof b),
             res.sum.device_ns ? ", device " : "",
             res.sum.device_ns ? fmt_ms(res.sum.device_ns, c, sizeof c) : "", command);
    rc = 0;
    goto out;
nomem:
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory");
out:
    free(command);
    free(vals);
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
    int rc = write_scope(v, path, &err);
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
