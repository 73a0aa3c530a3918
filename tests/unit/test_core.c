/* Unit tests of core/: exact number parsing, interning, the nesting rule and
   self time on hand-made traces whose figures are worked out by hand. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/fmt.h"
#include "core/model/model.h"
#include "core/base/num.h"
#include "core/base/strtab.h"
#include "core/load/trace.h"
#include "core/base/radix.h"
#include "core/base/vec.h"
#include "core/model/stack_text.h"
#include "tests/unit/unit.h"

static void test_num_exact(void **state)
{
    int64_t v;
    (void)state;
    assert_true(num_parse_us_to_ns("1712195495659526.753", 20, &v));
    assert_int_equal(v, 1712195495659526753LL);
    assert_true(num_parse_us_to_ns("68.0", 4, &v));
    assert_int_equal(v, 68000);
    assert_true(num_parse_us_to_ns("1695835535123456", 16, &v));
    assert_int_equal(v, 1695835535123456000LL);
    assert_true(num_parse_us_to_ns("0.0005", 6, &v)); /* half rounds away from zero */
    assert_int_equal(v, 1);
    assert_true(num_parse_us_to_ns("0.0004", 6, &v));
    assert_int_equal(v, 0);
    assert_true(num_parse_us_to_ns("-3.5", 4, &v));
    assert_int_equal(v, -3500);
    assert_true(num_parse_us_to_ns("1.5e3", 5, &v));
    assert_int_equal(v, 1500000);
    assert_true(num_parse_us_to_ns("2560", 4, &v));
    assert_int_equal(v, 2560000);
    assert_false(num_parse_us_to_ns("1e400", 5, &v));
    assert_false(num_parse_us_to_ns("123456789012345678", 18, &v)); /* 1.2e20 ns: out of range */
    assert_true(num_parse_us_to_ns("9223372036854775.807", 20, &v));
    assert_int_equal(v, INT64_MAX);
    assert_false(num_parse_us_to_ns("9223372036854775.808", 20, &v));
    assert_false(num_parse_us_to_ns("abc", 3, &v));
    assert_false(num_parse_us_to_ns("", 0, &v));
    assert_false(num_parse_us_to_ns("1.2.3", 5, &v));
    uint64_t id;
    assert_true(num_parse_id("0x1f", 4, &id));
    assert_int_equal(id, 31);
    assert_true(num_parse_id("18446744073709551615", 20, &id));
    assert_true(id == UINT64_MAX);
    assert_false(num_parse_id("18446744073709551616", 20, &id));
}

static void test_strtab(void **state)
{
    (void)state;
    strtab *t = strtab_new();
    char big[6000];
    memset(big, 'k', sizeof big);
    uint32_t a = strtab_intern(t, "aten::mm", 8);
    uint32_t b = strtab_intern(t, big, sizeof big);
    uint32_t z = strtab_intern(t, "a\0b", 3);
    for (int i = 0; i < 5000; i++) {
        char s[32];
        int n = snprintf(s, sizeof s, "op%d", i);
        strtab_intern(t, s, (size_t)n);
    }
    assert_int_equal(strtab_intern(t, "aten::mm", 8), a);
    assert_int_equal(strtab_intern(t, big, sizeof big), b);
    assert_int_equal(strtab_len(t, b), sizeof big);
    assert_int_equal(strtab_len(t, z), 3);
    assert_int_equal(strtab_find(t, "nope", 4), STRTAB_NONE);
    assert_string_equal(strtab_str(t, a), "aten::mm");
    assert_int_equal(strtab_count(t), 5003);
    strtab_free(t);
    strtab_free(NULL);
}

/* A [0,100] holds B [10,40] and C [30,60] (overlapping siblings) and D [70,100];
   E [90,120] starts inside A but ends after it: not A's child. */
