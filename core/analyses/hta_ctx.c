/* What HTA's parts share while hta_build runs: the names' classes and
   pandas' quantile. */
#include "config.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/radix.h"

#include "core/analyses/hta_ctx.h"
#include "core/model/catkind.h"
#include "core/base/vec.h"

static const char *const launch_names[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
    "runFunction - job_prep_and_submit_for_execution" };
/* TraceSymbolTable.get_runtime_launch_events_mask: the queue's wider list */
static const char *const qlaunch_names[] = {
    "cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel", "hipExtModuleLaunchKernel",
    "hipMemsetAsync", "hipMemcpyAsync", "hipMemcpyWithStream" };

static bool is_step_name(const char *s, size_t len)
{
    /* a step by the one rule, whose number HTA's pattern also wants */
    return catkind_step_name(s, len) && len > 13 && s[13] >= '0' && s[13] <= '9';
}

/* the bits of name (an id below c->nnames) */
static unsigned classify(const hta_ctx *c, uint32_t name)
{
    const char *s = trace_str(c->tr, name);
    size_t len = strtab_len(c->tr->strs, name);
    unsigned b = HTA_NAME_DONE | (unsigned)hta_kernel_type(s, len) << HTA_NAME_TYPE_SHIFT;
    if (is_step_name(s, len))
        b |= HTA_NAME_STEP;
    for (size_t i = 0; c->seq_op_len && i + c->seq_op_len <= len; i++)
        if (!memcmp(s + i, c->seq_op, c->seq_op_len)) {
            b |= HTA_NAME_SEQ;
            break;
        }
    for (size_t i = 0; i < sizeof launch_names / sizeof *launch_names; i++)
        if (len == strlen(launch_names[i]) && !memcmp(s, launch_names[i], len))
            b |= HTA_NAME_LAUNCH | HTA_NAME_QLAUNCH;
    for (size_t i = 0; i < sizeof qlaunch_names / sizeof *qlaunch_names; i++)
        if (len == strlen(qlaunch_names[i]) && !memcmp(s, qlaunch_names[i], len))
            b |= HTA_NAME_QLAUNCH;
    return b;
}

void hta_names_classify(const hta_ctx *c, unsigned char *names)
{
    const trace *tr = c->tr;
    for (size_t e = 0; e < tr->nevents; e++) {
        uint32_t n = tr->events[e].name;
        if (n < c->nnames && !(names[n] & HTA_NAME_DONE))
            names[n] = (unsigned char)classify(c, n);
    }
}

size_t hta_quantile_at(size_t n, double q, double *f)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    *f = pos - (double)lo;
    return lo;
}

double hta_quantile_lerp(int64_t a, int64_t b, double f)
{
    return (double)a + (double)(b - a) * f;
}

double hta_quantile(const int64_t *a, size_t n, double q)
{
    if (n == 0)
        return 0;
    double f;
    size_t lo = hta_quantile_at(n, q, &f);
    if (lo + 1 >= n)
        return (double)a[n - 1];
    return hta_quantile_lerp(a[lo], a[lo + 1], f);
}


/* one for the whole of hta_build: each sort reuses the pages the last one
   faulted in (a few hundred thousand GPU events: thousands of page faults
   a sort, which on a VM cost more than the sort) */
int hta_sorter_init(hta_sorter *s, size_t n)
{
    *s = (hta_sorter){ 0 };
    return hta_sorter_reserve(s, n ? n : 1);
}

int hta_sorter_reserve(hta_sorter *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    /* cap grows once all four have room: an array grown alone is harmless */
    if (vec_scratch_grow((void **)&s->key, n, sizeof *s->key) < 0 ||
        vec_scratch_grow((void **)&s->tkey, n, sizeof *s->tkey) < 0 ||
        vec_scratch_grow((void **)&s->idx, n, sizeof *s->idx) < 0 ||
        vec_scratch_grow((void **)&s->tidx, n, sizeof *s->tidx) < 0)
        return -1;
    s->cap = n;
    return 0;
}

void hta_sorter_done(hta_sorter *s)
{
    free(s->key);
    free(s->tkey);
    free(s->idx);
    free(s->tidx);
    *s = (hta_sorter){ 0 };
}

void hta_sorter_identity(hta_sorter *s, size_t n)
{
    assert(n <= s->cap);
    for (size_t i = 0; i < n; i++)
        s->idx[i] = (uint32_t)i;
}

void hta_sorter_pass(hta_sorter *s, size_t n)
{
    assert(n <= s->cap);
    radix_sort(s->key, s->idx, n, s->tkey, s->tidx);
}

void hta_sort_i64(hta_sorter *s, int64_t *v, size_t n)
{
    assert(n <= s->cap);
    for (size_t i = 0; i < n; i++)
        s->key[i] = hta_key_i64(v[i]);
    radix_sort(s->key, NULL, n, s->tkey, NULL);
    for (size_t i = 0; i < n; i++)
        v[i] = hta_key_to_i64(s->key[i]);
}
