/* yajl behind an allocator that never hands it NULL (see trace_int.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/trace_yajl.h"

static void *ya_malloc(void *ctx, size_t n)
{
    trace_yajl *ym = ctx;
    void *p = malloc(n);
    if (n > ym->big)
        ym->big = n;
    if (!p && ym->armed)
        longjmp(ym->jb, 1);
    if (ym->tracking && ym->ntrack < 8)
        ym->track[ym->ntrack++] = p;
    return p;
}

static void *ya_realloc(void *ctx, void *old, size_t n)
{
    trace_yajl *ym = ctx;
    /* The lexer's buffer holds a token that spans chunks from its first
       byte on, and grows by realloc: past the cap with a quote first, a
       string is too long. The jump leaves before yajl stores anything, as
       for a failed allocation. Numbers keep going (a bad_number, counted). */
    if (n > TRACE_MAX_STRING && old && ym->armed && *(const unsigned char *)old == '"') {
        ym->too_long = true;
        longjmp(ym->jb, 1);
    }
    void *p = realloc(old, n);
    if (n > ym->big)
        ym->big = n;
    if (!p && n && ym->armed)
        longjmp(ym->jb, 1);
    if (ym->tracking && p) {
        int i = 0;
        while (i < ym->ntrack && ym->track[i] != old)
            i++;
        if (i < ym->ntrack && old)
            ym->track[i] = p;
        else if (ym->ntrack < 8)
            ym->track[ym->ntrack++] = p;
    }
    return p;
}

static void ya_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

int trace_yajl_init(trace_yajl *y, const yajl_callbacks *cb, void *ctx)
{
    y->h = NULL;
    y->yaf = (yajl_alloc_funcs){ ya_malloc, ya_realloc, ya_free, y };
    y->armed = y->tracking = false;
    y->ntrack = 0;
    y->big = 0;
    y->too_long = false;
    if (setjmp(y->jb)) {
        y->armed = y->tracking = false;
        for (int i = 0; i < y->ntrack; i++)
            free(y->track[i]);
        y->h = NULL;
        return -1;
    }
    y->armed = y->tracking = true;
    y->h = yajl_alloc(cb, &y->yaf, ctx);
    /* yajl_parse allocates the lexer on its first call, and loses it when the
       allocation of the lexer's buffer fails: make that first call here */
    if (y->h)
        yajl_parse(y->h, (const unsigned char *)"", 0);
    y->armed = y->tracking = false;
    return y->h ? 0 : -1;
}

yajl_status trace_yajl_parse(trace_yajl *y, const unsigned char *buf, size_t len, bool *oom)
{
    if (setjmp(y->jb)) {
        y->armed = false;
        *oom = !y->too_long;
        return yajl_status_error;
    }
    y->armed = true;
    yajl_status s = buf ? yajl_parse(y->h, buf, len) : yajl_complete_parse(y->h);
    y->armed = false;
    return s;
}

void trace_yajl_reason(trace_yajl *y, const unsigned char *buf, size_t len, char *out, size_t size)
{
    unsigned char *m = yajl_get_error(y->h, 0, buf, len);
    snprintf(out, size, "%s", m ? (const char *)m : "parse error");
    if (m)
        yajl_free_error(y->h, m);
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' ' || out[n - 1] == '.'))
        out[--n] = '\0';
}

void trace_yajl_done(trace_yajl *y)
{
    if (y->h)
        yajl_free(y->h);
    y->h = NULL;
}
