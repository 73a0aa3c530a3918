/* Exact number parsing from JSON text. Trace times are decimal microseconds
   ("1712195495659526.753"); going through a double moves them by hundreds of
   ns, so they are converted straight from the digits to int64 nanoseconds. */
#ifndef T2P_NUM_H
#define T2P_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses a JSON number (or the same text inside a string) and multiplies it by
   10^scale exactly, rounding half away from zero past the last digit kept.
   Returns false for text that is not a number or a result outside int64. */
bool num_parse_scaled(const char *s, size_t len, int scale, int64_t *out);

/* Microseconds text to nanoseconds. */
static inline bool num_parse_us_to_ns(const char *s, size_t len, int64_t *out)
{
    return num_parse_scaled(s, len, 3, out);
}

/* An id: decimal (possibly negative, kept as its two's complement) or 0x hex;
   up to 64 bits. Returns false otherwise. */
bool num_parse_id(const char *s, size_t len, uint64_t *out);

/* A JSON number as a double (for figures that are fractions, such as a
   kernel's "blocks per SM"). Returns false for text that is not a finite
   number; the caller passes number tokens only (strings are no numbers). */
bool num_parse_double(const char *s, size_t len, double *out);

#endif
