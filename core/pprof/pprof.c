/* The pprof export. The profile is built as protobuf-c structs over the
   model's per-track call trees, packed by protobuf-c straight into a gzip
   stream (core/pprof/pprof_out.c: a temp file beside the output, renamed into place).

   Semantics (what pprof users expect from a CPU profile):
   - one sample per kept per-track node: its stack of operators, leaf first,
     values {calls ending there, their self time, GPU time whose stack ends
     there}; so flat = self time, cum = inclusive time, total = busy time;
   - one function and one location per operator (name, category), the
     category as the function's file name, so pprof -filefunctions keeps two
     operators of one name apart while the default view merges them;
   - Python frames (core/load/pyframe.h) as functions with their file, one
     location per line: a python_function event is one frame in the tree; an
     operator's Call stack puts the frames it does not share with its
     caller's between its caller and it. Not with model opts.no_python;
   - labels thread, pid, tid on every sample, and device, stream on samples
     of GPU work (for -tagfocus). */
#include "config.h"

#include "core/pprof/pprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/hmap.h"
#include "core/pprof/profile.pb-c.h"
#include "core/load/pyframe.h"
#include "core/pprof/pprof_loc.h"
#include "core/pprof/pprof_out.h"
#include "core/base/strtab.h"
#include "core/base/vec.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__ValueType pb_valuetype;
typedef Perftools__Profiles__Mapping pb_mapping;

/* time types, then the memory ones when pprof_opts.mem is given */
enum { NTIME = 3, NVALUES = 7, MAXLABELS = 8 };

/* The labels shared by every sample of one (track, stream) pair. */
struct labelset {
    pb_label labels[MAXLABELS];
    pb_label *ptrs[MAXLABELS];
    size_t n;
};

/* A profile under construction: the protobuf-c structs and what they point
   to. Samples are not among them: each is packed while the call tree is
   walked, its stack read from one path buffer (see emit_samples), so memory
   stays linear in the tree however deep it is. */
struct build {
    const model *m;
    const uint8_t *keep;
    const shortnames *short_names; /* NULL: full function names */
    uint8_t *hide;                 /* per op: its frames hidden (pprof_opts.hide_python,
                                      modules_only); NULL: none */
    strtab *strs;
    pb_profile prof;
    pb_valuetype types[NVALUES], period_type;
    pb_valuetype *type_ptrs[NVALUES];
    pb_mapping mapping;
    pb_mapping *mapping_ptr;
    pprof_locs locs;    /* functions, locations, each node's stack length */
    uint8_t *needed;    /* per node: sampled, or above a sampled node */
    uint8_t *is_stream; /* per track: it carries GPU work */
    uint32_t maxdepth;  /* deepest sampled stack */
    size_t nsamples;
    uint64_t nstack;    /* location ids over all samples: the size of the write */
    struct labelset **sets; /* each its own allocation: samples point into them */
    size_t nsets, setcap;
    hmap setmap; /* track << 32 | stream track -> index into sets */
    hmap stepmap; /* set << 32 | node group -> index into sets (with a step label) */
    const char *const *step_labels; /* per step index (model_node.group - 1) */
    const char *const *shape_labels; /* pprof_opts.shape_labels */
    size_t nsteps;
    int64_t *comments;
    char **strings;
    bool has_rank;    /* every sample gets a numeric rank label */
    int64_t rank;
    uint64_t calls;
    int64_t total_ns, device_ns;
    /* memory samples (pprof_opts.mem): see mem_prepare / mem_samples */
    const memory *mem;
    size_t nvalues;   /* NTIME, or NVALUES with memory */
    hmap memsets;     /* set << 8 | device -> index into sets (with the device label) */
    uint64_t alloc_objects, inuse_objects;
    int64_t alloc_bytes, inuse_bytes;
};

static int64_t str_id(struct build *b, const char *s, size_t len)
{
    uint32_t id = strtab_intern_utf8(b->strs, s, len);
    return id == STRTAB_NONE ? -1 : (int64_t)id;
}

static int64_t cstr_id(struct build *b, const char *s)
{
    return str_id(b, s, strlen(s));
}

