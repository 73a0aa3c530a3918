/* Unit tests of core/analyses/ranks.c: ranks from traces, names and positions, the
   figures across ranks on hand-made traces worked out by hand (times in us in
   the traces, ns below), and the errors of a job's inputs. */
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

#include <cmocka.h>

#include "core/analyses/ranks.h"
#include "tests/unit/unit.h"

static char dir[64];

static void test_name_rank(void **state)
{
    (void)state;
    assert_int_equal(ranks_name_rank("rank-3.json.gz"), 3);
    assert_int_equal(ranks_name_rank("/x/rank3.1234.pt.trace.json.gz"), 3);
    assert_int_equal(ranks_name_rank("rank_3.json"), 3);
    assert_int_equal(ranks_name_rank("worker3.pt.trace.json"), 3);
    assert_int_equal(ranks_name_rank("worker_12.json"), 12);
    assert_int_equal(ranks_name_rank("job_Rank-5.json"), 5);
    assert_int_equal(ranks_name_rank("host1_rank10_step2.json"), 10);
    assert_int_equal(ranks_name_rank("frank3.json"), -1);
    assert_int_equal(ranks_name_rank("/d/rank7/trace.json"), -1); /* the file's name, not its folder */
    assert_int_equal(ranks_name_rank("tb_resnet50_w0.json.gz"), -1);
    assert_int_equal(ranks_name_rank("rank-.json"), -1);
    assert_true(ranks_is_trace_name("a.json"));
    assert_true(ranks_is_trace_name("a.pt.trace.json.gz"));
    assert_false(ranks_is_trace_name("a.json.bak"));
    assert_false(ranks_is_trace_name("notes.txt"));
}

static void test_median(void **state)
{
    (void)state;
    int64_t none[1] = { 0 };
    assert_int_equal(ranks_median(none, 0), 0);
    int64_t one[] = { 5 };
    assert_int_equal(ranks_median(one, 1), 5);
    int64_t two[] = { 4, 1 };
    assert_int_equal(ranks_median(two, 2), 2); /* 2.5 rounded down */
    int64_t three[] = { 3, 1, 2 };
    assert_int_equal(ranks_median(three, 3), 2);
    int64_t big[] = { INT64_MAX, INT64_MAX - 2 };
    assert_int_equal(ranks_median(big, 2), INT64_MAX - 1);
}

/* rank 0 by name; rank 1 by distributedInfo over its name; rank 2 by a
   distributedInfo that comes after traceEvents, with GPU work on two streams */
static const char *const job[][2] = {
    { "worker0.json",
      "{\"traceEvents\":["
      "{\"ph\":\"X\",\"name\":\"a\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":20},"
      "{\"ph\":\"X\",\"name\":\"b\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":5}]}" },
    { "rank-0.json",
      "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":1,\"pg_config\":[{\"ranks\":[7]}]},"
      "\"traceEvents\":["
      "{\"ph\":\"X\",\"name\":\"a\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
      "{\"ph\":\"X\",\"name\":\"b\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":3}]}" },
    { "z.json",
      "{\"traceEvents\":["
      "{\"ph\":\"X\",\"name\":\"a\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":30},"
      "{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10},"
      "{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":0,\"tid\":8,\"ts\":5,\"dur\":7}],"
      "\"distributedInfo\":{\"rank\":2}}" },
};

static const ranks_op *find_op(const ranks_job *j, const char *name)
{
    for (size_t i = 0; i < j->nops; i++)
        if (!strcmp(strtab_str(j->strs, j->ops[i].name), name))
            return &j->ops[i];
    return NULL;
}

/* A rank is measured by its mean step only when every rank of the job has
   steps: in a mixed job a rank with steps is measured by busy time like the
   others (the view's bars and sort once used each rank's own steps, so the
   figures compared mean steps with busy times). */
