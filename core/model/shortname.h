/* Short display names for C++ operator and kernel names, by the rule of
   HTA's use_short_name (Holistic Trace Analysis, hta.utils.shorten_name):
   drop the return type, template arguments and parameter lists, so that
     void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)
   reads at::native::vectorized_elementwise_kernel.

   The rule, step by step:
   - names of memory work (starting with Memcpy, Memset, hipMemcpy, hipMemset
     or dma) and names holding neither '<' nor '(' stay as they are;
   - every "->" is removed;
   - a '>' removes everything back to the nearest unclosed '<' (itself
     included), a ')' everything back to the nearest unclosed '(': nested
     brackets go with their outer pair;
   - of what is left, the part after the last space is the short name (so a
     return type goes).
   One departure from HTA: when that leaves nothing readable (no letter or
   digit: "<forked function>" gives "", "## Request wait() ##" gives "##"),
   the name stays whole. Display only: ops keep their identity, so two ops whose short names are
   equal stay two rows. tests/fixtures/short_names.tsv holds HTA's own output
   for every name of the shared traces (tests/record_short_names.py). */
#ifndef T2P_SHORTNAME_H
#define T2P_SHORTNAME_H

#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"

/* Writes the short form of name[0..len) to out, which has room for len + 1
   bytes, NUL-terminated. Returns its length. */
size_t shortname_cut(const char *name, size_t len, char *out);

/* The short names of every op of a model, computed once. Opaque. */
typedef struct shortnames shortnames;

/* Builds them for m (which must outlive them). NULL when out of memory. */
shortnames *shortname_new(const model *m);
void shortname_free(shortnames *s);

/* The short name of op (a model->ops index), owned by s; its length in *len
   when len is not NULL. */
const char *shortname_op(const shortnames *s, uint32_t op, size_t *len);

#endif
