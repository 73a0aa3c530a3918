/* Unit tests of core/analyses/memory_scope.c: the allocations inside a
   scope of stacks, on a hand-made trace whose figures are worked out by hand
   below; and with every stack selected, memory_build's operator rows. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/analyses/memory.h"
#include "core/analyses/memory_scope.h"
#include "core/load/trace.h"
#include "core/model/model.h"
#include "core/model/scope.h"
#include "tests/unit/unit.h"

#define MEM(pid, tid, ts, bytes, addr, more)                                                  \
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":" #pid ",\"tid\":" #tid        \
    ",\"ts\":" #ts ",\"args\":{\"Bytes\":" #bytes ",\"Addr\":" #addr more "}},"
#define CPU ",\"Device Type\":0,\"Device Id\":-1"
#define GPU0 ",\"Device Type\":1,\"Device Id\":0"

/* Thread (1,1): outer [0,100) > a [10,40) > a [20,30); outer > b [40,60);
   outer > z [70,70) (holds nothing). Thread (1,2): c [0,50).
   Records and where they belong:
     CPU  5 +100 (addr 1) outer     CPU 25 +10 (2) inner a (never freed)
     CPU 40 +20 (3) b               CPU 45 -100 (1) b
     CPU 70 +7 (4) outer            CPU 80 -5 (9) outer
     CPU 150 +1 (5) root            CPU (1,2) 10 +50 (6) c
     GPU0 12 +1000 (1) outer a      GPU0 22 +500 (2) inner a (never freed)
     GPU0 26 -1000 (1) inner a      GPU0 50 +300 (1) b (never freed) */
static const char trace_text[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"z\",\"pid\":1,\"tid\":1,\"ts\":70,\"dur\":0},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":50},"
    MEM(1, 1, 5, 100, 1, CPU)
    MEM(1, 1, 25, 10, 2, CPU)
    MEM(1, 1, 40, 20, 3, CPU)
    MEM(1, 1, 45, -100, 1, CPU)
    MEM(1, 1, 70, 7, 4, CPU)
    MEM(1, 1, 80, -5, 9, CPU)
    MEM(1, 1, 150, 1, 5, CPU)
    MEM(1, 2, 10, 50, 6, CPU)
    MEM(1, 1, 12, 1000, 1, GPU0)
    MEM(1, 1, 22, 500, 2, GPU0)
    MEM(1, 1, 26, -1000, 1, GPU0)
    MEM(1, 1, 50, 300, 1, GPU0)
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"not memory\",\"pid\":1,\"tid\":1,\"ts\":1}"
    "]}";

struct fix {
    char *path;
    trace *tr;
    model *m;
    memory *mem;
};

static void load(struct fix *f)
{
    t2p_error err;
    f->path = unit_write_tmp(trace_text);
    f->tr = trace_load(f->path, NULL, &err);
    assert_non_null(f->tr);
    f->m = model_build(f->tr, NULL, &err);
    assert_non_null(f->m);
    f->mem = memory_build(f->m, &err);
    assert_non_null(f->mem);
    assert_int_equal(f->mem->ndevices, 2); /* CPU, GPU0 */
}

static void done(struct fix *f)
{
    memory_free(f->mem);
    model_free(f->m);
    trace_free(f->tr);
    unlink(f->path);
    free(f->path);
}

static uint32_t op_index(const model *m, const char *name)
{
    for (uint32_t i = 0; i < m->nops; i++)
        if (!strcmp(model_op_name(m, i), name))
            return i;
    fail_msg("no op %s", name);
    return 0;
}

/* The mask of --focus name (scope_keep), owned by the caller. */
static uint8_t *focus(const model *m, const char *name)
{
    scope *s = scope_new(m);
    assert_non_null(s);
    assert_int_equal(scope_push_arg(s, "focus", name), 0);
    uint8_t *keep = scope_keep(s);
    assert_non_null(keep);
    scope_free(s);
    return keep;
}

static void assert_rows_equal(const memory *a, const memory *b)
{
    assert_int_equal(a->nops, b->nops);
    for (size_t i = 0; i < a->nops; i++) {
        assert_int_equal(a->ops[i].op, b->ops[i].op);
        assert_int_equal(a->ops[i].device, b->ops[i].device);
        assert_memory_equal(&a->ops[i].st, &b->ops[i].st, sizeof a->ops[i].st);
    }
}

