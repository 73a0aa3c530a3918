/* An output file written whole or not at all: a temp file renamed into
   place, removed on failure and on the signals that end a process (a file
   size limit's SIGXFSZ ignored: the write fails instead); or OUT
   itself when it is a FIFO, a device or standard output. */
#include "config.h"

#include "core/base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- removing temp files on SIGTERM, SIGINT and SIGHUP ----
   The handler only reads what is published here before a slot is marked
   used, and calls only async-signal-safe functions (unlink, sigaction,
   raise). A few slots: one export at a time is the rule, tests may nest. */

enum { NSLOTS = 8, NSIGS = 3 };
static const int clean_sigs[NSIGS] = { SIGTERM, SIGINT, SIGHUP };

static char slot_path[NSLOTS][PATH_MAX];
static volatile sig_atomic_t slot_used[NSLOTS];
static volatile sig_atomic_t slot_removed[NSLOTS]; /* by a signal, the program going on */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static int nslots_used;
static struct sigaction old_action[NSIGS];
static bool handled[NSIGS]; /* ours installed (the program did not ignore it) */

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
    int saved_errno = errno;
    for (int i = 0; i < NSLOTS; i++)
        if (slot_used[i]) {
            unlink(slot_path[i]);
            slot_used[i] = 0;
            slot_removed[i] = 1;
        }
    for (int k = 0; k < NSIGS; k++) {
        if (clean_sigs[k] != sig)
            continue;
        const struct sigaction *old = &old_action[k];
        if (old->sa_flags & SA_SIGINFO) {
            old->sa_sigaction(sig, info, uctx);
        } else if (old->sa_handler == SIG_DFL) {
            /* die of the signal as before: it is blocked in here, so it is
               delivered, with the default action, as the handler returns */
            sigaction(sig, old, NULL);
            raise(sig);
        } else if (old->sa_handler != SIG_IGN) {
            old->sa_handler(sig);
        }
    }
    errno = saved_errno;
}

static void block_signals(sigset_t *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (int k = 0; k < NSIGS; k++)
        sigaddset(&set, clean_sigs[k]);
    pthread_sigmask(SIG_BLOCK, &set, saved);
}

static void unblock_signals(const sigset_t *saved)
{
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/* With the signals blocked. Returns the slot, or -1 when the path does not
   fit or every slot is taken (the temp file is then only removed by the
   program's own paths). */
static int slot_register(const char *path)
{
    size_t len = strlen(path);
    int slot = -1;
    if (len >= PATH_MAX)
        return -1;
    pthread_mutex_lock(&slot_lock);
    for (int i = 0; i < NSLOTS && slot < 0; i++)
        if (!slot_used[i] && !slot_removed[i])
            slot = i;
    if (slot >= 0) {
        memcpy(slot_path[slot], path, len + 1);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        slot_used[slot] = 1;
        if (nslots_used++ == 0) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = on_signal;
            sa.sa_flags = SA_SIGINFO | SA_RESTART;
            sigfillset(&sa.sa_mask);
            for (int k = 0; k < NSIGS; k++) {
                sigaction(clean_sigs[k], NULL, &old_action[k]);
                handled[k] = old_action[k].sa_handler != SIG_IGN ||
                             (old_action[k].sa_flags & SA_SIGINFO);
                if (handled[k])
                    sigaction(clean_sigs[k], &sa, NULL);
            }
        }
    }
    pthread_mutex_unlock(&slot_lock);
    return slot;
}

/* With the signals blocked. Whether a signal removed the temp file. */
static bool slot_release(int slot)
{
    if (slot < 0)
        return false;
    pthread_mutex_lock(&slot_lock);
    bool removed = slot_removed[slot];
    slot_used[slot] = 0;
    slot_removed[slot] = 0;
    if (--nslots_used == 0)
        for (int k = 0; k < NSIGS; k++)
            if (handled[k])
                sigaction(clean_sigs[k], &old_action[k], NULL);
    pthread_mutex_unlock(&slot_lock);
    return removed;
}

/* ---- SIGXFSZ ----
   A write past a file size limit (ulimit -f) raises SIGXFSZ, whose default
   action kills the process: the temp file would stay, and the explorer's
   terminal in the alternate screen. While an output is open it is ignored,
   so that the write fails with EFBIG and is reported and cleaned up like
   any other write error. A handler or SIG_IGN the program set stays. */

static int xfsz_users;
static bool xfsz_ours; /* we set SIG_IGN over SIG_DFL: restore it at the end */

static void xfsz_hold(void)
{
    pthread_mutex_lock(&slot_lock);
    if (xfsz_users++ == 0) {
        struct sigaction old;
        sigaction(SIGXFSZ, NULL, &old);
        xfsz_ours = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL;
        if (xfsz_ours) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = SIG_IGN;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGXFSZ, &sa, NULL);
        }
    }
    pthread_mutex_unlock(&slot_lock);
}