static void test_metric(void **state)
{
    (void)state;
    ranks_stat with = { .steps = 3, .step_mean_ns = 100, .busy_ns = 900 };
    ranks_stat without = { .steps = 0, .busy_ns = 700 };
    ranks_job mixed = { .by_steps = false }, all = { .by_steps = true };
    assert_int_equal(ranks_metric(&mixed, &with), 900);
    assert_int_equal(ranks_metric(&mixed, &without), 700);
    assert_int_equal(ranks_metric(&all, &with), 100);
    assert_int_equal(ranks_metric(NULL, &with), 100);
    assert_int_equal(ranks_metric(NULL, &without), 700);
}

static void test_job(void **state)
{
    (void)state;
    unit_dir_make(dir, "/tmp/t2p-ranks-XXXXXX");
    for (size_t i = 0; i < 3; i++)
        unit_dir_put(dir, job[i][0], job[i][1]);
    unit_dir_put(dir, "notes.txt", "not a trace name: left out");
    unit_dir_put(dir, ".hidden.json", "a temp file: left out");
    t2p_error err;
    const char *args[] = { dir };
    ranks_job *j = ranks_open(args, 1, &err);
    assert_non_null(j);
    assert_int_equal(j->nfiles, 3);
    ranks_load_opts lo = { .jobs = 2, .keep_models = true };
    assert_int_equal(ranks_load(j, &lo, &err), 0);
    assert_int_equal(j->nloaded, 3);
    assert_int_equal(j->nfailed, 0);

    const char *names[] = { "worker0.json", "rank-0.json", "z.json" };
    enum ranks_from from[] = { RANKS_FROM_NAME, RANKS_FROM_TRACE, RANKS_FROM_TRACE };
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(j->files[i].rank, (int64_t)i);
        assert_int_equal(j->files[i].from, from[i]);
        assert_non_null(strstr(j->files[i].path, names[i]));
        assert_non_null(j->files[i].m);
    }
    /* busy = self of every event: 20, 10, 30 + 10 + 7 */
    assert_int_equal(j->files[0].st.busy_ns, 20000);
    assert_int_equal(j->files[1].st.busy_ns, 10000);
    assert_int_equal(j->files[2].st.busy_ns, 47000);
    assert_int_equal(j->files[2].st.cpu_ns, 30000);
    assert_int_equal(j->files[2].st.gpu_busy_ns, 12000); /* [0,10] u [5,12] */
    assert_int_equal(j->files[0].st.gpu_busy_ns, 0);
    assert_false(j->by_steps);
    assert_int_equal(j->median_ns, 20000);
    assert_int_equal(j->straggler, 2);
    assert_true(j->flagged);
    assert_true(j->files[2].st.skew > 1.349 && j->files[2].st.skew < 1.351);
    assert_true(j->files[1].st.skew > -0.501 && j->files[1].st.skew < -0.499);

    /* a: self 15, 7, 30; b: 5, 3, absent */
    const ranks_op *a = find_op(j, "a"), *b = find_op(j, "b"), *k = find_op(j, "k");
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(k);
    assert_int_equal(a->calls, 3);
    assert_int_equal(a->self_ns, 52000);
    assert_int_equal(a->total_ns, 60000);
    assert_int_equal(a->min_ns, 7000);
    assert_int_equal(a->median_ns, 15000);
    assert_int_equal(a->max_ns, 30000);
    assert_int_equal(a->max_rank, 2);
    assert_int_equal(b->min_ns, 0);
    assert_int_equal(b->median_ns, 3000);
    assert_int_equal(b->max_ns, 5000);
    assert_int_equal(b->max_rank, 0);
    assert_int_equal(k->calls, 2);
    assert_int_equal(k->max_rank, 2);

    uint32_t order[8];
    assert_true(j->nops <= 8);
    ranks_sort_ops(j, MODEL_SORT_SELF, true, order); /* spread: a 23, k 17, b 5 */
    assert_ptr_equal(&j->ops[order[0]], a);
    assert_ptr_equal(&j->ops[order[1]], k);
    assert_ptr_equal(&j->ops[order[2]], b);
    ranks_sort_ops(j, MODEL_SORT_NAME, false, order);
    assert_ptr_equal(&j->ops[order[0]], a);

    /* categories merged: each one's figures against every rank's own
       model_cat (a second computation, from the models, not the ops) */
    size_t nc;
    ranks_cat *cats = ranks_cats(j, &nc);
    assert_non_null(cats);
    assert_true(nc > 0);
    int64_t all_self = 0, all_ops_self = 0;
    for (size_t c = 0; c < nc; c++) {
        const char *cn = strtab_str(j->strs, cats[c].name);
        int64_t sum = 0, mn = INT64_MAX, mx = INT64_MIN;
        uint64_t calls = 0;
        for (size_t i = 0; i < j->nloaded; i++) {
            const model *m = j->files[i].m;
            int64_t self = 0;
            for (size_t k2 = 0; k2 < m->ncats; k2++)
                if (!strcmp(trace_str(m->tr, m->cats[k2].name), cn)) {
                    self += m->cats[k2].self_ns;
                    calls += m->cats[k2].calls;
                }
            sum += self;
            mn = self < mn ? self : mn;
            mx = self > mx ? self : mx;
        }
        assert_int_equal(cats[c].self_ns, sum);
        assert_int_equal(cats[c].calls, calls);
        assert_int_equal(cats[c].min_ns, mn);
        assert_int_equal(cats[c].max_ns, mx);
        assert_true(cats[c].median_ns >= mn && cats[c].median_ns <= mx);
        all_self += cats[c].self_ns;
    }
    for (size_t i = 0; i < j->nops; i++)
        all_ops_self += j->ops[i].self_ns;
    assert_int_equal(all_self, all_ops_self);
    free(cats);
    ranks_free(j);
    unit_dir_remove(dir);
}

