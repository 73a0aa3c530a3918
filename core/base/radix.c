/* radix_sort (core/base/radix.h). */
#include "config.h"

#include "core/base/radix.h"

#include <string.h>

#define RADIX_BITS 11
#define RADIX_N (1u << RADIX_BITS)
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

void radix_permute(void *base, size_t elem, uint32_t *perm, size_t n)
{
    unsigned char *b = base, tmp[RADIX_ELEM_MAX];
    if (elem > RADIX_ELEM_MAX)
        return;
    for (size_t i = 0; i < n; i++) {
        if (perm[i] == i)
            continue;
        /* the cycle through i: each place takes the element from where
           perm points, the last takes i's, held aside */
        memcpy(tmp, b + i * elem, elem);
        size_t j = i;
        while (perm[j] != i) {
            size_t k = perm[j];
            memcpy(b + j * elem, b + k * elem, elem);
            perm[j] = (uint32_t)j;
            j = k;
        }
        memcpy(b + j * elem, tmp, elem);
        perm[j] = (uint32_t)j;
    }
}

void radix_sort(uint64_t *key, uint32_t *val, size_t n, uint64_t *tkey, uint32_t *tval)
{
    size_t count[RADIX_PASSES][RADIX_N]; /* 96 KiB of stack */
    if (n < 2)
        return;
    memset(count, 0, sizeof count);
    /* every pass's histogram in one read of the keys */
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key[i];
        for (unsigned p = 0; p < RADIX_PASSES; p++)
            count[p][(k >> (p * RADIX_BITS)) & (RADIX_N - 1)]++;
    }
    uint64_t *sk = key, *dk = tkey;
    uint32_t *sv = val, *dv = tval;
    for (unsigned p = 0; p < RADIX_PASSES; p++) {
        size_t *c = count[p];
        unsigned shift = p * RADIX_BITS;
        /* a digit the same in every key moves nothing */
        if (c[(sk[0] >> shift) & (RADIX_N - 1)] == n)
            continue;
        size_t sum = 0;
        for (unsigned d = 0; d < RADIX_N; d++) {
            size_t x = c[d];
            c[d] = sum;
            sum += x;
        }
        if (sv) {
            for (size_t i = 0; i < n; i++) {
                size_t at = c[(sk[i] >> shift) & (RADIX_N - 1)]++;
                dk[at] = sk[i];
                dv[at] = sv[i];
            }
        } else {
            for (size_t i = 0; i < n; i++)
                dk[c[(sk[i] >> shift) & (RADIX_N - 1)]++] = sk[i];
        }
        uint64_t *xk = sk;
        sk = dk;
        dk = xk;
        uint32_t *xv = sv;
        sv = dv;
        dv = xv;
    }
    if (sk != key) {
        memcpy(key, sk, n * sizeof *key);
        if (val)
            memcpy(val, sv, n * sizeof *val);
    }
}
