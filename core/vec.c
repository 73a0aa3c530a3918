#include "config.h"

#include "core/vec.h"

#include <stdint.h>
#include <sys/mman.h>

#ifndef T2P_GROW_FIRST_BYTES /* the fuzz build starts small: each run is tiny */
#define T2P_GROW_FIRST_BYTES (512u * 1024u)
#endif

/* the bytes of a mapping of n elements; at least one page, so that an empty
   array still has a mapping that vec_free can release */
static size_t map_bytes(size_t n, size_t elem)
{
    size_t bytes = (n ? n : 1) * elem;
    return (bytes + 4095) & ~(size_t)4095;
}

/* huge pages spare most of the page faults of filling 50+ MB */
static void *advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (p != MAP_FAILED && bytes >= (8u << 20))
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

int vec_grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : ((size_t)T2P_GROW_FIRST_BYTES + elem - 1) / elem;
    if (ncap > SIZE_MAX / 2 / elem)
        return -1;
    size_t bytes = map_bytes(ncap, elem);
    void *np = *p ? mremap(*p, map_bytes(*cap, elem), bytes, MREMAP_MAYMOVE)
                  : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (advise(np, bytes) == MAP_FAILED)
        return -1;
    *p = np;
    *cap = bytes / elem;
    return 0;
}

void *vec_alloc(size_t n, size_t elem)
{
    if (n > SIZE_MAX / 2 / elem)
        return NULL;
    size_t bytes = map_bytes(n, elem);
    void *p = advise(mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                     bytes);
    return p == MAP_FAILED ? NULL : p;
}

void vec_free(void *p, size_t cap, size_t elem)
{
    if (p)
        munmap(p, map_bytes(cap, elem));
}
