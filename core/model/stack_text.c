#include "config.h"

#include "core/model/stack_text.h"

#include <stdbool.h>
#include <string.h>

/* appends len bytes of s to buf at *o, whole UTF-8 characters only when it
   does not fit; false when it did not */
static bool put(char *buf, size_t size, size_t *o, const char *s, size_t len)
{
    size_t room = size - 1 - *o;
    bool all = len <= room;
    if (!all) {
        len = room;
        /* back to the start of the character cut in two, if any */
        while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
            len--;
    }
    memcpy(buf + *o, s, len);
    *o += len;
    buf[*o] = '\0';
    return all;
}

const char *model_stack_text(const model *m, uint32_t node, const char *sep, size_t max,
                             char *buf, size_t size)
{
    if (!size)
        return buf;
    buf[0] = '\0';
    if (max > MODEL_STACK_TEXT_MAX)
        max = MODEL_STACK_TEXT_MAX;
    /* the innermost max frames, walked from node up; one more tells that
       the stack goes on */
    uint32_t path[MODEL_STACK_TEXT_MAX];
    size_t n = 0;
    bool more = false;
    for (uint32_t u = node; u != MODEL_NONE && m->nodes[u].op != MODEL_NONE; u = m->nodes[u].parent) {
        if (n == max) {
            more = true;
            break;
        }
        path[n++] = m->nodes[u].op;
    }
    if (!n)
        return buf;
    size_t o = 0, lsep = strlen(sep);
    if (more && (!put(buf, size, &o, "...", 3) || !put(buf, size, &o, sep, lsep)))
        return buf;
    while (n-- > 0) {
        const char *name = model_op_name(m, path[n]);
        if (!put(buf, size, &o, name, strlen(name)) || (n && !put(buf, size, &o, sep, lsep)))
            break;
    }
    return buf;
}
