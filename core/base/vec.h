/* Big growable arrays on their own mappings: growing one is an mremap, never
   a copy, and never depends on malloc's moving mmap threshold (a realloc of
   a heap block copies every byte and touches every page again). */
#ifndef T2P_VEC_H
#define T2P_VEC_H

#include <stddef.h>

/* Makes room for element n of *p (cap elements of elem bytes); *p == NULL
   and *cap == 0 at first. The new room is not zeroed (a reused mapping,
   vec_reuse_begin): write each element before reading it. Returns 0, or -1
   when out of memory (then *p and *cap are unchanged). */
int vec_grow(void **p, size_t *cap, size_t n, size_t elem);

/* The heap twin of vec_grow, for the many small arrays (processes, tracks,
   per-analysis lists) where a mapping of at least a page each would waste
   memory: makes room for element n of *p by realloc, doubling from 8
   elements until n fits (so n may also be a buffer's length). *p == NULL and *cap == 0 at first; release with free(). The new
   room is not zeroed. Returns 0, or -1 when out of memory (then *p and *cap
   are unchanged). */
int vec_grow_heap(void **p, size_t *cap, size_t n, size_t elem);

/* A zeroed array of n elements on its own mapping (huge pages when large),
   for big scratch arrays; release it with vec_free(p, n, elem). NULL when
   out of memory. */
void *vec_alloc(size_t n, size_t elem);

/* malloc, calloc and realloc of n elements of elem bytes (n == 0 gives one)
   for a big scratch array written all over: a sort's keys, a per-event
   table. From 4 MB on, the whole huge pages inside the block are asked for
   huge pages: else each 4 KiB page is a fault (~14 us on the bench's VM)
   and, under a radix sort's scattered writes, a TLB miss; past 32 MB
   malloc maps such a block afresh for every call. On the 10x bench trace
   the GPU analyses took 75,000 such faults. NULL when out of memory or
   when n * elem overflows (vec_scratch_grow: -1, *p unchanged). Release
   with free(). */
void *vec_scratch(size_t n, size_t elem);
void *vec_scratch_zero(size_t n, size_t elem);
int vec_scratch_grow(void **p, size_t n, size_t elem);

/* Releases what vec_grow or vec_alloc mapped; p may be NULL. */
void vec_free(void *p, size_t cap, size_t elem);

/* From vec_reuse_begin to vec_reuse_end, what the calling thread releases
   stays mapped (up to 16 mappings) for its next vec_grow and vec_alloc: a
   thread that loads one file after another skips faulting in and zeroing
   fresh pages for each. vec_reuse_end unmaps what is kept. */
void vec_reuse_begin(void);
void vec_reuse_end(void);

#endif
