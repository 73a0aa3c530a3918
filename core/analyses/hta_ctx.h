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

/* Per strtab id, what a name is (computed once per name, lazily). */
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

typedef struct hta_ctx {
    hta *h;
    const model *m;
    const trace *tr;
    const char *seq_op;
    size_t seq_op_len;
    unsigned char *names;  /* per strtab id: HTA_NAME_* bits */
    uint32_t nnames;
    unsigned char *role;   /* per event: HTA_EV_*; GPU work, or cuda_sync on a stream */
    unsigned char *in;     /* per event: non-zero in the window */
    uint32_t *launch;      /* per event: the launch of GPU work (by correlation), or MODEL_NONE */
    uint32_t *stream_of;   /* per track: index into h->streams, or MODEL_NONE */
    uint32_t *dev;         /* device events (work and sync) in the window, by (stream, ts, index) */
    size_t ndev;
} hta_ctx;

/* HTA_NAME_* bits of a name id. */
unsigned hta_name_bits(hta_ctx *c, uint32_t name);

static inline enum hta_ktype hta_name_type(hta_ctx *c, uint32_t name)
{
    return (enum hta_ktype)((hta_name_bits(c, name) >> HTA_NAME_TYPE_SHIFT) & 3);
}

/* Linear interpolation between ranks of sorted a[0..n-1] (pandas' quantile). */
double hta_quantile(const int64_t *a, size_t n, double q);

#endif
