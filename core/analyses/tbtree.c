/* TensorBoard's operator tree (see tbtree.h for the rules and why they are
   not the model's). O(n log n): one sort of the candidate nodes, then
   linear passes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/analyses/tbtree.h"
#include "core/analyses/tensorcore.h"
#include "core/analyses/tbtree_bwd.h"
#include "core/base/hmap.h"
#include "core/model/catkind.h"
#include "core/base/vec.h"

/* A candidate node while building. */
struct cand {
    uint32_t event;
    uint32_t group;  /* the rank of its tid, in order of first appearance */
    uint32_t parent, first_child, last_child, next_sibling;
    uint32_t rt_src; /* the candidate whose runtime calls it has (remove_dup_nodes) */
    uint8_t kind;
    bool op_type, is_operator, dropped, absorbed, tc_eligible;
    uint32_t operators;
    int64_t rt_host, rt_dev, rt_tc;     /* its own runtime calls (by External id) */
    int64_t child_dur, child_dev, child_tc, op_child_dev;
    bool child_elig;
    uint32_t post;
    uint32_t copies; /* how many times the plugin's tree holds it (tbtree_bwd_regroup) */
    int64_t self_ns, dev_self, dev_total, tc_self, tc_total;
};

static const char *const comm_names[] = {
    "nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter",
    "gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter",
};

static bool starts(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && !memcmp(s, p, k);
}

static bool ends(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && !memcmp(s + n - k, p, k);
}

static bool is_name(const char *s, size_t n, const char *p)
{
    return strlen(p) == n && !memcmp(s, p, n);
}

static enum catkind kind_of(const model *m, uint32_t cat)
{
    if (cat < m->ncatkind)
        return (enum catkind)m->catkind[cat];
    const trace *tr = m->tr;
    return catkind_of(trace_str(tr, cat), strtab_len(tr->strs, cat));
}

/* Whether event e is a node, and of what kind (the plugin's
   create_trace_event and create_operator_node). */
static bool classify(const model *m, uint32_t e, bool module, struct cand *c)
{
    const trace *tr = m->tr;
    const trace_event *ev = &tr->events[e];
    enum catkind k = kind_of(m, ev->cat);
    const char *name = trace_str(tr, ev->name);
    size_t n = strtab_len(tr->strs, ev->name);
    bool ann = k == CATKIND_USER_ANNOTATION || k == CATKIND_GPU_ANNOTATION;
    /* an event without category reads as cpu_op to the model (the legacy
       profiler); the plugin had no type for it */
    bool op = k == CATKIND_CPU_OP && strtab_len(tr->strs, ev->cat) > 0;
    c->op_type = false;
    if (k == CATKIND_PYTHON_FUNCTION) {
        if (!module)
            return false;
        c->kind = TBTREE_MODULE;
        return true;
    }
    if (!op && !ann && k != CATKIND_PYTHON)
        return false;
    if ((op || ann) && catkind_step_name(name, n)) {
        c->kind = TBTREE_STEP;
        return true;
    }
    c->op_type = op;
    if ((starts(name, n, "enumerate(DataLoader)#") && ends(name, n, ".__next__")) ||
        starts(name, n, "enumerate(DataPipe)#")) {
        c->kind = TBTREE_DATALOADER;
        return true;
    }
    if (starts(name, n, "Optimizer.step")) {
        c->kind = TBTREE_OPTIMIZER;
        return true;
    }
    if (ann) {
        bool comm = false;
        for (size_t i = 0; i < sizeof comm_names / sizeof comm_names[0]; i++)
            comm = comm || is_name(name, n, comm_names[i]);
        if (!comm)
            return false;
    }
    c->kind = TBTREE_OP;
    c->is_operator = op && !is_name(name, n, "DataParallel.forward") &&
                     !is_name(name, n, "DistributedDataParallel.forward") &&
                     !starts(name, n, "Optimizer.");
    return true;
}

/* qsort's context (C11 has none): per thread, as ranks_load's and pair's
   workers build models and their analyses on threads of their own */
static _Thread_local const trace_event *sort_ev;
static _Thread_local const struct cand *sort_c;

