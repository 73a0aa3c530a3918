/* Search and the prompt; see ui/search.h. */
#include "config.h"

#include "ui/search.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/model/select.h"
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
    return select_name_has(name, strlen(name), pat, strlen(pat));
}

void search_rows(size_t n, size_t from, int dir, bool at, search_hit_fn hit, void *ctx,
                 search_found *f)
{
    /* flat views are small: count every match to say which one this is */
    size_t total = 0, first = SIZE_MAX, last = SIZE_MAX, after = SIZE_MAX, before = SIZE_MAX;
    size_t i_after = 0, i_before = 0;
    for (size_t i = 0; i < n; i++) {
        if (!hit(ctx, i))
            continue;
        total++;
        if (first == SIZE_MAX)
            first = i;
        last = i;
        if (after == SIZE_MAX && (i > from || (at && i == from))) {
            after = i;
            i_after = total;
        }
        if (i < from || (at && i == from)) {
            before = i;
            i_before = total;
        }
    }
    f->total = total;
    f->wrapped = false;
    if (!total) {
        f->row = SIZE_MAX;
        f->index = 0;
    } else if (dir > 0) {
        f->wrapped = after == SIZE_MAX;
        f->row = f->wrapped ? first : after;
        f->index = f->wrapped ? 1 : i_after;
    } else {
        f->wrapped = before == SIZE_MAX;
        f->row = f->wrapped ? last : before;
        f->index = f->wrapped ? total : i_before;
    }
}

const char *search_describe(const search_found *f, int dir, char *buf, size_t size)
{
    snprintf(buf, size, "match %zu of %zu%s", f->index, f->total,
             !f->wrapped ? "" : dir > 0 ? " (search wrapped to top)" : " (search wrapped to bottom)");
    return buf;
}
