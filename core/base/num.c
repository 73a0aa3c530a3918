#include "config.h"

#include "core/base/num.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The common shape, "123456.789" with at most 18 digits and no more decimals
   than scale, in plain 64-bit arithmetic. Returns false to defer to the
   general path. */
static bool parse_fast(const char *s, size_t len, int scale, int64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    int ndig = 0, frac = 0;
    bool neg = false;

    if (len == 0 || len > 20)
        return false;
    if (s[0] == '-') {
        neg = true;
        i = 1;
    }
    for (; i < len && is_digit(s[i]); i++, ndig++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    if (ndig == 0)
        return false;
    if (i < len) {
        if (s[i] != '.')
            return false;
        for (i++; i < len && is_digit(s[i]); i++, ndig++, frac++)
            v = v * 10 + (uint64_t)(s[i] - '0');
        if (i < len || frac == 0 || frac > scale)
            return false;
    }
    if (ndig > 19) /* 19 digits cannot overflow 64 bits */
        return false;
    for (int k = frac; k < scale; k++)
        if (__builtin_mul_overflow(v, 10u, &v))
            return false;
    if (v > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

bool num_parse_scaled(const char *s, size_t len, int scale, int64_t *out)
{
    if (scale >= 0 && scale <= 3 && parse_fast(s, len, scale, out))
        return true;
    size_t i = 0;
    bool neg = false;
    unsigned __int128 mant = 0;
    int ndig = 0;       /* significant digits kept in mant */
    long exp10 = scale; /* value = mant * 10^exp10 */
    int dropped = 0;    /* first dropped digit, for rounding */
    bool any = false;

    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    for (; i < len && is_digit(s[i]); i++) {
        any = true;
        if (ndig < 36) {
            mant = mant * 10 + (unsigned)(s[i] - '0');
            if (mant)
                ndig++;
        } else {
            if (ndig == 36 && !dropped)
                dropped = s[i] - '0' + 1;
            exp10++;
        }
    }
    if (i < len && s[i] == '.') {
        i++;
        for (; i < len && is_digit(s[i]); i++) {
            any = true;
            if (ndig < 36) {
                mant = mant * 10 + (unsigned)(s[i] - '0');
                if (mant)
                    ndig++;
                exp10--;
            } else if (!dropped) {
                dropped = s[i] - '0' + 1;
            }
        }
    }
    if (!any)
        return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        long e = 0;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            eneg = s[i++] == '-';
        if (i >= len || !is_digit(s[i]))
            return false;
        for (; i < len && is_digit(s[i]); i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        exp10 += eneg ? -e : e;
    }
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i != len)
        return false;

    if (mant == 0) {
        *out = 0;
        return true;
    }
    /* scale down, remembering the last digit removed for rounding */
    int last = dropped ? dropped - 1 : 0;
    while (exp10 < 0) {
        if (mant == 0)
            break;
        last = (int)(mant % 10);
        mant /= 10;
        exp10++;
    }
    if (exp10 < 0)
        exp10 = 0;
    if (last >= 5)
        mant++;
    while (exp10 > 0) {
        if (mant > ((unsigned __int128)1 << 64))
            return false;
        mant *= 10;
        exp10--;
    }
    if (neg) {
        if (mant > (unsigned __int128)INT64_MAX + 1)
            return false;
        *out = (int64_t)(0 - (uint64_t)mant);
    } else {
        if (mant > INT64_MAX)
            return false;
        *out = (int64_t)mant;
    }
    return true;
}

bool num_parse_id(const char *s, size_t len, uint64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    bool neg = false;

    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        if (len - 2 > 16)
            return false;
        for (i = 2; i < len; i++) {
            char c = s[i];
            unsigned d;
            if (c >= '0' && c <= '9')
                d = (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f')
                d = (unsigned)(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                d = (unsigned)(c - 'A' + 10);
            else
                return false;
            v = v << 4 | d;
        }
        *out = v;
        return true;
    }
    if (i < len && s[i] == '-') {
        neg = true;
        i++;
    }
    if (i == len)
        return false;
    for (; i < len; i++) {
        if (!is_digit(s[i]))
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? 0 - v : v;
    return true;
}

bool num_parse_double(const char *s, size_t len, double *out)
{
    /* a copy: the text is not terminated, and strtod wants a C string */
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = 0;
    /* strtod reads the locale's decimal point (the explorer sets LC_ALL for
       ncursesw): JSON's '.' is turned into it */
    const char *dp = localeconv()->decimal_point;
    char *dot = memchr(buf, '.', len);
    if (dot && dp && dp[0] && !dp[1])
        *dot = dp[0];
    char *end;
    double v = strtod(buf, &end);
    if (end != buf + len || !isfinite(v))
        return false;
    *out = v;
    return true;
}
