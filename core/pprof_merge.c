/* Merging profiles. Functions and locations are identified by value: each is
   interned as the bytes of its fields (in merged string and function ids), so
   the strtab id of those bytes is its merged id - 1 and the same operator in
   two ranks' profiles becomes one function and one location. */
#include "config.h"

#include "core/pprof_merge.h"

#include <stdlib.h>
#include <string.h>

#include "core/hmap.h"
#include "core/pprof_int.h"
#include "core/profile.pb-c.h"
#include "core/strtab.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__ValueType pb_valuetype;
typedef Perftools__Profiles__Mapping pb_mapping;

struct label {
    int64_t key, str, num, num_unit;
};

struct pprof_merge {
    strtab *strs;  /* the merged string table; id 0 is "" */
    strtab *fkeys; /* function id - 1 -> name, system_name, filename, start_line */
    strtab *lkeys; /* location id - 1 -> address, is_folded, {function, line, column}... */
    size_t nadded;
    size_t nvalues;
    int64_t *types; /* nvalues (type, unit) pairs */
    int64_t period_type[2], period, default_type, drop_frames, keep_frames;
    int64_t time_start, time_end; /* ns since the epoch; time_start 0 when no profile dates */
    int64_t duration;             /* longest duration, for profiles without a date */
    size_t nsamples, capsamples;
    size_t *loc_start, *lab_start; /* per sample, and one past the last */
    uint64_t *locs;
    size_t nlocs, caplocs;
    int64_t *values;
    struct label *labs;
    size_t nlabs, caplabs;
    int64_t *comments;
    size_t ncomments, capcomments;
};

static size_t one(size_t n)
{
    return n ? n : 1;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = nc;
    return 0;
}

pprof_merge *pprof_merge_new(void)
{
    pprof_merge *pm = calloc(1, sizeof *pm);
    if (!pm)
        return NULL;
    pm->strs = strtab_new();
    pm->fkeys = strtab_new();
    pm->lkeys = strtab_new();
    pm->loc_start = malloc(sizeof *pm->loc_start);
    pm->lab_start = malloc(sizeof *pm->lab_start);
    if (!pm->strs || !pm->fkeys || !pm->lkeys || !pm->loc_start || !pm->lab_start ||
        strtab_intern(pm->strs, "", 0) != 0) {
        pprof_merge_free(pm);
        return NULL;
    }
    pm->capsamples = 1;
    pm->loc_start[0] = pm->lab_start[0] = 0;
    return pm;
}

void pprof_merge_free(pprof_merge *pm)
{
    if (!pm)
        return;
    strtab_free(pm->strs);
    strtab_free(pm->fkeys);
    strtab_free(pm->lkeys);
    free(pm->types);
    free(pm->loc_start);
    free(pm->lab_start);
    free(pm->locs);
    free(pm->values);
    free(pm->labs);
    free(pm->comments);
    free(pm);
}

/* A string index of the profile being added, as a merged id; -1 when it is
   out of range or memory ran out. */
static int64_t map_str(const int64_t *smap, size_t n, int64_t i)
{
    return i >= 0 && (size_t)i < n ? smap[i] : -1;
}

static int add_types(pprof_merge *pm, const pb_profile *p, const int64_t *smap, size_t ns)
{
    if (pm->nadded == 0) {
        pm->nvalues = p->n_sample_type;
        pm->types = malloc((pm->nvalues ? pm->nvalues : 1) * 2 * sizeof *pm->types);
        if (!pm->types)
            return -1;
        for (size_t i = 0; i < pm->nvalues; i++) {
            pm->types[2 * i] = map_str(smap, ns, p->sample_type[i]->type);
            pm->types[2 * i + 1] = map_str(smap, ns, p->sample_type[i]->unit);
        }
        if (p->period_type) {
            pm->period_type[0] = map_str(smap, ns, p->period_type->type);
            pm->period_type[1] = map_str(smap, ns, p->period_type->unit);
        }
        pm->period = p->period;
        pm->default_type = map_str(smap, ns, p->default_sample_type);
        pm->drop_frames = map_str(smap, ns, p->drop_frames);
        pm->keep_frames = map_str(smap, ns, p->keep_frames);
        return 0;
    }
    if (p->n_sample_type != pm->nvalues)
        return 1;
    for (size_t i = 0; i < pm->nvalues; i++)
        if (pm->types[2 * i] != map_str(smap, ns, p->sample_type[i]->type) ||
            pm->types[2 * i + 1] != map_str(smap, ns, p->sample_type[i]->unit))
            return 1;
    return 0;
}

