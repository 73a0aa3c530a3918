/* Allocation failure in src/: every entry point of the programs (analyze in
   each of its modes, convert in each of its modes, the explorer headless)
   runs with its k-th allocation failing, for every k until a run makes no
   k-th allocation. Each run is a child process: it must exit with 0 or 2
   (out of memory is an input or output error), never crash, abort or
   double free (glibc aborts on a double free; the sanitizer build reports
   it). A run that really failed must have said so on standard error.

   Linked with -Wl,--wrap=malloc,... (Makefile.am): calls from libt2pcli.a,
   libt2ptui.a, libt2pui.a, libt2pcore.a and this file reach the wrappers. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "src/cli.h"
#include "src/tui.h"
#include "tests/unit/nomem_wrap.h"

static char dir[64], trace1[96], trace2[96], out[96];

/* A small trace with what every mode reads: steps, GPU work, memory,
   Python frames, a rank. */
static void write_trace(const char *path, int rank)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"distributedInfo\":{\"rank\":%d},\"traceEvents\":[\n", rank);
    fputs("{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},\n", f);
    fputs("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 \"}},\n", f);
    for (int i = 0; i < 12; i++) {
        long ts = (long)i * 100;
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":95},\n",
                i / 4 + 10, ts);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"model.py(%d): forward\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":80},\n",
                10 + i % 3, ts + 1);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op_%d\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":50},\n",
                i % 5, ts + 2);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":5,\"args\":{\"correlation\":%d}},\n",
                ts + 3, i);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void kern<%d>(int)\",\"pid\":0,\"tid\":7,\"ts\":%ld,\"dur\":30,\"args\":{\"correlation\":%d}},\n",
                i % 3, ts + 10, i);
        fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%ld,"
                   "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":%d,\"Addr\":%d}},\n",
                ts + 4, i % 2 ? -512 : 512, i / 2);
    }
    fputs("{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":1,\"ts\":0,\"dur\":1300}\n]}\n", f);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/t2p-nomem-cli-%ld", (long)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(trace1, sizeof trace1, "%s/rank0.json", dir);
    snprintf(trace2, sizeof trace2, "%s/rank1.json", dir);
    snprintf(out, sizeof out, "%s/out.pb.gz", dir);
    write_trace(trace1, 0);
    write_trace(trace2, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(trace1);
    unlink(trace2);
    unlink(out);
    rmdir(dir);
    return 0;
}

enum entry { ANALYZE, CONVERT, TUI };

/* Runs the entry point in a child with allocation k failing (k < 0: none).
   Returns the child's wait status; *made is how many allocations it made,
   *said whether it wrote to standard error. */
static int run_child(enum entry e, char **argv, int argc, long k, long *made, bool *said)
{
    int pc[2], pe[2];
    assert_int_equal(pipe(pc), 0);
    assert_int_equal(pipe(pe), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pc[0]);
        close(pe[0]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        unlink(out);
        calls = 0;
        fail_at = k;
        armed = true;
        int rc = e == ANALYZE ? cli_analyze(argc, argv)
                 : e == CONVERT ? cli_convert(argc, argv)
                                : tui_main(argc, argv);
        armed = false;
        fflush(NULL);
        long n = calls;
        if (write(pc[1], &n, sizeof n) != sizeof n)
            _exit(99);
        _exit(rc);
    }
    close(pc[1]);
    close(pe[1]);
    char buf[4096];
    ssize_t r;
    *said = false;
    while ((r = read(pe[0], buf, sizeof buf)) > 0)
        *said = true;
    *made = -1;
    if (read(pc[0], made, sizeof *made) != sizeof *made)
        *made = -1;
    close(pc[0]);
    close(pe[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return st;
}

static void every_failure(enum entry e, const char *what, int argc, char **argv)
{
    long made;
    bool said;
    int st = run_child(e, argv, argc, -1, &made, &said);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("%s: fails without any allocation failing (status %d)", what, st);
    assert_true(made > 20);
    long failures = 0;
    for (long k = 0; k < made; k++) {
        long m2;
        st = run_child(e, argv, argc, k, &m2, &said);
        if (WIFSIGNALED(st))
            fail_msg("%s: allocation %ld of %ld failed: killed by signal %d", what, k, made,
                     WTERMSIG(st));
        int rc = WEXITSTATUS(st);
        if (rc != 0 && rc != 2)
            fail_msg("%s: allocation %ld of %ld failed: exit %d (wanted 0 or 2)", what, k, made,
                     rc);
        if (rc == 2 && !said)
            fail_msg("%s: allocation %ld failed: exit 2 without a message", what, k);
        failures += rc == 2;
    }
    /* most failures must be reported, not silently absorbed */
    assert_true(failures > made / 4);
    printf("# %s: %ld allocations, each failing in turn: %ld runs exit 2, none crashed\n", what,
           made, failures);
}

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define EVERY(e, what, ...) every_failure(e, what, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void test_analyze(void **state)
{
    (void)state;
    EVERY(ANALYZE, "analyze", "analyze", trace1);
    EVERY(ANALYZE, "analyze --json --by-line --short-names", "analyze", "--json", "--by-line",
          "--short-names", trace1);
    EVERY(ANALYZE, "analyze --step", "analyze", "--step", "11", trace1);
    EVERY(ANALYZE, "analyze --steps", "analyze", "--steps", trace1);
    EVERY(ANALYZE, "analyze --base", "analyze", "--base", trace2, trace1);
    EVERY(ANALYZE, "analyze ranks", "analyze", "--jobs", "2", trace1, trace2);
}

static void test_convert(void **state)
{
    (void)state;
    EVERY(CONVERT, "convert", "convert", trace1, out);
    EVERY(CONVERT, "convert --step --focus", "convert", "--step", "10-11", "--focus", "op_1",
          "-o", out, trace1);
    EVERY(CONVERT, "convert --base", "convert", "--base", trace2, "-o", out, trace1);
    EVERY(CONVERT, "convert ranks", "convert", "-o", out, trace1, trace2);
}

static void test_tui(void **state)
{
    (void)state;
    EVERY(TUI, "torch2pprof-tui --replay", "torch2pprof-tui", "--replay", "3 E <Down> 5 1 /op <Enter>",
          trace1);
    EVERY(TUI, "torch2pprof-tui ranks --replay", "torch2pprof-tui", "--replay", "6 7", trace1,
          trace2);
    EVERY(TUI, "torch2pprof-tui --base --replay", "torch2pprof-tui", "--replay", "1 3",
          "--base", trace2, trace1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_analyze),
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_tui),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