static void test_failures(void **state)
{
    (void)state;
    unit_dir_make(dir, "/tmp/t2p-ranks-XXXXXX");
    t2p_error err;
    const char *args[] = { dir };
    assert_null(ranks_open(args, 1, &err)); /* empty */
    assert_int_equal(err.kind, T2P_ERR_EMPTY);
    assert_non_null(strstr(err.reason, "no trace files"));

    unit_dir_put(dir, job[0][0], job[0][1]);
    unit_dir_put(dir, "rank-5.json", "[{\"ph\":\"X\", \"ts\": 1,");
    ranks_job *j = ranks_open(args, 1, &err);
    assert_non_null(j);
    assert_int_equal(ranks_load(j, NULL, &err), 0);
    assert_int_equal(j->nloaded, 1);
    assert_int_equal(j->nfailed, 1);
    assert_false(j->files[1].loaded); /* failed files last */
    assert_int_equal(j->files[1].rank, 5);
    assert_int_not_equal(j->files[1].err.kind, T2P_OK);
    assert_int_equal(j->straggler, 0);
    assert_false(j->flagged);
    ranks_free(j);

    /* two files of rank 1: one by distributedInfo, one by name */
    char path[256];
    snprintf(path, sizeof path, "%s/rank-5.json", dir);
    unlink(path);
    unit_dir_put(dir, "rank-1.json", job[0][1]);
    unit_dir_put(dir, "other.json", job[1][1]);
    j = ranks_open(args, 1, &err);
    assert_non_null(j);
    assert_int_equal(ranks_load(j, NULL, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_ARG);
    assert_non_null(strstr(err.reason, "rank 1"));
    assert_true(strstr(err.file, "rank-1.json") || strstr(err.reason, "rank-1.json"));
    assert_true(strstr(err.file, "other.json") || strstr(err.reason, "other.json"));
    ranks_free(j);

    const char *missing[] = { "/nonexistent/t2p/rank-0.json" };
    j = ranks_open(missing, 1, &err);
    assert_non_null(j); /* a named file is loaded, and fails there */
    assert_int_equal(ranks_load(j, NULL, &err), 0);
    assert_int_equal(j->nfailed, 1);
    assert_int_equal(j->files[0].err.kind, T2P_ERR_IO);
    ranks_free(j);
    unit_dir_remove(dir);
}

/* A trace without rank, so ranked by its position in name order. */
static const char plain[] = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"cat\":\"cpu_op\","
                            "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":20}]}";

