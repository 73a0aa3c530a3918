/* The diff profile: both sides' profiles as pprof_write builds them, read
   back with protobuf-c and merged the way pprof's profile.Merge merges a
   -diff_base pair (google/pprof internal/driver fetch.go, profile/merge.go):
   - the header: sample types of new; period the larger; durations added;
     comments of both, each once, new's first; time as Merge's loop takes
     it: new's, replaced by base's when new has none or base's is smaller
     (a base without a time thus gives none);
   - mappings matched by file name, build id, offset and size;
   - functions matched by name, system name, file name and start line;
   - locations matched by mapping, address, lines and folding;
   - samples: new's as they are, then base's with every value times -1 and
     the label pprof::base=true.
   Going through the packed bytes keeps this file apart from the tree walk
   in pprof.c: whatever labels or values that writes, the diff carries. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/hmap.h"
#include "core/pprof.h"
#include "core/pprof_int.h"
#include "core/strtab.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__ValueType pb_valuetype;
typedef Perftools__Profiles__Mapping pb_mapping;

struct merge {
    strtab *strs;
    pb_profile prof;
    pb_valuetype *types, **type_ptrs, period_type;
    pb_mapping *maps, **map_ptrs;
    pb_function *funcs, **func_ptrs;
    pb_location *locs, **loc_ptrs;
    pb_line *lines, **line_ptrs;
    pb_sample *samples, **sample_ptrs;
    uint64_t *locids;
    int64_t *values;
    pb_label *labels, **label_ptrs;
    int64_t *comments;
    char **strings;
    hmap fkey, lkey;    /* function / location key -> index */
    size_t nlines, nlocids, nvalues, nlabels;
};

/* per side: its ids in the merged profile */
struct side {
    const pb_profile *p;
    uint32_t *str;      /* string index -> merged id */
    hmap func, loc;     /* old id -> merged id */
    uint64_t *map;      /* per mapping (position): merged id */
};

static void side_done(struct side *s)
{
    free(s->str);
    free(s->map);
    hmap_done(&s->func);
    hmap_done(&s->loc);
}

static void merge_free(struct merge *g)
{
    strtab_free(g->strs);
    free(g->types);
    free(g->type_ptrs);
    free(g->maps);
    free(g->map_ptrs);
    free(g->funcs);
    free(g->func_ptrs);
    free(g->locs);
    free(g->loc_ptrs);
    free(g->lines);
    free(g->line_ptrs);
    free(g->samples);
    free(g->sample_ptrs);
    free(g->locids);
    free(g->values);
    free(g->labels);
    free(g->label_ptrs);
    free(g->comments);
    free(g->strings);
    hmap_done(&g->fkey);
    hmap_done(&g->lkey);
}

static int64_t sid(const struct side *s, int64_t i)
{
    return i >= 0 && (size_t)i < s->p->n_string_table ? (int64_t)s->str[i] : 0;
}

static int map_strings(struct merge *g, struct side *s)
{
    const pb_profile *p = s->p;
    s->str = malloc((p->n_string_table ? p->n_string_table : 1) * sizeof *s->str);
    if (!s->str)
        return -1;
    for (size_t i = 0; i < p->n_string_table; i++) {
        const char *t = p->string_table[i];
        if ((s->str[i] = strtab_intern(g->strs, t, strlen(t))) == STRTAB_NONE)
            return -1;
    }
    return 0;
}

/* pprof rounds a mapping's size up to 4 KiB when it matches mappings */
static uint64_t map_size(const pb_mapping *m)
{
    uint64_t size = m->memory_limit - m->memory_start;
    return (size + 0xfff) & ~(uint64_t)0xfff;
}

