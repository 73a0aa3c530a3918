/* The torch2pprof commands. Each returns the process exit code. */
#ifndef T2P_CLI_H
#define T2P_CLI_H

#include <stdio.h>

#include "core/error.h"
#include "core/model.h"
#include "core/trace.h"
#include "src/args.h"


int cli_analyze(int argc, char **argv);
int cli_convert(int argc, char **argv);

/* Prints "torch2pprof: <error>" on stderr; returns EXIT_INPUT. */
int cli_fail(const t2p_error *err);

/* Loads TRACE and builds the model; on failure prints and returns NULL. */
model *cli_open(const char *path, bool partial, const model_opts *mo, trace **out_trace);

/* Where convert's summary line goes: standard output, or standard error
   when the profile itself goes there (OUT "-"). */
FILE *cli_summary_stream(const char *out);

/* Flushes the summary: EXIT_OK, or EXIT_INPUT after saying that OUT was
   written but the summary could not be (standard output closed, full). */
int cli_summary_done(FILE *f, const char *out);

/* Writes s as a JSON string literal. */
void cli_json_string(FILE *f, const char *s, size_t len);

#endif
