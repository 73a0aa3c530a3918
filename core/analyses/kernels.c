#include "config.h"

#include "core/analyses/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyses/gpu.h"
#include "core/analyses/tensorcore.h"
#include "core/base/hmap.h"
#include "core/base/radix.h"
#include "core/model/catkind.h"
#include "core/base/vec.h"

#define AGREE_MASK (TRACE_KARG_GRID | TRACE_KARG_BLOCK | TRACE_KARG_REGS | TRACE_KARG_SMEM)

/* A kernel of the GPU summary. */
struct kev {
    int64_t s, e;
    double bps, occ;
    int32_t dev;
    uint16_t flags; /* TRACE_KARG_BPS / OCC as the event had them */
    bool tc;        /* a tensor-core kernel */
    bool by_op;     /* launched by an operator (the plugin's operators) */
};

/* An end of a kernel with blocks per SM, for the SM-efficiency sweep. */
struct ept {
    int64_t t;
    int end; /* 0 start, 1 end: starts first at one instant */
    double v;
};

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* An operator as the plugin's operator list has it (node.py's
   is_operator_node): cpu_op calls, but the steps, the optimizer's and the
   data loader's spans and (Distributed)DataParallel.forward. */
static bool plugin_operator(const model *m, uint32_t op)
{
    if (op == MODEL_NONE)
        return false;
    uint32_t cat = m->ops[op].cat;
    if (cat >= m->ncatkind || m->catkind[cat] != CATKIND_CPU_OP)
        return false;
    const char *n = model_op_name(m, op);
    return !starts(n, "ProfilerStep") && !starts(n, "Optimizer.") &&
           !starts(n, "enumerate(DataLoader)#") && !starts(n, "enumerate(DataPipe)#") &&
           strcmp(n, "DataParallel.forward") && strcmp(n, "DistributedDataParallel.forward");
}

static void row_start(kernels_row *r, const model *m, uint32_t name, uint32_t op, uint32_t kop)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    r->op = op;
    r->kop = kop;
    r->tensor_cores = tensorcore_kernel(trace_str(m->tr, name), strtab_len(m->tr->strs, name));
}

static void row_add(kernels_row *r, int64_t dur, const trace_karg *ka)
{
    uint16_t f = ka ? ka->flags : 0;
    if (r->calls == 0) {
        r->min_ns = r->max_ns = dur;
        r->agree = f & AGREE_MASK;
        if (ka) {
            memcpy(r->grid, ka->grid, sizeof r->grid);
            memcpy(r->block, ka->block, sizeof r->block);
            r->registers = ka->registers;
            r->shared_memory = ka->shared_memory;
        }
    } else {
        if (dur < r->min_ns)
            r->min_ns = dur;
        if (dur > r->max_ns)
            r->max_ns = dur;
        uint16_t a = r->agree & f;
        if ((a & TRACE_KARG_GRID) && memcmp(r->grid, ka->grid, sizeof r->grid))
            a &= (uint16_t)~TRACE_KARG_GRID;
        if ((a & TRACE_KARG_BLOCK) && memcmp(r->block, ka->block, sizeof r->block))
            a &= (uint16_t)~TRACE_KARG_BLOCK;
        if ((a & TRACE_KARG_REGS) && r->registers != ka->registers)
            a &= (uint16_t)~TRACE_KARG_REGS;
        if ((a & TRACE_KARG_SMEM) && r->shared_memory != ka->shared_memory)
            a &= (uint16_t)~TRACE_KARG_SMEM;
        r->agree = a;
    }
    r->calls++;
    r->total_ns += dur;
    /* a missing or non-numeric value counts 0 (the plugin's fillna(0)) */
    if (f & TRACE_KARG_BPS)
        r->bps_w += ka->blocks_per_sm * (double)dur;
    else
        r->no_blocks_per_sm++;
    if (f & TRACE_KARG_OCC)
        r->occ_w += ka->occupancy * (double)dur;
    else
        r->no_occupancy++;
}

