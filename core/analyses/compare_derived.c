/* Steps and memory of two traces side by side; see core/analyses/compare_derived.h. */
#include "config.h"

#include "core/analyses/compare_derived.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void steps_side(const steps *s, int64_t *out, size_t *nsteps, size_t *nkept, bool *whole)
{
    memset(out, 0, COMPARE_STEPS_NROWS * sizeof *out);
    *nsteps = *nkept = 0;
    *whole = false;
    if (!s)
        return;
    for (int r = 0; r < STEPS_NROLES; r++)
        out[r] = s->avg_role_ns[r];
    out[COMPARE_STEPS_DUR] = s->avg_duration_ns;
    out[COMPARE_STEPS_GPU] = s->avg_gpu_busy_ns;
    *nsteps = s->nsteps;
    *nkept = s->nkept;
    *whole = s->whole_trace;
}

void compare_steps_fill(const steps *b, const steps *n, compare_steps *out)
{
    steps_side(b, out->b, &out->b_steps, &out->b_kept, &out->b_whole);
    steps_side(n, out->n, &out->n_steps, &out->n_kept, &out->n_whole);
}

const char *compare_steps_title(int row)
{
    if (row >= 0 && row < STEPS_NROLES)
        return steps_role_title((enum steps_role)row);
    return row == COMPARE_STEPS_DUR ? "Step duration" : row == COMPARE_STEPS_GPU ? "GPU busy" : "";
}

/* A side's (op, device) row with its sort key, for the merge. */
struct side_row {
    const char *name, *cat, *dev;
    uint32_t op;
    const memory_stat *st;
};

static int cmp_side(const void *pa, const void *pb)
{
    const struct side_row *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (!c)
        c = strcmp(a->cat, b->cat);
    return c ? c : strcmp(a->dev, b->dev);
}

static struct side_row *side_rows(const memory *m, size_t *n)
{
    *n = m ? m->nops : 0;
    struct side_row *v = malloc((*n ? *n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < *n; i++) {
        const memory_op *o = &m->ops[i];
        v[i] = (struct side_row){ model_op_name(m->m, o->op), model_op_cat(m->m, o->op),
                                  m->devices[o->device].name, o->op, &o->st };
    }
    if (*n > 1)
        qsort(v, *n, sizeof *v, cmp_side);
    return v;
}

static int64_t abs64(int64_t x)
{
    return x < 0 ? -x : x;
}

static int cmp_row(const void *pa, const void *pb)
{
    const compare_mem_row *a = pa, *b = pb;
    int64_t da = abs64(a->n.alloc_bytes - a->b.alloc_bytes);
    int64_t db = abs64(b->n.alloc_bytes - b->b.alloc_bytes);
    if (da != db)
        return da > db ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->dev < b->dev ? -1 : (a->dev > b->dev);
}

static uint32_t dev_index(compare_mem *c, const char *name)
{
    for (size_t i = 0; i < c->ndevs; i++)
        if (!strcmp(c->devs[i].name, name))
            return (uint32_t)i;
    return UINT32_MAX;
}

/* The devices of both sides, CPU first then GPUs in order (each side's
   order already is), matched by name. */
static int pair_devices(compare_mem *c, const memory *b, const memory *n)
{
    size_t nb = b ? b->ndevices : 0, nn = n ? n->ndevices : 0;
    if (!(c->devs = calloc(nb + nn ? nb + nn : 1, sizeof *c->devs)))
        return -1;
    for (int side = 0; side < 2; side++) {
        const memory *m = side ? n : b;
        for (size_t i = 0; m && i < m->ndevices; i++) {
            const memory_device *d = &m->devices[i];
            uint32_t k = dev_index(c, d->name);
            if (k == UINT32_MAX) {
                k = (uint32_t)c->ndevs++;
                snprintf(c->devs[k].name, sizeof c->devs[k].name, "%s", d->name);
                c->devs[k].status = side ? COMPARE_ADDED : COMPARE_REMOVED;
            } else {
                c->devs[k].status = COMPARE_BOTH;
            }
            compare_mem_dev *x = &c->devs[k];
            if (side) {
                x->n_peak = d->peak_bytes, x->n_allocs = d->allocs, x->n_alloc_bytes = d->alloc_bytes;
            } else {
                x->b_peak = d->peak_bytes, x->b_allocs = d->allocs, x->b_alloc_bytes = d->alloc_bytes;
            }
        }
    }
    return 0;
}

compare_mem *compare_mem_build(const memory *b, const memory *n, t2p_error *err)
{
    size_t nb = 0, nn = 0;
    compare_mem *c = calloc(1, sizeof *c);
    struct side_row *rb = side_rows(b, &nb), *rn = side_rows(n, &nn);
    if (!c || !rb || !rn || pair_devices(c, b, n) < 0 ||
        !(c->rows = malloc((nb + nn ? nb + nn : 1) * sizeof *c->rows)))
        goto nomem;
    size_t i = 0, j = 0;
    while (i < nb || j < nn) {
        int o = i >= nb ? 1 : j >= nn ? -1 : cmp_side(&rb[i], &rn[j]);
        compare_mem_row *r = &c->rows[c->nrows++];
        memset(r, 0, sizeof *r);
        r->b_op = r->n_op = MODEL_NONE;
        const struct side_row *x = o > 0 ? &rn[j] : &rb[i];
        r->name = o >= 0 ? rn[j].name : x->name;
        r->cat = o >= 0 ? rn[j].cat : x->cat;
        r->dev = dev_index(c, x->dev);
        r->status = o < 0 ? COMPARE_REMOVED : o > 0 ? COMPARE_ADDED : COMPARE_BOTH;
        if (o <= 0) {
            r->b = *rb[i].st;
            r->b_op = rb[i++].op;
        }
        if (o >= 0) {
            r->n = *rn[j].st;
            r->n_op = rn[j++].op;
        }
    }
    if (c->nrows > 1)
        qsort(c->rows, c->nrows, sizeof *c->rows, cmp_row);
    free(rb);
    free(rn);
    return c;
nomem:
    free(rb);
    free(rn);
    compare_mem_free(c);
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory comparing the memory figures");
    return NULL;
}

void compare_mem_free(compare_mem *c)
{
    if (!c)
        return;
    free(c->devs);
    free(c->rows);
    free(c);
}