static int merge_mappings(struct merge *g, struct side *s)
{
    const pb_profile *p = s->p;
    s->map = malloc((p->n_mapping ? p->n_mapping : 1) * sizeof *s->map);
    if (!s->map)
        return -1;
    for (size_t i = 0; i < p->n_mapping; i++) {
        pb_mapping v = *p->mapping[i];
        v.filename = sid(s, v.filename);
        v.build_id = sid(s, v.build_id);
        size_t k = 0;
        for (; k < g->prof.n_mapping; k++) {
            const pb_mapping *o = &g->maps[k];
            /* the key: size, offset, and the build id, else the file */
            if (map_size(o) == map_size(&v) && o->file_offset == v.file_offset &&
                (v.build_id ? o->build_id == v.build_id
                            : !o->build_id && o->filename == v.filename))
                break;
        }
        if (k == g->prof.n_mapping) {
            v.id = k + 1;
            g->maps[k] = v;
            g->map_ptrs[k] = &g->maps[k];
            g->prof.n_mapping++;
        }
        s->map[i] = g->maps[k].id;
    }
    return 0;
}

static uint64_t side_map(const struct side *s, uint64_t old)
{
    for (size_t i = 0; i < s->p->n_mapping; i++)
        if (s->p->mapping[i]->id == old)
            return s->map[i];
    return 0;
}

static int merge_functions(struct merge *g, struct side *s)
{
    const pb_profile *p = s->p;
    if (hmap_init(&s->func, p->n_function + 16) < 0)
        return -1;
    for (size_t i = 0; i < p->n_function; i++) {
        pb_function v = *p->function[i];
        v.name = sid(s, v.name);
        v.system_name = sid(s, v.system_name);
        v.filename = sid(s, v.filename);
        uint64_t key = hmap_mix((uint64_t)v.name << 32 ^ (uint64_t)v.filename) ^
                       hmap_mix((uint64_t)v.system_name << 32 ^ (uint64_t)v.start_line);
        uint32_t k = hmap_get(&g->fkey, key);
        const pb_function *o = k != UINT32_MAX ? &g->funcs[k] : NULL;
        if (!o || o->name != v.name || o->system_name != v.system_name ||
            o->filename != v.filename || o->start_line != v.start_line) {
            /* a hash collision (never seen) only costs a duplicate function */
            k = (uint32_t)g->prof.n_function++;
            v.id = k + 1;
            g->funcs[k] = v;
            g->func_ptrs[k] = &g->funcs[k];
            if (!o && hmap_put(&g->fkey, key, k) < 0)
                return -1;
        }
        if (hmap_put(&s->func, p->function[i]->id, (uint32_t)g->funcs[k].id) < 0)
            return -1;
    }
    return 0;
}

static bool same_location(const pb_location *a, const pb_location *b)
{
    if (a->mapping_id != b->mapping_id || a->address != b->address || a->n_line != b->n_line ||
        a->is_folded != b->is_folded)
        return false;
    for (size_t i = 0; i < a->n_line; i++)
        if (a->line[i]->function_id != b->line[i]->function_id ||
            a->line[i]->line != b->line[i]->line || a->line[i]->column != b->line[i]->column)
            return false;
    return true;
}

static int merge_locations(struct merge *g, struct side *s)
{
    const pb_profile *p = s->p;
    if (hmap_init(&s->loc, p->n_location + 16) < 0)
        return -1;
    for (size_t i = 0; i < p->n_location; i++) {
        const pb_location *src = p->location[i];
        size_t k = g->prof.n_location;
        pb_location *v = &g->locs[k];
        *v = *src;
        v->mapping_id = side_map(s, src->mapping_id);
        v->line = &g->line_ptrs[g->nlines];
        uint64_t key = hmap_mix(v->mapping_id << 20 ^ v->address ^ (uint64_t)v->is_folded);
        for (size_t j = 0; j < src->n_line; j++) {
            pb_line *ln = &g->lines[g->nlines + j];
            *ln = *src->line[j];
            uint32_t f = hmap_get(&s->func, ln->function_id);
            ln->function_id = f == UINT32_MAX ? 0 : f;
            g->line_ptrs[g->nlines + j] = ln;
            key = hmap_mix(key ^ ln->function_id << 24 ^ (uint64_t)ln->line);
        }
        uint32_t o = hmap_get(&g->lkey, key);
        if (o != UINT32_MAX && same_location(&g->locs[o], v)) {
            k = o;
        } else {
            v->id = k + 1;
            g->loc_ptrs[k] = v;
            g->prof.n_location++;
            g->nlines += src->n_line;
            if (o == UINT32_MAX && hmap_put(&g->lkey, key, (uint32_t)k) < 0)
                return -1;
        }
        if (hmap_put(&s->loc, src->id, (uint32_t)g->locs[k].id) < 0)
            return -1;
    }
    return 0;
}

