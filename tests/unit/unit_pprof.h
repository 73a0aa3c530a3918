/* Helpers the suites that decode written profiles share (test_pprof,
   test_export_run). Include after <cmocka.h>. */
#ifndef T2P_TESTS_UNIT_PPROF_H
#define T2P_TESTS_UNIT_PPROF_H

#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "core/pprof/profile.pb-c.h"

/* The gzip'd profile at path, decoded; fails the test when it cannot be read
   or decoded. The caller frees it with
   perftools__profiles__profile__free_unpacked(p, NULL). */
static inline Perftools__Profiles__Profile *unit_read_profile(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    assert_non_null(gz);
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    int r;
    while ((r = gzread(gz, buf + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)r;
        if (len == cap) {
            uint8_t *b = realloc(buf, cap *= 2);
            assert_non_null(b);
            buf = b;
        }
    }
    assert_int_equal(r, 0);
    gzclose(gz);
    Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
    free(buf);
    assert_non_null(p);
    return p;
}

#endif
