/* Text from a trace made safe to show and to hand to strict readers.

   Names, categories, thread and stream labels and paths are bytes from an
   untrusted file or directory. They may hold terminal controls (ESC, BEL,
   CR, BS, LF, the C1 controls U+0080-U+009F) and bytes that are not UTF-8:
   yajl checks only the shape of a sequence, so overlong forms, surrogates
   and code points past U+10FFFF pass, and a lone surrogate escape such as
   \udc80 comes out as the CESU bytes ED B2 80. The loader keeps the bytes
   as they are (two names stay two names); every output makes them safe
   here, in one of two forms:

   - visible (terminals, text reports, the explorer): valid UTF-8 without
     a control character. \t \n \r for those three, \xNN for every other
     C0 control, for DEL and for each byte that is not part of valid UTF-8,
     \uNNNN for the C1 controls and the invisible bidi and line separator
     code points. A backslash stays as it is, so the visible form of a
     visible string is the string itself: widths and cuts can be worked
     out on either.
   - valid UTF-8 (JSON, pprof): each byte that is not part of valid UTF-8
     becomes U+FFFD.

   Pure functions into caller buffers, no locale of their own (display
   widths come from wcwidth). */
#ifndef T2P_TEXTSAFE_H
#define T2P_TEXTSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TEXTSAFE_REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* One unit of text: a valid UTF-8 sequence, or one byte that is not part
   of one. */
typedef struct textsafe_unit {
    size_t in;      /* bytes of the input it covers (at least 1) */
    uint32_t cp;    /* its code point; U+FFFD for a byte that is not UTF-8 */
    bool valid;     /* false: a byte that is not part of valid UTF-8 */
    bool escaped;   /* the visible form is an escape, not the bytes */
    size_t width;   /* display columns of the visible form */
    size_t vislen;  /* bytes of vis */
    char vis[8];    /* the visible form (not NUL-terminated) */
} textsafe_unit;

/* Decodes one strictly valid UTF-8 sequence at s (len > 0): no overlong
   form, no surrogate, nothing past U+10FFFF. Returns its length and sets
   *cp, or returns 0 when s does not start with one. */
size_t textsafe_utf8_next(const char *s, size_t len, uint32_t *cp);

/* The unit at s (len > 0) into *u. */
void textsafe_next(const char *s, size_t len, textsafe_unit *u);

/* Display columns of the visible form of s. */
size_t textsafe_width(const char *s, size_t len);

/* True when s is its own visible form (nothing to escape). */
bool textsafe_is_visible(const char *s, size_t len);

/* The visible form of s into buf, NUL-terminated, whole units only (an
   escape is never cut). Returns the bytes written (without the NUL);
   *used, when not NULL, gets the bytes of s they cover. */
size_t textsafe_visible(const char *s, size_t len, char *buf, size_t size, size_t *used);

/* True when s is valid UTF-8 (a NUL byte is valid). */
bool textsafe_utf8_valid(const char *s, size_t len);

/* s as valid UTF-8 into buf (U+FFFD for each byte that is not part of a
   valid sequence; with no_nul, for a NUL byte too: protobuf-c strings end
   at NUL). Returns the length the whole result needs, like snprintf;
   writes at most size - 1 bytes of whole sequences and a NUL. */
size_t textsafe_utf8(const char *s, size_t len, bool no_nul, char *buf, size_t size);

#endif