/* by thread, then (start, -end), then file order (Python's stable sort) */
static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = &sort_c[*(const uint32_t *)a], *y = &sort_c[*(const uint32_t *)b];
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    const trace_event *ex = &sort_ev[x->event], *ey = &sort_ev[y->event];
    if (ex->ts != ey->ts)
        return ex->ts < ey->ts ? -1 : 1;
    int64_t ax = ex->ts + ex->dur, ay = ey->ts + ey->dur;
    if (ax != ay)
        return ax > ay ? -1 : 1;
    return x->event < y->event ? -1 : x->event > y->event;
}

/* by start time, then file order */
static int cmp_ts(const void *a, const void *b)
{
    const struct cand *x = &sort_c[*(const uint32_t *)a], *y = &sort_c[*(const uint32_t *)b];
    const trace_event *ex = &sort_ev[x->event], *ey = &sort_ev[y->event];
    if (ex->ts != ey->ts)
        return ex->ts < ey->ts ? -1 : 1;
    return x->event < y->event ? -1 : x->event > y->event;
}

static void add_child(struct cand *c, uint32_t p, uint32_t k)
{
    c[k].parent = p;
    if (c[p].first_child == MODEL_NONE)
        c[p].first_child = k;
    else
        c[c[p].last_child].next_sibling = k;
    c[p].last_child = k;
}

/* remove_dup_nodes on candidate k (not absorbed): while its only child is
   an operator of its name (both of operator category), take the child's
   children and runtime calls in its place. */
static void absorb(struct cand *c, const trace *tr, uint32_t k, uint64_t *absorbed)
{
    for (;;) {
        uint32_t ch = c[k].first_child;
        if (ch == MODEL_NONE || c[ch].next_sibling != MODEL_NONE)
            return;
        if (!c[k].op_type || !c[ch].op_type ||
            tr->events[c[k].event].name != tr->events[ch == MODEL_NONE ? 0 : c[ch].event].name)
            return;
        c[ch].absorbed = true;
        (*absorbed)++;
        c[k].first_child = c[ch].first_child;
        c[k].last_child = c[ch].last_child;
        c[k].rt_src = c[ch].rt_src;
        for (uint32_t g = c[k].first_child; g != MODEL_NONE; g = c[g].next_sibling)
            c[g].parent = k;
    }
}