static int add_comment(pprof_merge *pm, int64_t id)
{
    for (size_t i = 0; i < pm->ncomments; i++)
        if (pm->comments[i] == id)
            return 0;
    if (grow((void **)&pm->comments, &pm->capcomments, pm->ncomments + 1, sizeof *pm->comments) < 0)
        return -1;
    pm->comments[pm->ncomments++] = id;
    return 0;
}

/* Returns 0; 1 when the profile is malformed (an index out of range); -1 when
   out of memory. */
static int add_profile(pprof_merge *pm, const pb_profile *p, hmap *fmap, hmap *lmap,
                       int64_t *smap)
{
    size_t ns = p->n_string_table;
    for (size_t i = 0; i < ns; i++) {
        const char *s = p->string_table[i];
        uint32_t id = strtab_intern(pm->strs, s, strlen(s));
        if (id == STRTAB_NONE)
            return -1;
        smap[i] = id;
    }
    int r = add_types(pm, p, smap, ns);
    if (r)
        return r;
    for (size_t i = 0; i < p->n_comment; i++) {
        int64_t c = map_str(smap, ns, p->comment[i]);
        if (c < 0 || add_comment(pm, c) < 0)
            return c < 0 ? 1 : -1;
    }
    if (p->time_nanos && (!pm->time_start || p->time_nanos < pm->time_start))
        pm->time_start = p->time_nanos;
    if (p->time_nanos && p->time_nanos + p->duration_nanos > pm->time_end)
        pm->time_end = p->time_nanos + p->duration_nanos;
    if (p->duration_nanos > pm->duration)
        pm->duration = p->duration_nanos;

    for (size_t i = 0; i < p->n_function; i++) {
        const pb_function *f = p->function[i];
        int64_t key[4] = { map_str(smap, ns, f->name), map_str(smap, ns, f->system_name),
                           map_str(smap, ns, f->filename), f->start_line };
        if (key[0] < 0 || key[1] < 0 || key[2] < 0)
            return 1;
        uint32_t id = strtab_intern(pm->fkeys, (const char *)key, sizeof key);
        if (id == STRTAB_NONE || hmap_put(fmap, f->id, id + 1) < 0)
            return -1;
    }
    for (size_t i = 0; i < p->n_location; i++) {
        const pb_location *l = p->location[i];
        size_t n = 2 + 3 * l->n_line;
        int64_t stack[2 + 3 * 8], *key = n <= 26 ? stack : malloc(n * sizeof *key);
        if (!key)
            return -1;
        key[0] = (int64_t)l->address;
        key[1] = l->is_folded;
        int bad = 0;
        for (size_t k = 0; k < l->n_line; k++) {
            uint32_t f = hmap_get(fmap, l->line[k]->function_id);
            bad |= f == UINT32_MAX;
            key[2 + 3 * k] = f;
            key[3 + 3 * k] = l->line[k]->line;
            key[4 + 3 * k] = l->line[k]->column;
        }
        uint32_t id = bad ? 0 : strtab_intern(pm->lkeys, (const char *)key, n * sizeof *key);
        if (key != stack)
            free(key);
        if (bad)
            return 1;
        if (id == STRTAB_NONE || hmap_put(lmap, l->id, id + 1) < 0)
            return -1;
    }

    for (size_t i = 0; i < p->n_sample; i++) {
        const pb_sample *s = p->sample[i];
        if (s->n_value != pm->nvalues)
            return 1;
        size_t k = pm->nsamples;
        if (k + 2 > pm->capsamples) {
            /* loc_start and lab_start hold one more than the samples */
            size_t nc = pm->capsamples * 2;
            size_t *a = realloc(pm->loc_start, nc * sizeof *a);
            if (!a)
                return -1;
            pm->loc_start = a;
            size_t *b = realloc(pm->lab_start, nc * sizeof *b);
            if (!b)
                return -1;
            pm->lab_start = b;
            int64_t *v = realloc(pm->values, nc * one(pm->nvalues) * sizeof *v);
            if (!v)
                return -1;
            pm->values = v;
            pm->capsamples = nc;
        }
        if (grow((void **)&pm->locs, &pm->caplocs, pm->nlocs + s->n_location_id,
                 sizeof *pm->locs) < 0 ||
            grow((void **)&pm->labs, &pm->caplabs, pm->nlabs + s->n_label, sizeof *pm->labs) < 0)
            return -1;
        for (size_t j = 0; j < s->n_location_id; j++) {
            uint32_t l = hmap_get(lmap, s->location_id[j]);
            if (l == UINT32_MAX)
                return 1;
            pm->locs[pm->nlocs++] = l;
        }
        for (size_t j = 0; j < s->n_label; j++) {
            const pb_label *lb = s->label[j];
            struct label x = { map_str(smap, ns, lb->key), lb->str ? map_str(smap, ns, lb->str) : 0,
                               lb->num, lb->num_unit ? map_str(smap, ns, lb->num_unit) : 0 };
            if (x.key < 0 || x.str < 0 || x.num_unit < 0)
                return 1;
            pm->labs[pm->nlabs++] = x;
        }
        memcpy(&pm->values[k * pm->nvalues], s->value, pm->nvalues * sizeof *s->value);
        pm->nsamples++;
        pm->loc_start[pm->nsamples] = pm->nlocs;
        pm->lab_start[pm->nsamples] = pm->nlabs;
    }
    return 0;
}