static bool node_sampled(const model *m, const uint8_t *keep, size_t i)
{
    const model_node *nd = &m->nodes[i];
    if (nd->parent == MODEL_NONE || (keep && !keep[i]))
        return false;
    /* a zero-duration call still counts as a call: only stacks with nothing
       at all (inner nodes whose time all went to their children) drop out */
    return nd->calls || nd->self_ns || nd->dev_leaf_ns;
}

/* A hidden frame's node is no call: its time goes to the stack of its
   caller, and a frame with nothing shown above it leaves nothing (as the
   model of --no-python has no such event). */
static bool py_hidden(const struct build *b, size_t i)
{
    return b->hide && b->hide[b->m->nodes[i].op];
}


bool pprof_is_module_op(const model *m, uint32_t op)
{
    return pyframe_is_cat(model_op_cat(m, op)) &&
           strncmp(model_op_name(m, op), "nn.Module: ", 11) == 0;
}

/* The per-op mask of hidden frames, or NULL (none hidden); -1 when out of
   memory. */
static int hide_prepare(struct build *b, const pprof_opts *opts)
{
    if (!opts || (!opts->hide_python && !opts->modules_only))
        return 0;
    const model *m = b->m;
    if (!(b->hide = calloc(m->nops ? m->nops : 1, 1)))
        return -1;
    for (size_t o = 0; o < m->nops; o++)
        b->hide[o] = pyframe_is_cat(model_op_cat(m, (uint32_t)o)) &&
                     !(opts->modules_only && pprof_is_module_op(m, (uint32_t)o));
    return 0;
}

static bool sample_kept(const struct build *b, size_t i)
{
    return node_sampled(b->m, b->keep, i) && !(py_hidden(b, i) && b->locs.ld[i] == 0);
}

/* "GPU 0" from process_labels, else the process name, else "pid N". */
static const char *device_label(const trace *tr, uint32_t track, char *buf, size_t size)
{
    const trace_process *p = &tr->processes[tr->tracks[track].process];
    if (p->labels != STRTAB_NONE)
        return trace_str(tr, p->labels);
    if (p->name != STRTAB_NONE)
        return trace_str(tr, p->name);
    snprintf(buf, size, "pid %s", trace_str(tr, p->pid));
    return buf;
}

static int add_label(struct build *b, struct labelset *ls, const char *key, const char *val)
{
    pb_label *l = &ls->labels[ls->n];
    perftools__profiles__label__init(l);
    l->key = cstr_id(b, key);
    l->str = cstr_id(b, val);
    if (l->key < 0 || l->str < 0)
        return -1;
    ls->ptrs[ls->n++] = l;
    return 0;
}

/* The label set of samples on track whose GPU work ran on stream (a track,
   or MODEL_NONE for CPU work). Returns its index, or -1 when out of memory. */
static int64_t labelset_get(struct build *b, const trace *tr, uint32_t track, uint32_t stream)
{
    uint64_t key = (uint64_t)track << 32 | stream;
    uint32_t i = hmap_get(&b->setmap, key);
    if (i != UINT32_MAX)
        return i;
    if (vec_grow_heap((void **)&b->sets, &b->setcap, b->nsets, sizeof *b->sets) < 0)
        return -1;
    struct labelset *ls = calloc(1, sizeof *ls);
    if (!ls)
        return -1;
    b->sets[b->nsets++] = ls; /* owned by b from here on, even when the rest fails */
    char label[512], dev[300];
    const trace_track *k = &tr->tracks[track];
    ls->n = 0;
    if (add_label(b, ls, "thread", trace_track_label(tr, track, label, sizeof label)) < 0 ||
        add_label(b, ls, "pid", trace_str(tr, tr->processes[k->process].pid)) < 0 ||
        add_label(b, ls, "tid", trace_str(tr, k->tid)) < 0)
        return -1;
    if (stream != MODEL_NONE &&
        (add_label(b, ls, "device", device_label(tr, stream, dev, sizeof dev)) < 0 ||
         add_label(b, ls, "stream", trace_track_label(tr, stream, label, sizeof label)) < 0))
        return -1;
    if (b->has_rank) {
        /* a number: -tagfocus rank=3 takes "3" for a range of numbers, so a
           string label would never match; pprof drops a numeric label of 0
           that has no unit, hence the unit */
        pb_label *l = &ls->labels[ls->n];
        perftools__profiles__label__init(l);
        if ((l->key = cstr_id(b, "rank")) < 0 || (l->num_unit = cstr_id(b, "rank")) < 0)
            return -1;
        l->num = b->rank;
        ls->ptrs[ls->n++] = l;
    }
    i = (uint32_t)(b->nsets - 1);
    if (hmap_put(&b->setmap, key, i) < 0)
        return -1;
    return i;
}

