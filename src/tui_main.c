/* torch2pprof-tui: the explorer (src/tui.c). */
#include "config.h"

#include "src/cli.h"
#include "src/tui.h"

int main(int argc, char **argv)
{
    cli_tune_malloc(); /* the same memory as the batch commands */
    return tui_main(argc, argv);
}