static void row_finish(kernels_row *r)
{
    r->mean_ns = r->calls ? (double)r->total_ns / (double)r->calls : 0;
    r->blocks_per_sm = r->total_ns > 0 ? r->bps_w / (double)r->total_ns : 0;
    r->occupancy_pct = r->total_ns > 0 ? r->occ_w / (double)r->total_ns : 0;
}

/* The row of key in (*rows, *n), created when new. Returns its index, or
   UINT32_MAX when out of memory. */
static uint32_t row_get(const model *m, hmap *h, kernels_row **rows, size_t *n, size_t *cap,
                        uint64_t key, uint32_t name, uint32_t op, uint32_t kop)
{
    uint32_t i = hmap_get(h, key);
    if (i != UINT32_MAX)
        return i;
    /* one row per distinct kernel (and operator): few, so on the heap */
    if (vec_grow_heap((void **)rows, cap, *n, sizeof **rows) < 0)
        return UINT32_MAX;
    i = (uint32_t)(*n)++;
    row_start(&(*rows)[i], m, name, op, kop);
    if (hmap_put(h, key, i) < 0)
        return UINT32_MAX;
    return i;
}

/* ---- sorting (a merge sort: the comparison needs the rows and the key) ---- */

struct sortctx {
    const kernels *k;
    const kernels_row *rows;
    enum kernels_sort key;
    bool reverse;
};

static double sort_figure(const kernels_row *r, enum kernels_sort key)
{
    switch (key) {
    case KERNELS_SORT_TOTAL: return (double)r->total_ns;
    case KERNELS_SORT_CALLS: return (double)r->calls;
    case KERNELS_SORT_MEAN: return r->mean_ns;
    case KERNELS_SORT_MIN: return (double)r->min_ns;
    case KERNELS_SORT_MAX: return (double)r->max_ns;
    case KERNELS_SORT_BPS: return r->blocks_per_sm;
    case KERNELS_SORT_OCC: return r->occupancy_pct;
    case KERNELS_SORT_TC: return r->tensor_cores;
    default: return 0;
    }
}

static int sort_cmp(const struct sortctx *c, uint32_t a, uint32_t b)
{
    const kernels_row *x = &c->rows[a], *y = &c->rows[b];
    const trace *tr = c->k->m->tr;
    int r = 0;
    if (c->key != KERNELS_SORT_NAME) {
        double fx = sort_figure(x, c->key), fy = sort_figure(y, c->key);
        r = fx > fy ? -1 : fx < fy ? 1 : 0;
    }
    if (r == 0)
        r = strcmp(trace_str(tr, x->name), trace_str(tr, y->name));
    if (r == 0 && x->op != y->op) {
        /* by_op rows of one kernel: by operator name, no operator last */
        if (x->op == MODEL_NONE || y->op == MODEL_NONE)
            r = x->op == MODEL_NONE ? 1 : -1;
        else
            r = strcmp(model_op_name(c->k->m, x->op), model_op_name(c->k->m, y->op));
    }
    if (r == 0)
        r = a < b ? -1 : a > b;
    return c->reverse ? -r : r;
}

static void msort(const struct sortctx *c, uint32_t *a, uint32_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    msort(c, a, tmp, h);
    msort(c, a + h, tmp, n - h);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = sort_cmp(c, a[i], a[j]) <= 0 ? a[i++] : a[j++];
    while (i < h)
        tmp[o++] = a[i++];
    while (j < n)
        tmp[o++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

void kernels_sort(const kernels *k, const kernels_row *rows, size_t n, enum kernels_sort key,
                  bool reverse, uint32_t *idx)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    kernels_sort_ids(k, rows, idx, n, key, reverse);
}

void kernels_sort_ids(const kernels *k, const kernels_row *rows, uint32_t *idx, size_t n,
                      enum kernels_sort key, bool reverse)
{
    uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    struct sortctx c = { k, rows, key, reverse };
    if (tmp) {
        msort(&c, idx, tmp, n);
        free(tmp);
    } else {
        /* out of memory: an insertion sort needs none (slow, but right) */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && sort_cmp(&c, idx[j - 1], idx[j]) > 0; j--) {
                uint32_t t = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = t;
            }
    }
}

