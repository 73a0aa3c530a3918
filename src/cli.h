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

/* Writes s as a JSON string literal. */
void cli_json_string(FILE *f, const char *s, size_t len);

#endif
