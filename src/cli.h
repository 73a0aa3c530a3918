/* The torch2pprof commands. Each returns the process exit code. */
#ifndef T2P_CLI_H
#define T2P_CLI_H

#include <stdio.h>

#include "core/base/error.h"
#include "core/model/model.h"
#include "core/load/trace.h"
#include "src/args.h"

/* Sets how malloc keeps memory, for the whole process (both programs' main
   calls it first): big blocks from the heap, freed memory kept for the next
   allocation. See src/cli.c for why. */
void cli_tune_malloc(void);

int cli_analyze(int argc, char **argv);
int cli_convert(int argc, char **argv);

/* Flushes the report on standard output: EXIT_OK, or EXIT_INPUT after
   saying it could not be written (a full disk, a closed pipe). */
int cli_report_done(void);

/* Prints "torch2pprof: <error>" on stderr; returns EXIT_INPUT. */
int cli_fail(const t2p_error *err);

/* "torch2pprof: warning: PATH: truncated (REASON); DONE what was read". */
void cli_warn_truncated(const char *path, const char *reason, const char *done);

/* The job's notes from the n-th on (the files of its directories left
   out), "torch2pprof: note: ..." a line each on stderr; returns their count. */
struct ranks_job;
size_t cli_print_notes(const struct ranks_job *j, size_t n);

/* Loads TRACE and builds the model; on failure prints and returns NULL. */
model *cli_open(const char *path, bool partial, const model_opts *mo, trace **out_trace);

/* cli_open's model of a trace already loaded (tr: owned from here on, freed
   on failure; *out_trace = tr on success). NULL after printing why. */
model *cli_model(trace *tr, const model_opts *mo, trace **out_trace);

/* --jobs for cli_open's loads: N threads tokenise one trace (0: one per
   core; 1: the single-thread path). */
void cli_set_jobs(long jobs);
unsigned cli_jobs(void);

/* Where convert's summary line ("wrote ...") goes: standard error, always,
   so that standard output carries results only (-o -: the profile). */
FILE *cli_summary_stream(const char *out);

/* Flushes the summary: EXIT_OK, or EXIT_INPUT after saying that OUT was
   written but the summary could not be (standard output closed, full). */
int cli_summary_done(FILE *f, const char *out);

/* Names, categories, labels and paths come from the trace or the file
   system: every text output writes them with these, in their visible form
   (core/base/textsafe.h), so no control character reaches the terminal. */

/* Writes s whole, in its visible form. */
void cli_put_text(FILE *f, const char *s, size_t len);

/* Writes s as a table cell: visible, cut to cols columns with an ellipsis,
   padded with blanks to cols. */
void cli_put_cell(FILE *f, const char *s, size_t len, size_t cols);

/* The visible form of the C string s (a path, an argument) for a message,
   in buf. Returns buf. */
const char *cli_shown(const char *s, char *buf, size_t size);


/* The command that reproduces a convert: "torch2pprof convert", each option
   given in its long spelling (-o last), the inputs as given, then "-o OUT";
   for the profile's comments (go tool pprof -comments). A new string
   (caller frees), or NULL when out of memory. */
struct opts_parsed;
char *cli_convert_command(const struct opts_parsed *p, char *const *inputs, size_t ninputs,
                          const char *out);

/* --range's text (already checked by opts_common) against the trace of
   whole, the model of the whole trace, into *r. Returns EXIT_OK, or
   EXIT_USAGE after printing "PROG: --range: <why>" (a range that starts
   past the trace's end). */
struct time_range;
int cli_range_resolve(const char *prog, const char *text, const model *whole,
                      struct time_range *r);

/* Writes s as a JSON string literal: valid UTF-8 always (U+FFFD for each
   byte that is not), control characters escaped. */
void cli_json_string(FILE *f, const char *s, size_t len);

#endif