int pprof_merge_pack(const model *m, const pprof_opts *opts, uint8_t **buf, size_t *len,
                     t2p_error *err)
{
    return pprof_pack_mem(m, opts, buf, len, err);
}

int pprof_merge_add(pprof_merge *pm, const uint8_t *buf, size_t len, const char *what,
                    t2p_error *err)
{
    pb_profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
    if (!p) {
        error_set(err, T2P_ERR_ARG, what, -1, "not a pprof profile (or out of memory reading it)");
        return -1;
    }
    hmap fmap, lmap;
    int64_t *smap = malloc((p->n_string_table ? p->n_string_table : 1) * sizeof *smap);
    int r = -1;
    memset(&fmap, 0, sizeof fmap);
    memset(&lmap, 0, sizeof lmap);
    if (smap && hmap_init(&fmap, p->n_function + 16) == 0 &&
        hmap_init(&lmap, p->n_location + 16) == 0)
        r = add_profile(pm, p, &fmap, &lmap, smap);
    if (r > 0)
        error_set(err, T2P_ERR_ARG, what, -1,
                  "cannot merge its profile: other sample types or an index out of range");
    else if (r < 0)
        error_set(err, T2P_ERR_NOMEM, what, -1, "out of memory merging its profile");
    else
        pm->nadded++;
    free(smap);
    hmap_done(&fmap);
    hmap_done(&lmap);
    perftools__profiles__profile__free_unpacked(p, NULL);
    return r ? -1 : 0;
}

/* ---- writing ---- */

struct out {
    pb_profile prof;
    pb_valuetype *types, period_type;
    pb_valuetype **type_ptrs;
    pb_mapping mapping, *mapping_ptr;
    pb_function *funcs, **func_ptrs;
    pb_location *locs, **loc_ptrs;
    pb_line *lines, **line_ptrs;
    pb_sample *samples, **sample_ptrs;
    pb_label *labels, **label_ptrs;
    char **strings;
    int64_t *comments;
};

static void out_free(struct out *o)
{
    free(o->types);
    free(o->type_ptrs);
    free(o->funcs);
    free(o->func_ptrs);
    free(o->locs);
    free(o->loc_ptrs);
    free(o->lines);
    free(o->line_ptrs);
    free(o->samples);
    free(o->sample_ptrs);
    free(o->labels);
    free(o->label_ptrs);
    free(o->strings);
    free(o->comments);
}

static int64_t get_i64(const char *p, size_t i)
{
    int64_t v;
    memcpy(&v, p + i * sizeof v, sizeof v);
    return v;
}


