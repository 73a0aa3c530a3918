/* Glyphs for a terminal that cannot show UTF-8. The views lay out their
   lines in UTF-8 (▲ ▸ › … █ Δ, and whatever the trace's names hold); in a
   non-UTF-8 locale (LANG=C) curses would print those bytes as "~V"
   garbage, so the terminal and --replay pass each line through
   glyph_to_ascii first. One character becomes one character: the layout's
   display widths stay right. No curses here. */
#ifndef T2P_GLYPH_H
#define T2P_GLYPH_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the current locale (after setlocale(LC_ALL, "")) writes UTF-8. */
bool glyph_locale_utf8(void);

/* Rewrites the NUL-terminated UTF-8 string s in place: every non-ASCII
   character becomes one ASCII byte (a look-alike for the explorer's glyphs:
   ▲ ^, ▼ ▾ v, ▸ › → >, ← <, … ~, █ #, Δ d, box lines - | +; '?' for any
   other). Returns the new length. */
size_t glyph_to_ascii(char *s);

/* A screen line as the terminal is to get it: s itself, or (ascii) its
   glyph_to_ascii copy in tmp (size bytes; a longer line is cut there). */
const char *glyph_line(const char *s, bool ascii, char *tmp, size_t size);

#endif
