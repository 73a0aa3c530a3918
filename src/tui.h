/* torch2pprof-tui's entry point, apart from main so that the allocation
   failure tests can run it (headless, with --replay). */
#ifndef T2P_TUI_H
#define T2P_TUI_H

/* The whole program: returns its exit code. */
int tui_main(int argc, char **argv);

#endif