/* Every stack selected: memory_build's rows, and every allocation. */
static void test_all_is_memory_build(void **state)
{
    (void)state;
    struct fix f;
    t2p_error err;
    load(&f);
    memory_scoped *ms = memory_scope_build(f.mem, NULL, &err);
    assert_non_null(ms);
    assert_rows_equal(&ms->view, f.mem);
    /* CPU: allocations 100, 10, 20, 7, 1, 50 (the root's too); GPU0 1000, 500, 300 */
    assert_int_equal(ms->devs[0].allocs, 6);
    assert_int_equal(ms->devs[0].alloc_bytes, 188);
    assert_int_equal(ms->devs[0].increase_bytes, 83);
    assert_int_equal(ms->devs[1].allocs, 3);
    assert_int_equal(ms->devs[1].alloc_bytes, 1800);
    assert_int_equal(ms->devs[1].increase_bytes, 800);
    memory_scope_free(ms);
    /* an empty scope's mask selects every stack but the roots: the same rows */
    scope *s = scope_new(f.m);
    uint8_t *keep = scope_keep(s);
    ms = memory_scope_build(f.mem, keep, &err);
    assert_non_null(ms);
    assert_rows_equal(&ms->view, f.mem);
    assert_int_equal(ms->devs[0].allocs, 5); /* the record at the root is in no stack */
    memory_scope_free(ms);
    free(keep);
    scope_free(s);
    done(&f);
}

static void test_focus(void **state)
{
    (void)state;
    struct fix f;
    t2p_error err;
    load(&f);
    /* --focus a: the records of both a's */
    uint8_t *keep = focus(f.m, "a");
    memory_scoped *ms = memory_scope_build(f.mem, keep, &err);
    assert_non_null(ms);
    assert_int_equal(ms->devs[0].allocs, 1);
    assert_int_equal(ms->devs[0].alloc_bytes, 10);
    assert_int_equal(ms->devs[0].increase_bytes, 10);
    assert_int_equal(ms->devs[0].live_allocs, 1);
    assert_int_equal(ms->devs[0].live_bytes, 10);
    assert_int_equal(ms->devs[1].allocs, 2);
    assert_int_equal(ms->devs[1].alloc_bytes, 1500);
    assert_int_equal(ms->devs[1].increase_bytes, 500);
    assert_int_equal(ms->devs[1].live_allocs, 1);
    assert_int_equal(ms->devs[1].live_bytes, 500);
    /* a on GPU0: its own records, each once though a recurs */
    const memory_stat *st = memory_op_stat(&ms->view, op_index(f.m, "a"), 1);
    assert_non_null(st);
    assert_int_equal(st->alloc_count, 2);
    assert_int_equal(st->alloc_bytes, 1500);
    assert_int_equal(st->increase_bytes, 500);
    assert_int_equal(st->self_alloc_count, 2);
    /* outer holds them with children, none of its own in the scope */
    st = memory_op_stat(&ms->view, op_index(f.m, "outer"), 1);
    assert_non_null(st);
    assert_int_equal(st->alloc_bytes, 1500);
    assert_int_equal(st->self_alloc_count, 0);
    /* b and c: outside */
    assert_null(memory_op_stat(&ms->view, op_index(f.m, "b"), 1));
    assert_null(memory_op_stat(&ms->view, op_index(f.m, "c"), 0));
    memory_scope_free(ms);
    free(keep);
    /* --focus b: its allocation and the free of outer's block */
    keep = focus(f.m, "b");
    ms = memory_scope_build(f.mem, keep, &err);
    assert_non_null(ms);
    assert_int_equal(ms->devs[0].allocs, 1);
    assert_int_equal(ms->devs[0].alloc_bytes, 20);
    assert_int_equal(ms->devs[0].increase_bytes, -80);
    assert_int_equal(ms->devs[1].alloc_bytes, 300);
    memory_scope_free(ms);
    free(keep);
    done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_is_memory_build),
        cmocka_unit_test(test_focus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
