/* The load screen of a job's ranks as text: an overall line and bar, then
   one line per file with its own bar and state ("rank0.json.gz  [####...]
   45% reading"), as many as the screen holds (files at work first, then
   the waiting, then the finished; a last line counts the rest). Plain C:
   ui/draw.c paints the lines, a unit test reads them. */
#ifndef T2P_PROGRESS_H
#define T2P_PROGRESS_H

#include <stddef.h>

#include "core/analyses/ranks.h"

/* Writes the screen's lines, each ended by '\n', into buf (width columns
   at most, maxlines lines at most). Returns the number of lines. */
size_t progress_ranks_text(const ranks_job *j, const ranks_file_progress *p, double seconds,
                           int width, int maxlines, char *buf, size_t size);

/* The fraction of the job's bytes read: a finished file counts whole. */
double progress_ranks_fraction(const ranks_job *j, const ranks_file_progress *p);

#endif