static void xfsz_release(void)
{
    pthread_mutex_lock(&slot_lock);
    if (--xfsz_users == 0 && xfsz_ours) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGXFSZ, &sa, NULL);
        xfsz_ours = false;
    }
    pthread_mutex_unlock(&slot_lock);
}

/* ---- the temp file ---- */

/* Creates DIR/.BASE.XXXXXX.tmp beside dest with O_EXCL, or DIR/.t2p.XXXXXX.tmp
   when that name is too long for the file system (BASE near NAME_MAX). Not
   mkstemp: its 0600 mode would become the output's; open's 0666 lets the
   umask decide, as for any file a user writes. */
static int open_temp(const char *dest, char **tmp_out)
{
    const char *slash = strrchr(dest, '/');
    size_t dirlen = slash ? (size_t)(slash - dest) + 1 : 0;
    const char *base = dest + dirlen;
    size_t size = strlen(dest) + 32;
    char *tmp = malloc(size);
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    static unsigned counter;
    unsigned seed = (unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL) ^
                    (unsigned)(uintptr_t)tmp;
    bool short_name = false;
    for (int attempt = 0; attempt < 1000; attempt++) {
        unsigned r = (seed + __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 40503u) &
                     0xffffffu;
        snprintf(tmp, size, "%.*s.%s.%06x.tmp", (int)dirlen, dest, short_name ? "t2p" : base, r);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *tmp_out = tmp;
            return fd;
        }
        if (errno == ENAMETOOLONG && !short_name)
            short_name = true;
        else if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(tmp);
    errno = e;
    return -1;
}

/* The file a dangling link names, following a chain of links (each
   relative one from its own directory), as open(2) would create it; NULL
   with errno (ELOOP past 40 links, as Linux). */
static char *dangling_target(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur && hops < 40; hops++) {
        struct stat lst;
        if (lstat(cur, &lst) < 0 || !S_ISLNK(lst.st_mode))
            return cur; /* the name to create (or one made meanwhile: it is checked later) */
        char to[PATH_MAX];
        ssize_t n = readlink(cur, to, sizeof to - 1);
        if (n < 0) {
            int e = errno;
            free(cur);
            errno = e;
            return NULL;
        }
        to[n] = '\0';
        const char *slash = strrchr(cur, '/');
        int dirlen = to[0] == '/' || !slash ? 0 : (int)(slash - cur) + 1;
        size_t size = (size_t)dirlen + (size_t)n + 1;
        char *next = malloc(size);
        if (next)
            snprintf(next, size, "%.*s%s", dirlen, cur, to);
        free(cur);
        cur = next;
    }
    if (!cur) {
        errno = ENOMEM;
        return NULL;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

bool outfile_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

static int open_stdout(outfile *o, t2p_error *err)
{
    if (isatty(STDOUT_FILENO)) {
        error_set(err, T2P_ERR_ARG, "standard output", -1,
                  "is a terminal: redirect it to a file or a pipe");
        return -1;
    }
    /* a copy, so that closing the output (gzclose) leaves stdout open */
    o->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (o->fd < 0) {
        error_set_errno(err, T2P_ERR_IO, "standard output", -1, errno, "cannot write");
        return -1;
    }
    return 0;
}

/* OUT exists and is not a regular file nor a directory: written in place. */
static int open_in_place(outfile *o, t2p_error *err)
{
    if (o->no_replace) {
        error_set_errno(err, T2P_ERR_IO, o->path, -1, EEXIST, "cannot create");
        return -1;
    }
    /* no O_CREAT, no O_TRUNC: whatever OUT is stays what it is */
    o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (o->fd < 0) {
        error_set_errno(err, T2P_ERR_IO, o->path, -1, errno, "cannot open for writing");
        return -1;
    }
    return 0;
}

static int open_any(outfile *o, const char *path, t2p_error *err);
static int open_dest(outfile *o, const char *path, bool exists, const struct stat *st,
                     t2p_error *err);

int outfile_open(outfile *o, const char *path, unsigned flags, t2p_error *err)
{
    *o = (outfile){ .fd = -1, .path = path, .slot = -1,
                    .no_replace = flags & OUTFILE_NO_REPLACE };
    if (open_any(o, path, err) < 0)
        return -1;
    xfsz_hold();
    o->xfsz = true;
    return 0;
}

static int open_any(outfile *o, const char *path, t2p_error *err)
{
    if (outfile_is_stdout(path))
        return open_stdout(o, err);

    struct stat st, lst;
    bool exists = stat(path, &st) == 0;
    int stat_errno = errno;
    if (!exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        /* a dangling link is written through like a live one, as sort -o
           and a shell's > do: never replaced by a file of its own */
        if (stat_errno != ENOENT) { /* a loop, a file used as a directory */
            error_set_errno(err, T2P_ERR_IO, path, -1, stat_errno, "cannot resolve the link");
            return -1;
        }
        o->dest = dangling_target(path);
        if (!o->dest && errno != ENOMEM) {
            error_set_errno(err, T2P_ERR_IO, path, -1, errno, "cannot resolve the link");
            return -1;
        }
        return open_dest(o, path, false, &st, err);
    }
    if (exists && S_ISDIR(st.st_mode)) {
        error_set_errno(err, T2P_ERR_IO, path, -1, EISDIR, "cannot write a profile there");
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode))
        return open_in_place(o, err);

    /* a symlink to a regular file stays a link: its target is replaced */
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        errno = 0;
        o->dest = realpath(path, NULL);
        if (!o->dest && errno && errno != ENOMEM) {
            error_set_errno(err, T2P_ERR_IO, path, -1, errno, "cannot resolve the link");
            return -1;
        }
    } else {
        o->dest = strdup(path);
    }
    return open_dest(o, path, exists, &st, err);
}

