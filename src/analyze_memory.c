/* analyze's Memory section (issue 14): figures from core/memory, printed. */
#include "config.h"

#include "src/analyze_memory.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/fmt.h"
#include "core/model/stack_text.h"
#include "src/cli.h"
#include "src/cli_table.h"

struct mem_rows {
    const memory *mem;
    const uint32_t *idx;
    char buf[8][64];
};

static void mem_row(void *ctx, size_t i, const char **cell, size_t *len)
{
    struct mem_rows *x = ctx;
    const memory *mem = x->mem;
    const model *m = mem->m;
    const memory_op *o = &mem->ops[x->idx[i]];
    cell[0] = model_op_name(m, o->op);
    len[0] = strtab_len(m->tr->strs, m->ops[o->op].name);
    cell[1] = mem->devices[o->device].name;
    cell[2] = fmt_count(o->st.alloc_count, x->buf[2], 64);
    cell[3] = fmt_bytes(o->st.alloc_bytes, x->buf[3], 64);
    cell[4] = fmt_bytes(o->st.increase_bytes, x->buf[4], 64);
    cell[5] = fmt_count(o->st.self_alloc_count, x->buf[5], 64);
    cell[6] = fmt_bytes(o->st.self_alloc_bytes, x->buf[6], 64);
    cell[7] = fmt_bytes(o->st.self_increase_bytes, x->buf[7], 64);
    for (int c = 1; c < 8; c++)
        len[c] = strlen(cell[c]);
}

static const cli_col mem_cols[] = {
    {"Name", CLI_COL_LEFT | CLI_COL_NAME}, {"Device", CLI_COL_LEFT}, {"Allocs", 0},
    {"Alloc size", 0}, {"Increase", 0}, {"Self allocs", 0}, {"Self size", 0}, {"Self incr.", 0}};

/* The top operators table; note: what the figures cover, after "self = ...". */
static void ops_table(FILE *f, const memory *mem, enum memory_sort sort, size_t top,
                      const char *note)
{
    uint32_t *idx = malloc((mem->nops ? mem->nops : 1) * sizeof *idx);
    if (!idx)
        return;
    memory_sort_ops(mem, sort, MEMORY_NONE, idx);
    size_t n = top == 0 || top > mem->nops ? mem->nops : top;
    fprintf(f, "\nTop %zu operators by %s (with children; self = the operator's own%s)\n", n,
            memory_sort_name(sort), note);
    struct mem_rows x = {.mem = mem, .idx = idx};
    cli_table(f, mem_cols, 8, n, mem_row, &x);
    free(idx);
}

/* Per device: the peak, when and where, reserved at the peak, allocations,
   frees and what was still allocated at the end. */
static void devices_text(FILE *f, const memory *mem, const steps *st)
{
    const model *m = mem->m;
    /* times are offsets from the trace's start, under a scope too */
    int64_t origin = st ? st->m->window_start : m->window_start;
    char a[64], b[64], c[64], d[64], e[64], g[64];
    for (size_t i = 0; i < mem->ndevices; i++) {
        const memory_device *v = &mem->devices[i];
        if (mem->windowed && !v->records) {
            fprintf(f, "%-5s no record in this window\n", v->name);
            continue;
        }
        fprintf(f, "%-5s peak %s (%s) at %s ms", v->name, fmt_bytes(v->peak_bytes, a, sizeof a),
                v->has_totals ? "Total Allocated" : "running sum of Bytes",
                fmt_ms(v->peak_ns - origin, b, sizeof b));
        uint32_t step = v->peak_record != MEMORY_NONE ? steps_at(st, v->peak_ns, true) : STEPS_NONE;
        if (step != STEPS_NONE) {
            const char *label = steps_label(st, step);
            fputs(" in step ", f);
            cli_put_text(f, label, strlen(label));
        }
        if (v->reserved_at_peak >= 0)
            fprintf(f, ", reserved %s", fmt_bytes(v->reserved_at_peak, c, sizeof c));
        fputc('\n', f);
        if (v->peak_node != MEMORY_NONE) {
            /* on a terminal the outer frames give way */
            char sb[2048];
            const char *sp = model_stack_text(m, v->peak_node, " > ", 4, sb, sizeof sb);
            if (!sp[0])
                sp = "outside any operator";
            size_t lim = cli_text_cols(f), sl = strlen(sp);
            fputs("      in ", f);
            cli_put_fit(f, sp, sl, lim > 29 ? lim - 9 : SIZE_MAX, CLI_COL_LEFT | CLI_COL_PATH, 0);
            fputc('\n', f);
        }
        /* prose: wrapped on a terminal */
        char line[1024];
        int o = snprintf(line, sizeof line, "      %s allocs (%s), %s frees (%s)",
                         fmt_count(v->allocs, a, sizeof a), fmt_bytes(v->alloc_bytes, b, sizeof b),
                         fmt_count(v->frees, c, sizeof c), fmt_bytes(v->free_bytes, d, sizeof d));
        if (v->has_addr)
            snprintf(line + o, sizeof line - (size_t)o,
                     "; live at end %s in %s allocs; %s frees of earlier blocks",
                     fmt_bytes(v->live_bytes_at_end, e, sizeof e),
                     fmt_count(v->live_allocs_at_end, g, sizeof g),
                     fmt_count(v->unmatched_frees, a, sizeof a));
        else
            snprintf(line + o, sizeof line - (size_t)o,
                     "; allocated - freed %s (no addresses: allocs and frees not matched)",
                     fmt_bytes(v->live_bytes_at_end, e, sizeof e));
        cli_put_wrapped(f, line, 8);
    }
}

