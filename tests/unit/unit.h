/* Helpers the cmocka suites share: a trace written to a temp file, and an
   operator looked up by name. Include after <cmocka.h>. */
#ifndef T2P_TESTS_UNIT_H
#define T2P_TESTS_UNIT_H

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

/* The first op named name (any category), or NULL. */
static inline const model_op *unit_find_op(const model *m, const char *name)
{
    for (size_t i = 0; i < m->nops; i++)
        if (strcmp(model_op_name(m, (uint32_t)i), name) == 0)
            return &m->ops[i];
    return NULL;
}

#endif