/* A new label set at the end of b->sets holding set's labels (more are
   added to it by the caller). NULL when out of memory. */
static struct labelset *labelset_copy(struct build *b, uint32_t set)
{
    if (vec_grow_heap((void **)&b->sets, &b->setcap, b->nsets, sizeof *b->sets) < 0)
        return NULL;
    struct labelset *ls = calloc(1, sizeof *ls);
    if (!ls)
        return NULL;
    b->sets[b->nsets++] = ls;
    const struct labelset *base = b->sets[set];
    for (size_t k = 0; k < base->n; k++) {
        ls->labels[k] = *base->ptrs[k];
        ls->ptrs[k] = &ls->labels[k];
    }
    ls->n = base->n;
    return ls;
}

/* The label set of a sample: set's labels plus step=N when the node holds
   the calls of one step (model_opts.group, pprof_opts.step_labels), so that
   go tool pprof -tagfocus step=1011 selects a step. Returns its index, or
   -1 when out of memory. */
static int64_t labelset_step(struct build *b, int64_t set, uint32_t group)
{
    if (set < 0 || !group || (!b->step_labels && !b->shape_labels) || group > b->nsteps)
        return set;
    uint64_t key = (uint64_t)set << 32 | group;
    uint32_t i = hmap_get(&b->stepmap, key);
    if (i != UINT32_MAX)
        return i;
    struct labelset *ls = labelset_copy(b, (uint32_t)set);
    if (!ls)
        return -1;
    /* a step number is a number label: -tagfocus step=1011 reads "1011" as
       a range of numbers and would never match a string; the unit keeps
       pprof from dropping a step 0. Other step names stay strings. */
    const char *shape = b->shape_labels ? b->shape_labels[group - 1] : NULL;
    if (shape && add_label(b, ls, "input_shape", shape) < 0)
        return -1;
    const char *name = b->step_labels ? b->step_labels[group - 1] : NULL;
    char *end;
    long long num = name ? strtoll(name, &end, 10) : 0;
    if (!name) {
        /* a group with an input shape alone */
    } else if (*name >= '0' && *name <= '9' && !*end) {
        pb_label *l = &ls->labels[ls->n];
        perftools__profiles__label__init(l);
        if ((l->key = cstr_id(b, "step")) < 0 || (l->num_unit = cstr_id(b, "step")) < 0)
            return -1;
        l->num = num;
        ls->ptrs[ls->n++] = l;
    } else if (add_label(b, ls, "step", name) < 0) {
        return -1;
    }
    i = (uint32_t)(b->nsets - 1);
    if (hmap_put(&b->stepmap, key, i) < 0)
        return -1;
    return i;
}

/* Wall-clock start of the window in ns since the epoch, or 0 when the trace
   does not say: relative timestamps without baseTimeNanoseconds (legacy
   traces, steady clocks) are not dates. */
static int64_t wall_start(const model *m)
{
    const int64_t y2000 = 946684800LL * 1000000000LL, y2100 = 4102444800LL * 1000000000LL;
    int64_t abs_ns = m->tr->base_ns + m->window_start;
    if (m->tr->has_base || (abs_ns >= y2000 && abs_ns < y2100))
        return abs_ns;
    return 0;
}

