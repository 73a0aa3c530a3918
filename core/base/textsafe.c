/* Safe text for terminals, JSON and pprof; see core/base/textsafe.h. */
#include "config.h"

#include "core/base/textsafe.h"

#include <string.h>
#include <wchar.h>

size_t textsafe_utf8_next(const char *s, size_t len, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned char c = u[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, v = c & 0x1Fu, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, v = c & 0x0Fu, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, v = c & 0x07u, min = 0x10000;
    } else {
        return 0; /* a continuation byte, C0/C1 (always overlong) or F5..FF */
    }
    if (n > len)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (u[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

/* Code points that are valid but must not reach a terminal as they are:
   C1 controls, and the invisible ones that reorder or break the line. */
static bool cp_hidden(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

static size_t cp_width(uint32_t cp)
{
    if (cp < 0x300)
        return 1;
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : (size_t)w;
}

static const char hex[] = "0123456789abcdef";

void textsafe_next(const char *s, size_t len, textsafe_unit *u)
{
    uint32_t cp;
    size_t n = textsafe_utf8_next(s, len, &cp);
    u->valid = n > 0;
    u->escaped = true;
    if (!n) {
        unsigned char b = (unsigned char)s[0];
        u->in = 1;
        u->cp = 0xFFFD;
        memcpy(u->vis, "\\x", 2);
        u->vis[2] = hex[b >> 4];
        u->vis[3] = hex[b & 15];
        u->vislen = 4;
    } else if (cp < 0x20 || cp == 0x7F) {
        u->in = 1;
        u->cp = cp;
        u->vis[0] = '\\';
        if (cp == '\t' || cp == '\n' || cp == '\r') {
            u->vis[1] = cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r';
            u->vislen = 2;
        } else {
            u->vis[1] = 'x';
            u->vis[2] = hex[cp >> 4];
            u->vis[3] = hex[cp & 15];
            u->vislen = 4;
        }
    } else if (cp_hidden(cp)) {
        u->in = n;
        u->cp = cp;
        memcpy(u->vis, "\\u", 2);
        for (int i = 0; i < 4; i++)
            u->vis[2 + i] = hex[(cp >> (12 - 4 * i)) & 15];
        u->vislen = 6;
    } else {
        u->in = n;
        u->cp = cp;
        u->escaped = false;
        memcpy(u->vis, s, n);
        u->vislen = n;
        u->width = cp_width(cp);
        return;
    }
    u->width = u->vislen; /* an escape is ASCII */
}

size_t textsafe_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F) { /* the common case: printable ASCII */
            w++;
            i++;
            continue;
        }
        textsafe_unit u;
        textsafe_next(s + i, len - i, &u);
        w += u.width;
        i += u.in;
    }
    return w;
}

bool textsafe_is_visible(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F) {
            i++;
            continue;
        }
        textsafe_unit u;
        textsafe_next(s + i, len - i, &u);
        if (u.escaped)
            return false;
        i += u.in;
    }
    return true;
}

size_t textsafe_visible(const char *s, size_t len, char *buf, size_t size, size_t *used)
{
    size_t i = 0, o = 0;
    if (size == 0) {
        if (used)
            *used = 0;
        return 0;
    }
    while (i < len) {
        textsafe_unit u;
        textsafe_next(s + i, len - i, &u);
        if (o + u.vislen + 1 > size)
            break;
        memcpy(buf + o, u.vis, u.vislen);
        o += u.vislen;
        i += u.in;
    }
    buf[o] = '\0';
    if (used)
        *used = i;
    return o;
}

bool textsafe_utf8_valid(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = textsafe_utf8_next(s + i, len - i, &cp);
        if (!n)
            return false;
        i += n;
    }
    return true;
}

size_t textsafe_utf8(const char *s, size_t len, bool no_nul, char *buf, size_t size)
{
    size_t need = 0, o = 0;
    bool room = size > 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = textsafe_utf8_next(s + i, len - i, &cp);
        const char *p = s + i;
        size_t k = n;
        if (!n || (no_nul && cp == 0)) {
            p = TEXTSAFE_REPLACEMENT;
            k = 3;
            n = 1;
        }
        if (room && o + k + 1 <= size) {
            memcpy(buf + o, p, k);
            o += k;
        } else {
            room = false; /* whole sequences only, and none after a cut */
        }
        need += k;
        i += n;
    }
    if (size)
        buf[o] = '\0';
    return need;
}
