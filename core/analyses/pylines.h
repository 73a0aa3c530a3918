/* Time per Python source line (file, line, function), as pprof -lines and
   -list count it on our profiles: self = the self time of the Python frame
   events that are that line (a Call stack frame is never a leaf: 0); total =
   the self time of every call with that line on its stack, once per call
   however often the line recurs. One model read: analyze --by-line and the
   explorer's source view show these figures. */
#ifndef T2P_PYLINES_H
#define T2P_PYLINES_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"

typedef struct pyline {
    const char *file; /* not NUL-terminated: file_len bytes; owned by the pylines */
    size_t file_len;
    const char *func;
    size_t func_len;
    uint32_t line;
    int64_t self_ns, total_ns;
} pyline;

typedef struct pylines pylines;

/* The lines of m's Python frames that name a file (none with opts.no_python
   or no frames), counting the stacks sel selects: per node of m->nodes,
   non-zero when the stack ending there counts (a scope's mask, as
   select_nodes and the explorer's scope_keep give; lines on no selected
   stack are left out); NULL counts them all.
   NULL with err set when out of memory. Linear in the tree. */
pylines *pylines_build(const model *m, const uint8_t *sel, t2p_error *err);
void pylines_free(pylines *p);

/* The lines, by self then total time (descending), then file and line. */
size_t pylines_count(const pylines *p);
const pyline *pylines_get(const pylines *p, size_t i);

#endif
