/* Merging profiles: the one engine behind the job profile of many ranks and
   the diff profile of --base (a difference is a merge with the base's values
   negated). Mappings, functions and locations are identified by value: each
   is interned as the bytes of its fields (in merged string, mapping and
   function ids), so the strtab id of those bytes is its merged id - 1 and the
   same operator in two profiles becomes one function and one location.

   Two header policies, as the two outputs mean different things:
   - a job (pprof_merge_new): the ranks ran at once; one mapping named at
     write time, the time span from the earliest start to the latest end;
   - a diff (pprof_write_diff): what `go tool pprof -proto -diff_base` writes
     (google/pprof profile/merge.go): mappings matched by file name or build
     id, offset and size; durations added; the time as Merge's loop takes it
     (new's, replaced by base's when new has none or base's is smaller); base
     samples negated and labelled pprof::base=true. */
#include "config.h"

#include "core/pprof/pprof_merge.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/hmap.h"
#include "core/pprof/profile.pb-c.h"
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

struct label {
    int64_t key, str, num, num_unit;
};

/* One merged mapping: its fields in merged string ids. */
struct mapping {
    uint64_t memory_start, memory_limit, file_offset;
    int64_t filename, build_id;
    bool has_functions, has_filenames, has_line_numbers, has_inline_frames;
};

