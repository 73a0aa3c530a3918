/* Formatting figures for people: shared by the CLI and the TUI so that both
   show the same text for the same number. Pure functions into caller buffers. */
#ifndef T2P_FMT_H
#define T2P_FMT_H

#include <stddef.h>
#include <stdint.h>

/* ns as milliseconds with three decimals: "1234.567". Returns buf. */
const char *fmt_ms(int64_t ns, char *buf, size_t size);

/* A change in ns as milliseconds, always with its sign: "+1.234", "-1.234",
   and "0.000" for what rounds to zero either way (the compare tables of
   analyze and the explorer). Returns buf. */
const char *fmt_ms_signed(int64_t ns, char *buf, size_t size);

/* ns with a unit chosen for reading: "812 ns", "12.3 us", "4.56 ms", "1.234 s". */
const char *fmt_dur(int64_t ns, char *buf, size_t size);

/* Bytes with a binary unit: "812 B", "12.3 KiB", "4.5 GiB" (negative keeps its sign). */
const char *fmt_bytes(int64_t n, char *buf, size_t size);

/* An integer with thousands separators: "1,234,567". */
const char *fmt_count(uint64_t n, char *buf, size_t size);

/* part/whole as a percentage with one decimal: "12.3". "-" when whole is 0. */
const char *fmt_pct(int64_t part, int64_t whole, char *buf, size_t size);

/* Text from a trace (names, categories, labels, paths) is shown in its
   visible form (core/base/textsafe.h): control characters and bytes that are not
   UTF-8 as escapes such as \x1b or \r, which is what these measure and copy. */

/* Number of display columns of the visible form of s (each code point
   counts one, combining marks zero, wide CJK characters two, an escape its
   length). */
size_t fmt_width(const char *s, size_t len);

/* Copies the visible form of s into buf cut to at most cols display
   columns, ending with "…" when cut (or when buf is too short), never
   splitting a UTF-8 sequence or an escape. Returns buf. */
const char *fmt_ellipsize(const char *s, size_t len, size_t cols, char *buf, size_t size);

/* The longest tail of s (len bytes) whose visible form fits in cols
   display columns, whole characters only: a pointer into s (s itself when
   all of it fits). The counterpart of fmt_ellipsize, for text whose end
   matters (a path being typed). Linear in len. */
const char *fmt_tail(const char *s, size_t len, size_t cols);

/* The visible form of s into buf, whole (cut with "…" only when buf is too
   short): for messages that quote a name or a path. Returns buf. */
const char *fmt_visible(const char *s, size_t len, char *buf, size_t size);

/* A category as the name of a row (tables by category, in every front):
   "(none)" for the events that have none (legacy traces write no cat), else
   cat itself. *len gets its length; cat is len_in bytes. */
const char *fmt_category(const char *cat, size_t len_in, size_t *len);

/* Appends ' ' and s as one shell word (quoted with '...' unless plain,
   control bytes in their visible form) to buf at *at, advancing *at; what
   does not fit is cut. The commands recorded in profiles are built so. */
void fmt_shell_word(char *buf, size_t size, size_t *at, const char *s);

#endif
