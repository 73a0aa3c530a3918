/* The allocation failures of the nomem suites (test_nomem, test_nomem_cli):
   linked with -Wl,--wrap=malloc,calloc,realloc,strdup (Makefile.am), every
   allocation of the libraries and of the suite reaches the wrappers below.
   Armed, allocation number fail_at (counting from 0 in calls) fails. Include
   in the suite's one .c file, after <cmocka.h>. */
#ifndef T2P_TESTS_NOMEM_WRAP_H
#define T2P_TESTS_NOMEM_WRAP_H

#include <stdbool.h>
#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static bool armed;
static long calls, fail_at = -1;

/* the ranks are loaded by worker threads: the count must not lose calls */
static bool should_fail(void)
{
    if (!__atomic_load_n(&armed, __ATOMIC_RELAXED))
        return false;
    return __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED) == fail_at;
}

void *__wrap_malloc(size_t n)
{
    return should_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return should_fail() ? NULL : __real_strdup(s);
}

#endif