static void test_nesting_rule(void **state)
{
    (void)state;
    char *path;
    trace *tr;
    model *m = unit_load(
        "[{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":30},"
        "{\"ph\":\"X\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
        "{\"ph\":\"X\",\"name\":\"D\",\"pid\":1,\"tid\":1,\"ts\":70,\"dur\":30},"
        "{\"ph\":\"X\",\"name\":\"E\",\"pid\":1,\"tid\":1,\"ts\":90,\"dur\":30},"
        "{\"ph\":\"X\",\"name\":\"F\",\"pid\":1,\"tid\":1,\"ts\":95,\"dur\":5},"
        "{\"ph\":\"X\",\"name\":\"Z\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":0},"
        "{\"ph\":\"X\",\"name\":\"N\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":-1}", &tr, &path);
    const model_op *A = unit_find_op(m, "A"), *B = unit_find_op(m, "B"), *C = unit_find_op(m, "C"),
                   *D = unit_find_op(m, "D"), *E = unit_find_op(m, "E"), *F = unit_find_op(m, "F"),
                   *Z = unit_find_op(m, "Z");
    assert_non_null(A);
    /* A's children B, C, D (union [10,60] + [70,100] = 80 us), E is not one */
    assert_int_equal(A->self_ns, 20000);
    assert_int_equal(A->total_ns, 100000);
    assert_true(A->overlap);
    /* Z [50,50] sits in B? no: B ends at 40; it is in C [30,60] */
    assert_int_equal(C->self_ns, 30000);
    assert_int_equal(B->self_ns, 30000);
    /* F [95,100] is inside both D [70,100] and E [90,120]; E started later: innermost */
    assert_int_equal(D->self_ns, 30000);
    assert_int_equal(E->self_ns, 25000);
    assert_int_equal(F->self_ns, 5000);
    assert_int_equal(Z->calls, 1);
    assert_int_equal(Z->total_ns, 0);
    assert_null(unit_find_op(m, "N"));
    assert_int_equal(tr->skipped[TRACE_SKIP_NEGATIVE_DUR], 1);
    assert_int_equal(m->busy_ns, 20000 + 30000 + 30000 + 30000 + 25000 + 5000);
    assert_int_equal(m->window_ns, 120000);
    unit_close(m, tr, path);
}

static void test_steps_and_window(void **state)
{
    (void)state;
    char *path = unit_write_tmp(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\",\"ts\":0,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":50},"
        "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":210},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":220},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":220}"
        "], \"baseTimeNanoseconds\": 1711964646000000000}");
    t2p_error err;
    trace *tr = trace_load(path, NULL, &err);
    assert_non_null(tr);
    assert_true(tr->has_base);
    assert_int_equal(tr->base_ns, 1711964646000000000LL);
    model *m = model_build(tr, NULL, &err);
    const model_op *s = unit_find_op(m, "ProfilerStep*");
    assert_non_null(s);
    assert_int_equal(s->calls, 2);
    assert_int_equal(s->total_ns, 150000);
    assert_int_equal(s->self_ns, 140000);
    assert_int_equal(unit_find_op(m, "b")->total_ns, 10000);
    assert_int_equal(m->window_ns, 1000000);
    assert_int_equal(m->tracks_with_events, 1);
    assert_int_equal(tr->skipped[TRACE_SKIP_UNMATCHED_END], 1);
    assert_int_equal(tr->skipped[TRACE_SKIP_WINDOW], 1);
    model_free(m);
    model_opts keep = { .keep_steps = true };
    m = model_build(tr, &keep, &err);
    assert_null(unit_find_op(m, "ProfilerStep*"));
    assert_int_equal(unit_find_op(m, "ProfilerStep#2")->calls, 1);
    model_free(m);
    trace_free(tr);
    unlink(path);
    free(path);
}

