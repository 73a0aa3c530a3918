/* A track's busy time and largest idle gap as every table of threads shows
   them (the explorer's Threads view, the compare tables): one rule, so that
   a stream never shows its events' self time in one place and the union of
   its kernels in another. */
#ifndef T2P_TRACK_FIGS_H
#define T2P_TRACK_FIGS_H

#include <stdint.h>

#include "core/model/model.h"

/* A GPU stream's busy time (the union of its kernels, as analyze's streams
   table); any other track's busy_ns (its events' union). k indexes
   m->tracks. */
int64_t track_figs_busy(const model *m, uint32_t k);

/* The largest idle gap of track k, by the same rule as track_figs_busy. */
int64_t track_figs_idle(const model *m, uint32_t k);

#endif