struct pprof_merge {
    bool diff;     /* the diff's header and mappings (see above), else a job's */
    strtab *strs;  /* the merged string table; id 0 is "" */
    strtab *mkeys; /* mapping id - 1 -> build id or file, offset, size (diff only) */
    struct mapping *maps;
    size_t capmaps;
    strtab *fkeys; /* function id - 1 -> name, system_name, filename, start_line */
    strtab *lkeys; /* location id - 1 -> address, is_folded, {function, line, column}... */
    size_t nadded;
    size_t nvalues;
    int64_t *types; /* nvalues (type, unit) pairs */
    int64_t period_type[2], period, default_type, drop_frames, keep_frames;
    int64_t time_start, time_end; /* ns since the epoch; time_start 0 when no profile dates */
    int64_t duration;             /* job: the longest; diff: the sum */
    bool has_period_type;
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

/* Room for need elements: vec_grow_heap's room for element need - 1. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return need ? vec_grow_heap(p, cap, need - 1, elem) : 0;
}

static pprof_merge *merge_new(bool diff)
{
    pprof_merge *pm = calloc(1, sizeof *pm);
    if (!pm)
        return NULL;
    pm->diff = diff;
    pm->strs = strtab_new();
    pm->mkeys = strtab_new();
    pm->fkeys = strtab_new();
    pm->lkeys = strtab_new();
    pm->loc_start = malloc(sizeof *pm->loc_start);
    pm->lab_start = malloc(sizeof *pm->lab_start);
    if (!pm->strs || !pm->mkeys || !pm->fkeys || !pm->lkeys || !pm->loc_start ||
        !pm->lab_start ||
        strtab_intern(pm->strs, "", 0) != 0) {
        pprof_merge_free(pm);
        return NULL;
    }
    pm->capsamples = 1;
    pm->loc_start[0] = pm->lab_start[0] = 0;
    return pm;
}

pprof_merge *pprof_merge_new(void)
{
    return merge_new(false);
}

void pprof_merge_free(pprof_merge *pm)
{
    if (!pm)
        return;
    strtab_free(pm->strs);
    strtab_free(pm->mkeys);
    free(pm->maps);
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

/* More sample types than the profiles merged so far have (which are the
   start of p's): the samples merged get zeros for the new ones. */
static int widen_types(pprof_merge *pm, const pb_profile *p, const int64_t *smap, size_t ns)
{
    size_t old = pm->nvalues, n = p->n_sample_type;
    int64_t *t = realloc(pm->types, n * 2 * sizeof *t);
    if (!t)
        return -1;
    pm->types = t;
    for (size_t i = old; i < n; i++) {
        t[2 * i] = map_str(smap, ns, p->sample_type[i]->type);
        t[2 * i + 1] = map_str(smap, ns, p->sample_type[i]->unit);
    }
    if (pm->capsamples) {
        int64_t *v = realloc(pm->values, pm->capsamples * n * sizeof *v);
        if (!v)
            return -1;
        pm->values = v;
        /* from the last row: each moves to a place at or after its own */
        for (size_t k = pm->nsamples; k-- > 0;) {
            memmove(v + k * n, v + k * old, old * sizeof *v);
            memset(v + k * n + old, 0, (n - old) * sizeof *v);
        }
    }
    pm->nvalues = n;
    return 0;
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
    } else {
        /* a job's ranks with and without [memory] events: the time types
           and then the heap ones, or the time types alone (a profile made
           before every rank's carried them). One being the start of the
           other, the shorter is read with zeros for the types it lacks. A
           diff's two sides must match as pprof's -diff_base wants. */
        size_t n = p->n_sample_type < pm->nvalues ? p->n_sample_type : pm->nvalues;
        if (pm->diff && p->n_sample_type != pm->nvalues)
            return 1;
        for (size_t i = 0; i < n; i++)
            if (pm->types[2 * i] != map_str(smap, ns, p->sample_type[i]->type) ||
                pm->types[2 * i + 1] != map_str(smap, ns, p->sample_type[i]->unit))
                return 1;
        if (p->n_sample_type > pm->nvalues && widen_types(pm, p, smap, ns) < 0)
            return -1;
    }
    /* as Merge's combineHeaders: the first of each, the larger period */
    if (p->period_type && !pm->has_period_type) {
        pm->period_type[0] = map_str(smap, ns, p->period_type->type);
        pm->period_type[1] = map_str(smap, ns, p->period_type->unit);
        pm->has_period_type = true;
    }
    if (pm->period == 0 || pm->period < p->period)
        pm->period = p->period;
    if (pm->default_type <= 0)
        pm->default_type = map_str(smap, ns, p->default_sample_type);
    if (pm->drop_frames <= 0)
        pm->drop_frames = map_str(smap, ns, p->drop_frames);
    if (pm->keep_frames <= 0)
        pm->keep_frames = map_str(smap, ns, p->keep_frames);
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

/* What is done to every sample of one added profile. */
struct side_opts {
    bool negate;         /* values times -1: the base of a diff */
    int64_t label_key;   /* a string label added to each sample (merged ids), or 0 */
    int64_t label_str;
};

/* pprof rounds a mapping's size up to 4 KiB when it matches mappings */
static uint64_t map_size(const pb_mapping *m)
{
    uint64_t size = m->memory_limit - m->memory_start;
    return (size + 0xfff) & ~(uint64_t)0xfff;
}

/* The diff's mappings, merged as pprof matches them: size, offset, and the
   build id, else the file. Fills mmap (old mapping id -> merged id).
   Returns 0, 1 when malformed, -1 when out of memory. */
static int add_mappings(pprof_merge *pm, const pb_profile *p, hmap *mmap, const int64_t *smap,
                        size_t ns)
{
    for (size_t i = 0; i < p->n_mapping; i++) {
        const pb_mapping *m = p->mapping[i];
        struct mapping v = { m->memory_start, m->memory_limit, m->file_offset,
                             map_str(smap, ns, m->filename), map_str(smap, ns, m->build_id),
                             m->has_functions, m->has_filenames, m->has_line_numbers,
                             m->has_inline_frames };
        if (v.filename < 0 || v.build_id < 0)
            return 1;
        int64_t key[4] = { (int64_t)map_size(m), (int64_t)m->file_offset,
                           v.build_id ? 0 : v.filename, v.build_id };
        uint32_t n = strtab_count(pm->mkeys);
        uint32_t id = strtab_intern(pm->mkeys, (const char *)key, sizeof key);
        if (id == STRTAB_NONE)
            return -1;
        if (id == n) {
            if (grow((void **)&pm->maps, &pm->capmaps, n + 1, sizeof *pm->maps) < 0)
                return -1;
            pm->maps[n] = v;
        }
        if (hmap_put(mmap, m->id, id + 1) < 0)
            return -1;
    }
    return 0;
}

/* Returns 0; 1 when the profile is malformed (an index out of range); -1 when
   out of memory. */
static int add_profile(pprof_merge *pm, const pb_profile *p, hmap *fmap, hmap *lmap,
                       hmap *mmap, int64_t *smap, const struct side_opts *so)
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
    if (pm->diff) {
        /* Merge's loop, new first: a profile without a time clears it */
        if (pm->nadded == 0 || pm->time_start == 0 || p->time_nanos < pm->time_start)
            pm->time_start = p->time_nanos;
        pm->duration += p->duration_nanos;
        if ((r = add_mappings(pm, p, mmap, smap, ns)) != 0)
            return r;
    } else {
        if (p->time_nanos && (!pm->time_start || p->time_nanos < pm->time_start))
            pm->time_start = p->time_nanos;
        if (p->time_nanos && p->time_nanos + p->duration_nanos > pm->time_end)
            pm->time_end = p->time_nanos + p->duration_nanos;
        if (p->duration_nanos > pm->duration)
            pm->duration = p->duration_nanos;
    }

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
        size_t n = 3 + 3 * l->n_line;
        int64_t stack[3 + 3 * 8], *key = n <= 27 ? stack : malloc(n * sizeof *key);
        if (!key)
            return -1;
        key[0] = (int64_t)l->address;
        key[1] = l->is_folded;
        /* a job's locations share its one mapping; a diff keeps pprof's */
        uint32_t mid = pm->diff && l->mapping_id ? hmap_get(mmap, l->mapping_id) : 0;
        int bad = mid == UINT32_MAX;
        key[2] = mid;
        for (size_t k = 0; k < l->n_line; k++) {
            uint32_t f = hmap_get(fmap, l->line[k]->function_id);
            bad |= f == UINT32_MAX;
            key[3 + 3 * k] = f;
            key[4 + 3 * k] = l->line[k]->line;
            key[5 + 3 * k] = l->line[k]->column;
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
        if (s->n_value != p->n_sample_type || s->n_value > pm->nvalues)
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
            grow((void **)&pm->labs, &pm->caplabs, pm->nlabs + s->n_label + 1,
                 sizeof *pm->labs) < 0)
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
        if (so && so->label_key)
            pm->labs[pm->nlabs++] = (struct label){ so->label_key, so->label_str, 0, 0 };
        for (size_t j = 0; j < pm->nvalues; j++) {
            int64_t x = j < s->n_value ? s->value[j] : 0; /* a type it lacks: 0 */
            pm->values[k * pm->nvalues + j] = so && so->negate ? -x : x;
        }
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

/* pprof_merge_add, with what is done to the samples (so may be NULL). */
static int merge_add(pprof_merge *pm, const uint8_t *buf, size_t len, const char *what,
                     const struct side_opts *so, t2p_error *err)
{
    pb_profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
    if (!p) {
        error_set(err, T2P_ERR_ARG, what, -1, "not a pprof profile (or out of memory reading it)");
        return -1;
    }
    hmap fmap, lmap, mmap;
    int64_t *smap = malloc((p->n_string_table ? p->n_string_table : 1) * sizeof *smap);
    int r = -1;
    memset(&fmap, 0, sizeof fmap);
    memset(&lmap, 0, sizeof lmap);
    memset(&mmap, 0, sizeof mmap);
    if (smap && hmap_init(&fmap, p->n_function + 16) == 0 &&
        hmap_init(&lmap, p->n_location + 16) == 0 && hmap_init(&mmap, p->n_mapping + 4) == 0)
        r = add_profile(pm, p, &fmap, &lmap, &mmap, smap, so);
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
    hmap_done(&mmap);
    perftools__profiles__profile__free_unpacked(p, NULL);
    return r ? -1 : 0;
}

int pprof_merge_add(pprof_merge *pm, const uint8_t *buf, size_t len, const char *what,
                    t2p_error *err)
{
    return merge_add(pm, buf, len, what, NULL, err);
}

/* ---- writing ---- */

struct out {
    pb_profile prof;
    pb_valuetype *types, period_type;
    pb_valuetype **type_ptrs;
    pb_mapping *mappings, **mapping_ptrs;
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
    free(o->mappings);
    free(o->mapping_ptrs);
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
    int64_t mapname = 0;
    if (!pm->diff && (mapname = strtab_intern_utf8(pm->strs, mapping, strlen(mapping))) ==
                         STRTAB_NONE)
        return -1;
    for (size_t i = 0; i < ncomments; i++) {
        uint32_t c = strtab_intern_utf8(pm->strs, comments[i], strlen(comments[i]));
        if (c == STRTAB_NONE || add_comment(pm, c) < 0)
            return -1;
    }
    size_t nf = strtab_count(pm->fkeys), nl = strtab_count(pm->lkeys), nlines = 0;
    size_t nm = pm->diff ? strtab_count(pm->mkeys) : 1;
    for (uint32_t i = 0; i < nl; i++)
        nlines += (strtab_len(pm->lkeys, i) / sizeof(int64_t) - 3) / 3;
    o->mappings = malloc(one(nm) * sizeof *o->mappings);
    o->mapping_ptrs = malloc(one(nm) * sizeof *o->mapping_ptrs);
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
    if (!o->mappings || !o->mapping_ptrs || !o->types || !o->type_ptrs || !o->funcs || !o->func_ptrs || !o->locs || !o->loc_ptrs ||
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
        size_t n = (strtab_len(pm->lkeys, i) / sizeof(int64_t) - 3) / 3;
        pb_location *l = &o->locs[i];
        perftools__profiles__location__init(l);
        l->id = i + 1;
        l->mapping_id = pm->diff ? (uint64_t)get_i64(k, 2) : 1;
        l->address = (uint64_t)get_i64(k, 0);
        l->is_folded = get_i64(k, 1) != 0;
        l->n_line = n;
        l->line = &o->line_ptrs[li];
        for (size_t j = 0; j < n; j++, li++) {
            pb_line *ln = &o->lines[li];
            perftools__profiles__line__init(ln);
            ln->function_id = (uint64_t)get_i64(k, 3 + 3 * j);
            ln->line = get_i64(k, 4 + 3 * j);
            ln->column = get_i64(k, 5 + 3 * j);
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
    for (size_t i = 0; i < nm; i++) {
        pb_mapping *m = &o->mappings[i];
        perftools__profiles__mapping__init(m);
        m->id = i + 1;
        if (pm->diff) {
            const struct mapping *v = &pm->maps[i];
            m->memory_start = v->memory_start;
            m->memory_limit = v->memory_limit;
            m->file_offset = v->file_offset;
            m->filename = v->filename;
            m->build_id = v->build_id;
            m->has_functions = v->has_functions;
            m->has_filenames = v->has_filenames;
            m->has_line_numbers = v->has_line_numbers;
            m->has_inline_frames = v->has_inline_frames;
        } else {
            m->filename = mapname;
            m->has_functions = true;
            m->has_filenames = true;
        }
        o->mapping_ptrs[i] = m;
    }
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
    p->n_mapping = nm;
    p->mapping = o->mapping_ptrs;
    p->n_location = nl;
    p->location = o->loc_ptrs;
    p->n_function = nf;
    p->function = o->func_ptrs;
    p->n_string_table = nstr;
    p->string_table = o->strings;
    p->drop_frames = pm->drop_frames;
    p->keep_frames = pm->keep_frames;
    p->time_nanos = pm->time_start;
    p->duration_nanos = pm->diff || !pm->time_start ? pm->duration
                                                     : pm->time_end - pm->time_start;
    p->period_type = pm->has_period_type ? &o->period_type : NULL;
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

/* Writes the merged profile (opts: no_overwrite and progress, or NULL). */
static int merge_write(pprof_merge *pm, const char *out_path, const char *mapping,
                       const char *const *comments, size_t ncomments, const char *const *traces,
                       size_t ntraces, const pprof_opts *opts, pprof_summary *sum,
                       t2p_error *err)
{
    struct out o;
    if (build(pm, &o, mapping ? mapping : "", comments, ncomments) < 0) {
        out_free(&o);
        error_set(err, T2P_ERR_NOMEM, out_path, -1, "out of memory building the profile");
        return -1;
    }
    int rc = pprof_write_message(&o.prof.base, traces, ntraces, opts, out_path, err);
    if (rc == 0 && sum) {
        memset(sum, 0, sizeof *sum);
        sum->samples = o.prof.n_sample;
        sum->locations = o.prof.n_location;
        sum->functions = o.prof.n_function;
        sum->strings = o.prof.n_string_table;
        int64_t ic = value_index(pm, "samples"), it = value_index(pm, "time"),
                id = value_index(pm, "device_time"), ao = value_index(pm, "alloc_objects"),
                as = value_index(pm, "alloc_space"), io = value_index(pm, "inuse_objects"),
                is = value_index(pm, "inuse_space");
        /* a diff's sums are net of the base's; counts below zero wrap, as
           they always did */
        for (size_t i = 0; i < pm->nsamples; i++) {
            const int64_t *v = &pm->values[i * pm->nvalues];
            sum->calls += ic >= 0 ? (uint64_t)v[ic] : 0;
            sum->total_ns += it >= 0 ? v[it] : 0;
            sum->device_ns += id >= 0 ? v[id] : 0;
            sum->alloc_objects += ao >= 0 ? (uint64_t)v[ao] : 0;
            sum->alloc_bytes += as >= 0 ? v[as] : 0;
            sum->inuse_objects += io >= 0 ? (uint64_t)v[io] : 0;
            sum->inuse_bytes += is >= 0 ? v[is] : 0;
        }
    }
    out_free(&o);
    return rc;
}

int pprof_merge_write(pprof_merge *pm, const char *out_path, const char *mapping,
                      const char *const *comments, size_t ncomments,
                      const char *const *traces, size_t ntraces, pprof_summary *sum,
                      t2p_error *err)
{
    return merge_write(pm, out_path, mapping, comments, ncomments, traces, ntraces, NULL, sum,
                       err);
}

/* ---- the diff: a merge with the base negated ---- */

int pprof_write_diff(const model *base, const pprof_opts *base_opts, const model *new,
                     const pprof_opts *new_opts, const char *out_path, pprof_summary *sum,
                     t2p_error *err)
{
    pprof_merge *pm = merge_new(true);
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = -1;
    if (!pm) {
        error_set(err, T2P_ERR_NOMEM, out_path, -1, "out of memory merging the profiles");
        return -1;
    }
    /* new's samples as they are, then base's negated and marked as pprof
       marks them */
    if (pprof_pack_mem(new, new_opts, &buf, &len, err) < 0 ||
        merge_add(pm, buf, len, new->tr->path, NULL, err) < 0)
        goto out;
    free(buf);
    buf = NULL;
    struct side_opts so = { .negate = true };
    so.label_key = strtab_intern(pm->strs, "pprof::base", 11);
    so.label_str = strtab_intern(pm->strs, "true", 4);
    if (so.label_key == STRTAB_NONE || so.label_str == STRTAB_NONE) {
        error_set(err, T2P_ERR_NOMEM, out_path, -1, "out of memory merging the profiles");
        goto out;
    }
    if (pprof_pack_mem(base, base_opts, &buf, &len, err) < 0)
        goto out;
    if (merge_add(pm, buf, len, base->tr->path, &so, err) < 0) {
        /* pprof refuses such a pair too ("incompatible sample types") */
        if (err->kind == T2P_ERR_ARG)
            error_set(err, T2P_ERR_ARG, out_path, -1,
                      "the two profiles have different sample types");
        goto out;
    }
    const char *traces[2] = { base->tr->path, new->tr->path };
    rc = merge_write(pm, out_path, NULL, NULL, 0, traces, 2, new_opts, sum, err);
out:
    free(buf);
    pprof_merge_free(pm);
    return rc;
}
