/* Search and the prompt; see ui/search.h. */
#include "config.h"

#include "ui/search.h"

#include <stdint.h>
#include <string.h>

#include "ui/keys.h"

bool search_edit(char *s, size_t size, int key)
{
    size_t n = strlen(s);
    if (key == VK_BACKSPACE) {
        while (n > 0 && ((unsigned char)s[n - 1] & 0xC0) == 0x80)
            n--;
        if (n > 0)
            n--;
        s[n] = '\0';
        return true;
    }
    if (key == SEARCH_KILL_LINE) {
        s[0] = '\0';
        return true;
    }
    if (key < 0x20 || key > 0xff || key == 0x7f || n + 2 > size)
        return false;
    s[n] = (char)key;
    s[n + 1] = '\0';
    return true;
}

bool search_match(const char *name, const char *pat)
{
    return strcasestr(name, pat) != NULL;
}

size_t search_rows(size_t n, size_t from, int dir, search_hit_fn hit, void *ctx)
{
    size_t first = SIZE_MAX, before = SIZE_MAX, after = SIZE_MAX, last = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (!hit(ctx, i))
            continue;
        if (first == SIZE_MAX)
            first = i;
        last = i;
        if (i < from)
            before = i;
        if (i >= from && after == SIZE_MAX) {
            after = i;
            if (dir > 0)
                break;
        }
    }
    return dir > 0 ? (after != SIZE_MAX ? after : first) : (before != SIZE_MAX ? before : last);
}