static void build_free(struct build *b)
{
    strtab_free(b->strs);
    pprof_locs_done(&b->locs);
    free(b->needed);
    free(b->hide);
    free(b->is_stream);
    for (size_t i = 0; i < b->nsets; i++)
        free(b->sets[i]);
    free(b->sets);
    hmap_done(&b->setmap);
    hmap_done(&b->stepmap);
    hmap_done(&b->memsets);
    free(b->comments);
    free(b->strings);
}

/* Marks the nodes on the stack of some sample (one backward pass: a node's
   index is greater than its parent's), then, parents first: the length of
   each stack in locations (a node adds its operator and the Call stack
   frames that are not its caller's), the locations of what the stacks use
   (the most shared first, for the shortest varints), and the samples' count
   and total length. Linear in the tree and its Call stacks. */
static int mark_stacks(struct build *b)
{
    const model *m = b->m;
    pprof_locs *L = &b->locs;
    b->needed = calloc(m->nnodes ? m->nnodes : 1, 1);
    if (!b->needed || pprof_locs_init(L, m, b->strs, b->short_names) < 0)
        return -1;
    L->hide_op = b->hide;
    for (size_t i = m->nnodes; i-- > 0;) {
        const model_node *nd = &m->nodes[i];
        if (node_sampled(m, b->keep, i))
            b->needed[i] = 1;
        if (b->needed[i] && nd->parent != MODEL_NONE && m->nodes[nd->parent].parent != MODEL_NONE)
            b->needed[nd->parent] = 1;
    }
    pprof_locs_outer(L);
    for (size_t i = 0; i < m->nnodes; i++) {
        if (!b->needed[i] || m->nodes[i].parent == MODEL_NONE)
            continue;
        if (pprof_locs_node(L, (uint32_t)i) < 0)
            return -1;
        if (sample_kept(b, i)) {
            b->nsamples++;
            b->nstack += L->ld[i];
            if (L->ld[i] > b->maxdepth)
                b->maxdepth = L->ld[i];
        }
    }
    return 0;
}

/* ---- memory samples (issue 14) ---- */

/* Interns what the memory samples' labels need before the string table is
   made: "device" and the device names, and the label sets of the tracks
   whose root holds records outside any operator. */
static int mem_prepare(struct build *b)
{
    const memory *mem = b->mem;
    if (!mem)
        return 0;
    if (cstr_id(b, "device") < 0)
        return -1;
    for (size_t d = 0; d < mem->ndevices; d++)
        if (cstr_id(b, mem->devices[d].name) < 0)
            return -1;
    const model *m = b->m;
    for (size_t i = 0; i < mem->nnodes; i++) {
        const model_node *nd = &m->nodes[mem->nodes[i].node];
        if (nd->parent == MODEL_NONE && labelset_get(b, m->tr, nd->track, MODEL_NONE) < 0)
            return -1;
    }
    return 0;
}

/* The label set `set` plus device=NAME. Its strings were interned by
   mem_prepare, so none is added after the string table. -1: out of memory. */
static int64_t labelset_device(struct build *b, uint32_t set, uint32_t dev)
{
    uint64_t key = (uint64_t)set << 8 | dev;
    uint32_t i = hmap_get(&b->memsets, key);
    if (i != UINT32_MAX)
        return i;
    struct labelset *ls = labelset_copy(b, (uint32_t)set);
    if (!ls)
        return -1;
    if (add_label(b, ls, "device", b->mem->devices[dev].name) < 0)
        return -1;
    i = (uint32_t)(b->nsets - 1);
    if (hmap_put(&b->memsets, key, i) < 0)
        return -1;
    return i;
}

