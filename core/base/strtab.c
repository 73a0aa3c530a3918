#include "config.h"

#include "core/base/strtab.h"

#include "core/base/textsafe.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Blocks of string bytes start small and double up to BLOCK_SIZE, and the
   entries and slots start at STRTAB_FIRST: a job of thousands of ranks keeps
   a table per rank, most of them a few dozen names, while a big trace's
   table passes the small sizes in a few doublings. */
#define BLOCK_SIZE (256u * 1024u)
#define BLOCK_FIRST 1024u
#define STRTAB_FIRST 16u

struct entry {
    const char *s;
    uint32_t len;
    uint32_t hash;
};

struct block {
    struct block *next;
    size_t used, size;
    char data[];
};

struct strtab {
    struct entry *ents;
    uint32_t n, cap;
    uint32_t *slots; /* open addressing, id + 1, 0 = empty */
    uint32_t mask;
    struct block *blocks;
    size_t bytes;
    size_t next_block; /* the size of the next block of small strings */
};

uint64_t strtab_hash(const char *s, size_t len)
{
    /* 8 bytes at a time with a multiply-xorshift mix: long kernel names are common */
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (len * 0xff51afd7ed558ccdull);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    uint64_t w = 0;
    memcpy(&w, s + i, len - i);
    h = (h ^ w) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h;
}

strtab *strtab_new(void)
{
    strtab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->mask = 2 * STRTAB_FIRST - 1;
    t->next_block = BLOCK_FIRST;
    t->slots = calloc(t->mask + 1, sizeof *t->slots);
    if (!t->slots) {
        free(t);
        return NULL;
    }
    return t;
}

void strtab_free(strtab *t)
{
    if (!t)
        return;
    struct block *b = t->blocks;
    while (b) {
        struct block *next = b->next;
        free(b);
        b = next;
    }
    free(t->ents);
    free(t->slots);
    free(t);
}

void strtab_clear(strtab *t)
{
    if (!t)
        return;
    /* the block at the head stays: strings are stored into it first */
    struct block *b = t->blocks;
    if (b) {
        struct block *x = b->next;
        while (x) {
            struct block *next = x->next;
            t->bytes -= x->size;
            free(x);
            x = next;
        }
        b->next = NULL;
        b->used = 0;
    }
    memset(t->slots, 0, ((size_t)t->mask + 1) * sizeof *t->slots);
    t->n = 0;
}

static char *store(strtab *t, const char *s, size_t len)
{
    struct block *b = t->blocks;
    if (!b || b->size - b->used < len + 1) {
        bool big = len + 1 > t->next_block;
        size_t size = big ? len + 1 : t->next_block;
        if (!big && t->next_block < BLOCK_SIZE)
            t->next_block *= 2;
        struct block *nb = malloc(sizeof *nb + size);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->size = size;
        t->bytes += size;
        if (b && big) {
            /* keep the partly used block at the head for small strings */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            t->blocks = nb;
        }
        b = nb;
    }
    char *p = b->data + b->used;
    memcpy(p, s, len);
    p[len] = '\0';
    b->used += len + 1;
    return p;
}

static int grow(strtab *t)
{
    uint32_t nmask = t->mask * 2 + 1;
    uint32_t *ns = calloc((size_t)nmask + 1, sizeof *ns);
    if (!ns)
        return -1;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t j = t->ents[i].hash & nmask;
        while (ns[j])
            j = (j + 1) & nmask;
        ns[j] = i + 1;
    }
    free(t->slots);
    t->slots = ns;
    t->mask = nmask;
    return 0;
}

uint32_t strtab_find(const strtab *t, const char *s, size_t len)
{
    uint32_t h = (uint32_t)strtab_hash(s, len);
    for (uint32_t j = h & t->mask;; j = (j + 1) & t->mask) {
        uint32_t id = t->slots[j];
        if (!id)
            return STRTAB_NONE;
        const struct entry *e = &t->ents[id - 1];
        if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
            return id - 1;
    }
}

uint32_t strtab_intern(strtab *t, const char *s, size_t len)
{
    if (len > UINT32_MAX - 1)
        return STRTAB_NONE;
    uint32_t h = (uint32_t)strtab_hash(s, len);
    uint32_t j = h & t->mask;
    for (;; j = (j + 1) & t->mask) {
        uint32_t id = t->slots[j];
        if (!id)
            break;
        const struct entry *e = &t->ents[id - 1];
        if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
            return id - 1;
    }
    if (t->n == t->cap) {
        uint32_t ncap = t->cap ? t->cap * 2 : STRTAB_FIRST;
        struct entry *ne = realloc(t->ents, (size_t)ncap * sizeof *ne);
        if (!ne)
            return STRTAB_NONE;
        t->ents = ne;
        t->cap = ncap;
    }
    if ((uint64_t)(t->n + 1) * 2 > t->mask) {
        if (grow(t) < 0)
            return STRTAB_NONE;
        for (j = h & t->mask; t->slots[j]; j = (j + 1) & t->mask)
            ;
    }
    char *p = store(t, s, len);
    if (!p)
        return STRTAB_NONE;
    uint32_t id = t->n++;
    t->ents[id] = (struct entry){ p, (uint32_t)len, h };
    t->slots[j] = id + 1;
    return id;
}

const char *strtab_str(const strtab *t, uint32_t id)
{
    return id < t->n ? t->ents[id].s : "";
}

size_t strtab_len(const strtab *t, uint32_t id)
{
    return id < t->n ? t->ents[id].len : 0;
}

uint32_t strtab_count(const strtab *t)
{
    return t->n;
}

size_t strtab_bytes(const strtab *t)
{
    return t->bytes + (size_t)t->cap * sizeof(struct entry) + ((size_t)t->mask + 1) * 4;
}

uint32_t strtab_intern_utf8(strtab *t, const char *s, size_t len)
{
    if (textsafe_utf8_valid(s, len) && !memchr(s, '\0', len))
        return strtab_intern(t, s, len);
    size_t need = textsafe_utf8(s, len, true, NULL, 0);
    char *u = malloc(need + 1);
    if (!u)
        return STRTAB_NONE;
    textsafe_utf8(s, len, true, u, need + 1);
    uint32_t id = strtab_intern(t, u, need);
    free(u);
    return id;
}
