/* The Steps view's recommendations: TensorBoard's Overview ones and ours,
   with their thresholds (steps_types.h), and those other analyses add. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/analyses/steps_rec.h"

static void add_rec(steps *s, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_rec(steps *s, const char *id, const char *fmt, ...)
{
    if (s->nrecs == STEPS_MAX_RECS)
        return;
    steps_rec *r = &s->recs[s->nrecs++];
    r->id = id;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text, sizeof r->text, fmt, ap);
    va_end(ap);
}

bool steps_add_rec(steps *s, const char *id, const char *text)
{
    if (!s || s->nrecs == STEPS_MAX_RECS)
        return false;
    add_rec(s, id, "%s", text);
    return true;
}

void steps_rec_build(steps *s, const model *m, bool dp)
{
    const trace *tr = m->tr;
    int64_t d = s->avg_duration_ns;
    if (d > 0) {
        double dl = (double)s->avg_role_ns[STEPS_DATALOADER] / (double)d;
        if (dl > STEPS_REC_DATALOADER)
            add_rec(s, "dataloader",
                    "%.1f%% of the average step is spent in the DataLoader (over %.0f%%): set "
                    "num_workers on the DataLoader so that batches load in worker processes "
                    "while the model runs.",
                    dl * 100, STEPS_REC_DATALOADER * 100);
        double cm = (double)s->avg_role_ns[STEPS_COMMUNICATION] / (double)d;
        if (cm > STEPS_REC_COMMUNICATION)
            add_rec(s, "communication",
                    "%.1f%% of the average step is spent in communication (over %.0f%%): try "
                    "gradient compression (DDP communication hooks), gradient accumulation or a "
                    "larger batch (both change the effective batch size).",
                    cm * 100, STEPS_REC_COMMUNICATION * 100);
    }
    /* DataParallel on several devices */
    if (dp) {
        size_t ndev = 0;
        uint32_t seen[16];
        for (size_t k = 0; k < m->nstreams && ndev < 16; k++) {
            uint32_t p = tr->tracks[m->streams[k].track].process;
            size_t j = 0;
            while (j < ndev && seen[j] != p)
                j++;
            if (j == ndev)
                seen[ndev++] = p;
        }
        if (ndev > 1)
            add_rec(s, "dataparallel",
                    "DataParallel runs on %zu devices: DistributedDataParallel (one process per "
                    "GPU) is faster for multi-GPU training.",
                    ndev);
    }
    /* our own: a GPU that idles through much of the step */
    if (s->device_windows && d > 0) {
        double u = (double)s->avg_gpu_busy_ns / (double)d;
        if (u < STEPS_REC_GPU_UTIL)
            add_rec(s, "gpu_util",
                    "The GPU is busy %.1f%% of the average step (under %.0f%%): the CPU side "
                    "(data loading, Python, launches) leaves it waiting; a larger batch, more "
                    "DataLoader workers or CUDA graphs keep it fed.",
                    u * 100, STEPS_REC_GPU_UTIL * 100);
    }
}

bool steps_recommend_memory(steps *s, int device, int64_t peak_bytes, int64_t total_bytes)
{
    if (!s || total_bytes <= 0 || (double)peak_bytes <= (double)total_bytes * STEPS_REC_MEMORY)
        return false;
    size_t before = s->nrecs;
    add_rec(s, "memory",
            "Peak memory on GPU %d is %.1f%% of its %.1f GB (over %.0f%%): gradient "
            "checkpointing or automatic mixed precision (AMP) make room for the model and "
            "larger batches.",
            device, (double)peak_bytes * 100 / (double)total_bytes,
            (double)total_bytes / (1024.0 * 1024 * 1024), STEPS_REC_MEMORY * 100);
    return s->nrecs > before;
}