/* Everything but the samples. */
static int build_profile(const model *m, const pprof_opts *opts, struct build *b)
{
    const trace *tr = m->tr;

    memset(b, 0, sizeof *b);
    b->m = m;
    b->keep = opts ? opts->keep : NULL;
    b->has_rank = opts && opts->has_rank;
    b->rank = opts ? opts->rank : 0;
    b->short_names = opts ? opts->short_names : NULL;
    perftools__profiles__profile__init(&b->prof);
    b->strs = strtab_new();
    b->step_labels = opts ? opts->step_labels : NULL;
    b->shape_labels = opts ? opts->shape_labels : NULL;
    b->nsteps = opts ? opts->nsteps : 0;
    if (!b->strs || hmap_init(&b->setmap, 64) < 0 || hmap_init(&b->stepmap, 16) < 0 ||
        str_id(b, "", 0) != 0 || hide_prepare(b, opts) < 0)
        return -1;

    static const char *const types[NVALUES][2] = {
        { "samples", "count" }, { "time", "nanoseconds" }, { "device_time", "nanoseconds" },
        { "alloc_objects", "count" }, { "alloc_space", "bytes" },
        { "inuse_objects", "count" }, { "inuse_space", "bytes" }
    };
    b->mem = opts ? opts->mem : NULL;
    b->nvalues = b->mem || (opts && opts->memory_types) ? NVALUES : NTIME;
    if (hmap_init(&b->memsets, 16) < 0)
        return -1;
    for (size_t i = 0; i < b->nvalues; i++) {
        perftools__profiles__value_type__init(&b->types[i]);
        b->types[i].type = cstr_id(b, types[i][0]);
        b->types[i].unit = cstr_id(b, types[i][1]);
        if (b->types[i].type < 0 || b->types[i].unit < 0)
            return -1;
        b->type_ptrs[i] = &b->types[i];
    }

    b->is_stream = calloc(m->ntracks ? m->ntracks : 1, 1);
    if (!b->is_stream || mark_stacks(b) < 0 || pprof_locs_finish(&b->locs) < 0)
        return -1;
    /* the model's streams, not trace_track.is_gpu: MTIA work sits on tracks
       that no "GPU n" label marks */
    for (size_t k = 0; k < m->nstreams; k++)
        b->is_stream[m->streams[k].track] = 1;
    for (size_t k = 0; k < m->ntracks; k++)
        b->is_stream[k] |= tr->tracks[k].is_gpu;

    /* comments: where the profile came from and how to read it */
    char line[1400];
    const char *extra[8];
    size_t nextra = 0;
    snprintf(line, sizeof line, "torch2pprof %s", opts && opts->tool_version ? opts->tool_version
                                                                              : PACKAGE_VERSION);
    int64_t c0 = cstr_id(b, line);
    snprintf(line, sizeof line, "source: %s", tr->path);
    int64_t c1 = cstr_id(b, line);
    int64_t c2 = cstr_id(b, "samples = calls ending at the stack; time = their self time "
                            "(flat = self, cum = inclusive, total = busy time); "
                            "device_time = GPU time launched at the stack");
    if (c0 < 0 || c1 < 0 || c2 < 0)
        return -1;
    if (tr->truncated) {
        snprintf(line, sizeof line, "truncated trace (%s): figures cover what was read",
                 tr->truncated_reason);
        extra[nextra++] = line;
    }
    size_t nuser = opts && opts->comments ? opts->ncomments : 0;
    b->comments = malloc((3 + nextra + nuser) * sizeof *b->comments);
    if (!b->comments)
        return -1;
    b->comments[0] = c0;
    b->comments[1] = c1;
    b->comments[2] = c2;
    b->prof.n_comment = 3;
    for (size_t i = 0; i < nextra + nuser; i++) {
        const char *c = i < nextra ? extra[i] : opts->comments[i - nextra];
        if ((b->comments[b->prof.n_comment++] = cstr_id(b, c)) < 0)
            return -1;
    }

    /* One mapping, the trace, marked as symbolized already: pprof then names
       it as the profile's main file and does not look for a binary. */
    perftools__profiles__mapping__init(&b->mapping);
    b->mapping.id = 1;
    const char *slash = strrchr(tr->path, '/');
    b->mapping.filename = cstr_id(b, slash ? slash + 1 : tr->path);
    if (b->mapping.filename < 0)
        return -1;
    b->mapping.has_functions = true;
    b->mapping.has_filenames = true;
    b->mapping_ptr = &b->mapping;

    perftools__profiles__value_type__init(&b->period_type);
    b->period_type.type = b->types[1].type;
    b->period_type.unit = b->types[1].unit;

    b->prof.n_sample_type = b->nvalues;
    b->prof.sample_type = b->type_ptrs;
    b->prof.n_mapping = 1;
    b->prof.mapping = &b->mapping_ptr;
    b->prof.n_location = b->locs.nlocs;
    b->prof.location = b->locs.loc_ptrs;
    b->prof.n_function = b->locs.nfuncs;
    b->prof.function = b->locs.func_ptrs;
    b->prof.comment = b->comments;
    b->prof.time_nanos = wall_start(m);
    b->prof.duration_nanos = m->window_ns;
    b->prof.period_type = &b->period_type;
    b->prof.period = 1;
    b->prof.default_sample_type = b->types[1].type;

    /* the label sets before the string table: they intern their strings */
    for (size_t i = 0; i < m->nnodes; i++) {
        if (!b->needed[i] || !sample_kept(b, i))
            continue;
        const model_node *nd = &m->nodes[i];
        uint32_t stream = nd->gpu ? nd->stream
                          : b->is_stream[nd->track] ? nd->track : MODEL_NONE;
        if (labelset_step(b, labelset_get(b, tr, nd->track, stream), nd->group) < 0)
            return -1;
    }

    if (mem_prepare(b) < 0)
        return -1;

    /* the string table last: everything above has interned its strings */
    uint32_t nstr = strtab_count(b->strs);
    b->strings = malloc(nstr * sizeof *b->strings);
    if (!b->strings)
        return -1;
    for (uint32_t i = 0; i < nstr; i++)
        b->strings[i] = (char *)strtab_str(b->strs, i);
    b->prof.n_string_table = nstr;
    b->prof.string_table = b->strings;
    return 0;
}

