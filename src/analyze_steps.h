/* analyze's Steps section: the per-step split, its average and the
   recommendations, as text and as --json fields; and --steps / --step. */
#ifndef T2P_ANALYZE_STEPS_H
#define T2P_ANALYZE_STEPS_H

#include <stdbool.h>
#include <stdio.h>

#include "core/analyses/memory.h"
#include "core/analyses/steps.h"

/* What --steps and --step N[-M] asked for. */
typedef struct analyze_steps_sel {
    const steps *st;   /* of the whole trace */
    bool only;         /* --steps: the Steps section alone */
    const char *spec;  /* --step's text, or NULL */
    size_t first, last; /* the steps --step names (when spec) */
    /* --range: the Steps table lists the steps whose window starts in it,
       steps[rlo..rhi), without the average and recommendations */
    bool ranged;
    size_t rlo, rhi;
} analyze_steps_sel;

/* With sel->spec: parses it against sel->st and replaces *m by the model
   of those steps alone (steps_scope with *mo), which the caller frees as
   well as the whole one. Returns 0, or -1 after printing why (a step the
   trace lacks: the caller exits 1; out of memory: *m unchanged). */
int analyze_steps_select(analyze_steps_sel *sel, const model_opts *mo, model **m,
                         bool *usage_error);

/* "Scope: steps 1011-1013 (...)" under the report's header, when scoped. */
void analyze_steps_scope_line(FILE *f, const analyze_steps_sel *sel);


/* The Steps table, the average row and the recommendations (only the
   scope's steps when scoped). Prints nothing for a trace without
   ProfilerStep# but its recommendations. */
void analyze_steps_text(FILE *f, const analyze_steps_sel *sel);

/* ,"steps":"1011","start_ns":...,"end_ns":... when --step scoped the
   report: members of the report's "scope" object. */
void analyze_steps_scope_json(FILE *f, const analyze_steps_sel *sel);

/* ,"steps":[...],"steps_average":{...},"recommendations":[...]: members
   to put inside the report's object. */
void analyze_steps_json(FILE *f, const analyze_steps_sel *sel);

/* --steps: the whole report is the Steps section: text, or a JSON object
   with "file" and the members above. */
void analyze_steps_only(FILE *f, const analyze_steps_sel *sel, bool json);

#endif
