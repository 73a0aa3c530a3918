#include "config.h"

#include "core/base/fmt.h"

#include "core/base/textsafe.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>

/* ns as "ms.mmm" rounded to microseconds, half away from zero; plus is the
   sign of a positive figure ("" or "+"), and a figure that rounds to zero
   takes no sign when plus is "+" (a change of "-0.000" reads as a loss) */
static const char *ms_text(int64_t ns, const char *plus, char *buf, size_t size)
{
    bool neg = ns < 0;
    uint64_t a = neg ? 0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t us = (a + 500) / 1000;
    const char *sign = neg ? "-" : plus;
    if (us == 0 && *plus)
        sign = "";
    snprintf(buf, size, "%s%llu.%03llu", sign, (unsigned long long)(us / 1000),
             (unsigned long long)(us % 1000));
    return buf;
}

const char *fmt_ms(int64_t ns, char *buf, size_t size)
{
    return ms_text(ns, "", buf, size);
}

const char *fmt_ms_signed(int64_t ns, char *buf, size_t size)
{
    return ms_text(ns, "+", buf, size);
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

size_t fmt_width(const char *s, size_t len)
{
    return textsafe_width(s, len);
}

const char *fmt_tail(const char *s, size_t len, size_t cols)
{
    size_t w = fmt_width(s, len), i = 0;
    while (i < len && w > cols) {
        textsafe_unit u;
        textsafe_next(s + i, len - i, &u);
        w -= u.width;
        i += u.in;
    }
    return s + i;
}

const char *fmt_visible(const char *s, size_t len, char *buf, size_t size)
{
    return fmt_ellipsize(s, len, SIZE_MAX, buf, size);
}

const char *fmt_ellipsize(const char *s, size_t len, size_t cols, char *buf, size_t size)
{
    size_t o = 0, w = 0;
    if (size == 0)
        return buf;
    if (cols == SIZE_MAX || textsafe_width(s, len) <= cols) {
        size_t used;
        textsafe_visible(s, len, buf, size, &used);
        if (used == len)
            return buf;
        cols = SIZE_MAX; /* buf is too short: cut where it ends, with the ellipsis */
    }
    if (cols == 0 || size < 4) {
        buf[0] = '\0';
        return buf;
    }
    for (size_t i = 0; i < len;) {
        textsafe_unit u;
        textsafe_next(s + i, len - i, &u);
        if (w + u.width > cols - 1 || o + u.vislen + 4 > size)
            break;
        memcpy(buf + o, u.vis, u.vislen);
        o += u.vislen;
        w += u.width;
        i += u.in;
    }
    memcpy(buf + o, "\xe2\x80\xa6", 4); /* …, and the NUL */
    return buf;
}

const char *fmt_category(const char *cat, size_t len_in, size_t *len)
{
    if (len_in == 0) {
        *len = 6;
        return "(none)";
    }
    *len = len_in;
    return cat;
}

void fmt_shell_word(char *buf, size_t size, size_t *at, const char *s)
{
    char vis[1200];
    fmt_visible(s, strlen(s), vis, sizeof vis);
    bool plain = vis[0] != '\0';
    for (const char *p = vis; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                    "_-+./:=@%,^", *p))
            plain = false;
    if (*at + 1 >= size)
        return;
    buf[(*at)++] = ' ';
    if (!plain && *at + 1 < size)
        buf[(*at)++] = '\'';
    for (const char *p = vis; *p && *at + 5 < size; p++) {
        if (!plain && *p == '\'') {
            /* a quote inside: closed, escaped and reopened */
            memcpy(buf + *at, "'\\''", 4);
            *at += 4;
        } else {
            buf[(*at)++] = *p;
        }
    }
    if (!plain && *at + 1 < size)
        buf[(*at)++] = '\'';
    buf[*at] = '\0';
}
