/* e: the scope to pprof (ui/export.c; this header is not ui/export.h, whose
   name core/pprof/export.h has), through core/pprof/export.h, the
   one writer of profiles, with the command that reproduces it. */
#ifndef T2P_VIEW_EXPORT_H
#define T2P_VIEW_EXPORT_H

#include "ui/view_types.h"

/* Writes the scope to pprof in the export dir under the name e offers
   (never overwriting) and sets the status line. Returns 0 or -1. (ui/export.c) */
int view_export(view *v);
/* Writes the scope to path (a directory: the offered name in it; ~/ is
   $HOME) and sets the status line. Returns 0, -1 when the write failed or
   was cancelled, or VIEW_EXPORT_RETRY when path exists or its directory
   cannot be written (by its mode bits or a read-only mount, even for root):
   nothing was written and another path may be tried. */
#define VIEW_EXPORT_RETRY 1
int view_export_to(view *v, const char *path);

/* e opens the prompt (VIEW_MODE_EXPORT) holding the offered path; keys
   typed in it. VIEW_DRAW_* bits. */
int view_export_begin(view *v);
int view_export_key(view *v, int key);

#endif