/* on_model: the rank the worker saw, kept in f->out */
static int keep_rank(ranks_file *f, const model *m, const steps *st, void *ctx, t2p_error *err)
{
    (void)m, (void)st, (void)ctx, (void)err;
    int64_t *r = malloc(sizeof *r);
    if (!r)
        return -1;
    *r = f->rank;
    f->out = r;
    f->out_len = sizeof *r;
    return 0;
}

static const t2p_error *note_of(const ranks_job *j, const char *name)
{
    for (size_t i = 0; i < j->nnotes; i++)
        if (strstr(j->notes[i].file, name))
            return &j->notes[i];
    return NULL;
}

/* A directory's files that hold no trace are notes, not ranks: another
   JSON document, text, binary; a broken trace, or a file whose name says
   trace, still fails; the positions count the traces alone, also for the
   rank an on_model callback sees (loaded again when it moved). */
static void test_not_traces(void **state)
{
    (void)state;
    unit_dir_make(dir, "/tmp/t2p-ranks-XXXXXX");
    unit_dir_put(dir, "README.json", "This directory holds the traces of run 7.\n");
    unit_dir_put(dir, "a.json", plain);
    unit_dir_put(dir, "b.json", "{\"a\":1}");
    unit_dir_put(dir, "bad.json", "{\"traceEvents\":[{\"ph\":\"X\",}]}");
    unit_dir_put(dir, "c.json", plain);
    unit_dir_put(dir, "d.json", plain);
    unit_dir_put(dir, "rank-7.json", "not JSON either, but named as rank 7's trace\n");
    unit_dir_put(dir, "x.json.gz", "\x0a\x05hello\x12"); /* protobuf bytes: a pprof, not gzipped */
    t2p_error err;
    const char *args[] = { dir };
    for (int pass = 0; pass < 2; pass++) {
        ranks_job *j = ranks_open(args, 1, &err);
        assert_non_null(j);
        assert_int_equal(j->nfiles, 8);
        ranks_load_opts lo = { .jobs = 2, .on_model = pass ? keep_rank : NULL };
        assert_int_equal(ranks_load(j, &lo, &err), 0);
        assert_int_equal(j->nnotes, 3);
        assert_non_null(note_of(j, "README.json"));
        assert_non_null(note_of(j, "b.json"));
        assert_non_null(note_of(j, "x.json.gz"));
        for (size_t i = 0; i < j->nnotes; i++) {
            assert_int_equal(j->notes[i].offset, -1);
            assert_non_null(strstr(j->notes[i].reason, "skipped"));
        }
        /* a.json 0, bad.json 1 (failed), c.json 2, d.json 3, rank-7.json 7 (failed) */
        assert_int_equal(j->nfiles, 5);
        assert_int_equal(j->nloaded, 3);
        assert_int_equal(j->nfailed, 2);
        const char *names[] = { "/a.json", "/c.json", "/d.json" };
        int64_t ranks[] = { 0, 2, 3 };
        for (size_t i = 0; i < 3; i++) {
            const ranks_file *f = &j->files[i];
            assert_non_null(strstr(f->path, names[i]));
            assert_int_equal(f->rank, ranks[i]);
            assert_int_equal(f->from, RANKS_FROM_POSITION);
            if (pass)
                assert_int_equal(*(const int64_t *)f->out, ranks[i]);
        }
        assert_non_null(strstr(j->files[3].path, "bad.json"));
        assert_int_equal(j->files[3].rank, 1);
        assert_non_null(strstr(j->files[4].path, "rank-7.json"));
        assert_int_equal(j->files[4].err.kind, T2P_ERR_JSON);
        ranks_free(j);
    }

    /* named on the command line, a file that is no trace fails */
    char notes[256], a[256];
    snprintf(notes, sizeof notes, "%s/b.json", dir);
    snprintf(a, sizeof a, "%s/a.json", dir);
    const char *named[] = { notes, a };
    ranks_job *j = ranks_open(named, 2, &err);
    assert_non_null(j);
    assert_int_equal(ranks_load(j, NULL, &err), 0);
    assert_int_equal(j->nfailed, 1);
    assert_int_equal(j->nnotes, 0);
    assert_int_equal(j->files[1].err.kind, T2P_ERR_NOT_TRACE);
    ranks_free(j);
    unit_dir_remove(dir);

    /* nothing but non-traces: an error, the notes still say why */
    unit_dir_make(dir, "/tmp/t2p-ranks-XXXXXX");
    unit_dir_put(dir, "README.json", "text");
    unit_dir_put(dir, "b.json", "{\"a\":1}");
    j = ranks_open(args, 1, &err);
    assert_non_null(j);
    assert_int_equal(ranks_load(j, NULL, &err), -1);
    assert_int_equal(err.kind, T2P_ERR_EMPTY);
    assert_non_null(strstr(err.reason, "no trace files"));
    assert_string_equal(err.file, dir);
    assert_int_equal(j->nnotes, 2);
    ranks_free(j);
    unit_dir_remove(dir);
}

