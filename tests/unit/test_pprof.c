/* Unit tests of the pprof export and the selection: the written profile is
   gunzipped and decoded with protobuf-c, and its figures recomputed from the
   samples the way pprof does (flat from the leaf, cum once per function per
   sample) and compared with the model's. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "core/model/model.h"
#include "core/pprof/pprof.h"
#include "core/pprof/export.h"
#include "core/pprof/pprof_merge.h"
#include "core/pprof/profile.pb-c.h"
#include "core/model/select.h"
#include "core/load/trace.h"
#include "tests/unit/unit.h"
#include "tests/unit/unit_pprof.h"

typedef Perftools__Profiles__Profile pb_profile;

/* ---- fixtures ---- */

static char tmpdir[64];

static int setup_dir(void **state)
{
    (void)state;
    unit_dir_make(tmpdir, "/tmp/t2p-pprof-XXXXXX");
    return 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    unit_dir_remove(tmpdir);
    return 0;
}

static char *path_in(const char *name)
{
    char *p = malloc(strlen(tmpdir) + strlen(name) + 2);
    sprintf(p, "%s/%s", tmpdir, name);
    return p;
}

static char *write_file(const char *name, const char *text)
{
    char *p = path_in(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* files in tmpdir whose name ends with suffix */
static int count_files(const char *suffix)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    int n = 0;
    size_t sl = strlen(suffix);
    assert_non_null(d);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l >= sl && strcmp(e->d_name + l - sl, suffix) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* One CPU thread with nesting (A holds B, C overlapping, D; E straddles A's
   end; Z takes no time), a second thread, step markers. */
static const char cpu_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":1,\"args\":{\"name\":\"pt_main_thread\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":2,\"args\":{\"name\":\"pt_autograd_0\"}},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":10,\"tid\":1,\"ts\":0,\"dur\":200},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":10,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":10,\"tid\":1,\"ts\":10,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"C\",\"pid\":10,\"tid\":1,\"ts\":30,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"D\",\"pid\":10,\"tid\":1,\"ts\":70,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"E\",\"pid\":10,\"tid\":1,\"ts\":90,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"Z\",\"pid\":10,\"tid\":1,\"ts\":50,\"dur\":0},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":10,\"tid\":1,\"ts\":300,\"dur\":50},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":10,\"tid\":1,\"ts\":310,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":10,\"tid\":2,\"ts\":0,\"dur\":40},"
    "{\"ph\":\"X\",\"cat\":\"other\",\"name\":\"B\",\"pid\":10,\"tid\":2,\"ts\":5,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"D\",\"pid\":10,\"tid\":2,\"ts\":50,\"dur\":7}"
    "], \"baseTimeNanoseconds\": 1700000000000000000}";

/* aten::mm launches gemm twice, on two streams; "lost" has no launch. */
static const char gpu_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 \"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":8,\"args\":{\"name\":\"stream 8 \"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":10,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":10,\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":40,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":8,\"ts\":60,\"dur\":30,\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"lost\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":5,\"args\":{\"correlation\":99}}"
    "]}";

struct loaded {
    char *path;
    trace *tr;
    model *m;
};

static void load(struct loaded *l, const char *name, const char *text, bool keep_steps)
{
    t2p_error err;
    model_opts mo = { .keep_steps = keep_steps };
    l->path = write_file(name, text);
    l->tr = trace_load(l->path, NULL, &err);
    assert_non_null(l->tr);
    l->m = model_build(l->tr, &mo, &err);
    assert_non_null(l->m);
}

static void unload(struct loaded *l)
{
    model_free(l->m);
    trace_free(l->tr);
    unlink(l->path);
    free(l->path);
}

/* ---- pprof's figures, recomputed from the decoded profile ---- */

struct figures {
    size_t nfunc;
    int64_t (*flat)[3]; /* by function id */
    int64_t (*cum)[3];
    int64_t total[3];
};

static const char *pstr(const pb_profile *p, int64_t i)
{
    assert_true(i >= 0 && (size_t)i < p->n_string_table);
    return p->string_table[i];
}

static uint64_t loc_func(const pb_profile *p, uint64_t loc)
{
    for (size_t i = 0; i < p->n_location; i++)
        if (p->location[i]->id == loc) {
            assert_int_equal(p->location[i]->n_line, 1);
            return p->location[i]->line[0]->function_id;
        }
    fail_msg("no location %llu", (unsigned long long)loc);
    return 0;
}

static void figures_of(const pb_profile *p, struct figures *f)
{
    memset(f, 0, sizeof *f);
    f->nfunc = p->n_function + 1;
    f->flat = calloc(f->nfunc, sizeof *f->flat);
    f->cum = calloc(f->nfunc, sizeof *f->cum);
    uint8_t *seen = calloc(f->nfunc, 1);
    for (size_t s = 0; s < p->n_sample; s++) {
        const Perftools__Profiles__Sample *sm = p->sample[s];
        assert_int_equal(sm->n_value, 3);
        assert_true(sm->n_location_id > 0);
        memset(seen, 0, f->nfunc);
        for (size_t k = 0; k < sm->n_location_id; k++) {
            uint64_t fid = loc_func(p, sm->location_id[k]);
            assert_true(fid > 0 && fid < f->nfunc);
            for (int v = 0; v < 3; v++) {
                if (k == 0)
                    f->flat[fid][v] += sm->value[v];
                if (!seen[fid])
                    f->cum[fid][v] += sm->value[v];
            }
            seen[fid] = 1;
        }
        for (int v = 0; v < 3; v++)
            f->total[v] += sm->value[v];
    }
    free(seen);
}

static void figures_free(struct figures *f)
{
    free(f->flat);
    free(f->cum);
}

static uint64_t func_id(const pb_profile *p, const char *name, const char *file)
{
    for (size_t i = 0; i < p->n_function; i++) {
        const Perftools__Profiles__Function *fn = p->function[i];
        if (strcmp(pstr(p, fn->name), name) == 0 && strcmp(pstr(p, fn->filename), file) == 0)
            return fn->id;
    }
    return 0;
}

static const char *label_of(const pb_profile *p, const Perftools__Profiles__Sample *s,
                            const char *key)
{
    for (size_t i = 0; i < s->n_label; i++)
        if (strcmp(pstr(p, s->label[i]->key), key) == 0)
            return pstr(p, s->label[i]->str);
    return NULL;
}

/* Writes m (with keep) to out.pb.gz and decodes it. */
static pb_profile *export(const model *m, const uint8_t *keep, pprof_summary *sum)
{
    t2p_error err;
    char *out = path_in("out.pb.gz");
    pprof_opts po = { .keep = keep, .tool_version = "test" };
    int rc = pprof_write(m, &po, out, sum, &err);
    if (rc != 0)
        fail_msg("pprof_write: %s", err.reason);
    assert_int_equal(count_files(".tmp"), 0);
    pb_profile *p = unit_read_profile(out);
    unlink(out);
    free(out);
    return p;
}

/* ---- tests ---- */

static void test_structure(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "cpu.json", cpu_trace, false);
    pprof_summary sum;
    pb_profile *p = export(l.m, NULL, &sum);

    assert_string_equal(pstr(p, 0), "");
    assert_int_equal(p->n_sample_type, 3);
    assert_string_equal(pstr(p, p->sample_type[0]->type), "samples");
    assert_string_equal(pstr(p, p->sample_type[0]->unit), "count");
    assert_string_equal(pstr(p, p->sample_type[1]->type), "time");
    assert_string_equal(pstr(p, p->sample_type[1]->unit), "nanoseconds");
    assert_string_equal(pstr(p, p->sample_type[2]->type), "device_time");
    assert_string_equal(pstr(p, p->default_sample_type), "time");
    assert_string_equal(pstr(p, p->period_type->type), "time");
    assert_int_equal(p->time_nanos, 1700000000000000000LL);
    assert_int_equal(p->duration_nanos, l.m->window_ns);
    bool has_source = false;
    for (size_t i = 0; i < p->n_comment; i++)
        has_source |= strstr(pstr(p, p->comment[i]), "cpu.json") != NULL;
    assert_true(has_source);

    /* one location and one function per op, ids nonzero and distinct */
    assert_int_equal(p->n_function, l.m->nops);
    assert_int_equal(p->n_location, l.m->nops);
    for (size_t i = 0; i < p->n_location; i++) {
        assert_true(p->location[i]->id >= 1 && p->location[i]->id <= p->n_location);
        for (size_t j = 0; j < i; j++)
            assert_true(p->location[i]->id != p->location[j]->id);
    }
    assert_int_equal(sum.samples, p->n_sample);
    assert_int_equal(sum.locations, p->n_location);
    assert_int_equal(sum.functions, p->n_function);
    assert_int_equal(sum.strings, p->n_string_table);
    assert_int_equal(sum.total_ns, l.m->busy_ns);
    perftools__profiles__profile__free_unpacked(p, NULL);
    unload(&l);
}

/* flat = self and calls of every op; cum = inclusive time where no call has
   overlapping children; total = busy; zero-time calls kept. */
static void test_flat_cum(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "cpu.json", cpu_trace, false);
    pb_profile *p = export(l.m, NULL, NULL);
    struct figures f;
    figures_of(p, &f);
    const model *m = l.m;
    uint64_t calls = 0;
    for (size_t i = 0; i < m->nops; i++) {
        const model_op *o = &m->ops[i];
        uint64_t fid = func_id(p, model_op_name(m, (uint32_t)i), model_op_cat(m, (uint32_t)i));
        assert_true(fid > 0);
        assert_int_equal(f.flat[fid][0], o->calls);
        assert_int_equal(f.flat[fid][1], o->self_ns);
        if (!o->overlap)
            assert_int_equal(f.cum[fid][1], o->total_ns);
        calls += o->calls;
    }
    assert_int_equal(f.total[0], calls);
    assert_int_equal(f.total[1], m->busy_ns);
    /* hand-worked: A self 20 us, Z one call of 0, merged steps */
    assert_int_equal(f.flat[func_id(p, "A", "cpu_op")][1], 20000);
    assert_int_equal(f.flat[func_id(p, "Z", "cpu_op")][0], 1);
    assert_int_equal(f.flat[func_id(p, "Z", "cpu_op")][1], 0);
    assert_int_equal(f.flat[func_id(p, "ProfilerStep*", "user_annotation")][0], 2);
    /* B in two categories: two functions of one name, file = category */
    assert_int_equal(f.flat[func_id(p, "B", "other")][1], 10000);
    assert_int_equal(f.flat[func_id(p, "B", "cpu_op")][1], 30000 + 20000 + 30000);
    /* the sample of A > B > ... is leaf first: B's location, then A's */
    bool found = false;
    uint64_t a = func_id(p, "A", "cpu_op"), b = func_id(p, "B", "cpu_op");
    for (size_t s = 0; s < p->n_sample; s++) {
        const Perftools__Profiles__Sample *sm = p->sample[s];
        if (sm->n_location_id == 3 && loc_func(p, sm->location_id[0]) == b &&
            loc_func(p, sm->location_id[1]) == a) {
            found = true;
            assert_int_equal(loc_func(p, sm->location_id[2]),
                             func_id(p, "ProfilerStep*", "user_annotation"));
        }
    }
    assert_true(found);
    figures_free(&f);
    perftools__profiles__profile__free_unpacked(p, NULL);
    unload(&l);

    /* --keep-steps keeps the steps apart, as analyze does */
    load(&l, "cpu.json", cpu_trace, true);
    p = export(l.m, NULL, NULL);
    figures_of(p, &f);
    assert_int_equal(func_id(p, "ProfilerStep*", "user_annotation"), 0);
    assert_int_equal(f.flat[func_id(p, "ProfilerStep#2", "user_annotation")][1], 30000);
    figures_free(&f);
    perftools__profiles__profile__free_unpacked(p, NULL);
    unload(&l);
}

