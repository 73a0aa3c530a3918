/* core/shortname against HTA's own shorten_name: tests/fixtures/short_names.tsv
   holds its output for every name of the shared traces and some corner cases
   (recorded by tests/record_short_names.py). */
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

#include "core/model/model.h"
#include "core/model/shortname.h"
#include "core/load/trace.h"
#include "tests/unit/unit.h"

static bool readable(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
            return true;
    }
    return false;
}

static void test_vs_hta(void **state)
{
    (void)state;
    FILE *f = fopen(TOP_SRCDIR "/tests/fixtures/short_names.tsv", "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    size_t rows = 0, shortened = 0, departures = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (strncmp(line, "#\t", 2) == 0)
            continue;
        char *tab = strchr(line, '\t');
        assert_non_null(tab);
        *tab = '\0';
        const char *name = line, *hta = tab + 1;
        size_t len = (size_t)(tab - line);
        const char *want = hta;
        if (!readable(hta)) {
            want = name; /* the one departure: nothing readable left */
            departures += strcmp(hta, name) != 0;
        }
        char *out = malloc(len + 1);
        size_t got = shortname_cut(name, len, out);
        if (strcmp(out, want) != 0 || got != strlen(want))
            fail_msg("'%s': short '%s', HTA '%s'", name, out, hta);
        shortened += strcmp(out, name) != 0;
        rows++;
        free(out);
    }
    free(line);
    fclose(f);
    assert_true(rows > 500);
    assert_true(shortened > 100);
    assert_true(departures > 0 && departures < rows / 10);
}

static void test_examples(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        { "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
          "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
          "at::detail::Array<char*, 1>)",
          "at::native::vectorized_elementwise_kernel" },
        { "Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)" },
        { "aten::add", "aten::add" },
        { "<forked function>", "<forked function>" },
        { "t<a<b>c>d(x)", "td" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[512];
        shortname_cut(cases[i][0], strlen(cases[i][0]), out);
        assert_string_equal(out, cases[i][1]);
    }
}

/* Two kernels of one template: equal short names, still two ops. */
static void test_model_ops(void **state)
{
    (void)state;
    char *path = unit_write_tmp(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void k<float>(float*)\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":5},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void k<int>(int*)\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":3},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":3}"
        "]}");
    t2p_error err;
    trace *tr = trace_load(path, NULL, &err);
    assert_non_null(tr);
    model *m = model_build(tr, NULL, &err);
    assert_non_null(m);
    shortnames *s = shortname_new(m);
    assert_non_null(s);
    assert_int_equal(m->nops, 3);
    size_t nk = 0;
    for (uint32_t o = 0; o < m->nops; o++) {
        size_t len;
        const char *sn = shortname_op(s, o, &len);
        assert_int_equal(len, strlen(sn));
        if (strcmp(sn, "k") == 0)
            nk++;
        else
            assert_string_equal(sn, "aten::mm");
    }
    assert_int_equal(nk, 2);
    shortname_free(s);
    shortname_free(NULL);
    model_free(m);
    trace_free(tr);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_hta),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_model_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
