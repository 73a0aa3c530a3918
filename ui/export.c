/* The e key: the scope on screen to a pprof file. */
#include "config.h"

#include "ui/view.h"

#include <stdio.h>

int view_export(view *v)
{
    snprintf(v->status, sizeof v->status, "export needs the pprof writer (not built yet)");
    return -1;
}
