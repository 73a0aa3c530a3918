/* torch2pprof convert: being written (pprof export). */
#include "config.h"

#include <stdio.h>

#include "src/cli.h"

int cli_convert(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "torch2pprof: convert is not built yet\n");
    return EXIT_USAGE;
}
