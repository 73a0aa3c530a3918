/* String interning: every distinct byte string gets a small id, stored once.
   Names are bytes with a length (they may hold NUL and run to thousands of
   characters); each stored copy is also NUL-terminated for convenience. */
#ifndef T2P_STRTAB_H
#define T2P_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define STRTAB_NONE UINT32_MAX

typedef struct strtab strtab;

strtab *strtab_new(void);
void strtab_free(strtab *t);

/* Empties t and keeps its memory (a table refilled many times faults in
   no new pages); ids start again from 0. */
void strtab_clear(strtab *t);

/* Returns the id of s, adding it if new; STRTAB_NONE when out of memory. */
uint32_t strtab_intern(strtab *t, const char *s, size_t len);

/* The same for a string that must be valid UTF-8 without NUL (a protobuf
   string, which protobuf-c ends at NUL): interns s with U+FFFD for each
   byte that is not part of valid UTF-8 and for each NUL. */
uint32_t strtab_intern_utf8(strtab *t, const char *s, size_t len);

/* Returns the id of s or STRTAB_NONE, never adds. */
uint32_t strtab_find(const strtab *t, const char *s, size_t len);

/* The stored bytes (owned by the table, valid until strtab_free, NUL-terminated). */
const char *strtab_str(const strtab *t, uint32_t id);
size_t strtab_len(const strtab *t, uint32_t id);
uint32_t strtab_count(const strtab *t);

/* Bytes held by the table, for memory reports. */
size_t strtab_bytes(const strtab *t);

uint64_t strtab_hash(const char *s, size_t len);

#endif
