#include "config.h"

#include "core/load/pyframe.h"

#include <string.h>
#include <strings.h>

bool pyframe_parse(const char *s, size_t len, pyframe *f)
{
    *f = (pyframe){ .text = s, .len = len, .file = s, .func = s, .func_len = len };
    /* the first "(DIGITS): " ends the file name: a path may hold '(' */
    for (size_t i = 1; i < len; i++) {
        if (s[i] != '(')
            continue;
        size_t j = i + 1;
        uint64_t line = 0;
        while (j < len && s[j] >= '0' && s[j] <= '9' && line < 100000000)
            line = line * 10 + (uint64_t)(s[j++] - '0');
        if (j == i + 1 || j + 2 > len || s[j] != ')' || s[j + 1] != ':' ||
            (j + 2 < len && s[j + 2] != ' ') || line > UINT32_MAX)
            continue;
        f->file = s;
        f->file_len = i;
        f->line = (uint32_t)line;
        f->func = s + j + 2 + (j + 2 < len);
        f->func_len = len - (size_t)(f->func - s);
        return true;
    }
    return false;
}

bool pyframe_is_cat(const char *cat)
{
    return strcasecmp(cat, "python_function") == 0 || strcasecmp(cat, "python") == 0;
}

bool pyframe_of_op(const model *m, uint32_t op, pyframe *f)
{
    const model_op *o = &m->ops[op];
    if (!pyframe_is_cat(trace_str(m->tr, o->cat)))
        return false;
    return pyframe_parse(trace_str(m->tr, o->name), strtab_len(m->tr->strs, o->name), f);
}

bool pyframe_next(const char *text, size_t len, size_t *pos, pyframe *f)
{
    if (*pos >= len)
        return false;
    const char *s = text + *pos;
    const char *semi = memchr(s, ';', len - *pos);
    size_t n = semi ? (size_t)(semi - s) : len - *pos;
    pyframe_parse(s, n, f);
    *pos += n + (semi != NULL);
    return true;
}

/* the number of ';'-joined frames in s[0..len) */
static size_t count_frames(const char *s, size_t len)
{
    size_t n = len ? 1 : 0;
    for (const char *p = s; (p = memchr(p, ';', len - (size_t)(p - s))); p++)
        n++;
    return n;
}

/* the start of the last ';'-joined frame of s[0..n) */
static size_t last_frame(const char *s, size_t n)
{
    while (n > 0 && s[n - 1] != ';')
        n--;
    return n;
}

size_t pyframe_added(const model *m, uint32_t stack, uint32_t outer, const char **frames,
                     size_t *len)
{
    *frames = NULL;
    *len = 0;
    if (stack == STRTAB_NONE)
        return 0;
    const strtab *st = m->tr->strs;
    const char *s = strtab_str(st, stack);
    size_t n = strtab_len(st, stack);
    if (outer != STRTAB_NONE) {
        /* drop the whole frames shared at the outer (right) end */
        const char *a = strtab_str(st, outer);
        size_t an = strtab_len(st, outer);
        while (n > 0 && an > 0) {
            size_t ss = last_frame(s, n), as = last_frame(a, an);
            if (n - ss != an - as || memcmp(s + ss, a + as, n - ss) != 0)
                break;
            n = ss ? ss - 1 : 0;
            an = as ? as - 1 : 0;
            if (!ss)
                break;
        }
    }
    *frames = s;
    *len = n;
    return count_frames(s, n);
}