/* A FIFO named like a trace blocks open() until a writer comes: left out
   with a note, never opened. A regression hangs: the alarm fails it. */
static void test_fifo(void **state)
{
    (void)state;
    unit_dir_make(dir, "/tmp/t2p-ranks-XXXXXX");
    unit_dir_put(dir, "a.json", plain);
    char path[256];
    snprintf(path, sizeof path, "%s/pipe.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(30);
    t2p_error err;
    const char *args[] = { dir };
    ranks_job *j = ranks_open(args, 1, &err);
    assert_non_null(j);
    assert_int_equal(j->nfiles, 1);
    assert_int_equal(j->nnotes, 1);
    assert_string_equal(j->notes[0].file, path);
    assert_non_null(strstr(j->notes[0].reason, "FIFO"));
    assert_int_equal(ranks_load(j, NULL, &err), 0);
    assert_int_equal(j->nloaded, 1);
    ranks_free(j);
    /* the FIFO alone: no trace */
    snprintf(path, sizeof path, "%s/a.json", dir);
    unlink(path);
    assert_null(ranks_open(args, 1, &err));
    assert_int_equal(err.kind, T2P_ERR_EMPTY);
    assert_non_null(strstr(err.reason, "pipe.json: a FIFO"));
    alarm(0);
    unit_dir_remove(dir);
}

/* A directory without traces names its subdirectories that hold some. */
static void test_subdirs(void **state)
{
    (void)state;
    unit_dir_make(dir, "/tmp/t2p-ranks-XXXXXX");
    char sub[256], top[256];
    snprintf(top, sizeof top, "%s", dir);
    const char *subs[] = { "run10", "run2", "logs" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(sub, sizeof sub, "%s/%s", top, subs[i]);
        assert_int_equal(mkdir(sub, 0700), 0);
    }
    unit_dir_put(dir, "run2/rank-0.json", plain);
    unit_dir_put(dir, "run10/rank-0.json", plain);
    unit_dir_put(dir, "run10/rank-1.json.gz", plain);
    unit_dir_put(dir, "logs/out.txt", "x");
    t2p_error err;
    const char *args[] = { top };
    assert_null(ranks_open(args, 1, &err));
    assert_int_equal(err.kind, T2P_ERR_EMPTY);
    char want[600];
    snprintf(want, sizeof want, "no trace files in the directory; traces in subdirectories: "
             "%s/run2 (1 trace), %s/run10 (2 traces)", top, top);
    assert_string_equal(err.reason, want);
    assert_null(strstr(err.reason, "logs"));
    unit_dir_remove(dir);
    /* none anywhere: the names looked for */
    unit_dir_make(dir, "/tmp/t2p-ranks-XXXXXX");
    const char *args2[] = { dir };
    assert_null(ranks_open(args2, 1, &err));
    assert_string_equal(err.reason, "no trace files in the directory (.json, .json.gz, "
                                    ".pt.trace.json[.gz])");
    unit_dir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_rank),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_metric),
        cmocka_unit_test(test_job),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_not_traces),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_subdirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
