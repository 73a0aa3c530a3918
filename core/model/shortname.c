#include "config.h"

#include "core/model/shortname.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct shortnames {
    char *text;     /* every short name, each NUL-terminated */
    size_t *off;    /* per op: where its short name starts in text */
    uint32_t *len;  /* per op: its length */
};

static bool starts(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

/* Memcpy/Memset names carry their direction in parentheses: "Memcpy HtoD
   (Pageable -> Device)" must stay whole. */
static bool keep_whole(const char *s, size_t len)
{
    if (starts(s, len, "Memcpy") || starts(s, len, "Memset") || starts(s, len, "hipMemcpy") ||
        starts(s, len, "hipMemset") || starts(s, len, "dma"))
        return true;
    return !memchr(s, '<', len) && !memchr(s, '(', len);
}

size_t shortname_cut(const char *name, size_t len, char *out)
{
    if (keep_whole(name, len)) {
        memcpy(out, name, len);
        out[len] = '\0';
        return len;
    }
    /* out is the stack: a closing bracket pops back to its opener */
    size_t top = 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (c == '-' && i + 1 < len && name[i + 1] == '>') {
            i++; /* "->" is dropped before brackets are matched */
            continue;
        }
        if (c == '>' || c == ')') {
            char open = c == '>' ? '<' : '(';
            while (top > 0 && out[top - 1] != open)
                top--;
            if (top > 0)
                top--;
            continue;
        }
        out[top++] = c;
    }
    size_t start = top;
    while (start > 0 && out[start - 1] != ' ')
        start--;
    /* HTA would print "" for "<forked function>" and "##" for "## Request
       wait() ##": a name with nothing to read in it stays whole */
    bool readable = false;
    for (size_t i = start; i < top && !readable; i++) {
        unsigned char c = (unsigned char)out[i];
        readable = c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
    }
    if (!readable) {
        memcpy(out, name, len);
        out[len] = '\0';
        return len;
    }
    memmove(out, out + start, top - start);
    out[top - start] = '\0';
    return top - start;
}

shortnames *shortname_new(const model *m)
{
    shortnames *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    size_t total = 0;
    for (size_t i = 0; i < m->nops; i++)
        total += strtab_len(m->tr->strs, m->ops[i].name) + 1;
    s->text = malloc(total ? total : 1);
    s->off = malloc((m->nops ? m->nops : 1) * sizeof *s->off);
    s->len = malloc((m->nops ? m->nops : 1) * sizeof *s->len);
    if (!s->text || !s->off || !s->len) {
        shortname_free(s);
        return NULL;
    }
    size_t at = 0;
    for (size_t i = 0; i < m->nops; i++) {
        const char *name = model_op_name(m, (uint32_t)i);
        size_t n = shortname_cut(name, strtab_len(m->tr->strs, m->ops[i].name), s->text + at);
        s->off[i] = at;
        s->len[i] = (uint32_t)n;
        at += n + 1;
    }
    return s;
}

void shortname_free(shortnames *s)
{
    if (!s)
        return;
    free(s->text);
    free(s->off);
    free(s->len);
    free(s);
}

const char *shortname_op(const shortnames *s, uint32_t op, size_t *len)
{
    if (len)
        *len = s->len[op];
    return s->text + s->off[op];
}
