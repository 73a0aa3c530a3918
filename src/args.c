#include "config.h"

#include "src/args.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/model.h"

int args_sort(const char *prog, const char *key)
{
    int s = model_sort_parse(key);
    if (s < 0)
        fprintf(stderr, "%s: unknown sort key '%s' "
                        "(self, total, calls, name, avg, device_self, device_total)\n", prog, key);
    return s;
}

int args_top(const char *prog, const char *opt, const char *arg, size_t *n)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (*end || end == arg || v < 0) {
        fprintf(stderr, "%s: %s wants a number >= 0, not '%s'\n", prog, opt, arg);
        return -1;
    }
    *n = (size_t)v;
    return 0;
}
