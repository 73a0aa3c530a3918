/* Helpers the cmocka suites share: a trace written to a temp file, and an
   operator looked up by name. Include after <cmocka.h>. */
#ifndef T2P_TESTS_UNIT_H
#define T2P_TESTS_UNIT_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model/model.h"

/* Writes text to a new temp file; returns its path (caller unlinks, frees). */
static inline char *unit_write_tmp(const char *text)
{
    char *path = strdup("/tmp/t2p-unit-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* The trace at path loaded and modelled with the defaults, *tr the trace;
   NULL (nothing loaded) when path cannot be read: ../shared may be absent
   outside CI. */
static inline model *unit_open(const char *path, trace **tr)
{
    t2p_error err;
    if (access(path, R_OK) != 0)
        return NULL;
    *tr = trace_load(path, NULL, &err);
    assert_non_null(*tr);
    model *m = model_build(*tr, NULL, &err);
    assert_non_null(m);
    return m;
}

/* text written to a temp file (*path), loaded and modelled with the
   defaults, *tr the trace: the start of most suites' fixtures. */
static inline model *unit_load(const char *text, trace **tr, char **path)
{
    *path = unit_write_tmp(text);
    model *m = unit_open(*path, tr);
    assert_non_null(m);
    return m;
}

/* Frees what unit_load or unit_open made and removes unit_load's file;
   path may be NULL (unit_open's). */
static inline void unit_close(model *m, trace *tr, char *path)
{
    model_free(m);
    trace_free(tr);
    if (path)
        unlink(path);
    free(path);
}

/* A scratch directory for a suite's files: made from tmpl (its last six
   characters XXXXXX) into dir (64 bytes), filled with unit_dir_put, removed
   with all it holds by unit_dir_remove. */
static inline void unit_dir_make(char dir[64], const char *tmpl)
{
    snprintf(dir, 64, "%s", tmpl);
    assert_non_null(mkdtemp(dir));
}

static inline void unit_dir_put(const char *dir, const char *name, const char *text)
{
    char path[320];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Removes dir and all it holds, directories too: no shell, so a path with
   a quote or a missing rm cannot leave it behind. */
static inline void unit_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[1024];
        int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        assert_true(n > 0 && (size_t)n < sizeof path);
        if (unlink(path) != 0)
            unit_dir_remove(path); /* a directory: its files, then itself */
    }
    closedir(d);
    assert_int_equal(rmdir(dir), 0);
}

/* A scratch file name inside dir (unit_dir_make's) into buf. */
static inline void unit_dir_path(char *buf, size_t size, const char *dir, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
}

/* The first op named name (any category), or NULL. */
static inline const model_op *unit_find_op(const model *m, const char *name)
{
    for (size_t i = 0; i < m->nops; i++)
        if (strcmp(model_op_name(m, (uint32_t)i), name) == 0)
            return &m->ops[i];
    return NULL;
}

/* The index of the first op named name; fails the test when there is none. */
static inline uint32_t unit_op_index(const model *m, const char *name)
{
    const model_op *o = unit_find_op(m, name);
    if (!o)
        fail_msg("no op %s", name);
    return (uint32_t)(o - m->ops);
}

#endif