static void test_load_errors(void **state)
{
    (void)state;
    t2p_error err;
    assert_null(trace_load("/nonexistent/x.json", NULL, &err));
    assert_int_equal(err.kind, T2P_ERR_IO);
    char *p = unit_write_tmp("");
    assert_null(trace_load(p, NULL, &err));
    assert_int_equal(err.kind, T2P_ERR_EMPTY);
    unlink(p);
    free(p);
    p = unit_write_tmp("hello world");
    assert_null(trace_load(p, NULL, &err));
    assert_int_equal(err.kind, T2P_ERR_JSON);
    assert_true(err.offset >= 0 && err.offset <= 1);
    unlink(p);
    free(p);
    p = unit_write_tmp("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2},{\"ph\":\"X\",\"na");
    assert_null(trace_load(p, NULL, &err));
    assert_int_equal(err.kind, T2P_ERR_TRUNCATED);
    trace_load_opts part = { .partial = true };
    trace *tr = trace_load(p, &part, &err);
    assert_non_null(tr);
    assert_true(tr->truncated);
    assert_int_equal(tr->nevents, 1);
    trace_free(tr);
    unlink(p);
    free(p);
    /* the array form may miss its closing bracket */
    p = unit_write_tmp("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2},\n");
    tr = trace_load(p, NULL, &err);
    assert_non_null(tr);
    assert_int_equal(tr->nevents, 1);
    trace_free(tr);
    unlink(p);
    free(p);
    p = unit_write_tmp("{\"nodes\":[], \"schema\":\"1.0\"}");
    assert_null(trace_load(p, NULL, &err));
    assert_int_equal(err.kind, T2P_ERR_NOT_TRACE);
    assert_non_null(strstr(err.reason, "execution trace"));
    unlink(p);
    free(p);
    p = unit_write_tmp("{\"traceEvents\":{}}");
    assert_null(trace_load(p, NULL, &err));
    assert_int_equal(err.kind, T2P_ERR_NOT_TRACE);
    unlink(p);
    free(p);
}

static void test_fmt(void **state)
{
    char b[64];
    (void)state;
    assert_string_equal(fmt_ms(1234567, b, sizeof b), "1.235");
    assert_string_equal(fmt_ms(-584000, b, sizeof b), "-0.584");
    assert_string_equal(fmt_count(1234567, b, sizeof b), "1,234,567");
    assert_string_equal(fmt_count(12, b, sizeof b), "12");
    assert_string_equal(fmt_ms_signed(1234567, b, sizeof b), "+1.235");
    assert_string_equal(fmt_ms_signed(-1234567, b, sizeof b), "-1.235");
    assert_string_equal(fmt_ms_signed(-499, b, sizeof b), "0.000");
    assert_string_equal(fmt_ms_signed(499, b, sizeof b), "0.000");
    assert_string_equal(fmt_ms_signed(500, b, sizeof b), "+0.001");
    assert_string_equal(fmt_ms(-499, b, sizeof b), "-0.000");
    assert_string_equal(fmt_ellipsize("abcdefgh", 8, 5, b, sizeof b), "abcd\xe2\x80\xa6");
    assert_string_equal(fmt_ellipsize("abc", 3, 5, b, sizeof b), "abc");
    assert_int_equal(fmt_width("\xc3\xa9t\xc3\xa9", 5), 3);
}

/* vec_reuse: what a thread releases comes back to it, vec_alloc's zeroed and
   vec_grow's contents kept through growth; a fresh mapping without reuse. */
static void test_vec_reuse(void **state)
{
    (void)state;
    size_t n = 3u << 20; /* 12 MB of uint32_t: past the huge-page advice too */
    vec_reuse_begin();
    uint32_t *a = vec_alloc(n, sizeof *a);
    assert_non_null(a);
    memset(a, 0xab, n * sizeof *a);
    vec_free(a, n, sizeof *a);
    uint32_t *b = vec_alloc(n / 2, sizeof *b);
    assert_ptr_equal(b, a); /* the same pages back, the rest returned */
    for (size_t i = 0; i < n / 2; i++)
        assert_int_equal(b[i], 0);
    memset(b, 0xcd, n / 2 * sizeof *b);
    vec_free(b, n / 2, sizeof *b);
    uint64_t *g = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(vec_grow((void **)&g, &cap, i, sizeof *g), 0);
        g[i] = i * 7;
    }
    for (size_t i = 0; i < n; i++)
        assert_int_equal(g[i], i * 7);
    /* grown past a huge page, it starts on one (its first MB copied out of
       its 4 KiB pages, then moved whole): huge pages from its first byte */
    assert_int_equal((uintptr_t)g % (2u << 20), 0);
    vec_free(g, cap, sizeof *g);
    vec_reuse_end();
    uint32_t *c = vec_alloc(16, sizeof *c);
    assert_non_null(c);
    assert_int_equal(c[0] | c[15], 0);
    vec_free(c, 16, sizeof *c);
}

