/* analyze --by-line: the top Python source lines (core/analyses/pylines.h). */
#ifndef T2P_ANALYZE_LINES_H
#define T2P_ANALYZE_LINES_H

#include <stddef.h>
#include <stdio.h>

#include "core/model/model.h"

/* The "Top N source lines" section (top 0: all), or a line saying the trace
   has no Python frames with a file. Returns 0, or -1 out of memory (reported). */
int analyze_lines_text(FILE *f, const model *m, size_t top);

/* ,"lines":[{"file","line","function","self_ns","total_ns"},...] (leading comma). */
int analyze_lines_json(FILE *f, const model *m, size_t top);

#endif