static int build(pprof_merge *pm, struct out *o, const char *mapping, const char *const *comments,
                 size_t ncomments)
{
    memset(o, 0, sizeof *o);
    perftools__profiles__profile__init(&o->prof);
    int64_t mapname = strtab_intern_utf8(pm->strs, mapping, strlen(mapping));
    if (mapname == STRTAB_NONE)
        return -1;
    for (size_t i = 0; i < ncomments; i++) {
        uint32_t c = strtab_intern_utf8(pm->strs, comments[i], strlen(comments[i]));
        if (c == STRTAB_NONE || add_comment(pm, c) < 0)
            return -1;
    }
    size_t nf = strtab_count(pm->fkeys), nl = strtab_count(pm->lkeys), nlines = 0;
    for (uint32_t i = 0; i < nl; i++)
        nlines += (strtab_len(pm->lkeys, i) / sizeof(int64_t) - 2) / 3;
    o->types = malloc(one(pm->nvalues) * sizeof *o->types);
    o->type_ptrs = malloc(one(pm->nvalues) * sizeof *o->type_ptrs);
    o->funcs = malloc(one(nf) * sizeof *o->funcs);
    o->func_ptrs = malloc(one(nf) * sizeof *o->func_ptrs);
    o->locs = malloc(one(nl) * sizeof *o->locs);
    o->loc_ptrs = malloc(one(nl) * sizeof *o->loc_ptrs);
    o->lines = malloc(one(nlines) * sizeof *o->lines);
    o->line_ptrs = malloc(one(nlines) * sizeof *o->line_ptrs);
    o->samples = malloc(one(pm->nsamples) * sizeof *o->samples);
    o->sample_ptrs = malloc(one(pm->nsamples) * sizeof *o->sample_ptrs);
    o->labels = malloc(one(pm->nlabs) * sizeof *o->labels);
    o->label_ptrs = malloc(one(pm->nlabs) * sizeof *o->label_ptrs);
    if (!o->types || !o->type_ptrs || !o->funcs || !o->func_ptrs || !o->locs || !o->loc_ptrs ||
        !o->lines || !o->line_ptrs || !o->samples || !o->sample_ptrs || !o->labels ||
        !o->label_ptrs)
        return -1;
    for (size_t i = 0; i < pm->nvalues; i++) {
        perftools__profiles__value_type__init(&o->types[i]);
        o->types[i].type = pm->types[2 * i];
        o->types[i].unit = pm->types[2 * i + 1];
        o->type_ptrs[i] = &o->types[i];
    }
    for (uint32_t i = 0; i < nf; i++) {
        const char *k = strtab_str(pm->fkeys, i);
        pb_function *f = &o->funcs[i];
        perftools__profiles__function__init(f);
        f->id = i + 1;
        f->name = get_i64(k, 0);
        f->system_name = get_i64(k, 1);
        f->filename = get_i64(k, 2);
        f->start_line = get_i64(k, 3);
        o->func_ptrs[i] = f;
    }
    size_t li = 0;
    for (uint32_t i = 0; i < nl; i++) {
        const char *k = strtab_str(pm->lkeys, i);
        size_t n = (strtab_len(pm->lkeys, i) / sizeof(int64_t) - 2) / 3;
        pb_location *l = &o->locs[i];
        perftools__profiles__location__init(l);
        l->id = i + 1;
        l->mapping_id = 1;
        l->address = (uint64_t)get_i64(k, 0);
        l->is_folded = get_i64(k, 1) != 0;
        l->n_line = n;
        l->line = &o->line_ptrs[li];
        for (size_t j = 0; j < n; j++, li++) {
            pb_line *ln = &o->lines[li];
            perftools__profiles__line__init(ln);
            ln->function_id = (uint64_t)get_i64(k, 2 + 3 * j);
            ln->line = get_i64(k, 3 + 3 * j);
            ln->column = get_i64(k, 4 + 3 * j);
            o->line_ptrs[li] = ln;
        }
        o->loc_ptrs[i] = l;
    }
    for (size_t i = 0; i < pm->nlabs; i++) {
        pb_label *lb = &o->labels[i];
        perftools__profiles__label__init(lb);
        lb->key = pm->labs[i].key;
        lb->str = pm->labs[i].str;
        lb->num = pm->labs[i].num;
        lb->num_unit = pm->labs[i].num_unit;
        o->label_ptrs[i] = lb;
    }
    for (size_t i = 0; i < pm->nsamples; i++) {
        pb_sample *s = &o->samples[i];
        perftools__profiles__sample__init(s);
        s->n_location_id = pm->loc_start[i + 1] - pm->loc_start[i];
        s->location_id = &pm->locs[pm->loc_start[i]];
        s->n_value = pm->nvalues;
        s->value = &pm->values[i * pm->nvalues];
        s->n_label = pm->lab_start[i + 1] - pm->lab_start[i];
        s->label = &o->label_ptrs[pm->lab_start[i]];
        o->sample_ptrs[i] = s;
    }
    perftools__profiles__mapping__init(&o->mapping);
    o->mapping.id = 1;
    o->mapping.filename = mapname;
    o->mapping.has_functions = true;
    o->mapping.has_filenames = true;
    o->mapping_ptr = &o->mapping;
    perftools__profiles__value_type__init(&o->period_type);
    o->period_type.type = pm->period_type[0];
    o->period_type.unit = pm->period_type[1];

    uint32_t nstr = strtab_count(pm->strs);
    o->strings = malloc(nstr * sizeof *o->strings);
    if (!o->strings)
        return -1;
    for (uint32_t i = 0; i < nstr; i++)
        o->strings[i] = (char *)strtab_str(pm->strs, i);

    pb_profile *p = &o->prof;
    p->n_sample_type = pm->nvalues;
    p->sample_type = o->type_ptrs;
    p->n_sample = pm->nsamples;
    p->sample = o->sample_ptrs;
    p->n_mapping = 1;
    p->mapping = &o->mapping_ptr;
    p->n_location = nl;
    p->location = o->loc_ptrs;
    p->n_function = nf;
    p->function = o->func_ptrs;
    p->n_string_table = nstr;
    p->string_table = o->strings;
    p->drop_frames = pm->drop_frames;
    p->keep_frames = pm->keep_frames;
    p->time_nanos = pm->time_start;
    p->duration_nanos = pm->time_start ? pm->time_end - pm->time_start : pm->duration;
    p->period_type = &o->period_type;
    p->period = pm->period;
    p->n_comment = pm->ncomments;
    p->comment = pm->comments;
    p->default_sample_type = pm->default_type;
    return 0;
}