/* ---- packing (the sink is core/pprof/pprof_out.h) ---- */

/* One sample per device with records at node (its own, not its children's):
   zero time, the allocations made there and those still live at the end. */
static int mem_samples(struct build *b, struct pprof_sink *s, uint32_t node, uint64_t *stack,
                       uint32_t depth, uint32_t set, uint8_t **buf, size_t *bufcap)
{
    const memory *mem = b->mem;
    for (size_t d = 0; d < mem->ndevices; d++) {
        const memory_stat *st = memory_node_stat(mem, false, node, (uint32_t)d);
        if (!st || (!st->self_alloc_count && !st->live_count))
            continue;
        int64_t ls = set == UINT32_MAX ? -1 : labelset_device(b, set, (uint32_t)d);
        if (ls < 0)
            return -1;
        int64_t v[NVALUES] = { 0, 0, 0, (int64_t)st->self_alloc_count, st->self_alloc_bytes,
                               (int64_t)st->live_count, st->live_bytes };
        pb_sample sm;
        perftools__profiles__sample__init(&sm);
        sm.location_id = stack;
        sm.n_location_id = depth;
        sm.value = v;
        sm.n_value = NVALUES;
        sm.label = (pb_label **)b->sets[ls]->ptrs;
        sm.n_label = b->sets[ls]->n;
        size_t len = perftools__profiles__sample__get_packed_size(&sm);
        if (len > *bufcap) {
            free(*buf);
            *bufcap = len;
            if (!(*buf = malloc(*bufcap)))
                return -1;
        }
        perftools__profiles__sample__pack(&sm, *buf);
        pprof_sink_tag_len(s, 2, len); /* Profile.sample */
        pprof_sink_append(&s->base, len, *buf);
        b->alloc_objects += st->self_alloc_count;
        b->alloc_bytes += st->self_alloc_bytes;
        b->inuse_objects += st->live_count;
        b->inuse_bytes += st->live_bytes;
    }
    return 0;
}

/* The first needed child of n (or the next needed sibling after n). */
static uint32_t needed_from(const struct build *b, uint32_t n)
{
    while (n != MODEL_NONE && !b->needed[n])
        n = b->m->nodes[n].next_sibling;
    return n;
}

/* Packs one sample per sampled node, walking each track's tree depth first.
   The stack is read leaf first from path[cap - depth .. cap): entering a
   node writes its location at its depth, so a node's location list is its
   parent's plus one and nothing is copied. Calls the progress callback every
   few million stack entries. */
