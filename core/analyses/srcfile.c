/* Source files of Python frames; see core/analyses/srcfile.h. */
#include "config.h"

#include "core/analyses/srcfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A source file past this is not a Python module anyone reads in a pane. */
#define SRCFILE_MAX (64u << 20)

int srcfile_candidates(const char *file, size_t len, const char *dir,
                       int (*fn)(void *ctx, const char *path), void *ctx)
{
    char path[4096];
    int r;
    if (len == 0 || len >= sizeof path)
        return 0;
    snprintf(path, sizeof path, "%.*s", (int)len, file);
    if ((r = fn(ctx, path)))
        return r;
    if (!dir || !*dir)
        return 0;
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    /* dir + path, then dir + the path less one more leading component each
       time: /home/ci/proj/model.py under DIR is DIR/home/ci/proj/model.py,
       DIR/ci/proj/model.py, ..., DIR/model.py */
    const char *p = file, *end = file + len;
    while (p < end) {
        while (p < end && *p == '/')
            p++;
        if (p == end)
            break;
        if ((size_t)snprintf(path, sizeof path, "%.*s/%.*s", (int)dl, dir, (int)(end - p), p) <
                sizeof path &&
            (r = fn(ctx, path)))
            return r;
        const char *slash = memchr(p, '/', (size_t)(end - p));
        if (!slash)
            break;
        p = slash + 1;
    }
    return 0;
}

struct find {
    char found[4096];
    char tried[512]; /* the paths tried, for the message: whole ones, then "…" */
    size_t off;
    size_t cap;      /* of tried, what the message has room for */
    bool full;       /* a path did not fit: the list ends in "…" */
};

static int try_path(void *ctx, const char *path)
{
    struct find *f = ctx;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        snprintf(f->found, sizeof f->found, "%s", path);
        return 1;
    }
    if (f->full)
        return 0;
    /* whole paths only: the room for ", …" is kept back */
    size_t room = f->cap > f->off ? f->cap - f->off : 0, need = (f->off ? 2 : 0) + strlen(path);
    if (room == 0) {
        f->full = true;
        return 0;
    }
    if (need + sizeof ", \xe2\x80\xa6" <= room) {
        f->off += (size_t)snprintf(f->tried + f->off, room, "%s%s", f->off ? ", " : "", path);
    } else {
        if (room >= sizeof ", \xe2\x80\xa6")
            f->off += (size_t)snprintf(f->tried + f->off, room, "%s\xe2\x80\xa6", f->off ? ", " : "");
        f->full = true;
    }
    return 0;
}

static int split_lines(srcfile *sf, size_t n)
{
    size_t cap = 1;
    for (size_t i = 0; i < n; i++)
        cap += sf->text[i] == '\n';
    sf->line = malloc(cap * sizeof *sf->line);
    if (!sf->line)
        return -1;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && sf->text[i] != '\n')
            continue;
        if (i == n && start == n)
            break; /* a last line ended by '\n' is the end, not an empty line */
        size_t e = i;
        if (e > start && sf->text[e - 1] == '\r')
            e--;
        sf->text[e] = '\0';
        sf->line[sf->nlines++] = start;
        start = i + 1;
    }
    return 0;
}

int srcfile_load(srcfile *sf, const char *file, size_t len, const char *dir, t2p_error *err)
{
    memset(sf, 0, sizeof *sf);
    /* the list of paths tried gets the room the message leaves it */
    static const char head[] = ": source not found (tried ";
    size_t used = len + sizeof head + 1;
    struct find f = { .off = 0, .cap = sizeof err->reason > used ? sizeof err->reason - used : 0 };
    if (f.cap > sizeof f.tried)
        f.cap = sizeof f.tried;
    if (!srcfile_candidates(file, len, dir, try_path, &f)) {
        error_set(err, T2P_ERR_IO, NULL, -1, "%.*s%s%s)", (int)len, file, head,
                  f.off ? f.tried : f.full ? "\xe2\x80\xa6" : "nothing: no file name");
        return -1;
    }
    FILE *fp = fopen(f.found, "rb");
    if (!fp) {
        error_set(err, T2P_ERR_IO, f.found, -1, "cannot read it: %s", strerror(errno));
        return -1;
    }
    sf->path = strdup(f.found);
    size_t cap = 1 << 16, n = 0;
    sf->text = malloc(cap + 1);
    if (!sf->path || !sf->text)
        goto nomem;
    for (;;) {
        if (n == cap) {
            if (cap >= SRCFILE_MAX) {
                fclose(fp);
                error_set(err, T2P_ERR_IO, f.found, -1, "larger than %u MB: not a source file",
                          SRCFILE_MAX >> 20);
                return -1;
            }
            char *t = realloc(sf->text, cap * 2 + 1);
            if (!t)
                goto nomem;
            sf->text = t;
            cap *= 2;
        }
        size_t got = fread(sf->text + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        fclose(fp);
        error_set(err, T2P_ERR_IO, f.found, (int64_t)n, "read failed");
        return -1;
    }
    fclose(fp);
    sf->text[n] = '\0';
    if (split_lines(sf, n) < 0) {
        error_set(err, T2P_ERR_NOMEM, f.found, -1, "out of memory reading the source");
        return -1;
    }
    return 0;
nomem:
    fclose(fp);
    error_set(err, T2P_ERR_NOMEM, f.found, -1, "out of memory reading the source");
    return -1;
}

void srcfile_done(srcfile *sf)
{
    if (!sf)
        return;
    free(sf->path);
    free(sf->text);
    free(sf->line);
    memset(sf, 0, sizeof *sf);
}

const char *srcfile_line(const srcfile *sf, size_t n)
{
    return n >= 1 && n <= sf->nlines ? sf->text + sf->line[n - 1] : NULL;
}