/* Puts rows in the tables' order (total descending) in place. */
static int order_rows(kernels *k, kernels_row *rows, size_t n)
{
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    kernels_row *out = malloc((n ? n : 1) * sizeof *out);
    if (!idx || !out) {
        free(idx);
        free(out);
        return -1;
    }
    kernels_sort(k, rows, n, KERNELS_SORT_TOTAL, false, idx);
    for (size_t i = 0; i < n; i++)
        out[i] = rows[idx[i]];
    if (n) /* memcpy takes no NULL pointer, even for nothing */
        memcpy(rows, out, n * sizeof *out);
    free(idx);
    free(out);
    return 0;
}

/* ---- the GPU summary ---- */

/* Scratch of the stable radix sorts below (core/base/radix.h), for 2n
   elements: by several fields, a pass per field, the last first, so ties
   keep their order as qsort's merge sort kept it (the occupancy and SM
   efficiency add floating-point figures in that order). */
struct ksort {
    uint64_t *key, *tkey;
    uint32_t *idx, *tidx;
};

static void ksort_done(struct ksort *z)
{
    free(z->key);
    free(z->tkey);
    free(z->idx);
    free(z->tidx);
}

static int ksort_init(struct ksort *z, size_t n)
{
    z->key = vec_scratch(n, sizeof *z->key);
    z->tkey = vec_scratch(n, sizeof *z->tkey);
    z->idx = vec_scratch(n, sizeof *z->idx);
    z->tidx = vec_scratch(n, sizeof *z->tidx);
    if (z->key && z->tkey && z->idx && z->tidx)
        return 0;
    ksort_done(z);
    return -1;
}

static uint64_t key_i64(int64_t x)
{
    return (uint64_t)x ^ (UINT64_C(1) << 63);
}

static int64_t clip_len(int64_t s, int64_t e, int64_t S, int64_t E)
{
    int64_t a = s > S ? s : S, b = e < E ? e : E;
    return b > a ? b - a : 0;
}

/* The span: the kept steps in the scope, else every step in it. */
static void find_span(kernels *k, const steps *s, const unsigned char *keep)
{
    k->span_start = k->span_end = 0;
    if (!s)
        return;
    for (int pass = 0; pass < 2; pass++) {
        bool any = false;
        for (size_t i = 0; i < s->nsteps; i++) {
            const steps_step *st = &s->steps[i];
            bool in = !keep || st->event == STEPS_NONE || keep[st->event];
            if (!in || (pass == 0 && !st->kept))
                continue;
            if (!any)
                k->span_start = st->start;
            k->span_end = st->end;
            any = true;
        }
        if (any)
            return;
    }
}

/* One device's figures from its kernels kv[0..n) (sorted by start); ep is
   scratch for 2n ends, z for sorting them. */