static void test_labels(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "cpu.json", cpu_trace, false);
    pb_profile *p = export(l.m, NULL, NULL);
    uint64_t d = func_id(p, "D", "cpu_op");
    int main_d = 0, autograd_d = 0;
    for (size_t s = 0; s < p->n_sample; s++) {
        const Perftools__Profiles__Sample *sm = p->sample[s];
        assert_non_null(label_of(p, sm, "thread"));
        assert_string_equal(label_of(p, sm, "pid"), "10");
        assert_null(label_of(p, sm, "device"));
        if (loc_func(p, sm->location_id[0]) != d)
            continue;
        const char *t = label_of(p, sm, "thread"), *tid = label_of(p, sm, "tid");
        if (strcmp(t, "pt_main_thread") == 0) {
            assert_string_equal(tid, "1");
            main_d++;
        } else {
            assert_string_equal(t, "pt_autograd_0");
            assert_string_equal(tid, "2");
            autograd_d++;
        }
    }
    /* one sample per (stack, track): D on each thread */
    assert_int_equal(main_d, 1);
    assert_int_equal(autograd_d, 1);
    perftools__profiles__profile__free_unpacked(p, NULL);
    unload(&l);
}

static void test_gpu(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "gpu.json", gpu_trace, false);
    const model *m = l.m;
    pprof_summary sum;
    pb_profile *p = export(m, NULL, &sum);
    struct figures f;
    figures_of(p, &f);
    assert_int_equal(m->gpu_ns, 75000);
    assert_int_equal(f.total[2], m->gpu_ns);
    assert_int_equal(sum.device_ns, m->gpu_ns);
    assert_int_equal(f.total[1], m->busy_ns);
    for (size_t i = 0; i < m->nops; i++) {
        uint64_t fid = func_id(p, model_op_name(m, (uint32_t)i), model_op_cat(m, (uint32_t)i));
        assert_int_equal(f.cum[fid][2], m->ops[i].dev_total_ns);
        assert_int_equal(f.flat[fid][1], m->ops[i].self_ns);
        assert_int_equal(f.flat[fid][0], m->ops[i].calls);
    }
    assert_int_equal(f.cum[func_id(p, "aten::mm", "cpu_op")][2], 70000);
    assert_int_equal(f.flat[func_id(p, "gemm", "kernel")][2], 70000);
    assert_int_equal(f.flat[func_id(p, "lost", "kernel")][2], 5000);

    /* the launched gemm: one sample per stream, under the CPU thread, with
       device and stream labels; calls and self stay on the stream's own stack */
    uint64_t gemm = func_id(p, "gemm", "kernel");
    int under_launch = 0;
    for (size_t s = 0; s < p->n_sample; s++) {
        const Perftools__Profiles__Sample *sm = p->sample[s];
        if (loc_func(p, sm->location_id[0]) != gemm)
            continue;
        const char *stream = label_of(p, sm, "stream");
        assert_non_null(stream);
        assert_string_equal(label_of(p, sm, "device"), "GPU 0");
        if (sm->n_location_id == 3) {
            under_launch++;
            assert_string_equal(label_of(p, sm, "thread"), "main");
            assert_int_equal(sm->value[0], 0);
            assert_int_equal(sm->value[1], 0);
            assert_int_equal(sm->value[2], strcmp(stream, "stream 7") == 0 ? 40000 : 30000);
        } else {
            assert_int_equal(sm->n_location_id, 1);
            assert_string_equal(label_of(p, sm, "thread"), stream);
            assert_int_equal(sm->value[0], 1);
            assert_int_equal(sm->value[2], 0);
        }
    }
    assert_int_equal(under_launch, 2);
    figures_free(&f);
    perftools__profiles__profile__free_unpacked(p, NULL);
    unload(&l);
}