/* The flags of the mapping that holds address a, from /proc/self/smaps;
   "" when not found. */
static void vma_flags(const void *a, char *out, size_t size)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool in = false;
    out[0] = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            in = (uintptr_t)a >= lo && (uintptr_t)a < hi;
        else if (in && !strncmp(line, "VmFlags:", 8)) {
            snprintf(out, size, "%s", line + 8);
            break;
        }
    }
    fclose(f);
}

/* vec_scratch: a big block is asked for huge pages (its mapping's flags say
   "hg"), a small one is left as malloc gave it; the zeroed one is zero,
   and growing keeps what was written. */
static void test_vec_scratch(void **state)
{
    (void)state;
    size_t n = 16u << 20; /* 64 MB of uint32_t */
    char fl[512];
    uint32_t *a = vec_scratch_zero(n, sizeof *a);
    assert_non_null(a);
    for (size_t i = 0; i < n; i += 4096)
        assert_int_equal(a[i], 0);
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0) {
        vma_flags(a + n / 2, fl, sizeof fl);
        assert_non_null(strstr(fl, " hg"));
    }
    free(a);
    uint32_t *b = vec_scratch(1000, sizeof *b);
    assert_non_null(b);
    vma_flags(b, fl, sizeof fl);
    assert_null(strstr(fl, " hg"));
    for (size_t i = 0; i < 1000; i++)
        b[i] = (uint32_t)i * 3;
    assert_int_equal(vec_scratch_grow((void **)&b, n, sizeof *b), 0);
    for (size_t i = 0; i < 1000; i++)
        assert_int_equal(b[i], i * 3);
    b[n - 1] = 7;
    free(b);
    assert_null(vec_scratch(SIZE_MAX / 2, 4));
    void *c = NULL;
    assert_int_equal(vec_scratch_grow(&c, SIZE_MAX / 2, 4), -1);
    assert_null(c);
}

/* radix_sort against a stable reference (insertion by key, then index):
   keys with many ties, keys that differ only in high bits, and without
   values */
struct kv {
    uint64_t k;
    uint32_t v;
};

static int cmp_kv(const void *pa, const void *pb)
{
    const struct kv *a = pa, *b = pb;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v; /* v is the input position: stability */
}

static void test_radix(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint64_t *k = malloc(N * sizeof *k), *tk = malloc(N * sizeof *tk), *k2 = malloc(N * sizeof *k2);
    uint32_t *v = malloc(N * sizeof *v), *tv = malloc(N * sizeof *tv);
    struct kv *ref = malloc(N * sizeof *ref);
    assert_true(k && tk && k2 && v && tv && ref);
    uint64_t x = 88172645463325252ull;
    for (int shape = 0; shape < 4; shape++) {
        for (uint32_t i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            k[i] = shape == 0 ? x % 37                     /* ties */
                   : shape == 1 ? (x % 5) << 58 | (x >> 40) % 3 /* high digits */
                   : shape == 2 ? x                        /* all 64 bits */
                                : 7;                       /* all equal */
            v[i] = i;
            ref[i] = (struct kv){ k[i], i };
            k2[i] = k[i];
        }
        qsort(ref, N, sizeof *ref, cmp_kv);
        radix_sort(k, v, N, tk, tv);
        radix_sort(k2, NULL, N, tk, NULL);
        for (uint32_t i = 0; i < N; i++) {
            assert_true(k[i] == ref[i].k);
            assert_int_equal(v[i], ref[i].v);
            assert_true(k2[i] == ref[i].k);
        }
        /* the records themselves in that order, in place */
        struct kv *rec = malloc(N * sizeof *rec);
        assert_non_null(rec);
        for (uint32_t i = 0; i < N; i++)
            rec[ref[i].v] = ref[i]; /* rec: the input order again */
        radix_permute(rec, sizeof *rec, v, N);
        for (uint32_t i = 0; i < N; i++) {
            assert_true(rec[i].k == ref[i].k);
            assert_int_equal(rec[i].v, ref[i].v);
            assert_int_equal(v[i], i);
        }
        free(rec);
    }
    free(k);
    free(tk);
    free(k2);
    free(v);
    free(tv);
    free(ref);
}

