/* libFuzzer target: the loader, the aggregation and the export on arbitrary bytes.

   The input is written to a file in /dev/shm (trace_load takes a path and
   streams it through zlib and yajl, so the fuzzer exercises the real reader,
   the gzip detection included), then loaded, aggregated, sorted and labelled
   the way `torch2pprof analyze` does, then selected (focus, ignore, thread,
   filter) and written as a pprof profile the way `convert` does. Inputs of
   odd length load with
   partial=true, so both the strict and the --partial paths are covered.

   Built by `make fuzz` (see Makefile.am), never by `make`/`make check`. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/fmt.h"
#include "core/model/model.h"
#include "core/analyses/memory.h"
#include "core/pprof/pprof.h"
#include "core/model/select.h"
#include "core/base/textsafe.h"
#include "core/load/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], out_path[64];

static void cleanup(void)
{
    if (path[0])
        unlink(path);
    if (out_path[0])
        unlink(out_path);
}

/* convert, with and without a selection; the profile is read by nobody.
   Writing it (a gzip stream, a temp file, a rename) costs ten times the rest
   of a run, so only one input in eight is written; every one is selected. */
static void export(const model *m, unsigned variant)
{
    bool write = variant % 8 == 0;
    if (!write && !(variant & 1))
        return;
    t2p_error err;
    uint8_t *keep = NULL;
    if (variant & 1) {
        select_spec sel;
        select_init(&sel);
        sel.focus_re = "a|k|Step";
        sel.ignore_re = (variant & 2) ? "^aten::(mm|add)$" : NULL;
        sel.thread_re = (variant & 4) ? "stream|thread|/" : NULL;
        sel.filter = (variant & 8) ? "n" : NULL;
        if (m->nops)
            sel.focus_op = (uint32_t)(variant % m->nops);
        keep = select_nodes(m, &sel, &err);
        if (!keep) {
            if (err.kind != T2P_ERR_NOMEM)
                abort();
            return;
        }
    }
    static const char *const comments[] = { "fuzz" };
    pprof_opts po = { .keep = keep, .tool_version = "fuzz", .comments = comments, .ncomments = 1 };
    pprof_summary sum;
    if (write && pprof_write(m, &po, out_path, &sum, &err) < 0 && err.kind != T2P_ERR_NOMEM &&
        err.kind != T2P_ERR_IO)
        abort();
    if (write)
        unlink(out_path);
    free(keep);
}

static void exercise(const model *m)
{
    const trace *tr = m->tr;
    char buf[1024], label[256], num[64];
    uint32_t *order = malloc((m->nops ? m->nops : 1) * sizeof *order);
    if (order) {
        for (int s = 0; s < MODEL_SORT_N; s++) {
            model_sort_ops(m, (enum model_sort)s, s & 1, order);
            for (size_t i = 0; i < m->nops && i < 32; i++) {
                const model_op *o = &m->ops[order[i]];
                const char *name = trace_str(tr, o->name);
                size_t nlen = strtab_len(tr->strs, o->name);
                fmt_ellipsize(name, nlen, 48, buf, sizeof buf);
                /* what the report and the explorer show: no control, valid
                   UTF-8, within its width; JSON and pprof: valid UTF-8 */
                size_t blen = strlen(buf);
                if (!textsafe_is_visible(buf, blen) || !textsafe_utf8_valid(buf, blen) ||
                    fmt_width(buf, blen) > 48)
                    abort();
                size_t ulen = textsafe_utf8(name, nlen, true, buf, sizeof buf);
                if (!textsafe_utf8_valid(buf, strlen(buf)) ||
                    (ulen < sizeof buf && strlen(buf) != ulen))
                    abort();
                fmt_ms(o->self_ns, num, sizeof num);
                fmt_dur(o->total_ns, num, sizeof num);
                fmt_pct(o->self_ns, m->busy_ns, num, sizeof num);
            }
        }
        free(order);
    }
    uint32_t *co = malloc((m->ncats ? m->ncats : 1) * sizeof *co);
    if (co) {
        model_sort_cats(m, MODEL_SORT_SELF, false, co);
        free(co);
    }
    for (size_t k = 0; k < tr->ntracks; k++)
        trace_track_label(tr, (uint32_t)k, label, sizeof label);
    for (size_t i = 0; i < m->nstreams; i++)
        trace_track_label(tr, m->streams[i].track, label, sizeof label);
    fmt_ms(m->window_ns, num, sizeof num);
    t2p_error err;
    memory *mem = memory_build(m, &err);
    if (mem) {
        int64_t col[16];
        uint32_t *mi = malloc((mem->nops ? mem->nops : 1) * sizeof *mi);
        for (size_t d = 0; d < mem->ndevices; d++) {
            memory_curve(mem, (uint32_t)d, m->window_start, m->window_end + 1, col, 16);
            if (mi)
                memory_sort_ops(mem, (enum memory_sort)(d % MEMORY_SORT_N), (uint32_t)d, mi);
        }
        free(mi);
        memory_free(mem);
    } else if (err.kind != T2P_ERR_NOMEM && err.kind != T2P_ERR_ARG) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/dev/shm/t2p-fuzz-%ld.json", (long)getpid());
        snprintf(out_path, sizeof out_path, "/dev/shm/t2p-fuzz-%ld.pb.gz", (long)getpid());
        atexit(cleanup);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    if (fclose(f) != 0)
        abort();

    t2p_error err;
    trace_load_opts lo = { .partial = size & 1 };
    trace *tr = trace_load(path, &lo, &err);
    if (!tr) {
        char line[1200];
        if (err.kind == T2P_OK || !err.reason[0])
            abort(); /* a failure must always say why */
        error_format(&err, line, sizeof line);
        return 0;
    }
    for (int keep = 0; keep < 2; keep++) {
        model_opts mo = { .keep_steps = keep };
        model *m = model_build(tr, &mo, &err);
        if (!m) {
            if (err.kind != T2P_ERR_NOMEM)
                abort();
            break;
        }
        exercise(m);
        export(m, (unsigned)(size >> 1) * 2 + (unsigned)keep);
        model_free(m);
    }
    trace_free(tr);
    return 0;
}
