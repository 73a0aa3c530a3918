/* torch2pprof-tui: the explorer (src/tui.c). */
#include "config.h"

#include "src/tui.h"

int main(int argc, char **argv)
{
    return tui_main(argc, argv);
}