/* The index of the sample type named type, or -1. */
static int64_t value_index(const pprof_merge *pm, const char *type)
{
    for (size_t i = 0; i < pm->nvalues; i++)
        if (!strcmp(strtab_str(pm->strs, (uint32_t)pm->types[2 * i]), type))
            return (int64_t)i;
    return -1;
}

int pprof_merge_write(pprof_merge *pm, const char *out_path, const char *mapping,
                      const char *const *comments, size_t ncomments,
                      const char *const *traces, size_t ntraces, pprof_summary *sum,
                      t2p_error *err)
{
    struct out o;
    if (build(pm, &o, mapping ? mapping : "", comments, ncomments) < 0) {
        out_free(&o);
        error_set(err, T2P_ERR_NOMEM, out_path, -1, "out of memory building the profile");
        return -1;
    }
    int rc = pprof_write_message(&o.prof.base, traces, ntraces, NULL, out_path, err);
    if (rc == 0 && sum) {
        memset(sum, 0, sizeof *sum);
        sum->samples = o.prof.n_sample;
        sum->locations = o.prof.n_location;
        sum->functions = o.prof.n_function;
        sum->strings = o.prof.n_string_table;
        int64_t ic = value_index(pm, "samples"), it = value_index(pm, "time"),
                id = value_index(pm, "device_time");
        for (size_t i = 0; i < pm->nsamples; i++) {
            const int64_t *v = &pm->values[i * pm->nvalues];
            sum->calls += ic >= 0 ? (uint64_t)v[ic] : 0;
            sum->total_ns += it >= 0 ? v[it] : 0;
            sum->device_ns += id >= 0 ? v[id] : 0;
        }
    }
    out_free(&o);
    return rc;
}
