/* A small open-addressing map from 64-bit keys to 32-bit values, for the
   loader's track lookup and the model's child and op tables. */
#ifndef T2P_HMAP_H
#define T2P_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hmap {
    uint64_t *keys;
    uint32_t *vals; /* value + 1; 0 = empty slot */
    size_t mask;
    size_t n;
} hmap;

int hmap_init(hmap *m, size_t expected); /* 0 or -1 on no memory */
void hmap_done(hmap *m);

/* Returns the value for key or UINT32_MAX. */
uint32_t hmap_get(const hmap *m, uint64_t key);

/* Sets key to val (val < UINT32_MAX). 0 or -1 on no memory. */
int hmap_put(hmap *m, uint64_t key, uint32_t val);

static inline uint64_t hmap_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

#endif