static int64_t selected_time(const model *m, const uint8_t *keep)
{
    int64_t t = 0;
    for (size_t i = 0; i < m->nnodes; i++)
        if (keep[i])
            t += m->nodes[i].self_ns;
    return t;
}

static void test_select(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "cpu.json", cpu_trace, false);
    const model *m = l.m;
    t2p_error err;
    select_spec s;

    /* --focus: the stacks through A: its subtree's self time (more than A's
       100 us, as its children B and C overlap) */
    select_init(&s);
    s.focus_re = "^A$";
    uint8_t *keep = select_nodes(m, &s, &err);
    assert_non_null(keep);
    assert_int_equal(selected_time(m, keep), 20000 + 30000 + 30000 + 30000);
    pprof_summary sum;
    pb_profile *p = export(m, keep, &sum);
    assert_int_equal(sum.total_ns, 110000);
    /* only the ops on kept stacks get locations */
    assert_int_equal(func_id(p, "E", "cpu_op"), 0);
    assert_true(func_id(p, "ProfilerStep*", "user_annotation") > 0);
    perftools__profiles__profile__free_unpacked(p, NULL);
    free(keep);

    /* --ignore drops every stack with a matching frame */
    select_init(&s);
    s.ignore_re = "^(A|ProfilerStep.*)$";
    keep = select_nodes(m, &s, &err);
    assert_int_equal(selected_time(m, keep), 40000 - 10000 + 10000 + 7000);
    free(keep);

    /* --thread by track label */
    select_init(&s);
    s.thread_re = "autograd";
    keep = select_nodes(m, &s, &err);
    assert_int_equal(selected_time(m, keep), 30000 + 10000 + 7000);
    free(keep);

    /* all together: focus B, ignore other, main thread */
    select_init(&s);
    s.focus_re = "B";
    s.ignore_re = "Z";
    s.thread_re = "main";
    keep = select_nodes(m, &s, &err);
    assert_int_equal(selected_time(m, keep), 30000 + 20000);
    free(keep);

    /* the TUI's tests: an op, a merged node, a substring */
    select_init(&s);
    for (uint32_t i = 0; i < m->nops; i++)
        if (strcmp(model_op_name(m, i), "D") == 0)
            s.focus_op = i;
    keep = select_nodes(m, &s, &err);
    assert_int_equal(selected_time(m, keep), 30000 + 7000);
    free(keep);
    select_init(&s);
    s.filter = "Step";
    keep = select_nodes(m, &s, &err);
    /* every stack of the main thread is under a step: its busy time */
    assert_int_equal(selected_time(m, keep), 80000 + 20000 + 30000 * 4 + 30000 + 20000);
    free(keep);
    select_init(&s);
    for (uint32_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].op != MODEL_NONE && strcmp(model_op_name(m, m->nodes[i].op), "A") == 0)
            s.focus_mnode = m->node_merged[i];
    keep = select_nodes(m, &s, &err);
    assert_int_equal(selected_time(m, keep), 110000);
    free(keep);

    /* a bad regex is the caller's error */
    select_init(&s);
    s.ignore_re = "(";
    assert_null(select_nodes(m, &s, &err));
    assert_int_equal(err.kind, T2P_ERR_ARG);
    assert_int_equal(select_check(&s, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_ARG);
    s.ignore_re = "a|b";
    assert_int_equal(select_check(&s, &err), 0);
    unload(&l);
}