static void gpu_figures(kernels *k, kernels_gpu *g, const struct kev *kv, size_t n, struct ept *ep,
                        struct ksort *z)
{
    int64_t S = k->span_start, E = k->span_end, span = E - S;
    /* utilization: the union of the kernels, in the span */
    int64_t busy = 0, cs = 0, ce = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        g->kernels++;
        g->kernel_ns += kv[i].e - kv[i].s;
        if (ce != INT64_MIN && kv[i].s <= ce) {
            if (kv[i].e > ce)
                ce = kv[i].e;
            continue;
        }
        if (ce != INT64_MIN)
            busy += clip_len(cs, ce, S, E);
        cs = kv[i].s;
        ce = kv[i].e;
    }
    if (ce != INT64_MIN)
        busy += clip_len(cs, ce, S, E);
    if (span > 0) {
        g->has_utilization = true;
        g->utilization_pct = (double)busy / (double)span * 100;
    }
    /* SM efficiency: sweep the ends of the kernels with blocks per SM > 0 */
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        if ((kv[i].flags & TRACE_KARG_BPS) && kv[i].bps > 0) {
            ep[ne++] = (struct ept){ kv[i].s, 0, kv[i].bps };
            ep[ne++] = (struct ept){ kv[i].e, 1, kv[i].bps };
        }
    if (ne && span > 0) {
        /* by (time, starts first) */
        for (size_t i = 0; i < ne; i++) {
            z->idx[i] = (uint32_t)i;
            z->key[i] = (uint64_t)ep[i].end;
        }
        radix_sort(z->key, z->idx, ne, z->tkey, z->tidx);
        for (size_t i = 0; i < ne; i++)
            z->key[i] = key_i64(ep[z->idx[i]].t);
        radix_sort(z->key, z->idx, ne, z->tkey, z->tidx);
        _Static_assert(sizeof *ep <= RADIX_ELEM_MAX,
                       "radix_permute leaves bigger elements unsorted");
        radix_permute(ep, sizeof *ep, z->idx, ne);
        double v = 0, sum = 0;
        bool any = false;
        for (size_t i = 0; i < ne; i++) {
            if (i > 0 && ep[i].t > ep[i - 1].t && v > 0) {
                int64_t len = clip_len(ep[i - 1].t, ep[i].t, S, E);
                if (len > 0) {
                    any = true;
                    sum += (v < 1 ? v : 1) * (double)len;
                }
            }
            v += ep[i].end ? -ep[i].v : ep[i].v;
        }
        if (any) {
            g->has_sm_efficiency = true;
            g->sm_efficiency_pct = sum / (double)span * 100;
        }
    }
    /* occupancy: weighted by each kernel's time in the span */
    double occ = 0;
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(kv[i].flags & TRACE_KARG_OCC) || kv[i].occ < 0)
            continue;
        int64_t len = clip_len(kv[i].s, kv[i].e, S, E);
        occ += kv[i].occ * (double)len;
        t += len;
    }
    if (t > 0) {
        g->has_occupancy = true;
        g->occupancy_pct = occ / (double)t;
    }
    /* tensor cores: of the kernels operators launched */
    int64_t tc = 0, all = 0;
    for (size_t i = 0; i < n; i++)
        if (kv[i].by_op) {
            all += kv[i].e - kv[i].s;
            if (kv[i].tc)
                tc += kv[i].e - kv[i].s;
        }
    g->tc_kernel_pct = all > 0 ? (double)tc / (double)all * 100 : 0;
    g->compute_major = g->device >= 0 && g->device < 16 ? k->m->tr->gpu_compute_major[g->device] : 0;
}

static int build_gpus(kernels *k, struct kev *kv, size_t n, bool any_by_op)
{
    if (!n)
        return 0;
    struct ksort z;
    if (ksort_init(&z, 2 * n) < 0)
        return -1;
    /* by (device, start) */
    for (size_t i = 0; i < n; i++) {
        z.idx[i] = (uint32_t)i;
        z.key[i] = key_i64(kv[i].s);
    }
    radix_sort(z.key, z.idx, n, z.tkey, z.tidx);
    for (size_t i = 0; i < n; i++)
        z.key[i] = key_i64(kv[z.idx[i]].dev);
    radix_sort(z.key, z.idx, n, z.tkey, z.tidx);
    _Static_assert(sizeof *kv <= RADIX_ELEM_MAX, "radix_permute leaves bigger elements unsorted");
    radix_permute(kv, sizeof *kv, z.idx, n);
    size_t ndev = 1;
    for (size_t i = 1; i < n; i++)
        ndev += kv[i].dev != kv[i - 1].dev;
    k->gpus = calloc(ndev, sizeof *k->gpus);
    struct ept *ep = vec_scratch(2 * n, sizeof *ep);
    if (!k->gpus || !ep) {
        free(ep);
        ksort_done(&z);
        return -1;
    }
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && kv[b].dev == kv[a].dev)
            b++;
        kernels_gpu *g = &k->gpus[k->ngpus++];
        g->device = kv[a].dev;
        g->has_tc = any_by_op;
        gpu_figures(k, g, kv + a, b - a, ep, &z);
        a = b;
    }
    free(ep);
    ksort_done(&z);
    return 0;
}

