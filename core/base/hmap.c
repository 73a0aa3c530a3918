#include "config.h"

#include "core/base/hmap.h"

#include <stdlib.h>

int hmap_init(hmap *m, size_t expected)
{
    size_t cap = 16;
    while (cap < expected * 2)
        cap <<= 1;
    m->keys = malloc(cap * sizeof *m->keys);
    m->vals = calloc(cap, sizeof *m->vals);
    m->mask = cap - 1;
    m->n = 0;
    if (!m->keys || !m->vals) {
        hmap_done(m);
        return -1;
    }
    return 0;
}

void hmap_done(hmap *m)
{
    if (!m)
        return;
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->mask = 0;
    m->n = 0;
}

uint32_t hmap_get(const hmap *m, uint64_t key)
{
    if (!m->vals)
        return UINT32_MAX;
    for (size_t j = hmap_mix(key) & m->mask;; j = (j + 1) & m->mask) {
        if (!m->vals[j])
            return UINT32_MAX;
        if (m->keys[j] == key)
            return m->vals[j] - 1;
    }
}

static int grow(hmap *m)
{
    hmap nm;
    if (hmap_init(&nm, m->vals ? m->mask + 1 : 8) < 0)
        return -1;
    for (size_t j = 0; m->vals && j <= m->mask; j++)
        if (m->vals[j])
            hmap_put(&nm, m->keys[j], m->vals[j] - 1);
    hmap_done(m);
    *m = nm;
    return 0;
}

int hmap_put(hmap *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->mask + 1 && grow(m) < 0)
        return -1;
    for (size_t j = hmap_mix(key) & m->mask;; j = (j + 1) & m->mask) {
        if (!m->vals[j]) {
            m->keys[j] = key;
            m->vals[j] = val + 1;
            m->n++;
            return 0;
        }
        if (m->keys[j] == key) {
            m->vals[j] = val + 1;
            return 0;
        }
    }
}
