#include "config.h"

#include "core/base/vec.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

#define VEC_HUGE ((size_t)2 << 20) /* one huge page */

/* Huge pages spare most of the page faults of filling an array: a per-event
   array of 1 M events (4 to 8 MB) took 1,000 to 2,000 faults of 4 KiB, each
   costing more than zeroing its page on a VM. From one huge page on. */
static void *advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (p != MAP_FAILED && bytes >= VEC_HUGE)
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

/* Blocks from here on are asked for huge pages: big enough that their
   whole huge pages are most of them (the blocks around one in the heap
   keep their small pages). */
#define VEC_SCRATCH_HUGE ((size_t)4 << 20)

/* Asks for huge pages on the whole huge pages inside a malloc'd block of
   bytes; untouched, they take huge pages at their first fault. */
static void *advise_block(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (p && bytes >= VEC_SCRATCH_HUGE) {
        uintptr_t a = ((uintptr_t)p + VEC_HUGE - 1) & ~(uintptr_t)(VEC_HUGE - 1);
        uintptr_t b = ((uintptr_t)p + bytes) & ~(uintptr_t)(VEC_HUGE - 1);
        if (b > a)
            madvise((void *)a, b - a, MADV_HUGEPAGE);
    }
#endif
    return p;
}

/* The bytes of a scratch array of n elements (one when n is 0); 0 when
   they overflow. */
static size_t scratch_bytes(size_t n, size_t elem)
{
    if (!n)
        n = 1;
    return n > SIZE_MAX / elem ? 0 : n * elem;
}

void *vec_scratch(size_t n, size_t elem)
{
    size_t bytes = scratch_bytes(n, elem);
    return bytes ? advise_block(malloc(bytes), bytes) : NULL;
}

void *vec_scratch_zero(size_t n, size_t elem)
{
    size_t bytes = scratch_bytes(n, elem);
    /* glibc's calloc knows a block it maps alone is zero and leaves its
       pages untouched, so the advice still comes before the first fault */
    return bytes ? advise_block(calloc(bytes, 1), bytes) : NULL;
}

int vec_scratch_grow(void **p, size_t n, size_t elem)
{
    size_t bytes = scratch_bytes(n, elem);
    void *q = bytes ? realloc(*p, bytes) : NULL;
    if (!q)
        return -1;
    *p = advise_block(q, bytes);
    return 0;
}

/* A new mapping of bytes; from one huge page on, starting on a huge page
   boundary (mapped larger, the ends trimmed), or only the aligned middle of
   it could take huge pages. */
static void *map_new(size_t bytes)
{
    int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
    if (bytes < VEC_HUGE)
        return mmap(NULL, bytes, prot, flags, -1, 0);
    unsigned char *p = mmap(NULL, bytes + VEC_HUGE, prot, flags, -1, 0);
    if (p == MAP_FAILED)
        return p;
    size_t lead = (VEC_HUGE - (uintptr_t)p % VEC_HUGE) % VEC_HUGE;
    if (lead)
        munmap(p, lead);
    if (VEC_HUGE - lead)
        munmap(p + lead + bytes, VEC_HUGE - lead);
    return advise(p + lead, bytes);
}

/* Grows the mapping p of had bytes into one of bytes (at least a huge page)
   that starts on a huge page boundary, as map_new's do. Below a huge page
   the array lies in 4 KiB pages, and a plain mremap keeps them such: its
   first megabyte stayed in 256 small pages, each a fault, in every array
   that grows past it (the events, the steps' role lists...). On the
   bench's VM touching 64 MB costs 230 ms in 4 KiB faults, every time,
   and 4 ms in huge pages the kernel had just freed (150 ms fresh ones).
   So it is copied into huge pages (at most 1 MB, all of it written: a
   vector grows when full). From a huge page on, mremap moves it onto an
   aligned place, so its huge pages move whole (an unaligned destination
   splits them) and the new tail takes huge pages from its first byte. */
