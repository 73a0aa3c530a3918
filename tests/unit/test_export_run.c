/* Unit tests of export_run, the one path of `torch2pprof convert`: one
   trace, a job and a pair, what each tells on the way and what its result
   carries. The figures are the traces' own, worked out by hand below (self
   time: an event's duration less its children's), and the written profile
   is decoded with protobuf-c to read the rank labels. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "core/pprof/export.h"
#include "core/pprof/profile.pb-c.h"
#include "tests/unit/unit.h"
#include "tests/unit/unit_pprof.h"

typedef Perftools__Profiles__Profile pb_profile;

static char tmpdir[64];

static int setup_dir(void **state)
{
    (void)state;
    unit_dir_make(tmpdir, "/tmp/t2p-export-run-XXXXXX");
    return 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    unit_dir_remove(tmpdir);
    return 0;
}

static void path_in(char *buf, size_t size, const char *name)
{
    unit_dir_path(buf, size, tmpdir, name);
}

/* Rank rank's trace: A (100 us) holds B (30 us); C (50 us) alone. Self
   time: A 70, B 30, C 50: 150 us in all. cut: the text ends inside an
   event, after A and B. */
#define RANK_SELF_NS 150000
static void write_rank(const char *name, int rank, bool cut, char *path, size_t size)
{
    path_in(path, size, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"distributedInfo\":{\"rank\":%d},\"traceEvents\":["
               "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,"
               "\"dur\":100},"
               "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":10,"
               "\"dur\":30},",
            rank);
    if (cut)
        fputs("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"na", f);
    else
        fputs("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":200,"
              "\"dur\":50}]}",
              f);
    assert_int_equal(fclose(f), 0);
}

/* The time (value[1], ns) of the profile's samples labelled rank=r; -1 for
   samples without a rank label. */
static int64_t time_of_rank(const pb_profile *p, int64_t r)
{
    int64_t t = 0;
    for (size_t s = 0; s < p->n_sample; s++) {
        const Perftools__Profiles__Sample *sm = p->sample[s];
        int64_t rank = -1;
        for (size_t k = 0; k < sm->n_label; k++)
            if (!strcmp(p->string_table[sm->label[k]->key], "rank"))
                rank = sm->label[k]->num;
        if (rank == r)
            t += sm->value[1];
    }
    return t;
}

/* What export_run told, in order. */
typedef struct told {
    int n;
    export_tell_kind kind[8];
    char path[8][512];
    char reason[8][512];
} told;

static void tell(void *ctx, export_tell_kind kind, const char *path, const t2p_error *e)
{
    told *t = ctx;
    assert_true(t->n < 8);
    t->kind[t->n] = kind;
    snprintf(t->path[t->n], sizeof t->path[0], "%s", path ? path : e && e->file[0] ? e->file : "");
    snprintf(t->reason[t->n], sizeof t->reason[0], "%s", e ? e->reason : "");
    t->n++;
}

static export_args args_plain(void)
{
    export_args a = { .no_memory = true, .tool_version = "test" };
    return a;
}

/* One trace: its rank labels every sample; the total is its self time. */
static void test_one(void **state)
{
    (void)state;
    char tr[512], out[512];
    write_rank("one.json", 3, false, tr, sizeof tr);
    path_in(out, sizeof out, "one.pb.gz");
    const char *paths[1] = { tr };
    export_inputs in = { .paths = paths, .npaths = 1 };
    export_args a = args_plain();
    export_result res;
    t2p_error err;
    told t = { 0 };
    assert_int_equal(export_run(&in, &a, out, tell, &t, &res, &err), 0);
    assert_false(res.job);
    assert_false(res.diff);
    assert_false(res.selecting);
    assert_int_equal(res.ntruncated, 0);
    assert_int_equal(t.n, 0);
    assert_int_equal(res.sum.total_ns, RANK_SELF_NS);
    assert_int_equal(res.busy_ns, RANK_SELF_NS);
    pb_profile *p = unit_read_profile(out);
    assert_int_equal(time_of_rank(p, 3), RANK_SELF_NS);
    perftools__profiles__profile__free_unpacked(p, NULL);
    export_result_done(&res);

    /* an entry that names nothing: told, and an empty profile written */
    export_entry e = { "focus", "nosuch>X" };
    a.entries = &e;
    a.nentries = 1;
    assert_int_equal(export_run(&in, &a, out, tell, &t, &res, &err), 0);
    assert_int_equal(t.n, 1);
    assert_int_equal(t.kind[0], EXPORT_TELL_EMPTY);
    assert_true(res.selecting);
    assert_int_equal(res.sum.total_ns, 0);
    assert_int_equal(res.busy_ns, RANK_SELF_NS);
    export_result_done(&res);

    /* a step it lacks: the scope's fault, nothing written */
    a = args_plain();
    a.step = "9";
    unlink(out);
    assert_int_equal(export_run(&in, &a, out, NULL, NULL, &res, &err), -1);
    assert_true(res.scope_error);
    assert_int_equal(err.kind, T2P_ERR_MISSING);
    assert_int_equal(access(out, F_OK), -1);
    export_result_done(&res);
}

/* A job of two ranks: each rank's time under its label, the count and the
   busy time of both; --rank picks one; a rank it lacks names those it has. */
static void test_job(void **state)
{
    (void)state;
    char r0[512], r1[512], out[512];
    write_rank("job-r0.json", 0, false, r0, sizeof r0);
    write_rank("job-r1.json", 1, false, r1, sizeof r1);
    path_in(out, sizeof out, "job.pb.gz");
    const char *paths[2] = { r0, r1 };
    export_inputs in = { .paths = paths, .npaths = 2, .job = true, .jobs = 1 };
    export_args a = args_plain();
    export_result res;
    t2p_error err;
    assert_int_equal(export_run(&in, &a, out, NULL, NULL, &res, &err), 0);
    assert_true(res.job);
    assert_int_equal(res.nranks, 2);
    assert_int_equal(res.sum.total_ns, 2 * RANK_SELF_NS);
    assert_int_equal(res.busy_ns, 2 * RANK_SELF_NS);
    assert_false(res.memory);
    pb_profile *p = unit_read_profile(out);
    assert_int_equal(time_of_rank(p, 0), RANK_SELF_NS);
    assert_int_equal(time_of_rank(p, 1), RANK_SELF_NS);
    assert_int_equal(time_of_rank(p, -1), 0);
    perftools__profiles__profile__free_unpacked(p, NULL);
    export_result_done(&res);

    in.has_rank = true;
    in.rank = 1;
    assert_int_equal(export_run(&in, &a, out, NULL, NULL, &res, &err), 0);
    assert_int_equal(res.nranks, 1);
    assert_int_equal(res.sum.total_ns, RANK_SELF_NS);
    p = unit_read_profile(out);
    assert_int_equal(time_of_rank(p, 0), 0);
    assert_int_equal(time_of_rank(p, 1), RANK_SELF_NS);
    perftools__profiles__profile__free_unpacked(p, NULL);
    export_result_done(&res);

    in.rank = 7;
    assert_int_equal(export_run(&in, &a, out, NULL, NULL, &res, &err), -1);
    assert_true(res.scope_error);
    assert_int_equal(err.kind, T2P_ERR_MISSING);
    assert_string_equal(err.reason, "--rank 7: the job has no such rank (ranks 0, 1)");
    export_result_done(&res);

    /* OUT one of the traces: refused before loading, the trace untouched */
    struct stat before, after;
    assert_int_equal(stat(r1, &before), 0);
    in.has_rank = false;
    assert_int_equal(export_run(&in, &a, r1, NULL, NULL, &res, &err), -1);
    assert_false(res.scope_error);
    assert_int_equal(err.kind, T2P_ERR_ARG);
    assert_string_equal(err.file, r1);
    assert_int_equal(stat(r1, &after), 0);
    assert_int_equal(before.st_size, after.st_size);
    export_result_done(&res);
}

/* A rank that fails to load is told; without partial the job fails after
   telling it, with partial the others are written. A cut rank is kept in
   the result as truncated. */
static void test_job_failed(void **state)
{
    (void)state;
    char r0[512], r1[512], missing[512], out[512];
    write_rank("jf-r0.json", 0, false, r0, sizeof r0);
    write_rank("jf-r1.json", 1, true, r1, sizeof r1);
    path_in(missing, sizeof missing, "jf-r2.json");
    path_in(out, sizeof out, "jf.pb.gz");
    const char *paths[3] = { r0, r1, missing };
    export_inputs in = { .paths = paths, .npaths = 3, .job = true, .jobs = 1 };
    export_args a = args_plain();
    export_result res;
    t2p_error err;
    told t = { 0 };
    assert_int_equal(export_run(&in, &a, out, tell, &t, &res, &err), -1);
    assert_false(res.scope_error);
    assert_string_equal(err.reason,
                        "2 of 3 traces failed to load (--partial goes on without them)");
    assert_int_equal(t.n, 2);
    assert_int_equal(t.kind[0], EXPORT_TELL_FAILED);
    assert_int_equal(t.kind[1], EXPORT_TELL_FAILED);
    export_result_done(&res);

    in.partial = true;
    t.n = 0;
    assert_int_equal(export_run(&in, &a, out, tell, &t, &res, &err), 0);
    assert_int_equal(t.n, 1);
    assert_int_equal(t.kind[0], EXPORT_TELL_FAILED);
    assert_string_equal(t.path[0], missing);
    assert_int_equal(res.ntruncated, 1);
    assert_string_equal(res.truncated[0].path, r1);
    assert_int_equal(res.nranks, 2);
    /* the cut rank: A (100 us) holding B (30 us), C never read */
    assert_int_equal(res.sum.total_ns, RANK_SELF_NS + 100000);
    export_result_done(&res);
}

/* A pair: new minus base nets to nothing when both are one trace; a cut
   side loaded with partial is kept for after the summary. */
static void test_pair(void **state)
{
    (void)state;
    char tr[512], cut[512], out[512];
    write_rank("pair.json", 0, false, tr, sizeof tr);
    write_rank("pair-cut.json", 0, true, cut, sizeof cut);
    path_in(out, sizeof out, "pair.pb.gz");
    const char *paths[1] = { tr };
    export_inputs in = { .paths = paths, .npaths = 1, .base = tr, .jobs = 1 };
    export_args a = args_plain();
    export_result res;
    t2p_error err;
    assert_int_equal(export_run(&in, &a, out, NULL, NULL, &res, &err), 0);
    assert_true(res.diff);
    assert_false(res.job);
    assert_int_equal(res.sum.total_ns, 0);
    assert_int_equal(res.ntruncated, 0);
    export_result_done(&res);

    in.base = cut;
    assert_int_equal(export_run(&in, &a, out, NULL, NULL, &res, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_TRUNCATED);
    export_result_done(&res);

    in.partial = true;
    assert_int_equal(export_run(&in, &a, out, NULL, NULL, &res, &err), 0);
    /* new (150 us) minus the cut base (A 70 + B 30) */
    assert_int_equal(res.sum.total_ns, RANK_SELF_NS - 100000);
    assert_int_equal(res.ntruncated, 1);
    assert_string_equal(res.truncated[0].path, cut);
    assert_non_null(res.truncated[0].reason);
    export_result_done(&res);
    export_result_done(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one),
        cmocka_unit_test(test_job),
        cmocka_unit_test(test_job_failed),
        cmocka_unit_test(test_pair),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
