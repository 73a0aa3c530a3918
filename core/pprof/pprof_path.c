/* The names of profile files: whether an output names a trace (never
   written over), and a free name beside a trace's. */
#include "config.h"

#include "core/pprof/pprof_path.h"
#include "core/base/outfile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether out names the trace file: same inode, or the same path once
   resolved (for an out that does not exist yet, its directory resolved).
   "-" is standard output, whatever it was opened on. */
static bool same_file(const char *trace_path, const char *out)
{
    struct stat a, b;
    if (outfile_is_stdout(out))
        return stat(trace_path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 &&
               a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    if (stat(trace_path, &a) == 0 && stat(out, &b) == 0)
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    if (strcmp(trace_path, out) == 0)
        return true;
    char *rt = realpath(trace_path, NULL);
    char *ro = realpath(out, NULL);
    bool same = rt && ro && strcmp(rt, ro) == 0;
    free(rt);
    free(ro);
    return same;
}

bool pprof_same_file(const char *path, const char *out)
{
    return same_file(path, out);
}

/* ---- choosing a name ---- */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len > n && memcmp(s + len - n, suffix, n) == 0;
}

char *pprof_free_path(const char *dir, const char *trace_path)
{
    const char *slash = strrchr(trace_path, '/');
    const char *name = slash ? slash + 1 : trace_path;
    size_t len = strlen(name);
    for (bool again = true; again;) {
        again = false;
        static const char *const endings[] = { ".gz", ".json", ".pt.trace" };
        for (size_t i = 0; i < sizeof endings / sizeof *endings; i++)
            if (ends_with(name, len, endings[i])) {
                len -= strlen(endings[i]);
                again = true;
            }
    }
    if (!dir || !*dir)
        dir = ".";
    size_t dlen = strlen(dir);
    bool sep = dir[dlen - 1] != '/';
    size_t size = dlen + 1 + len + 32;
    char *path = malloc(size);
    if (!path)
        return NULL;
    for (unsigned i = 0; i < UINT_MAX; i++) {
        if (i == 0)
            snprintf(path, size, "%s%s%.*s.pb.gz", dir, sep ? "/" : "", (int)len, name);
        else
            snprintf(path, size, "%s%s%.*s-%u.pb.gz", dir, sep ? "/" : "", (int)len, name, i);
        struct stat st;
        if (lstat(path, &st) < 0 && errno == ENOENT)
            return path;
    }
    free(path);
    return NULL;
}