/* The AMP recommendation's share: the kernel time of the bottom
   tensor-core-eligible nodes (eligible with none eligible below them) over
   the kernel time operators launched, both counting each node's own
   launches (node_k, node_tc per node). An operator is eligible by name, or
   when it launched a tensor-core kernel or holds an eligible one. */
static int eligible_share(kernels *k, const int64_t *node_k, const int64_t *node_tc)
{
    const model *m = k->m;
    unsigned char *sub = calloc(m->nnodes ? m->nnodes : 1, 1);
    signed char *opel = malloc(m->nops ? m->nops : 1); /* -1 unknown, 0, 1 */
    if (!sub || !opel) {
        free(sub);
        free(opel);
        return -1;
    }
    memset(opel, -1, m->nops ? m->nops : 1);
    int64_t bottom = 0, all = 0;
    for (size_t i = m->nnodes; i-- > 0;) {
        const model_node *n = &m->nodes[i];
        if (n->parent == MODEL_NONE || n->gpu)
            continue;
        uint32_t op = n->op;
        if (opel[op] < 0)
            opel[op] = tensorcore_op(model_op_name(m, op), strtab_len(m->tr->strs, m->ops[op].name));
        uint32_t cat = m->ops[op].cat;
        bool cpu = cat < m->ncatkind && m->catkind[cat] == CATKIND_CPU_OP;
        bool el = opel[op] || (cpu && (sub[i] || node_tc[i] > 0));
        if (el && !sub[i])
            bottom += node_k[i];
        if (plugin_operator(m, op))
            all += node_k[i];
        if (el || sub[i])
            sub[n->parent] = 1;
    }
    k->tc_eligible_pct = all > 0 ? (double)bottom / (double)all * 100 : 0;
    free(sub);
    free(opel);
    return 0;
}

/* Whether kernel event e counts: in keep, and in m's scope (model.keep)
   when m is a scoped model. */
static bool in_scope(const model *m, const unsigned char *keep, size_t e)
{
    return (!keep || keep[e]) && (!m->keep || m->keep[e]);
}

kernels *kernels_build(const model *m, const steps *s, const unsigned char *keep,
                       t2p_error *err)
{
    return kernels_build_in(m, s, keep, NULL, err);
}

/* Whether kernel event e (launched through launch) counts under sel. */
static bool selected(const model *m, const uint8_t *sel, size_t e, uint32_t launch)
{
    if (!sel)
        return true;
    uint32_t n = gpu_work_node(m, e, launch);
    return n != MODEL_NONE && sel[n];
}

