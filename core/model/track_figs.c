#include "config.h"

#include "core/model/track_figs.h"

int64_t track_figs_busy(const model *m, uint32_t k)
{
    uint32_t s = m->tracks[k].stream;
    return s != MODEL_NONE ? m->streams[s].busy_ns : m->tracks[k].busy_ns;
}

int64_t track_figs_idle(const model *m, uint32_t k)
{
    uint32_t s = m->tracks[k].stream;
    return s != MODEL_NONE ? m->streams[s].max_gap_ns : m->tracks[k].max_gap_ns;
}
