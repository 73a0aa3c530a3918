/* Unit tests of core/textsafe and the fmt functions built on it: strict
   UTF-8, the visible form of controls and invalid bytes, widths and cuts
   that never split an escape, and U+FFFD repair for JSON and pprof. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/fmt.h"
#include "core/base/textsafe.h"

static size_t next_len(const char *s, size_t len)
{
    uint32_t cp;
    return textsafe_utf8_next(s, len, &cp);
}

static void test_strict_utf8(void **state)
{
    uint32_t cp;
    (void)state;
    assert_int_equal(textsafe_utf8_next("\xc2\x80", 2, &cp), 2);
    assert_int_equal(cp, 0x80);
    assert_int_equal(textsafe_utf8_next("\xf0\x9f\x98\x80", 4, &cp), 4);
    assert_int_equal(cp, 0x1F600);
    assert_int_equal(textsafe_utf8_next("\xf4\x8f\xbf\xbf", 4, &cp), 4);
    assert_int_equal(cp, 0x10FFFF);
    assert_int_equal(next_len("\xc0\x80", 2), 0);         /* overlong NUL */
    assert_int_equal(next_len("\xc1\xbf", 2), 0);         /* overlong */
    assert_int_equal(next_len("\xe0\x80\xaf", 3), 0);     /* overlong '/' */
    assert_int_equal(next_len("\xf0\x8f\xbf\xbf", 4), 0); /* overlong U+FFFF */
    assert_int_equal(next_len("\xed\xa0\x80", 3), 0);     /* surrogate D800 */
    assert_int_equal(next_len("\xed\xb2\x80", 3), 0);     /* yajl's \udc80 */
    assert_int_equal(next_len("\xf4\x90\x80\x80", 4), 0); /* past U+10FFFF */
    assert_int_equal(next_len("\xf5\x80\x80\x80", 4), 0);
    assert_int_equal(next_len("\x80", 1), 0);
    assert_int_equal(next_len("\xe2\x80", 2), 0); /* cut short */
    assert_true(textsafe_utf8_valid("a\0b\xc3\xa9", 5));
    assert_false(textsafe_utf8_valid("a\xed\xb2\x80", 4));
}

static void test_visible(void **state)
{
    char buf[256];
    (void)state;
    static const char in[] = "a\x1b]0;t\x07" "b\r\n\t\x08\x7f\xc2\x9b\xe2\x80\xae\xc0\x80\0z\xc3\xa9\\";
    size_t used;
    size_t n = textsafe_visible(in, sizeof in - 1, buf, sizeof buf, &used);
    assert_string_equal(buf, "a\\x1b]0;t\\x07b\\r\\n\\t\\x08\\x7f\\u009b\\u202e\\xc0\\x80\\x00z\xc3\xa9\\");
    assert_int_equal(n, strlen(buf));
    assert_int_equal(used, sizeof in - 1);
    assert_false(textsafe_is_visible(in, sizeof in - 1));
    /* the visible form is its own visible form: nothing is escaped twice */
    assert_true(textsafe_is_visible(buf, n));
    char again[256];
    textsafe_visible(buf, n, again, sizeof again, NULL);
    assert_string_equal(again, buf);
    /* a short buffer takes whole units only */
    textsafe_visible("ab\x1b", 3, buf, 5, &used);
    assert_string_equal(buf, "ab");
    assert_int_equal(used, 2);
    /* widths count what is shown */
    assert_int_equal(fmt_width("\x1b", 1), 4);
    assert_int_equal(fmt_width("\xc2\x9b", 2), 6);
    assert_int_equal(fmt_width("\xc3\xa9t\xc3\xa9", 5), 3);
    assert_int_equal(fmt_width("a\r", 2), 3);
}

/* fmt_tail: the end of a text that fits, whole characters and escapes,
   the widths those of the visible form */
static void test_tail(void **state)
{
    (void)state;
    const char *s = "/home/\xc3\xa9t\xc3\xa9/x\x1b.pb";
    size_t n = strlen(s);
    assert_ptr_equal(fmt_tail(s, n, 100), s);             /* all of it fits */
    assert_string_equal(fmt_tail(s, n, 3), ".pb");
    assert_string_equal(fmt_tail(s, n, 7), "\x1b.pb");    /* \x1b: 4 columns, whole */
    assert_string_equal(fmt_tail(s, n, 6), ".pb");         /* never half an escape */
    assert_string_equal(fmt_tail(s, n, 12), "\xc3\xa9t\xc3\xa9/x\x1b.pb");
    assert_string_equal(fmt_tail(s, n, 0), "");
    /* every tail is the longest that fits */
    for (size_t c = 0; c < 20; c++) {
        const char *t = fmt_tail(s, n, c);
        assert_true(fmt_width(t, strlen(t)) <= c);
        if (t > s) {
            const char *p = t - 1;
            while (p > s && ((unsigned char)*p & 0xC0) == 0x80)
                p--;
            assert_true(fmt_width(p, strlen(p)) > c);
        }
    }
}