kernels *kernels_build_in(const model *m, const steps *s, const unsigned char *keep,
                          const uint8_t *sel, t2p_error *err)
{
    const trace *tr = m->tr;
    kernels *k = calloc(1, sizeof *k);
    struct kev *kv = NULL;
    int64_t *node_k = NULL, *node_tc = NULL;
    size_t nk = 0, nkv = 0, cap_rows = 0, cap_op = 0;
    hmap byname, byop;
    memset(&byname, 0, sizeof byname);
    memset(&byop, 0, sizeof byop);
    if (!k)
        goto nomem;
    k->m = m;
    size_t c0 = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        uint32_t cat = tr->events[e].cat;
        if (cat < m->ncatkind && m->catkind[cat] == CATKIND_KERNEL && in_scope(m, keep, e) &&
            (!sel || selected(m, sel, e, gpu_launch_next(m, e, &c0))))
            nk++;
    }
    kv = vec_scratch(nk, sizeof *kv);
    node_k = calloc(m->nnodes ? m->nnodes : 1, sizeof *node_k);
    node_tc = calloc(m->nnodes ? m->nnodes : 1, sizeof *node_tc);
    if (!kv || !node_k || !node_tc || hmap_init(&byname, 256) < 0 || hmap_init(&byop, 1024) < 0)
        goto nomem;
    find_span(k, s, keep);

    int64_t tc_ns = 0;
    bool any_by_op = false;
    size_t ci = 0, ki = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        const trace_event *x = &tr->events[e];
        if (x->cat >= m->ncatkind || m->catkind[x->cat] != CATKIND_KERNEL || !in_scope(m, keep, e))
            continue;
        uint32_t launch = gpu_launch_next(m, e, &ci);
        if (!selected(m, sel, e, launch))
            continue;
        while (ki < tr->nkargs && tr->kargs[ki].event < e)
            ki++;
        const trace_karg *ka = ki < tr->nkargs && tr->kargs[ki].event == e ? &tr->kargs[ki] : NULL;
        uint32_t node = gpu_launcher_node(m, launch);
        uint32_t op = node == MODEL_NONE ? MODEL_NONE : m->nodes[node].op;
        int64_t dur = x->dur;
        uint32_t kop = m->ev_node[e] == MODEL_NONE ? MODEL_NONE : m->nodes[m->ev_node[e]].op;

        uint32_t r = row_get(m, &byname, &k->rows, &k->nrows, &cap_rows, x->name, x->name,
                             MODEL_NONE, kop);
        if (r == UINT32_MAX)
            goto nomem;
        row_add(&k->rows[r], dur, ka);
        bool tc = k->rows[r].tensor_cores;
        r = row_get(m, &byop, &k->by_op, &k->nby_op, &cap_op, (uint64_t)op << 32 | x->name,
                    x->name, op, kop);
        if (r == UINT32_MAX)
            goto nomem;
        row_add(&k->by_op[r], dur, ka);

        k->kernel_events++;
        k->kernel_ns += dur;
        if (tc)
            tc_ns += dur;
        if (node == MODEL_NONE) {
            k->no_launch++;
        } else {
            node_k[node] += dur;
            if (tc)
                node_tc[node] += dur;
        }
        bool by_op = plugin_operator(m, op);
        any_by_op |= by_op;
        if (ka && (ka->flags & TRACE_KARG_DEVICE)) {
            kv[nkv++] = (struct kev){ x->ts, x->ts + dur, ka->blocks_per_sm, ka->occupancy,
                                      ka->device, ka->flags, tc, by_op };
            if ((ka->flags & TRACE_KARG_OCC) && ka->occupancy < 0)
                k->negative_occupancy++;
            if ((ka->flags & TRACE_KARG_BPS) && ka->blocks_per_sm <= 0)
                k->nonpositive_bps++;
        } else {
            k->no_device++;
        }
    }
    for (size_t i = 0; i < k->nrows; i++)
        row_finish(&k->rows[i]);
    for (size_t i = 0; i < k->nby_op; i++)
        row_finish(&k->by_op[i]);
    k->has_tc_used = k->kernel_events > 0;
    k->tc_used_pct = k->kernel_ns > 0 ? (double)tc_ns / (double)k->kernel_ns * 100 : 0;
    if (order_rows(k, k->rows, k->nrows) < 0 || order_rows(k, k->by_op, k->nby_op) < 0 ||
        build_gpus(k, kv, nkv, any_by_op) < 0 || eligible_share(k, node_k, node_tc) < 0)
        goto nomem;
    hmap_done(&byname);
    hmap_done(&byop);
    free(kv);
    free(node_k);
    free(node_tc);
    return k;
nomem:
    hmap_done(&byname);
    hmap_done(&byop);
    free(kv);
    free(node_k);
    free(node_tc);
    kernels_free(k);
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory reading the kernels");
    return NULL;
}

void kernels_free(kernels *k)
{
    if (!k)
        return;
    free(k->rows);
    free(k->by_op);
    free(k->gpus);
    free(k);
}

