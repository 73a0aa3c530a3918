#include "config.h"

#include "core/vec.h"

#include <stdint.h>
#include <sys/mman.h>

#ifndef T2P_GROW_FIRST_BYTES /* the fuzz build starts small: each run is tiny */
#define T2P_GROW_FIRST_BYTES (512u * 1024u)
#endif

static size_t round_pages(size_t bytes)
{
    return (bytes + 4095) & ~(size_t)4095;
}

int vec_grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : ((size_t)T2P_GROW_FIRST_BYTES + elem - 1) / elem;
    if (ncap > SIZE_MAX / 2 / elem)
        return -1;
    size_t bytes = round_pages(ncap * elem);
    void *np;
    if (*p)
        np = mremap(*p, round_pages(*cap * elem), bytes, MREMAP_MAYMOVE);
    else
        np = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (np == MAP_FAILED)
        return -1;
#ifdef MADV_HUGEPAGE
    /* huge pages spare most of the page faults of filling 50+ MB */
    if (bytes >= (8u << 20))
        madvise(np, bytes, MADV_HUGEPAGE);
#endif
    *p = np;
    *cap = bytes / elem;
    return 0;
}

void vec_free(void *p, size_t cap, size_t elem)
{
    if (p)
        munmap(p, round_pages(cap * elem));
}

void *vec_alloc(size_t n, size_t elem)
{
    void *p = NULL;
    size_t cap = 0;
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX / 2 / elem)
        return NULL;
    /* one mapping of exactly n elements (rounded to pages) */
    cap = n;
    size_t bytes = round_pages(n * elem);
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= (8u << 20))
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    (void)cap;
    return p;
}
