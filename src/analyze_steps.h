/* analyze's Steps section: the per-step split, its average and the
   recommendations, as text and as --json fields. */
#ifndef T2P_ANALYZE_STEPS_H
#define T2P_ANALYZE_STEPS_H

#include <stdio.h>

#include "core/steps.h"

/* The Steps table, the average row and the recommendations. Prints nothing
   for a trace without ProfilerStep# but its recommendations. */
void analyze_steps_text(FILE *f, const steps *s);

/* ,"steps":[...],"steps_average":{...},"recommendations":[...] : members to
   put inside the report's object. */
void analyze_steps_json(FILE *f, const steps *s);

#endif
