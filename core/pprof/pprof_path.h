/* The names of profile files, apart from writing them: used by every
   writer of profiles in core/pprof/ and by the fronts (through
   core/pprof/pprof.h), so that the output side (pprof_out.c) and the
   profile (pprof.c) need not depend on each other for them. */
#ifndef T2P_PPROF_PATH_H
#define T2P_PPROF_PATH_H

#include <stdbool.h>

/* Whether out names the file at path (same inode, or same resolved path). */
bool pprof_same_file(const char *path, const char *out);

/* The first of DIR/NAME.pb.gz, DIR/NAME-1.pb.gz, ... that does not exist,
   NAME being the trace's file name without .json/.gz/.pt.trace endings.
   Returns a new string (caller frees) or NULL when out of memory. */
char *pprof_free_path(const char *dir, const char *trace_path);

#endif