static int merge_samples(struct merge *g, struct side *s, bool base, int64_t base_key,
                         int64_t true_str)
{
    const pb_profile *p = s->p;
    for (size_t i = 0; i < p->n_sample; i++) {
        const pb_sample *src = p->sample[i];
        pb_sample *v = &g->samples[g->prof.n_sample];
        perftools__profiles__sample__init(v);
        v->location_id = &g->locids[g->nlocids];
        v->n_location_id = src->n_location_id;
        for (size_t j = 0; j < src->n_location_id; j++) {
            uint32_t l = hmap_get(&s->loc, src->location_id[j]);
            g->locids[g->nlocids++] = l == UINT32_MAX ? 0 : l;
        }
        v->value = &g->values[g->nvalues];
        v->n_value = src->n_value;
        for (size_t j = 0; j < src->n_value; j++)
            g->values[g->nvalues++] = base ? -src->value[j] : src->value[j];
        v->label = &g->label_ptrs[g->nlabels];
        for (size_t j = 0; j < src->n_label; j++) {
            pb_label *l = &g->labels[g->nlabels];
            *l = *src->label[j];
            l->key = sid(s, l->key);
            l->str = sid(s, l->str);
            l->num_unit = sid(s, l->num_unit);
            g->label_ptrs[g->nlabels++] = l;
        }
        if (base) {
            pb_label *l = &g->labels[g->nlabels];
            perftools__profiles__label__init(l);
            l->key = base_key;
            l->str = true_str;
            g->label_ptrs[g->nlabels++] = l;
        }
        v->n_label = (size_t)(&g->label_ptrs[g->nlabels] - v->label);
        g->sample_ptrs[g->prof.n_sample++] = v;
    }
    return 0;
}

/* The header as Merge's combineHeaders builds it, new first. */
static int merge_header(struct merge *g, struct side sides[2])
{
    const pb_profile *n = sides[0].p;
    g->prof.n_sample_type = n->n_sample_type;
    for (size_t i = 0; i < n->n_sample_type; i++) {
        g->types[i] = *n->sample_type[i];
        g->types[i].type = sid(&sides[0], g->types[i].type);
        g->types[i].unit = sid(&sides[0], g->types[i].unit);
        g->type_ptrs[i] = &g->types[i];
    }
    g->prof.sample_type = g->type_ptrs;
    const struct side *ps = n->period_type ? &sides[0] : &sides[1];
    if (ps->p->period_type) {
        g->period_type = *ps->p->period_type;
        g->period_type.type = sid(ps, g->period_type.type);
        g->period_type.unit = sid(ps, g->period_type.unit);
        g->prof.period_type = &g->period_type;
    }
    int64_t t = 0, period = 0;
    for (int i = 0; i < 2; i++) {
        const pb_profile *p = sides[i].p;
        if (t == 0 || p->time_nanos < t)
            t = p->time_nanos;
        g->prof.duration_nanos += p->duration_nanos;
        if (period == 0 || period < p->period)
            period = p->period;
        if (!g->prof.default_sample_type)
            g->prof.default_sample_type = sid(&sides[i], p->default_sample_type);
        if (!g->prof.drop_frames)
            g->prof.drop_frames = sid(&sides[i], p->drop_frames);
        if (!g->prof.keep_frames)
            g->prof.keep_frames = sid(&sides[i], p->keep_frames);
        for (size_t j = 0; j < p->n_comment; j++) {
            int64_t c = sid(&sides[i], p->comment[j]);
            size_t k = 0;
            while (k < g->prof.n_comment && g->comments[k] != c)
                k++;
            if (k == g->prof.n_comment)
                g->comments[g->prof.n_comment++] = c;
        }
    }
    g->prof.time_nanos = t;
    g->prof.period = period;
    g->prof.comment = g->comments;
    return 0;
}

