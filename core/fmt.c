#include "config.h"

#include "core/fmt.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

const char *fmt_ms(int64_t ns, char *buf, size_t size)
{
    bool neg = ns < 0;
    uint64_t a = neg ? 0 - (uint64_t)ns : (uint64_t)ns;
    /* round to microseconds, half away from zero */
    uint64_t us = (a + 500) / 1000;
    snprintf(buf, size, "%s%llu.%03llu", neg ? "-" : "", (unsigned long long)(us / 1000),
             (unsigned long long)(us % 1000));
    return buf;
}

const char *fmt_dur(int64_t ns, char *buf, size_t size)
{
    bool neg = ns < 0;
    double a = neg ? -(double)ns : (double)ns;
    const char *sign = neg ? "-" : "";
    if (a < 1e3)
        snprintf(buf, size, "%s%.0f ns", sign, a);
    else if (a < 1e6)
        snprintf(buf, size, "%s%.1f us", sign, a / 1e3);
    else if (a < 1e9)
        snprintf(buf, size, "%s%.2f ms", sign, a / 1e6);
    else
        snprintf(buf, size, "%s%.3f s", sign, a / 1e9);
    return buf;
}

const char *fmt_bytes(int64_t n, char *buf, size_t size)
{
    bool neg = n < 0;
    double a = neg ? -(double)n : (double)n;
    const char *sign = neg ? "-" : "";
    static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
    if (a < 1024) {
        snprintf(buf, size, "%s%.0f B", sign, a);
        return buf;
    }
    int u = 0;
    for (a /= 1024; a >= 1024 && u < 3; u++)
        a /= 1024;
    snprintf(buf, size, "%s%.1f %s", sign, a, unit[u]);
    return buf;
}

const char *fmt_count(uint64_t n, char *buf, size_t size)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n);
    size_t o = 0;
    for (int i = 0; i < len && o + 1 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0 && o + 2 < size)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    if (size)
        buf[o < size ? o : size - 1] = '\0';
    return buf;
}

const char *fmt_pct(int64_t part, int64_t whole, char *buf, size_t size)
{
    if (whole == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.1f", 100.0 * (double)part / (double)whole);
    return buf;
}

/* decodes one UTF-8 sequence; returns its length (1 for an invalid byte) */
static size_t utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || n > len) {
        *cp = 0xFFFD;
        return 1;
    }
    uint32_t v = n == 1 ? c : n == 2 ? (c & 0x1Fu) : n == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return 1;
        }
        v = v << 6 | (s[i] & 0x3Fu);
    }
    *cp = v;
    return n;
}

static size_t cp_width(uint32_t cp)
{
    if (cp < 0x300)
        return cp < 0x20 ? 0 : 1;
    int w = wcwidth((wchar_t)cp);
    if (w < 0)
        return 1;
    return (size_t)w;
}

size_t fmt_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += utf8_next((const unsigned char *)s + i, len - i, &cp);
        w += cp_width(cp);
    }
    return w;
}

const char *fmt_ellipsize(const char *s, size_t len, size_t cols, char *buf, size_t size)
{
    size_t o = 0, w = 0;
    if (size == 0)
        return buf;
    if (fmt_width(s, len) <= cols) {
        size_t n = len < size - 1 ? len : size - 1;
        /* do not cut a sequence when buf is short */
        while (n > 0 && n < len && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        memcpy(buf, s, n);
        buf[n] = '\0';
        return buf;
    }
    if (cols == 0) {
        buf[0] = '\0';
        return buf;
    }
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_next((const unsigned char *)s + i, len - i, &cp);
        size_t cw = cp_width(cp);
        if (w + cw > cols - 1 || o + n + 4 > size)
            break;
        memcpy(buf + o, s + i, n);
        o += n;
        w += cw;
        i += n;
    }
    memcpy(buf + o, "\xe2\x80\xa6", 3); /* … */
    buf[o + 3] = '\0';
    return buf;
}