static void *move_huge(void *p, size_t had, size_t bytes)
{
    unsigned char *np = map_new(bytes);
    if (np == MAP_FAILED)
        return MAP_FAILED;
    if (had < VEC_HUGE) {
        memcpy(np, p, had);
        munmap(p, had);
        return np;
    }
    void *r = mremap(p, had, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, np);
    if (r == MAP_FAILED) {
        munmap(np, bytes);
        return MAP_FAILED;
    }
    return advise(r, bytes);
}

/* The mappings a thread released while reusing (vec_reuse_begin), its pages
   still faulted in: a worker that loads file after file takes them back
   instead of mapping, faulting and zeroing some 80 MB afresh for each file
   (about a tenth of a load's CPU time, in the kernel). */
#define VEC_KEPT 16
struct kept {
    void *p;
    size_t bytes;
};
static _Thread_local struct kept kept[VEC_KEPT];
static _Thread_local int nkept;
static _Thread_local bool reusing;

void vec_reuse_begin(void)
{
    reusing = true;
}

void vec_reuse_end(void)
{
    for (int i = 0; i < nkept; i++)
        munmap(kept[i].p, kept[i].bytes);
    nkept = 0;
    reusing = false;
}

/* A kept mapping of at least want bytes (the largest when largest, else the
   smallest that fits), removed from the list; NULL when none. */
static void *take(size_t want, bool largest, size_t *bytes)
{
    int best = -1;
    for (int i = 0; i < nkept; i++) {
        if (kept[i].bytes < want)
            continue;
        if (best < 0 || (largest ? kept[i].bytes > kept[best].bytes
                                 : kept[i].bytes < kept[best].bytes))
            best = i;
    }
    if (best < 0)
        return NULL;
    void *p = kept[best].p;
    *bytes = kept[best].bytes;
    kept[best] = kept[--nkept];
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
    void *np = NULL;
    if (!*p && (np = take(bytes, true, &bytes))) {
        /* the largest: the first array grown is the events', the biggest */
        *p = np;
        *cap = bytes / elem;
        return 0;
    }
    size_t had = map_bytes(*cap, elem);
    np = !*p                ? map_new(bytes)
         : bytes >= VEC_HUGE ? move_huge(*p, had, bytes)
                             : mremap(*p, had, bytes, MREMAP_MAYMOVE);
    if (np == MAP_FAILED)
        return -1;
    *p = np;
    *cap = bytes / elem;
    return 0;
}

int vec_grow_heap(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    /* doubling until n fits: a caller may ask for room far past its end (a
       buffer of n bytes), not only for the next element */
    size_t ncap = *cap ? *cap : 8;
    while (ncap <= n) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem)
        return -1;
    void *np = realloc(*p, ncap * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

void *vec_alloc(size_t n, size_t elem)
{
    if (n > SIZE_MAX / 2 / elem)
        return NULL;
    size_t bytes = map_bytes(n, elem), had;
    unsigned char *k = take(bytes, false, &had);
    if (k) {
        if (had > bytes) /* vec_free will release bytes: give the rest back now */
            munmap(k + bytes, had - bytes);
        memset(k, 0, bytes);
        return k;
    }
    void *p = map_new(bytes);
    return p == MAP_FAILED ? NULL : p;
}

void vec_free(void *p, size_t cap, size_t elem)
{
    if (!p)
        return;
    size_t bytes = map_bytes(cap, elem);
    if (reusing && nkept == VEC_KEPT) {
        /* full: this one replaces the smallest kept, if bigger */
        int small = 0;
        for (int i = 1; i < nkept; i++)
            if (kept[i].bytes < kept[small].bytes)
                small = i;
        if (kept[small].bytes < bytes) {
            munmap(kept[small].p, kept[small].bytes);
            kept[small] = kept[--nkept];
        }
    }
    if (reusing && nkept < VEC_KEPT) {
        kept[nkept++] = (struct kept){ p, bytes };
        return;
    }
    munmap(p, bytes);
}