/* The temp file for o->dest (NULL: out of memory); exists: OUT is a file
   whose mode st gives, to keep. */
static int open_dest(outfile *o, const char *path, bool exists, const struct stat *st,
                     t2p_error *err)
{
    if (!o->dest) {
        error_set(err, T2P_ERR_NOMEM, path, -1, "out of memory");
        return -1;
    }
    sigset_t saved;
    block_signals(&saved);
    o->fd = open_temp(o->dest, &o->tmp);
    int e = errno;
    if (o->fd >= 0)
        o->slot = slot_register(o->tmp);
    unblock_signals(&saved);
    if (o->fd < 0) {
        error_set_errno(err, e == ENOMEM ? T2P_ERR_NOMEM : T2P_ERR_IO, path, -1, e,
                        "cannot create a temporary file beside it");
        free(o->dest);
        o->dest = NULL;
        return -1;
    }
    /* a replaced OUT keeps its permissions (0640 stays 0640), as sed -i and
       editors keep them; a new one gets 0666 less the umask */
    if (exists && fchmod(o->fd, st->st_mode & 07777) < 0) {
        error_set_errno(err, T2P_ERR_IO, path, -1, errno, "cannot keep its permissions");
        outfile_done(o);
        return -1;
    }
    /* for tests: a moment during which the temp file exists (signals) */
    const char *pause = getenv("T2P_TEST_OUTFILE_PAUSE");
    if (pause && *pause)
        sleep((unsigned)atoi(pause));
    return 0;
}

int outfile_take_fd(outfile *o)
{
    int fd = o->fd;
    o->fd = -1;
    return fd;
}

int outfile_commit(outfile *o, t2p_error *err)
{
    if (o->fd >= 0 && close(outfile_take_fd(o)) < 0) {
        error_set_errno(err, T2P_ERR_IO, o->path, -1, errno, "cannot write");
        outfile_done(o);
        return -1;
    }
    if (!o->tmp) { /* written in place */
        outfile_done(o);
        return 0;
    }
    sigset_t saved;
    block_signals(&saved);
    int rc = 0, e = 0;
    if (o->slot >= 0 && slot_removed[o->slot]) {
        rc = -1;
    } else if (o->no_replace) {
        /* link fails when OUT exists, where rename would replace it */
        if (link(o->tmp, o->dest) < 0) {
            e = errno;
            rc = -1;
        } else {
            unlink(o->tmp);
        }
    } else if (rename(o->tmp, o->dest) < 0) {
        e = errno;
        rc = -1;
    }
    if (rc < 0)
        unlink(o->tmp);
    bool removed = slot_release(o->slot);
    o->slot = -1;
    unblock_signals(&saved);
    if (removed)
        error_set(err, T2P_ERR_CANCELLED, o->path, -1, "interrupted by a signal: nothing written");
    else if (rc < 0 && o->no_replace)
        error_set_errno(err, T2P_ERR_IO, o->path, -1, e, "cannot create");
    else if (rc < 0)
        error_set_errno(err, T2P_ERR_IO, o->path, -1, e,
                        "cannot rename the temporary file into place");
    free(o->tmp);
    o->tmp = NULL;
    outfile_done(o);
    return rc;
}

void outfile_done(outfile *o)
{
    if (!o)
        return;
    if (o->fd >= 0)
        close(outfile_take_fd(o));
    if (o->tmp) {
        sigset_t saved;
        block_signals(&saved);
        unlink(o->tmp);
        slot_release(o->slot);
        o->slot = -1;
        unblock_signals(&saved);
        free(o->tmp);
        o->tmp = NULL;
    }
    free(o->dest);
    o->dest = NULL;
    if (o->xfsz) {
        xfsz_release();
        o->xfsz = false;
    }
}
