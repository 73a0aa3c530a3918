/* analyze's Memory section (issue 14): figures from core/memory, printed. */
#include "config.h"

#include "src/analyze_memory.h"

#include <stdlib.h>
#include <string.h>

#include "core/fmt.h"
#include "src/cli.h"

/* The last frames of a node's stack, innermost last: "a > b > c". */
static void stack_put(FILE *f, const model *m, uint32_t node)
{
    uint32_t path[4];
    int n = 0;
    bool more = false;
    for (uint32_t p = node; p != MODEL_NONE && m->nodes[p].op != MODEL_NONE; p = m->nodes[p].parent) {
        if (n == 4) {
            more = true;
            break;
        }
        path[n++] = p;
    }
    if (!n) {
        fputs("outside any operator", f);
        return;
    }
    if (more)
        fputs("... > ", f);
    for (int i = n - 1; i >= 0; i--) {
        uint32_t op = m->nodes[path[i]].op;
        cli_put_text(f, model_op_name(m, op), strtab_len(m->tr->strs, m->ops[op].name));
        if (i)
            fputs(" > ", f);
    }
}

void analyze_memory_text(FILE *f, const memory *mem, const steps *st, enum memory_sort sort,
                         size_t top)
{
    if (!mem || !mem->ndevices)
        return;
    const model *m = mem->m;
    char a[64], b[64], c[64], d[64], e[64], g[64];
    fprintf(f, "\nMemory\n");
    for (size_t i = 0; i < mem->ndevices; i++) {
        const memory_device *v = &mem->devices[i];
        fprintf(f, "%-5s peak %s (%s) at %s ms", v->name, fmt_bytes(v->peak_bytes, a, sizeof a),
                v->has_totals ? "Total Allocated" : "running sum of Bytes",
                fmt_ms(v->peak_ns - m->window_start, b, sizeof b));
        uint32_t step = v->peak_record != MEMORY_NONE ? memory_step_at(st, v->peak_ns) : STEPS_NONE;
        if (step != STEPS_NONE) {
            const char *label = steps_label(st, step);
            fputs(" in step ", f);
            cli_put_text(f, label, strlen(label));
        }
        if (v->reserved_at_peak >= 0)
            fprintf(f, ", reserved %s", fmt_bytes(v->reserved_at_peak, c, sizeof c));
        fputc('\n', f);
        if (v->peak_node != MEMORY_NONE) {
            fputs("      in ", f);
            stack_put(f, m, v->peak_node);
            fputc('\n', f);
        }
        fprintf(f, "      %s allocs (%s), %s frees (%s)", fmt_count(v->allocs, a, sizeof a),
                fmt_bytes(v->alloc_bytes, b, sizeof b), fmt_count(v->frees, c, sizeof c),
                fmt_bytes(v->free_bytes, d, sizeof d));
        if (v->has_addr)
            fprintf(f, "; live at end %s in %s allocs; %s frees of earlier blocks\n",
                    fmt_bytes(v->live_bytes_at_end, e, sizeof e),
                    fmt_count(v->live_allocs_at_end, g, sizeof g),
                    fmt_count(v->unmatched_frees, a, sizeof a));
        else
            fprintf(f, "; allocated - freed %s (no addresses: allocs and frees not matched)\n",
                    fmt_bytes(v->live_bytes_at_end, e, sizeof e));
    }
    uint32_t *idx = malloc((mem->nops ? mem->nops : 1) * sizeof *idx);
    if (!idx)
        return;
    memory_sort_ops(mem, sort, MEMORY_NONE, idx);
    size_t n = top == 0 || top > mem->nops ? mem->nops : top;
    fprintf(f, "\nTop %zu operators by %s (with children; self = the operator's own)\n", n,
            memory_sort_name(sort));
    fprintf(f, "%-40s %-6s %10s %12s %12s %10s %12s %12s\n", "Name", "Device", "Allocs",
            "Alloc size", "Increase", "Self allocs", "Self size", "Self incr.");
    for (size_t i = 0; i < n; i++) {
        const memory_op *o = &mem->ops[idx[i]];
        cli_put_cell(f, model_op_name(m, o->op), strtab_len(m->tr->strs, m->ops[o->op].name), 40);
        fprintf(f, " %-6s %10s %12s %12s %10s %12s %12s\n", mem->devices[o->device].name,
                fmt_count(o->st.alloc_count, a, sizeof a), fmt_bytes(o->st.alloc_bytes, b, sizeof b),
                fmt_bytes(o->st.increase_bytes, c, sizeof c),
                fmt_count(o->st.self_alloc_count, d, sizeof d),
                fmt_bytes(o->st.self_alloc_bytes, e, sizeof e),
                fmt_bytes(o->st.self_increase_bytes, g, sizeof g));
    }
    free(idx);
}

void analyze_memory_json(FILE *f, const memory *mem, enum memory_sort sort, size_t top)
{
    fputs(",\"memory\":{\"devices\":[", f);
    for (size_t i = 0; mem && i < mem->ndevices; i++) {
        const memory_device *v = &mem->devices[i];
        fprintf(f, "%s{\"device\":\"%s\",\"peak_bytes\":%lld,\"peak_ns\":%lld,"
                   "\"reserved_at_peak_bytes\":%lld,\"allocs\":%llu,\"frees\":%llu,"
                   "\"live_bytes_at_end\":%lld,\"alloc_bytes\":%lld,\"free_bytes\":%lld,"
                   "\"live_allocs_at_end\":%llu,"
                   "\"matched_allocs\":%llu,\"lifetime_ns\":%lld,\"unmatched_frees\":%llu,"
                   "\"unmatched_free_bytes\":%lld,\"unattributed_records\":%llu}",
                i ? "," : "", v->name, (long long)v->peak_bytes, (long long)v->peak_ns,
                (long long)v->reserved_at_peak, (unsigned long long)v->allocs,
                (unsigned long long)v->frees, (long long)v->live_bytes_at_end,
                (long long)v->alloc_bytes, (long long)v->free_bytes,
                (unsigned long long)v->live_allocs_at_end, (unsigned long long)v->matched,
                (long long)v->lifetime_ns, (unsigned long long)v->unmatched_frees,
                (long long)v->unmatched_free_bytes, (unsigned long long)v->unattributed);
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