/* vec_grow_heap: element by element its contents survive each doubling;
   asked for room far past its end (a buffer's length) it doubles until that
   fits, not once. */
static void test_vec_grow_heap(void **state)
{
    (void)state;
    uint32_t *a = NULL;
    size_t cap = 0;
    for (uint32_t i = 0; i < 1000; i++) {
        assert_int_equal(vec_grow_heap((void **)&a, &cap, i, sizeof *a), 0);
        a[i] = i * 3;
    }
    assert_true(cap > 999);
    for (uint32_t i = 0; i < 1000; i++)
        assert_int_equal(a[i], i * 3);
    free(a);
    char *buf = NULL;
    cap = 0;
    assert_int_equal(vec_grow_heap((void **)&buf, &cap, 10, 1), 0);
    assert_int_equal(cap, 16);
    assert_int_equal(vec_grow_heap((void **)&buf, &cap, 200, 1), 0);
    assert_int_equal(cap, 256);
    memset(buf, 'x', 201); /* in bounds: ASan and valgrind say so */
    assert_int_equal(vec_grow_heap((void **)&buf, &cap, SIZE_MAX / 2 + 1, 1), -1);
    assert_int_equal(cap, 256);
    free(buf);
}

/* model_stack_text: outermost first, the innermost max frames with "..."
   when there are more, "" outside any operator, cut at a whole character. */
static void test_stack_text(void **state)
{
    (void)state;
    char *path;
    trace *tr;
    model *m = unit_load(
        "[{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"name\":\"B\xc3\xa9\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":80},"
        "{\"ph\":\"X\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":60},"
        "{\"ph\":\"X\",\"name\":\"D\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":40}]",
        &tr, &path);
    uint32_t d = MODEL_NONE;
    for (size_t e = 0; e < tr->nevents; e++)
        if (!strcmp(trace_str(tr, tr->events[e].name), "D"))
            d = m->ev_node[e];
    assert_int_not_equal(d, MODEL_NONE);
    char b[64];
    assert_string_equal(model_stack_text(m, d, " > ", 4, b, sizeof b), "A > B\xc3\xa9 > C > D");
    assert_string_equal(model_stack_text(m, d, " > ", 2, b, sizeof b), "... > C > D");
    assert_string_equal(model_stack_text(m, m->nodes[d].parent, "/", 64, b, sizeof b),
                        "A/B\xc3\xa9/C");
    /* "A > B" and the first byte of é fit in 6: é goes whole */
    assert_string_equal(model_stack_text(m, d, " > ", 4, b, 7), "A > B");
    assert_string_equal(model_stack_text(m, MODEL_NONE, " > ", 4, b, sizeof b), "");
    unit_close(m, tr, path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_num_exact),
        cmocka_unit_test(test_strtab),
        cmocka_unit_test(test_nesting_rule),
        cmocka_unit_test(test_steps_and_window),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_fmt),
        cmocka_unit_test(test_vec_reuse),
        cmocka_unit_test(test_vec_scratch),
        cmocka_unit_test(test_radix),
        cmocka_unit_test(test_vec_grow_heap),
        cmocka_unit_test(test_stack_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