static bool same_types(const struct side *a, const struct side *b)
{
    if (a->p->n_sample_type != b->p->n_sample_type)
        return false;
    for (size_t i = 0; i < a->p->n_sample_type; i++)
        if (sid(a, a->p->sample_type[i]->type) != sid(b, b->p->sample_type[i]->type) ||
            sid(a, a->p->sample_type[i]->unit) != sid(b, b->p->sample_type[i]->unit))
            return false;
    return true;
}

static int merge_alloc(struct merge *g, const pb_profile *n, const pb_profile *b)
{
    size_t types = n->n_sample_type + 1, maps = n->n_mapping + b->n_mapping + 1;
    size_t funcs = n->n_function + b->n_function + 1, locs = n->n_location + b->n_location + 1;
    size_t lines = 1, samples = n->n_sample + b->n_sample + 1, locids = 1, values = 1;
    size_t labels = b->n_sample + 1, comments = n->n_comment + b->n_comment + 1;
    const pb_profile *ps[2] = { n, b };
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < ps[s]->n_location; i++)
            lines += ps[s]->location[i]->n_line;
        for (size_t i = 0; i < ps[s]->n_sample; i++) {
            locids += ps[s]->sample[i]->n_location_id;
            values += ps[s]->sample[i]->n_value;
            labels += ps[s]->sample[i]->n_label;
        }
    }
    g->types = calloc(types, sizeof *g->types);
    g->type_ptrs = calloc(types, sizeof *g->type_ptrs);
    g->maps = calloc(maps, sizeof *g->maps);
    g->map_ptrs = calloc(maps, sizeof *g->map_ptrs);
    g->funcs = calloc(funcs, sizeof *g->funcs);
    g->func_ptrs = calloc(funcs, sizeof *g->func_ptrs);
    g->locs = calloc(locs, sizeof *g->locs);
    g->loc_ptrs = calloc(locs, sizeof *g->loc_ptrs);
    g->lines = calloc(lines, sizeof *g->lines);
    g->line_ptrs = calloc(lines, sizeof *g->line_ptrs);
    g->samples = calloc(samples, sizeof *g->samples);
    g->sample_ptrs = calloc(samples, sizeof *g->sample_ptrs);
    g->locids = calloc(locids, sizeof *g->locids);
    g->values = calloc(values, sizeof *g->values);
    g->labels = calloc(labels, sizeof *g->labels);
    g->label_ptrs = calloc(labels, sizeof *g->label_ptrs);
    g->comments = calloc(comments, sizeof *g->comments);
    if (!g->types || !g->type_ptrs || !g->maps || !g->map_ptrs || !g->funcs || !g->func_ptrs ||
        !g->locs || !g->loc_ptrs || !g->lines || !g->line_ptrs || !g->samples ||
        !g->sample_ptrs || !g->locids || !g->values || !g->labels || !g->label_ptrs ||
        !g->comments)
        return -1;
    if (hmap_init(&g->fkey, funcs) < 0 || hmap_init(&g->lkey, locs) < 0)
        return -1;
    return 0;
}

