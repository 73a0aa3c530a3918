/* ASCII stand-ins for the explorer's glyphs; see ui/glyph.h. */
#include "config.h"

#include "ui/glyph.h"

#include <langinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

bool glyph_locale_utf8(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8") || !strcmp(cs, "UTF8"));
}

static const struct { uint32_t cp; char ascii; } table[] = {
    { 0x25B2, '^' }, { 0x25B4, '^' }, { 0x25BC, 'v' }, { 0x25BE, 'v' }, /* sort, fold */
    { 0x25B8, '>' }, { 0x25B6, '>' }, { 0x203A, '>' }, { 0x2039, '<' }, /* fold, crumb */
    { 0x2190, '<' }, { 0x2192, '>' }, { 0x2191, '^' }, { 0x2193, 'v' }, /* arrows */
    { 0x2026, '~' },                                                    /* ellipsis */
    { 0x2588, '#' }, { 0x2587, '+' }, { 0x2586, '+' }, { 0x2585, '+' }, /* bars */
    { 0x2584, '+' }, { 0x2583, '.' }, { 0x2582, '.' }, { 0x2581, '.' },
    { 0x2591, '.' }, { 0x2592, ':' }, { 0x2593, '#' },
    { 0x0394, 'd' }, { 0x03B4, 'd' },                                   /* delta */
    { 0x00B7, '.' }, { 0x2022, '*' }, { 0x00D7, 'x' }, { 0x00B5, 'u' },
    { 0x03BC, 'u' }, { 0x2013, '-' }, { 0x2014, '-' }, { 0x2212, '-' },
    { 0x2264, '<' }, { 0x2265, '>' }, { 0x00A0, ' ' },
    { 0x2018, '\'' }, { 0x2019, '\'' }, { 0x201C, '"' }, { 0x201D, '"' },
};

/* Box drawing (U+2500..U+257F): lines and corners. */
static char box(uint32_t cp)
{
    static const uint32_t horiz[] = { 0x2500, 0x2501, 0x2504, 0x2505, 0x2508, 0x2509, 0x2550 };
    static const uint32_t vert[] = { 0x2502, 0x2503, 0x2506, 0x2507, 0x250A, 0x250B, 0x2551 };
    for (size_t i = 0; i < sizeof horiz / sizeof *horiz; i++)
        if (cp == horiz[i])
            return '-';
    for (size_t i = 0; i < sizeof vert / sizeof *vert; i++)
        if (cp == vert[i])
            return '|';
    return cp == 0x2570 || cp == 0x2514 ? '`' : '+';
}

static char ascii_of(uint32_t cp)
{
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (table[i].cp == cp)
            return table[i].ascii;
    if (cp >= 0x2500 && cp <= 0x257F)
        return box(cp);
    return '?';
}

size_t glyph_to_ascii(char *s)
{
    const unsigned char *r = (const unsigned char *)s;
    char *w = s;
    while (*r) {
        if (*r < 0x80) {
            *w++ = (char)*r++;
            continue;
        }
        /* a UTF-8 sequence; an invalid byte is one character, as fmt_width counts it */
        unsigned char c = *r;
        size_t n = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        uint32_t cp = n == 4 ? c & 0x07u : n == 3 ? c & 0x0Fu : c & 0x1Fu;
        size_t k = 1;
        for (; k < n && (r[k] & 0xC0) == 0x80; k++)
            cp = cp << 6 | (r[k] & 0x3Fu);
        if (n == 1 || k != n) {
            *w++ = '?';
            r++;
            continue;
        }
        *w++ = ascii_of(cp);
        r += n;
    }
    *w = '\0';
    return (size_t)(w - s);
}

const char *glyph_line(const char *s, bool ascii, char *tmp, size_t size)
{
    if (!ascii || size == 0)
        return s;
    snprintf(tmp, size, "%s", s);
    glyph_to_ascii(tmp);
    return tmp;
}