size_t kernels_launcher_ids(const kernels *k, uint32_t name, uint32_t *out)
{
    size_t got = 0;
    for (size_t i = 0; i < k->nby_op; i++)
        if (k->by_op[i].name == name)
            out[got++] = (uint32_t)i;
    return got;
}

void kernels_recommend(const kernels *k, steps *s)
{
    char text[400];
    if (!k || !s)
        return;
    int major = 0;
    for (int i = 0; i < 16 && !major; i++)
        major = k->m->tr->gpu_compute_major[i];
    /* TensorBoard: a GPU with tensor cores (compute capability 7.0 on), no
       kernel used them, and operators that could launched some of the time */
    if (major >= 7 && k->has_tc_used && k->tc_used_pct == 0 && k->tc_eligible_pct > 0) {
        snprintf(text, sizeof text,
                 "Kernels with %.0f%% of the operators' kernel time were launched by operators "
                 "that can use Tensor Cores, yet no kernel used them (compute capability %d): "
                 "automatic mixed precision (torch.autocast, FP16/BF16) would.",
                 k->tc_eligible_pct, major);
        steps_add_rec(s, "amp", text);
    }
    char list[200] = "";
    size_t nlow = 0, used = 0;
    for (size_t i = 0; i < k->ngpus; i++) {
        const kernels_gpu *g = &k->gpus[i];
        if (!g->has_utilization || g->utilization_pct >= KERNELS_REC_LOW_UTIL * 100)
            continue;
        int w = snprintf(list + used, sizeof list - used, "%s%d (%.1f%%)", nlow ? ", " : "",
                         g->device, g->utilization_pct);
        if (w > 0 && (size_t)w < sizeof list - used)
            used += (size_t)w;
        nlow++;
    }
    if (nlow) {
        snprintf(text, sizeof text,
                 "GPU%s %s %s kernels running under %.0f%% of the steps' span: a larger batch "
                 "keeps %s busier (it may change the speed and stability of convergence).",
                 nlow > 1 ? "s" : "", list, nlow > 1 ? "have" : "has", KERNELS_REC_LOW_UTIL * 100,
                 nlow > 1 ? "them" : "it");
        steps_add_rec(s, "gpu_low_util", text);
    }
    /* ours (TensorBoard's plugin had no such rule in any revision: it shows
       SM efficiency and occupancy without advice): kernels that run yet
       leave SMs without work, or SMs with few warps to hide latency */
    for (size_t i = 0; i < k->ngpus; i++) {
        const kernels_gpu *g = &k->gpus[i];
        if (g->has_sm_efficiency && g->has_utilization && g->utilization_pct > 0 &&
            g->sm_efficiency_pct < KERNELS_REC_SM_EFF * g->utilization_pct) {
            snprintf(text, sizeof text,
                     "GPU %d: while its kernels run, %.0f%% of its SMs have work on average "
                     "(estimated SM efficiency %.1f%% against %.1f%% utilization, under %.0f%%): "
                     "kernels with few blocks leave SMs idle; a larger batch, fused kernels "
                     "(torch.compile) or CUDA graphs give them work.",
                     g->device, g->sm_efficiency_pct / g->utilization_pct * 100,
                     g->sm_efficiency_pct, g->utilization_pct, KERNELS_REC_SM_EFF * 100);
            steps_add_rec(s, "gpu_low_sm_efficiency", text);
        }
        if (g->has_occupancy && g->occupancy_pct < KERNELS_REC_LOW_OCC) {
            snprintf(text, sizeof text,
                     "GPU %d: its kernels' estimated achieved occupancy is %.1f%% (under %.0f%%): "
                     "few warps per SM hide memory latency poorly; larger inputs, or for "
                     "custom kernels larger blocks and fewer registers per thread, raise it.",
                     g->device, g->occupancy_pct, KERNELS_REC_LOW_OCC);
            steps_add_rec(s, "gpu_low_occupancy", text);
        }
    }
}
