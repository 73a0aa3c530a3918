/* analyze --by-line: the top Python source lines (core/analyses/pylines.h). */
#ifndef T2P_ANALYZE_LINES_H
#define T2P_ANALYZE_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/model/model.h"

/* The "Top N source lines" section (top 0: all), or a line saying the trace
   has no Python frames with a file. sel: a scope of stacks' mask over
   m->nodes (analyze_scope's keep; NULL: every stack): the lines' time on
   its stacks alone, and the header says so. Returns 0, or -1 out of memory
   (reported). */
int analyze_lines_text(FILE *f, const model *m, const uint8_t *sel, size_t top);

/* ,"lines":[{"file","line","function","self_ns","total_ns"},...] (leading
   comma), over sel likewise. */
int analyze_lines_json(FILE *f, const model *m, const uint8_t *sel, size_t top);

#endif