static int merge_build(struct merge *g, struct side sides[2])
{
    perftools__profiles__profile__init(&g->prof);
    g->strs = strtab_new();
    if (!g->strs || strtab_intern(g->strs, "", 0) != 0)
        return -1;
    if (merge_alloc(g, sides[0].p, sides[1].p) < 0)
        return -1;
    for (int s = 0; s < 2; s++)
        if (map_strings(g, &sides[s]) < 0)
            return -1;
    uint32_t key = strtab_intern(g->strs, "pprof::base", 11);
    uint32_t yes = strtab_intern(g->strs, "true", 4);
    if (key == STRTAB_NONE || yes == STRTAB_NONE)
        return -1;
    if (merge_header(g, sides) < 0)
        return -1;
    for (int s = 0; s < 2; s++)
        if (merge_mappings(g, &sides[s]) < 0 || merge_functions(g, &sides[s]) < 0 ||
            merge_locations(g, &sides[s]) < 0)
            return -1;
    g->prof.mapping = g->map_ptrs;
    g->prof.function = g->func_ptrs;
    g->prof.location = g->loc_ptrs;
    for (int s = 0; s < 2; s++)
        if (merge_samples(g, &sides[s], s == 1, key, yes) < 0)
            return -1;
    g->prof.sample = g->sample_ptrs;
    uint32_t nstr = strtab_count(g->strs);
    g->strings = malloc(nstr * sizeof *g->strings);
    if (!g->strings)
        return -1;
    for (uint32_t i = 0; i < nstr; i++)
        g->strings[i] = (char *)strtab_str(g->strs, i);
    g->prof.n_string_table = nstr;
    g->prof.string_table = g->strings;
    return 0;
}

int pprof_write_diff(const model *base, const pprof_opts *base_opts, const model *new,
                     const pprof_opts *new_opts, const char *out_path, pprof_summary *sum,
                     t2p_error *err)
{
    const model *ms[2] = { new, base };
    const pprof_opts *os[2] = { new_opts, base_opts };
    pb_profile *ps[2] = { NULL, NULL };
    struct side sides[2];
    struct merge g;
    int rc = -1;

    memset(sides, 0, sizeof sides);
    memset(&g, 0, sizeof g);
    for (int s = 0; s < 2; s++) {
        uint8_t *buf = NULL;
        size_t len = 0;
        if (pprof_pack_mem(ms[s], os[s], &buf, &len, err) < 0)
            goto out;
        ps[s] = perftools__profiles__profile__unpack(NULL, len, buf);
        free(buf);
        if (!ps[s]) {
            error_set(err, T2P_ERR_NOMEM, out_path, -1, "out of memory reading a profile back");
            goto out;
        }
        sides[s].p = ps[s];
    }
    if (merge_build(&g, sides) < 0) {
        error_set(err, T2P_ERR_NOMEM, out_path, -1, "out of memory merging the profiles");
        goto out;
    }
    if (!same_types(&sides[0], &sides[1])) {
        /* pprof refuses such a pair too ("incompatible sample types") */
        error_set(err, T2P_ERR_ARG, out_path, -1, "the two profiles have different sample types");
        goto out;
    }
    const char *traces[2] = { base->tr->path, new->tr->path };
    if (pprof_write_message(&g.prof.base, traces, 2, new_opts, out_path, err) < 0)
        goto out;
    if (sum) {
        memset(sum, 0, sizeof *sum);
        sum->samples = g.prof.n_sample;
        sum->locations = g.prof.n_location;
        sum->functions = g.prof.n_function;
        sum->strings = g.prof.n_string_table;
        for (size_t i = 0; i < g.prof.n_sample; i++) {
            const pb_sample *sm = g.prof.sample[i];
            if (sm->n_value >= 3) {
                sum->calls += (uint64_t)sm->value[0];
                sum->total_ns += sm->value[1];
                sum->device_ns += sm->value[2];
            }
            /* the heap types (pprof.c's order); the object counts net of
               base's can be negative: they wrap, as calls do */
            if (sm->n_value >= 7) {
                sum->alloc_objects += (uint64_t)sm->value[3];
                sum->alloc_bytes += sm->value[4];
                sum->inuse_objects += (uint64_t)sm->value[5];
                sum->inuse_bytes += sm->value[6];
            }
        }
    }
    rc = 0;
out:
    merge_free(&g);
    for (int s = 0; s < 2; s++) {
        side_done(&sides[s]);
        if (ps[s])
            perftools__profiles__profile__free_unpacked(ps[s], NULL);
    }
    return rc;
}
