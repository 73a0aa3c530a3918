/* What the files of core/analyses/hta_*.c share while hta_build runs
   (core/analyses/hta_ctx.c). */
#ifndef T2P_HTA_CTX_H
#define T2P_HTA_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analyses/hta_kind.h"
#include "core/analyses/hta_types.h"
#include "core/load/trace.h"
#include "core/model/model.h"

/* Per strtab id, what a name is: every event's name classified once by
   hta_names_classify before the analyses, which then only read. */
enum {
    HTA_NAME_DONE = 1,
    HTA_NAME_TYPE_SHIFT = 1, /* 2 bits: enum hta_ktype */
    HTA_NAME_STEP = 8,       /* ^ProfilerStep#\d+ */
    HTA_NAME_SEQ = 16,       /* contains opts.seq_op */
    HTA_NAME_LAUNCH = 32,    /* a launch of cuda_kernel_launch_stats */
    HTA_NAME_QLAUNCH = 64    /* a launch of the queue length (the wider list) */
};

/* Per event, its role (ctx.role). */
enum { HTA_EV_CPU = 0, HTA_EV_WORK = 1, HTA_EV_SYNC = 2 };

/* Scratch for the sorts of the analyses (core/base/radix.h): keys and a
   permutation, with their radix scratch, for up to cap elements. A sort by
   several fields is one radix_sort per field, the least significant first,
   each over the permutation the last one left. Each analysis reserves what
   its sorts need before filling key and idx, so that it runs on any
   hta_ctx's sorter (hta_build's, sized 2 x the GPU events, or the second
   thread's, which starts empty); the passes check n against cap. */
typedef struct hta_sorter {
    uint64_t *key, *tkey;
    uint32_t *idx, *tidx;
    size_t cap;
} hta_sorter;

/* Room for n; 0, or -1 when out of memory. hta_sorter_done frees (s zeroed
   first: done is safe after a failed init). */
int hta_sorter_init(hta_sorter *s, size_t n);
void hta_sorter_done(hta_sorter *s);

/* Room for n at least (kept when there is): 0, or -1 when out of memory,
   s then unchanged. */
int hta_sorter_reserve(hta_sorter *s, size_t n);

/* idx[0..n) = 0..n-1: the order before the first field's sort. */
void hta_sorter_identity(hta_sorter *s, size_t n);

/* Sorts idx[0..n) by key[0..n) (the keys filled in idx's current order),
   stable. n at most cap. */
void hta_sorter_pass(hta_sorter *s, size_t n);

/* A signed figure as a key that sorts in its order. */
static inline uint64_t hta_key_i64(int64_t x)
{
    return (uint64_t)x ^ (UINT64_C(1) << 63);
}

/* hta_key_i64's inverse. */
static inline int64_t hta_key_to_i64(uint64_t k)
{
    return (int64_t)(k ^ (UINT64_C(1) << 63));
}

/* Sorts v[0..n) ascending through s's keys (n at most cap). */
void hta_sort_i64(hta_sorter *s, int64_t *v, size_t n);

typedef struct hta_ctx {
    hta *h;
    const model *m;
    const trace *tr;
    const char *seq_op;
    size_t seq_op_len;
    /* per strtab id: HTA_NAME_* bits. Read-only here: the analyses run on
       two threads (hta_build) and share it; hta_build owns and writes it */
    const unsigned char *names;
    uint32_t nnames;
    unsigned char *role;   /* per event: HTA_EV_*; GPU work, or cuda_sync on a stream */
    unsigned char *in;     /* per event: non-zero in the window */
    uint32_t *launch;      /* per event: the launch of GPU work (by correlation), or MODEL_NONE */
    uint32_t *stream_of;   /* per track: index into h->streams, or MODEL_NONE */
    uint32_t *dev;         /* device events (work and sync) in the window, by (stream, ts, index) */
    size_t ndev;
    hta_sorter *so;        /* every sort of the analyses uses it; a thread's own */
} hta_ctx;

/* Classifies the name of every event of c->tr into names (c->nnames
   bytes, zeroed, which c->names then points to): the one pass that writes
   the names' bits. */
void hta_names_classify(const hta_ctx *c, unsigned char *names);

/* HTA_NAME_* bits of a name id; a name no event has (never classified):
   HTA_OTHER and no bit. */
static inline unsigned hta_name_bits(const hta_ctx *c, uint32_t name)
{
    unsigned b = name < c->nnames ? c->names[name] : 0;
    return b & HTA_NAME_DONE ? b : HTA_NAME_DONE | HTA_OTHER << HTA_NAME_TYPE_SHIFT;
}

static inline enum hta_ktype hta_name_type(const hta_ctx *c, uint32_t name)
{
    return (enum hta_ktype)((hta_name_bits(c, name) >> HTA_NAME_TYPE_SHIFT) & 3);
}

/* Linear interpolation between ranks of sorted a[0..n-1] (pandas' quantile). */
double hta_quantile(const int64_t *a, size_t n, double q);

/* hta_quantile in two halves, for values not held sorted in an array: q of
   n values lies f of the way from the returned lo-th smallest (from 0) to
   the next (the last when there is none), and hta_quantile_lerp gives it. */
size_t hta_quantile_at(size_t n, double q, double *f);
double hta_quantile_lerp(int64_t a, int64_t b, double f);

#endif