static int emit_samples(struct build *b, struct pprof_sink *s)
{
    const model *m = b->m;
    const pprof_locs *L = &b->locs;
    size_t cap = (size_t)b->maxdepth + 1;
    uint64_t *path = malloc(cap * sizeof *path);
    size_t bufcap = 4096;
    uint8_t *buf = malloc(bufcap);
    uint64_t done = 0, next_report = 0;
    int rc = -1;
    if (!path || !buf)
        goto out;
    for (size_t k = 0; k < m->ntracks; k++) {
        uint32_t root = m->tracks[k].root;
        if (root == MODEL_NONE)
            continue;
        if (b->mem && mem_samples(b, s, root, NULL, 0,
                                  hmap_get(&b->setmap, (uint64_t)k << 32 | MODEL_NONE),
                                  &buf, &bufcap) < 0)
            goto out;
        uint32_t n = needed_from(b, m->nodes[root].first_child);
        while (n != MODEL_NONE) {
            const model_node *nd = &m->nodes[n];
            pprof_locs_fill(L, n, &path[cap - L->ld[n]]);
            if (sample_kept(b, n)) {
                int64_t v[NVALUES] = { py_hidden(b, n) ? 0 : (int64_t)nd->calls, nd->self_ns,
                                       nd->dev_leaf_ns };
                uint32_t stream = nd->gpu ? nd->stream
                                  : b->is_stream[nd->track] ? nd->track : MODEL_NONE;
                uint32_t set = hmap_get(&b->setmap, (uint64_t)nd->track << 32 | stream);
                if (nd->group && (b->step_labels || b->shape_labels))
                    set = hmap_get(&b->stepmap, (uint64_t)set << 32 | nd->group);
                const struct labelset *ls = b->sets[set];
                pb_sample sm;
                perftools__profiles__sample__init(&sm);
                sm.location_id = &path[cap - L->ld[n]];
                sm.n_location_id = L->ld[n];
                sm.value = v;
                sm.n_value = b->nvalues;
                sm.label = (pb_label **)ls->ptrs;
                sm.n_label = ls->n;
                size_t len = perftools__profiles__sample__get_packed_size(&sm);
                if (len > bufcap) {
                    free(buf);
                    bufcap = len;
                    if (!(buf = malloc(bufcap)))
                        goto out;
                }
                perftools__profiles__sample__pack(&sm, buf);
                pprof_sink_tag_len(s, 2, len); /* Profile.sample */
                pprof_sink_append(&s->base, len, buf);
                b->calls += (uint64_t)v[0];
                b->total_ns += nd->self_ns;
                b->device_ns += nd->dev_leaf_ns;
                if (b->mem && mem_samples(b, s, n, &path[cap - L->ld[n]], L->ld[n], set,
                                          &buf, &bufcap) < 0)
                    goto out;
                done += L->ld[n];
                if (done >= next_report) {
                    next_report = done + (1u << 22);
                    if (s->progress && s->progress(done, b->nstack, s->progress_ctx))
                        s->cancelled = true;
                }
                if (s->failed || s->cancelled)
                    break;
            }
            uint32_t c = needed_from(b, nd->first_child);
            if (c != MODEL_NONE) {
                n = c;
                continue;
            }
            /* climb to the nearest ancestor with a needed sibling left */
            for (;;) {
                uint32_t sib = needed_from(b, m->nodes[n].next_sibling);
                if (sib != MODEL_NONE) {
                    n = sib;
                    break;
                }
                n = m->nodes[n].parent;
                if (n == root) {
                    n = MODEL_NONE;
                    break;
                }
            }
        }
        if (s->failed || s->cancelled)
            break;
    }
    rc = 0;
out:
    free(path);
    free(buf);
    return rc;
}

/* The profile in field order: sample types, the samples, then the rest, as
   three concatenated encodings of Profile (which protobuf merges: repeated
   fields append). Returns -1 when out of memory; s->failed or s->cancelled
   tell the rest. */