static void test_ellipsize_keeps_escapes_whole(void **state)
{
    char buf[64];
    (void)state;
    /* "ab" + "\x1b" is 6 columns: cut to 5, the escape goes whole */
    assert_string_equal(fmt_ellipsize("ab\x1b[2J", 6, 5, buf, sizeof buf), "ab\xe2\x80\xa6");
    assert_string_equal(fmt_ellipsize("ab\x1b[2J", 6, 7, buf, sizeof buf), "ab\\x1b\xe2\x80\xa6");
    assert_string_equal(fmt_ellipsize("ab\x1b[2J", 6, 9, buf, sizeof buf), "ab\\x1b[2J");
    assert_string_equal(fmt_ellipsize("cr\rx", 4, 5, buf, sizeof buf), "cr\\rx");
    /* a buffer too short for the text ends with the ellipsis, not half an escape */
    assert_string_equal(fmt_ellipsize("a\x1b\x1b", 3, 100, buf, 9), "a\\x1b\xe2\x80\xa6");
    assert_string_equal(fmt_visible("x\x07", 2, buf, sizeof buf), "x\\x07");
}

/* Random bytes, with the controls and lead bytes that matter over-weighted:
   every cut is visible, valid UTF-8, within its width, and a prefix of the
   whole visible form. */
static void test_ellipsize_random(void **state)
{
    (void)state;
    static const unsigned char pick[] = { 0x1b, 0x07, '\r', '\n', 0x08, 0x7f, 0xc2, 0x9b,
                                          0xc0, 0x80, 0xed, 0xb2, 0xe2, 0xf0, 0x9f, 0xf5,
                                          'a', '[', '\\', 0xc3, 0xa9, 0x00 };
    uint64_t x = 0x9E3779B97F4A7C15ull;
    char s[32], out[96], whole[256];
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = 0;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = x % sizeof s;
        for (; len < n; len++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            s[len] = (char)((x >> 8) % 4 ? pick[x % sizeof pick] : (unsigned char)(x >> 16));
        }
        size_t wn = textsafe_visible(s, len, whole, sizeof whole, NULL);
        size_t ww = fmt_width(whole, wn);
        assert_int_equal(ww, fmt_width(s, len));
        for (size_t cols = 0; cols < 24; cols += 3) {
            size_t size = cols % 2 ? sizeof out : 20;
            fmt_ellipsize(s, len, cols, out, size);
            size_t on = strlen(out);
            assert_true(textsafe_is_visible(out, on));
            assert_true(textsafe_utf8_valid(out, on));
            if (ww <= cols && wn < size) {
                assert_string_equal(out, whole);
                continue;
            }
            assert_true(fmt_width(out, on) <= cols);
            /* what is kept is the start of the whole visible form */
            size_t keep = on >= 3 && !memcmp(out + on - 3, "\xe2\x80\xa6", 3) ? on - 3 : on;
            assert_memory_equal(out, whole, keep);
        }
    }
}

static void test_utf8_repair(void **state)
{
    char buf[64];
    (void)state;
    size_t need = textsafe_utf8("a\xed\xb2\x80" "b\0c", 7, false, buf, sizeof buf);
    assert_int_equal(need, 1 + 9 + 3);
    assert_memory_equal(buf, "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "b\0c", need);
    assert_true(textsafe_utf8_valid(buf, need));
    need = textsafe_utf8("b\0c", 3, true, buf, sizeof buf);
    assert_string_equal(buf, "b\xef\xbf\xbd" "c");
    assert_int_equal(need, 5);
    /* whole sequences only when buf is short, and the length it needs */
    need = textsafe_utf8("\xc0" "abc", 4, false, buf, 3);
    assert_int_equal(need, 6);
    assert_string_equal(buf, "");
    need = textsafe_utf8("ab\xc0", 3, false, buf, 4);
    assert_int_equal(need, 5);
    assert_string_equal(buf, "ab");
    assert_int_equal(textsafe_utf8("x", 1, false, NULL, 0), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strict_utf8),
        cmocka_unit_test(test_visible),
        cmocka_unit_test(test_ellipsize_keeps_escapes_whole),
        cmocka_unit_test(test_ellipsize_random),
        cmocka_unit_test(test_tail),
        cmocka_unit_test(test_utf8_repair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
