#include "config.h"

#include "src/args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fmt.h"

#include "core/model.h"

int args_sort(const char *prog, const char *key)
{
    char vis[600];
    int s = model_sort_parse(key);
    if (s < 0)
        fprintf(stderr, "%s: unknown sort key '%s' "
                        "(self, total, calls, name, avg, device_self, device_total)\n", prog,
                fmt_visible(key, strlen(key), vis, sizeof vis));
    return s;
}

int args_top(const char *prog, const char *opt, const char *arg, size_t *n)
{
    char *end, vis[600];
    long v = strtol(arg, &end, 10);
    if (*end || end == arg || v < 0) {
        fprintf(stderr, "%s: %s wants a number >= 0, not '%s'\n", prog, opt,
                fmt_visible(arg, strlen(arg), vis, sizeof vis));
        return -1;
    }
    *n = (size_t)v;
    return 0;
}
