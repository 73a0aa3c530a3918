/* analyze: the figures of the text report that need a word on what they are. */
#ifndef T2P_ANALYZE_NOTES_H
#define T2P_ANALYZE_NOTES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/model/model.h"
#include "core/model/scope.h"
#include "core/model/shortname.h"

/* Prints the footnote for the rows order[0..nshow) marked '*' (cum_ns !=
   total_ns): what the two figures mean and each such row's cum. Names are
   short when sn is not NULL. figs: the ops' figures in a scope
   (core/model/scope.h), NULL for the model's. */
void analyze_cum_note(FILE *f, const model *m, const uint32_t *order, size_t nshow,
                      const shortnames *sn, const scope_fig *figs);

/* The time lines of the header: window, CPU time over all threads (with its
   ratio to the window), all tracks when GPU stream rows add to it, GPU time
   and GPU busy. */
void analyze_time_lines(FILE *f, const model *m);

#endif