/* pprof_write under a file size limit of 512 bytes; the limit only around
   the call, so that the test's own output is never cut */
static int write_limited(const model *m, const char *out, t2p_error *err)
{
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    low = old;
    low.rlim_cur = 512;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
    int rc = pprof_write(m, NULL, out, NULL, err);
    setrlimit(RLIMIT_FSIZE, &old);
    return rc;
}

static void *xfsz_handler(void)
{
    struct sigaction sa;
    sigaction(SIGXFSZ, NULL, &sa);
    return (void *)sa.sa_handler;
}

/* Past a file size limit the write fails with EFBIG instead of SIGXFSZ
   killing the process, and no temp file stays; SIGXFSZ is back to what it
   was (the default, or the program's SIG_IGN) once the write is over. */
static void test_write_fsize(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "cpu.json", cpu_trace, false);
    t2p_error err;
    char *out = path_in("fsize.pb.gz");
    signal(SIGXFSZ, SIG_DFL);
    assert_int_equal(write_limited(l.m, out, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_IO);
    assert_int_equal(err.sys_errno, EFBIG);
    assert_int_equal(count_files(".tmp"), 0);
    assert_int_equal(access(out, F_OK), -1);
    assert_ptr_equal(xfsz_handler(), (void *)SIG_DFL);
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(write_limited(l.m, out, &err), -1);
    assert_int_equal(err.sys_errno, EFBIG);
    assert_ptr_equal(xfsz_handler(), (void *)SIG_IGN);
    signal(SIGXFSZ, SIG_DFL);
    assert_int_equal(count_files(".tmp"), 0);
    free(out);
    unload(&l);
}

