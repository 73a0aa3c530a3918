/* A stable sort of 64-bit keys carrying a 32-bit value each: an LSD radix
   sort, 11 bits a pass, the passes over digits that are the same in every
   key skipped. For the big sorts after the load (a GPU event per element,
   hundreds of thousands): qsort's calls of a comparison per pair were most
   of HTA's time. A wider order (a key that does not fit 64 bits) is two
   calls, the less significant part first, as the sort is stable. */
#ifndef T2P_RADIX_H
#define T2P_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* Sorts key[0..n) ascending, val[i] moving with key[i]; equal keys keep
   their order. tkey and tval: scratch of n each (the caller's, so that a
   series of sorts allocates once). val may be NULL (then tval too). */
void radix_sort(uint64_t *key, uint32_t *val, size_t n, uint64_t *tkey, uint32_t *tval);

/* Puts base's elements (n of elem bytes, elem at most RADIX_ELEM_MAX;
   past it the array is left unsorted, so callers _Static_assert it) in
   the order perm gives, in place: element i becomes the one that was at
   perm[i] (perm being a permutation of 0..n-1, as radix_sort leaves the
   values 0..n-1 it was given). perm is consumed (each entry ends as its own
   index). No copy of the array: the sorted copy was the peak of memory. */
#define RADIX_ELEM_MAX 256
void radix_permute(void *base, size_t elem, uint32_t *perm, size_t n);

#endif