tbtree *tbtree_build(const model *m, t2p_error *err)
{
    const trace *tr = m->tr;
    tbtree *t = calloc(1, sizeof *t);
    struct cand *c = NULL;
    uint32_t *ord = NULL, *stack = NULL, *newidx = NULL;
    hmap groups = { 0 }, byext = { 0 }, tcname = { 0 };
    if (!t || hmap_init(&groups, 64) < 0 || hmap_init(&byext, 1024) < 0 ||
        hmap_init(&tcname, 256) < 0)
        goto nomem;
    t->m = m;

    /* the candidates, in file order */
    size_t nc = 0, cap = 0, py = 0;
    uint32_t ngroups = 0;
    for (size_t e = 0; e < tr->nevents; e++) {
        while (py < tr->npyids && tr->pyids[py].event < e)
            py++;
        bool module = py < tr->npyids && tr->pyids[py].event == e &&
                      (tr->pyids[py].has & TRACE_PY_MODULE);
        struct cand x = { 0 };
        if (!classify(m, (uint32_t)e, module, &x))
            continue;
        if (vec_grow_heap((void **)&c, &cap, nc, sizeof *c) < 0)
            goto nomem;
        x.event = (uint32_t)e;
        x.parent = x.first_child = x.last_child = x.next_sibling = MODEL_NONE;
        x.rt_src = (uint32_t)nc;
        c[nc++] = x;
    }

    /* The plugin reads the events sorted by start time (a stable sort):
       its threads come in the order of their first node by time, and a
       runtime call goes to the first node with its External id, by thread
       then by time; an nn.Module call has none (the plugin drops its id),
       like an event without one. */
    ord = malloc((nc ? nc : 1) * sizeof *ord);
    stack = malloc((nc ? nc : 1) * sizeof *stack);
    if (!ord || !stack)
        goto nomem;
    for (size_t i = 0; i < nc; i++)
        ord[i] = (uint32_t)i;
    sort_ev = tr->events;
    sort_c = c;
    qsort(ord, nc, sizeof *ord, cmp_ts);
    for (size_t i = 0; i < nc; i++) {
        struct cand *x = &c[ord[i]];
        uint32_t tid = tr->tracks[tr->events[x->event].track].tid;
        uint32_t g = hmap_get(&groups, tid);
        if (g == UINT32_MAX) {
            g = ngroups++;
            if (hmap_put(&groups, tid, g) < 0)
                goto nomem;
        }
        x->group = g;
        uint64_t key = x->kind == TBTREE_MODULE ? 0 : tr->events[x->event].ext;
        uint32_t have = hmap_get(&byext, key);
        if ((have == UINT32_MAX || c[have].group > g) && hmap_put(&byext, key, ord[i]) < 0)
            goto nomem;
    }

    /* runtime calls and the GPU work they launched */
    for (size_t e = 0; e < tr->nevents; e++) {
        const trace_event *ev = &tr->events[e];
        if (kind_of(m, ev->cat) != CATKIND_RUNTIME)
            continue;
        uint32_t o = hmap_get(&byext, ev->ext);
        if (o != UINT32_MAX)
            c[o].rt_host += ev->dur;
    }
    for (size_t i = 0; m->corr_launch && i < tr->ncorrs; i++) {
        uint32_t r = m->corr_launch[i];
        if (r == MODEL_NONE || kind_of(m, tr->events[r].cat) != CATKIND_RUNTIME)
            continue;
        const trace_event *g = &tr->events[tr->corrs[i].event];
        enum catkind gk = kind_of(m, g->cat);
        if (gk != CATKIND_KERNEL && gk != CATKIND_MEMCPY && gk != CATKIND_MEMSET)
            continue;
        uint32_t o = hmap_get(&byext, tr->events[r].ext);
        if (o == UINT32_MAX)
            continue;
        c[o].rt_dev += g->dur;
        /* per kernel name once: millions of launches share a few hundred names */
        uint32_t tc = hmap_get(&tcname, g->name);
        if (tc == UINT32_MAX) {
            tc = tensorcore_kernel(trace_str(tr, g->name), strtab_len(tr->strs, g->name));
            if (hmap_put(&tcname, g->name, tc) < 0)
                goto nomem;
        }
        if (tc)
            c[o].rt_tc += g->dur;
    }

    /* nesting per thread */
    for (size_t i = 0; i < nc; i++)
        ord[i] = (uint32_t)i;
    qsort(ord, nc, sizeof *ord, cmp_cand);
    size_t sp = 0;
    for (size_t i = 0; i < nc; i++) {
        uint32_t k = ord[i];
        if (i && c[ord[i - 1]].group != c[k].group)
            sp = 0;
        const trace_event *ev = &tr->events[c[k].event];
        int64_t end = ev->ts + ev->dur;
        while (sp) {
            const trace_event *tv = &tr->events[c[stack[sp - 1]].event];
            if (ev->ts < tv->ts + tv->dur)
                break;
            sp--;
        }
        if (sp) {
            const trace_event *tv = &tr->events[c[stack[sp - 1]].event];
            if (end > tv->ts + tv->dur) {
                c[k].dropped = true;
                t->dropped++;
                continue;
            }
            add_child(c, stack[sp - 1], k);
        }
        stack[sp++] = k;
    }
    for (size_t i = 0; i < nc; i++)
        if (!c[ord[i]].dropped && !c[ord[i]].absorbed)
            absorb(c, tr, ord[i], &t->absorbed);

    /* figures, children before parents (later in the sorted order) */
    for (size_t i = nc; i-- > 0;) {
        struct cand *x = &c[ord[i]];
        if (x->dropped || x->absorbed)
            continue;
        const trace_event *ev = &tr->events[x->event];
        const struct cand *s = &c[x->rt_src];
        x->self_ns = ev->dur - x->child_dur - s->rt_host;
        x->dev_total = x->child_dev + s->rt_dev;
        x->dev_self = s->rt_dev + (x->kind == TBTREE_MODULE ? x->op_child_dev : 0);
        x->tc_self = s->rt_tc;
        x->tc_total = x->child_tc + s->rt_tc;
        x->tc_eligible = tensorcore_op(trace_str(tr, ev->name), strtab_len(tr->strs, ev->name)) ||
                         (x->op_type && x->kind != TBTREE_STEP && (x->child_elig || s->rt_tc > 0));
        if (x->parent != MODEL_NONE) {
            struct cand *p = &c[x->parent];
            p->child_dur += ev->dur;
            p->child_dev += x->dev_total;
            p->child_tc += x->tc_total;
            p->child_elig = p->child_elig || x->tc_eligible;
            if (x->is_operator) {
                p->operators++;
                p->op_child_dev += x->dev_total;
            }
        }
    }

    /* the plugin's operator list order: per thread, children before
       their parent (get_operator_and_kernels) */
    uint32_t rank = 0;
    for (size_t i = 0; i < nc; i++) {
        uint32_t r = ord[i];
        if (c[r].dropped || c[r].absorbed || c[r].parent != MODEL_NONE)
            continue;
        /* iterative post-order from root r */
        size_t top = 0;
        stack[top++] = r;
        uint32_t k = r;
        while (c[k].first_child != MODEL_NONE) {
            k = c[k].first_child;
            stack[top++] = k;
        }
        while (top) {
            k = stack[--top];
            c[k].post = rank++;
            if (top && c[k].next_sibling != MODEL_NONE) {
                k = c[k].next_sibling;
                stack[top++] = k;
                while (c[k].first_child != MODEL_NONE) {
                    k = c[k].first_child;
                    stack[top++] = k;
                }
            }
        }
    }

    /* what the plugin regroups when modules and flows meet (see tbtree.h) */
    for (size_t i = 0; i < nc; i++)
        c[i].copies = 1;
    if (tr->nflows) {
        tbtree_bwd_node *bn = malloc((nc ? nc : 1) * sizeof *bn);
        uint32_t *copies = malloc((nc ? nc : 1) * sizeof *copies);
        int rc = bn && copies ? 0 : -1;
        for (size_t i = 0; i < nc && rc == 0; i++)
            bn[i] = (tbtree_bwd_node){ c[i].event, c[i].group, c[i].parent, c[i].first_child,
                                       c[i].next_sibling, c[i].kind == TBTREE_MODULE,
                                       c[i].kind == TBTREE_STEP, c[i].is_operator,
                                       !c[i].dropped && !c[i].absorbed };
        if (rc == 0)
            rc = tbtree_bwd_regroup(tr, bn, nc, ord, copies, &t->backward_roots,
                                    &t->backward_dropped);
        for (size_t i = 0; i < nc && rc == 0; i++)
            c[i].copies = copies[i];
        free(bn);
        free(copies);
        if (rc < 0)
            goto nomem;
    }

    /* the nodes left, in the sorted order */
    newidx = malloc((nc ? nc : 1) * sizeof *newidx);
    t->nodes = malloc((nc ? nc : 1) * sizeof *t->nodes);
    if (!newidx || !t->nodes)
        goto nomem;
    for (size_t i = 0; i < nc; i++) {
        const struct cand *x = &c[ord[i]];
        newidx[ord[i]] = x->dropped || x->absorbed ? MODEL_NONE : (uint32_t)t->n++;
    }
    for (size_t i = 0; i < nc; i++) {
        const struct cand *x = &c[ord[i]];
        if (x->dropped || x->absorbed)
            continue;
        const trace_event *ev = &tr->events[x->event];
        t->nodes[newidx[ord[i]]] = (tbtree_node){
            .event = x->event,
            .parent = x->parent == MODEL_NONE ? MODEL_NONE : newidx[x->parent],
            .first_child = x->first_child == MODEL_NONE ? MODEL_NONE : newidx[x->first_child],
            .next_sibling = x->next_sibling == MODEL_NONE ? MODEL_NONE : newidx[x->next_sibling],
            .kind = x->kind, .op_type = x->op_type, .is_operator = x->is_operator,
            .tc_eligible = x->tc_eligible, .operators = x->operators, .post = x->post,
            .self_ns = x->self_ns, .total_ns = ev->dur,
            .dev_self_ns = x->dev_self, .dev_total_ns = x->dev_total,
            .tc_self_ns = x->tc_self, .tc_total_ns = x->tc_total, .copies = x->copies,
        };
    }
    free(c);
    free(ord);
    free(stack);
    free(newidx);
    hmap_done(&groups);
    hmap_done(&byext);
    hmap_done(&tcname);
    return t;
nomem:
    error_set(err, T2P_ERR_NOMEM, tr->path, -1, "out of memory");
    free(c);
    free(ord);
    free(stack);
    free(newidx);
    hmap_done(&groups);
    hmap_done(&byext);
    hmap_done(&tcname);
    tbtree_free(t);
    return NULL;
}

void tbtree_free(tbtree *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t);
}