void analyze_memory_text(FILE *f, const memory *mem, const memory_scoped *ms, const steps *st,
                         enum memory_sort sort, size_t top)
{
    char a[64], b[64], c[64], d[64], e[64];
    if (ms) {
        /* the memory shown: the scope's view of mem */
        mem = &ms->view;
        if (!mem->ndevices)
            return;
        fprintf(f, "\nMemory in the scope (the allocations made inside its stacks; the devices' "
                   "peak, frees and end level below are the %s's, not the scope's)\n",
                mem->windowed ? "window" : "whole trace");
        for (size_t i = 0; i < mem->ndevices; i++) {
            const memory_scope_dev *v = &ms->devs[i];
            char line[512];
            snprintf(line, sizeof line, "%-5s in the scope: %s allocs (%s), increase %s; %s of "
                     "them (%s) never freed in the window",
                     mem->devices[i].name, fmt_count(v->allocs, a, sizeof a),
                     fmt_bytes(v->alloc_bytes, b, sizeof b),
                     fmt_bytes(v->increase_bytes, c, sizeof c),
                     fmt_count(v->live_allocs, d, sizeof d), fmt_bytes(v->live_bytes, e, sizeof e));
            cli_put_wrapped(f, line, 8);
        }
    } else {
        if (!mem || !mem->ndevices)
            return;
        if (mem->windowed)
            fprintf(f, "\nMemory (the [memory] records in %s alone)\n", mem->m->scope_note);
        else
            fprintf(f, "\nMemory\n");
    }
    /* the devices' own figures, under a scope of stacks too */
    devices_text(f, mem, st);
    ops_table(f, mem, sort, top, ms ? "; on the scope's stacks" : "");
}

void analyze_memory_json(FILE *f, const memory *mem, const memory_scoped *ms,
                         enum memory_sort sort, size_t top)
{
    fputs(",\"memory\":{", f);
    if (ms) {
        mem = &ms->view; /* the scope's view of mem: device figures and its rows */
        fputs("\"scope\":\"stacks\",", f);
    }
    fputs("\"devices\":[", f);
    for (size_t i = 0; mem && i < mem->ndevices; i++) {
        const memory_device *v = &mem->devices[i];
        fprintf(f, "%s{\"device\":\"%s\",\"peak_bytes\":%lld,\"peak_ns\":%lld,"
                   "\"reserved_at_peak_bytes\":%lld,\"allocs\":%llu,\"frees\":%llu,"
                   "\"live_bytes_at_end\":%lld,\"alloc_bytes\":%lld,\"free_bytes\":%lld,"
                   "\"live_allocs_at_end\":%llu,"
                   "\"matched_allocs\":%llu,\"lifetime_ns\":%lld,\"unmatched_frees\":%llu,"
                   "\"unmatched_free_bytes\":%lld,\"unattributed_records\":%llu,\"records\":%llu",
                i ? "," : "", v->name, (long long)v->peak_bytes, (long long)v->peak_ns,
                (long long)v->reserved_at_peak, (unsigned long long)v->allocs,
                (unsigned long long)v->frees, (long long)v->live_bytes_at_end,
                (long long)v->alloc_bytes, (long long)v->free_bytes,
                (unsigned long long)v->live_allocs_at_end, (unsigned long long)v->matched,
                (long long)v->lifetime_ns, (unsigned long long)v->unmatched_frees,
                (long long)v->unmatched_free_bytes, (unsigned long long)v->unattributed,
                (unsigned long long)v->records);
        if (ms) {
            const memory_scope_dev *x = &ms->devs[i];
            fprintf(f, ",\"in_scope\":{\"allocs\":%llu,\"alloc_bytes\":%lld,"
                       "\"increase_bytes\":%lld,\"live_allocs\":%llu,\"live_bytes\":%lld}",
                    (unsigned long long)x->allocs, (long long)x->alloc_bytes,
                    (long long)x->increase_bytes, (unsigned long long)x->live_allocs,
                    (long long)x->live_bytes);
        }
        fputc('}', f);
    }
    fputs("],\"ops\":[", f);
    uint32_t *idx = mem ? malloc((mem->nops ? mem->nops : 1) * sizeof *idx) : NULL;
    if (idx) {
        const model *m = mem->m;
        const trace *tr = m->tr;
        memory_sort_ops(mem, sort, MEMORY_NONE, idx);
        size_t n = top == 0 || top > mem->nops ? mem->nops : top;
        for (size_t i = 0; i < n; i++) {
            const memory_op *o = &mem->ops[idx[i]];
            const model_op *op = &m->ops[o->op];
            fputs(i ? ",{\"name\":" : "{\"name\":", f);
            cli_json_string(f, trace_str(tr, op->name), strtab_len(tr->strs, op->name));
            fputs(",\"category\":", f);
            cli_json_string(f, trace_str(tr, op->cat), strtab_len(tr->strs, op->cat));
            fprintf(f, ",\"device\":\"%s\",\"alloc_count\":%llu,\"alloc_bytes\":%lld,"
                       "\"increase_bytes\":%lld,\"self_alloc_count\":%llu,"
                       "\"self_alloc_bytes\":%lld,\"self_increase_bytes\":%lld}",
                    mem->devices[o->device].name, (unsigned long long)o->st.alloc_count,
                    (long long)o->st.alloc_bytes, (long long)o->st.increase_bytes,
                    (unsigned long long)o->st.self_alloc_count, (long long)o->st.self_alloc_bytes,
                    (long long)o->st.self_increase_bytes);
        }
        free(idx);
    }
    fputs("]}", f);
}