static int pack_profile(struct build *b, struct pprof_sink *s)
{
    pb_profile head;
    perftools__profiles__profile__init(&head);
    head.n_sample_type = b->prof.n_sample_type;
    head.sample_type = b->prof.sample_type;
    protobuf_c_message_pack_to_buffer(&head.base, &s->base);
    if (emit_samples(b, s) < 0)
        return -1;
    if (s->failed || s->cancelled)
        return 0;
    pb_profile tail = b->prof;
    tail.n_sample_type = 0;
    tail.sample_type = NULL;
    protobuf_c_message_pack_to_buffer(&tail.base, &s->base);
    return 0;
}

/* What the output side takes of opts (may be NULL). */
static struct pprof_out_opts out_opts(const pprof_opts *opts)
{
    return (struct pprof_out_opts){ .no_overwrite = opts && opts->no_overwrite,
                                    .progress = opts ? opts->progress : NULL,
                                    .progress_ctx = opts ? opts->progress_ctx : NULL };
}

static int pack_build(void *ctx, struct pprof_sink *s)
{
    return pack_profile(ctx, s);
}

int pprof_write(const model *m, const pprof_opts *opts, const char *out_path,
                pprof_summary *sum, t2p_error *err)
{
    struct build b;

    if (pprof_same_file(m->tr->path, out_path)) {
        error_set(err, T2P_ERR_ARG, out_path, -1,
                  "is the trace being converted: refusing to overwrite it");
        return -1;
    }
    if (build_profile(m, opts, &b) < 0) {
        error_set(err, T2P_ERR_NOMEM, out_path, -1, "out of memory building the profile");
        build_free(&b);
        return -1;
    }
    struct pprof_out_opts o = out_opts(opts);
    if (pprof_out_write(pack_build, &b, &o, out_path, err) < 0) {
        build_free(&b);
        return -1;
    }
    if (sum) {
        sum->samples = b.nsamples;
        sum->locations = b.prof.n_location;
        sum->functions = b.prof.n_function;
        sum->strings = b.prof.n_string_table;
        sum->calls = b.calls;
        sum->total_ns = b.total_ns;
        sum->device_ns = b.device_ns;
        sum->alloc_objects = b.alloc_objects;
        sum->alloc_bytes = b.alloc_bytes;
        sum->inuse_objects = b.inuse_objects;
        sum->inuse_bytes = b.inuse_bytes;
    }
    build_free(&b);
    return 0;
}

/* ---- for core/pprof/pprof_merge.c: a profile packed in memory ---- */

int pprof_pack_mem(const model *m, const pprof_opts *opts, uint8_t **out, size_t *len,
                   t2p_error *err)
{
    struct build b;
    struct pprof_memsink ms;
    pprof_memsink_init(&ms);
    int rc = -1;
    if (build_profile(m, opts, &b) < 0 || pack_profile(&b, &ms.s) < 0 || ms.s.failed) {
        error_set(err, T2P_ERR_NOMEM, m->tr->path, -1, "out of memory building the profile");
        pprof_memsink_done(&ms);
        goto out;
    }
    *out = ms.buf;
    *len = ms.len;
    ms.buf = NULL; /* now the caller's */
    rc = 0;
out:
    build_free(&b);
    return rc;
}

/* ---- for core/pprof/pprof_merge.c: a message written as a profile file ---- */

static int pack_message(void *ctx, struct pprof_sink *s)
{
    protobuf_c_message_pack_to_buffer(ctx, &s->base);
    return 0;
}

int pprof_write_message(const ProtobufCMessage *msg, const char *const *traces, size_t ntraces,
                        const pprof_opts *opts, const char *out_path, t2p_error *err)
{
    for (size_t i = 0; i < ntraces; i++)
        if (pprof_same_file(traces[i], out_path)) {
            error_set(err, T2P_ERR_ARG, out_path, -1,
                      "is a trace being converted: refusing to overwrite it");
            return -1;
        }
    struct pprof_out_opts o = out_opts(opts);
    return pprof_out_write(pack_message, (void *)msg, &o, out_path, err);
}