static void test_write_errors(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "cpu.json", cpu_trace, false);
    t2p_error err;
    struct stat before, after;

    /* the output directory does not exist: nothing is created */
    char *out = path_in("missing/out.pb.gz");
    assert_int_equal(pprof_write(l.m, NULL, out, NULL, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_IO);
    free(out);

    /* OUT is the trace, by name or through a link: refused, trace intact */
    assert_int_equal(stat(l.path, &before), 0);
    assert_int_equal(pprof_write(l.m, NULL, l.path, NULL, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_ARG);
    char *ln = path_in("link.json");
    assert_int_equal(symlink(l.path, ln), 0);
    assert_int_equal(pprof_write(l.m, NULL, ln, NULL, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_ARG);
    unlink(ln);
    free(ln);
    char *dotted = malloc(strlen(tmpdir) + 32);
    sprintf(dotted, "%s/./cpu.json", tmpdir);
    assert_int_equal(pprof_write(l.m, NULL, dotted, NULL, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_ARG);
    free(dotted);
    assert_int_equal(stat(l.path, &after), 0);
    assert_int_equal(after.st_size, before.st_size);
    assert_int_equal(after.st_mtime, before.st_mtime);

    /* OUT is a directory: said so (not the rename's EBUSY for "." or "/"),
       and no temp file is made */
    char *dir = path_in("adir");
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(pprof_write(l.m, NULL, dir, NULL, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_IO);
    assert_int_equal(err.sys_errno, EISDIR);
    assert_int_equal(count_files(".tmp"), 0);
    rmdir(dir);
    free(dir);

    /* no_overwrite: an existing file stays as it was */
    char *existing = write_file("existing.pb.gz", "keep me");
    pprof_opts po = { .no_overwrite = true };
    assert_int_equal(pprof_write(l.m, &po, existing, NULL, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_IO);
    assert_int_equal(err.sys_errno, EEXIST); /* what the explorer's e retries on */
    assert_int_equal(count_files(".tmp"), 0);
    assert_int_equal(stat(existing, &after), 0);
    assert_int_equal(after.st_size, 7);
    /* ... and a new one is written */
    char *fresh = path_in("fresh.pb.gz");
    assert_int_equal(pprof_write(l.m, &po, fresh, NULL, &err), 0);
    assert_int_equal(count_files(".tmp"), 0);
    perftools__profiles__profile__free_unpacked(unit_read_profile(fresh), NULL);
    /* replacing is the default */
    assert_int_equal(pprof_write(l.m, NULL, existing, NULL, &err), 0);
    perftools__profiles__profile__free_unpacked(unit_read_profile(existing), NULL);
    unlink(existing);
    unlink(fresh);
    free(existing);
    free(fresh);
    unload(&l);
}

/* Two chains DEPTH deep under one event R, names cycling through three per
   chain: every sample's stack is its event's ancestors, leaf first, however
   deep (the stacks share one buffer while they are packed). */
enum { DEPTH = 1500 };

static char *chains_trace(void)
{
    size_t cap = 200 + 2 * DEPTH * 120, len = 0;
    char *t = malloc(cap);
    len += (size_t)sprintf(t + len, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
                           "\"R\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":%d}", 8 * DEPTH);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < DEPTH; i++)
            len += (size_t)sprintf(t + len, ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%c%d\","
                                   "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}",
                                   'a' + c, i % 3, c * 4 * DEPTH + i, 4 * DEPTH - 2 * i);
    strcpy(t + len, "]}");
    return t;
}

static int cancel_progress(uint64_t done, uint64_t total, void *ctx)
{
    int *calls = ctx;
    assert_true(done <= total);
    return ++*calls >= 1;
}

static void test_deep_stacks(void **state)
{
    (void)state;
    struct loaded l;
    char *text = chains_trace();
    load(&l, "chains.json", text, false);
    free(text);
    pprof_summary sum;
    pb_profile *p = export(l.m, NULL, &sum);
    assert_int_equal(p->n_sample, 1 + 2 * DEPTH);
    assert_int_equal(p->n_location, 7);
    uint64_t r = func_id(p, "R", "cpu_op");
    char name[8];
    size_t seen[2] = { 0, 0 };
    for (size_t s = 0; s < p->n_sample; s++) {
        const Perftools__Profiles__Sample *sm = p->sample[s];
        size_t n = sm->n_location_id;
        assert_int_equal(loc_func(p, sm->location_id[n - 1]), r);
        if (n == 1)
            continue;
        /* chain c, event i = n - 2: its stack is ci, ..., c0, R */
        const Perftools__Profiles__Function *leaf = NULL;
        for (size_t i = 0; i < p->n_function; i++)
            if (p->function[i]->id == loc_func(p, sm->location_id[0]))
                leaf = p->function[i];
        int c = pstr(p, leaf->name)[0] - 'a';
        assert_true(c == 0 || c == 1);
        seen[c]++;
        for (size_t k = 0; k + 1 < n; k++) {
            sprintf(name, "%c%d", 'a' + c, (int)((n - 2 - k) % 3));
            assert_int_equal(loc_func(p, sm->location_id[k]), func_id(p, name, "cpu_op"));
        }
        /* a chain event's self time: 2 us, the innermost's all its 4 DEPTH - 2 (DEPTH-1) us */
        assert_int_equal(sm->value[1], n - 2 == DEPTH - 1 ? 1000 * (4 * DEPTH - 2 * (DEPTH - 1))
                                                          : 2000);
    }
    assert_int_equal(seen[0], DEPTH);
    assert_int_equal(seen[1], DEPTH);
    perftools__profiles__profile__free_unpacked(p, NULL);

    /* a progress callback cancels the write: nothing is left behind */
    int calls = 0;
    t2p_error err;
    char *out = path_in("cancelled.pb.gz");
    pprof_opts po = { .progress = cancel_progress, .progress_ctx = &calls };
    assert_int_equal(pprof_write(l.m, &po, out, NULL, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_CANCELLED);
    assert_int_equal(calls, 1);
    assert_int_equal(count_files(".tmp"), 0);
    assert_int_equal(count_files(".pb.gz"), 0);
    free(out);
    unload(&l);
}

/* Call stacks: an operator's stack is its Python frames (outermost first)
   then the operator; one called inside another from the same line adds no
   frame, one from a deeper line adds the frames below the shared ones. */
static const char callstack_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::linear\",\"pid\":3,\"tid\":3,\"ts\":0,\"dur\":100,"
    "\"args\":{\"Call stack\":\"<built-in function linear>;lib/linear.py(113): forward;model.py(6): forward;train.py(20): <module>\"}},"
    "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::addmm\",\"pid\":3,\"tid\":3,\"ts\":10,\"dur\":80,"
    "\"args\":{\"Call stack\":\"<built-in function linear>;lib/linear.py(113): forward;model.py(6): forward;train.py(20): <module>\"}},"
    "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::copy_\",\"pid\":3,\"tid\":3,\"ts\":20,\"dur\":20,"
    "\"args\":{\"Call stack\":\"lib/hook.py(3): f;lib/linear.py(113): forward;model.py(6): forward;train.py(20): <module>\"}},"
    "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::relu\",\"pid\":3,\"tid\":3,\"ts\":100,\"dur\":30,"
    "\"args\":{\"Call stack\":\"model.py(7): forward;train.py(20): <module>\"}},"
    "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::relu\",\"pid\":3,\"tid\":3,\"ts\":130,\"dur\":20,"
    "\"args\":{\"Call stack\":\"model.py(8): forward;train.py(20): <module>\"}}"
    "]}";

/* python_function events: frames in the tree, the line where each starts */
static const char pyfunc_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"train.py(30): <module>\",\"pid\":7,\"tid\":1,\"ts\":0,\"dur\":1000},"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"model.py(20): features\",\"pid\":7,\"tid\":1,\"ts\":20,\"dur\":280},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv2d\",\"pid\":7,\"tid\":1,\"ts\":30,\"dur\":220},"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"lib/u (2).py(5): helper\",\"pid\":7,\"tid\":1,\"ts\":700,\"dur\":200},"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"lib/u (2).py(5): helper\",\"pid\":7,\"tid\":1,\"ts\":710,\"dur\":90},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":7,\"tid\":1,\"ts\":720,\"dur\":60}"
    "]}";

/* the location of function name in file at line; 0 when none */
static uint64_t loc_at(const pb_profile *p, const char *name, const char *file, int64_t line)
{
    uint64_t f = func_id(p, name, file);
    for (size_t i = 0; f && i < p->n_location; i++)
        if (p->location[i]->line[0]->function_id == f && p->location[i]->line[0]->line == line)
            return p->location[i]->id;
    return 0;
}

/* the stack (leaf first) of the sample whose leaf is function leaf and
   whose second entry is loc next (0: any); asserts there is one */
static const Perftools__Profiles__Sample *sample_at(const pb_profile *p, uint64_t leaf,
                                                     uint64_t next)
{
    const Perftools__Profiles__Sample *found = NULL;
    for (size_t s = 0; s < p->n_sample; s++) {
        const Perftools__Profiles__Sample *sm = p->sample[s];
        if (loc_func(p, sm->location_id[0]) != leaf)
            continue;
        if (next && (sm->n_location_id < 2 || sm->location_id[1] != next))
            continue;
        assert_null(found);
        found = sm;
    }
    assert_non_null(found);
    return found;
}

static void assert_stack(const Perftools__Profiles__Sample *sm, const uint64_t *want, size_t n)
{
    assert_int_equal(sm->n_location_id, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(sm->location_id[i], want[i]);
}

static void test_python_frames(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "cs.json", callstack_trace, false);
    pb_profile *p = export(l.m, NULL, NULL);
    uint64_t lin = loc_at(p, "forward", "lib/linear.py", 113),
             m6 = loc_at(p, "forward", "model.py", 6), m7 = loc_at(p, "forward", "model.py", 7),
             m8 = loc_at(p, "forward", "model.py", 8), mod = loc_at(p, "<module>", "train.py", 20),
             hook = loc_at(p, "f", "lib/hook.py", 3), bi = loc_at(p, "<built-in function linear>", "", 0),
             linear = loc_at(p, "aten::linear", "cpu_op", 0),
             addmm = loc_at(p, "aten::addmm", "cpu_op", 0);
    assert_true(lin && m6 && m7 && m8 && mod && hook && bi && linear && addmm);
    /* one function per (name, file), one location per line; no start line
       known; early Kineto's Operator category reads as cpu_op */
    assert_int_equal(m6 != m7 && m7 != m8, 1);
    assert_int_equal(p->function[func_id(p, "forward", "model.py") - 1]->start_line, 0);
    assert_stack(sample_at(p, func_id(p, "aten::linear", "cpu_op"), 0),
                 (uint64_t[]){ linear, bi, lin, m6, mod }, 5);
    assert_stack(sample_at(p, func_id(p, "aten::addmm", "cpu_op"), 0),
                 (uint64_t[]){ addmm, linear, bi, lin, m6, mod }, 6);
    assert_stack(sample_at(p, func_id(p, "aten::copy_", "cpu_op"), 0),
                 (uint64_t[]){ loc_at(p, "aten::copy_", "cpu_op", 0), hook, addmm, linear, bi,
                               lin, m6, mod }, 8);
    uint64_t relu = func_id(p, "aten::relu", "cpu_op");
    const Perftools__Profiles__Sample *r7 = sample_at(p, relu, m7), *r8 = sample_at(p, relu, m8);
    assert_int_equal(r7->value[1], 30000);
    assert_int_equal(r8->value[1], 20000);
    assert_int_equal(r8->location_id[2], mod);
    perftools__profiles__profile__free_unpacked(p, NULL);
    /* no_python: the operators alone, as before Python frames */
    model_free(l.m);
    t2p_error err;
    model_opts mo = { .no_python = true };
    l.m = model_build(l.tr, &mo, &err);
    assert_non_null(l.m);
    p = export(l.m, NULL, NULL);
    assert_int_equal(p->n_function, l.m->nops);
    assert_int_equal(p->n_location, l.m->nops);
    assert_int_equal(func_id(p, "forward", "model.py"), 0);
    assert_int_equal(sample_at(p, func_id(p, "aten::relu", "cpu_op"), 0)->value[1], 50000);
    perftools__profiles__profile__free_unpacked(p, NULL);
    unload(&l);

    load(&l, "pyfunc.json", pyfunc_trace, false);
    p = export(l.m, NULL, NULL);
    uint64_t feat = loc_at(p, "features", "model.py", 20), help = loc_at(p, "helper", "lib/u (2).py", 5),
             top = loc_at(p, "<module>", "train.py", 30);
    assert_true(feat && help && top);
    assert_int_equal(p->function[func_id(p, "features", "model.py") - 1]->start_line, 20);
    assert_stack(sample_at(p, func_id(p, "aten::conv2d", "cpu_op"), 0),
                 (uint64_t[]){ loc_at(p, "aten::conv2d", "cpu_op", 0), feat, top }, 3);
    assert_stack(sample_at(p, func_id(p, "aten::add", "cpu_op"), 0),
                 (uint64_t[]){ loc_at(p, "aten::add", "cpu_op", 0), help, help, top }, 4);
    /* a frame's own time is its flat time */
    assert_int_equal(sample_at(p, func_id(p, "features", "model.py"), 0)->value[1], 60000);
    perftools__profiles__profile__free_unpacked(p, NULL);
    unload(&l);
}

static void test_free_path(void **state)
{
    (void)state;
    char *p = pprof_free_path(tmpdir, "/some/where/run.pt.trace.json.gz");
    char *want = path_in("run.pb.gz");
    assert_string_equal(p, want);
    FILE *f = fopen(p, "w");
    fclose(f);
    char *q = pprof_free_path(tmpdir, "run.json");
    free(want);
    want = path_in("run-1.pb.gz");
    assert_string_equal(q, want);
    unlink(p);
    free(p);
    free(q);
    free(want);
    p = pprof_free_path(NULL, "trace.gz");
    assert_string_equal(p, "./trace.pb.gz");
    free(p);
}

/* A job's ranks with and without the heap sample types (issue 28): the
   merge widens to all seven in either order, the time values unchanged and
   the heap ones 0 for the rank that lacks them; a rank's profile has them
   anyway (pprof_opts.memory_types), so that go tool pprof -proto merges. */
static void test_merge_types(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "cpu.json", cpu_trace, false);
    pprof_opts plain = { .has_rank = true, .rank = 0 };
    pprof_opts typed = { .has_rank = true, .rank = 1, .memory_types = true };
    uint8_t *a, *b;
    size_t alen, blen;
    t2p_error err;
    assert_int_equal(pprof_merge_pack(l.m, &plain, &a, &alen, &err), 0);
    assert_int_equal(pprof_merge_pack(l.m, &typed, &b, &blen, &err), 0);
    pb_profile *pa = perftools__profiles__profile__unpack(NULL, alen, a);
    pb_profile *pb = perftools__profiles__profile__unpack(NULL, blen, b);
    assert_int_equal(pa->n_sample_type, 3);
    assert_int_equal(pb->n_sample_type, 7);
    assert_string_equal(pstr(pb, pb->sample_type[4]->type), "alloc_space");
    for (size_t s = 0; s < pb->n_sample; s++)
        for (size_t k = 3; k < 7; k++)
            assert_int_equal(pb->sample[s]->value[k], 0);
    for (int order = 0; order < 2; order++) {
        pprof_merge *pm = pprof_merge_new();
        assert_non_null(pm);
        assert_int_equal(pprof_merge_add(pm, order ? b : a, order ? blen : alen, "x", &err), 0);
        assert_int_equal(pprof_merge_add(pm, order ? a : b, order ? alen : blen, "y", &err), 0);
        char out[300];
        snprintf(out, sizeof out, "%s/merged%d.pb.gz", tmpdir, order);
        assert_int_equal(pprof_merge_write(pm, out, "job", NULL, 0, NULL, 0, NULL, &err), 0);
        pprof_merge_free(pm);
        pb_profile *p = unit_read_profile(out);
        assert_int_equal(p->n_sample_type, 7);
        assert_int_equal(p->n_sample, pa->n_sample + pb->n_sample);
        int64_t total[2] = { 0, 0 }, heap = 0;
        for (size_t s = 0; s < p->n_sample; s++) {
            const Perftools__Profiles__Sample *sm = p->sample[s];
            assert_int_equal(sm->n_value, 7);
            int64_t rank = -1;
            for (size_t k = 0; k < sm->n_label; k++)
                if (!strcmp(pstr(p, sm->label[k]->key), "rank"))
                    rank = sm->label[k]->num;
            assert_true(rank == 0 || rank == 1);
            total[rank] += sm->value[1];
            for (size_t k = 3; k < 7; k++)
                heap += sm->value[k] != 0;
        }
        int64_t want = 0;
        for (size_t s = 0; s < pa->n_sample; s++)
            want += pa->sample[s]->value[1];
        assert_int_equal(total[0], want);
        assert_int_equal(total[1], want);
        assert_int_equal(heap, 0);
        perftools__profiles__profile__free_unpacked(p, NULL);
        unlink(out);
    }
    perftools__profiles__profile__free_unpacked(pa, NULL);
    perftools__profiles__profile__free_unpacked(pb, NULL);
    free(a);
    free(b);
    unload(&l);
}

/* export_args can say --range and --step at once; the writer refuses the
   pair (a usage error naming both) rather than keep one and drop the other,
   and writes nothing */
static void test_export_range_and_step(void **state)
{
    (void)state;
    struct loaded l;
    load(&l, "rs.json", cpu_trace, false);
    export_args a = { .step = "1", .range = "0us:5us", .no_memory = true };
    export_result res;
    t2p_error err;
    char *out = path_in("rs.pb.gz");
    assert_int_equal(export_trace(l.m, l.tr, &l.m->opts, &a, out, &res, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_ARG);
    assert_non_null(strstr(err.reason, "--range and --step"));
    assert_int_equal(access(out, F_OK), -1);
    free(out);
    unload(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structure),
        cmocka_unit_test(test_flat_cum),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_gpu),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_write_fsize),
        cmocka_unit_test(test_deep_stacks),
        cmocka_unit_test(test_python_frames),
        cmocka_unit_test(test_free_path),
        cmocka_unit_test(test_merge_types),
        cmocka_unit_test(test_export_range_and_step),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
