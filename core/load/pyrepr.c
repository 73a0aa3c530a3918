/* Python's str()/repr() text of JSON values (see pyrepr.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/pyrepr.h"
#include "core/base/vec.h"

void pyrepr_init(pyrepr *p)
{
    memset(p, 0, sizeof *p);
}

void pyrepr_done(pyrepr *p)
{
    free(p->buf);
    free(p->lvl);
    pyrepr_init(p);
}

void pyrepr_reset(pyrepr *p)
{
    p->len = 0;
    p->nlvl = 0;
}

static int put(pyrepr *p, const char *s, size_t n)
{
    if (n > p->cap - p->len || !p->buf) {
        size_t ncap = p->cap ? p->cap : 64;
        while (ncap - p->len < n) {
            if (ncap > SIZE_MAX / 2)
                return -1;
            ncap *= 2;
        }
        char *nb = realloc(p->buf, ncap);
        if (!nb)
            return -1;
        p->buf = nb;
        p->cap = ncap;
    }
    memcpy(p->buf + p->len, s, n);
    p->len += n;
    return 0;
}

static int putc1(pyrepr *p, char c)
{
    return put(p, &c, 1);
}

/* Python's float repr: the shortest digits that read back as x; fixed
   notation when the decimal point falls in (-4, 16], else d.ddde+XX. */
size_t pyrepr_float(double x, char *out)
{
    if (isnan(x))
        return (size_t)sprintf(out, "nan");
    if (isinf(x))
        return (size_t)sprintf(out, x < 0 ? "-inf" : "inf");
    char e[40];
    for (int prec = 0; prec <= 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, x);
        if (strtod(e, NULL) == x)
            break;
    }
    /* e: [-]d[.ddd]e(+|-)XX */
    const char *s = e;
    size_t o = 0;
    if (*s == '-')
        out[o++] = '-', s++;
    char dig[24];
    size_t nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.')
            dig[nd++] = *s;
    int exp10 = atoi(s + 1);
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    int decpt = exp10 + 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out[o++] = '0', out[o++] = '.';
            for (int i = 0; i < -decpt; i++)
                out[o++] = '0';
            memcpy(out + o, dig, nd), o += nd;
        } else if ((size_t)decpt >= nd) {
            memcpy(out + o, dig, nd), o += nd;
            for (size_t i = nd; i < (size_t)decpt; i++)
                out[o++] = '0';
            out[o++] = '.', out[o++] = '0';
        } else {
            memcpy(out + o, dig, (size_t)decpt), o += (size_t)decpt;
            out[o++] = '.';
            memcpy(out + o, dig + decpt, nd - (size_t)decpt), o += nd - (size_t)decpt;
        }
    } else {
        out[o++] = dig[0];
        if (nd > 1) {
            out[o++] = '.';
            memcpy(out + o, dig + 1, nd - 1), o += nd - 1;
        }
        o += (size_t)sprintf(out + o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
    }
    out[o] = 0;
    return o;
}

/* A JSON number as Python's json module reads it and repr prints it: an
   integer literal stays as written (Python ints have no limit; "-0" is 0),
   anything with a fraction or exponent is a float. */
static int put_number(pyrepr *p, const char *s, size_t n)
{
    bool is_float = false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
            is_float = true;
    if (!is_float) {
        if (n == 2 && s[0] == '-' && s[1] == '0')
            return putc1(p, '0');
        return put(p, s, n);
    }
    char tmp[64], out[40];
    if (n >= sizeof tmp)
        n = sizeof tmp - 1; /* a number that long is not a shape; keep its start */
    memcpy(tmp, s, n);
    tmp[n] = 0;
    return put(p, out, pyrepr_float(strtod(tmp, NULL), out));
}

/* Decodes one UTF-8 code point at s (n bytes left); returns its length, 1
   for a byte that starts none (yajl validated the text already). */
static size_t utf8_cp(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (s[0] < 0x80 || n < 2) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xe0) == 0xc0) {
        *cp = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
        return 2;
    }
    if ((s[0] & 0xf0) == 0xe0 && n >= 3) {
        *cp = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
        return 3;
    }
    if (n >= 4) {
        *cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
              (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
        return 4;
    }
    *cp = s[0];
    return 1;
}

/* repr(str): single quotes unless the text holds ' and no ", escapes for
   the backslash, the quote, \t \n \r and other control characters (\xNN),
   the Latin-1 non-printables (U+007F-U+00A0, U+00AD) as \xNN. Other
   characters as they are (Python also escapes a few rarer non-printable
   code points; shapes never hold them). */
static int put_string_repr(pyrepr *p, const char *s, size_t n)
{
    bool sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
    char q = sq && !dq ? '"' : '\'';
    if (putc1(p, q) < 0)
        return -1;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = utf8_cp(u + i, n - i, &cp);
        char esc[8];
        int r = 0;
        if (cp == '\\' || cp == (uint32_t)q) {
            esc[0] = '\\', esc[1] = (char)cp;
            r = put(p, esc, 2);
        } else if (cp == '\t') {
            r = put(p, "\\t", 2);
        } else if (cp == '\n') {
            r = put(p, "\\n", 2);
        } else if (cp == '\r') {
            r = put(p, "\\r", 2);
        } else if (cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0xad) {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned)cp);
            r = put(p, esc, 4);
        } else {
            r = put(p, s + i, k);
        }
        if (r < 0)
            return -1;
        i += k;
    }
    return putc1(p, q);
}

/* Before an element of the innermost container: ", " after the first (an
   object's values follow their key, which wrote it). */
static int element(pyrepr *p)
{
    if (!p->nlvl)
        return 0;
    uint32_t *l = &p->lvl[p->nlvl - 1];
    if (*l & 1)
        return 0;
    int r = (*l >> 1) ? put(p, ", ", 2) : 0;
    *l += 2;
    return r;
}

int pyrepr_scalar(pyrepr *p, enum pyrepr_kind k, const char *s, size_t n)
{
    bool top = p->nlvl == 0;
    if (element(p) < 0)
        return -1;
    switch (k) {
    case PYREPR_NULL:
        return put(p, "None", 4);
    case PYREPR_TRUE:
        return put(p, "True", 4);
    case PYREPR_FALSE:
        return put(p, "False", 5);
    case PYREPR_NUMBER:
        return put_number(p, s, n);
    case PYREPR_STRING:
        return top ? put(p, s, n) : put_string_repr(p, s, n);
    }
    return 0;
}

int pyrepr_open(pyrepr *p, bool object)
{
    if (element(p) < 0)
        return -1;
    if (vec_grow_heap((void **)&p->lvl, &p->cap_lvl, p->nlvl, sizeof *p->lvl) < 0)
        return -1;
    p->lvl[p->nlvl++] = object ? 1u : 0u;
    return putc1(p, object ? '{' : '[');
}

int pyrepr_key(pyrepr *p, const char *s, size_t n)
{
    if (!p->nlvl)
        return 0;
    uint32_t *l = &p->lvl[p->nlvl - 1];
    if ((*l >> 1) && put(p, ", ", 2) < 0)
        return -1;
    *l += 2;
    if (put_string_repr(p, s, n) < 0)
        return -1;
    return put(p, ": ", 2);
}

int pyrepr_close(pyrepr *p)
{
    if (!p->nlvl)
        return 0;
    bool object = p->lvl[--p->nlvl] & 1;
    return putc1(p, object ? '}' : ']');
}
