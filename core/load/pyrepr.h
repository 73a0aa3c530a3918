/* Python's str() of a JSON value, built from the parser's token stream:
   TensorBoard showed an operator's input shape as str(args["Input Dims"])
   after Python's json read it, e.g. "[[32, 3, 224, 224], [], []]", and the
   "ops by input shape" rows are keyed by that text. So the loader renders
   the same text: ints as written, floats as Python's shortest repr
   ("1e-05", "2.0"), strings quoted as repr does inside containers
   ('a', "it's") and bare at the top, true/false/null as True/False/None,
   objects as {'k': v}. Plain caller storage; no globals. */
#ifndef T2P_PYREPR_H
#define T2P_PYREPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pyrepr_kind { PYREPR_NULL, PYREPR_TRUE, PYREPR_FALSE, PYREPR_NUMBER, PYREPR_STRING };

typedef struct pyrepr {
    char *buf;      /* the text so far (owned; not NUL-terminated) */
    size_t len, cap;
    uint32_t *lvl;  /* per open container: elements so far << 1 | is_object */
    size_t nlvl, cap_lvl;
} pyrepr;

void pyrepr_init(pyrepr *p);
void pyrepr_done(pyrepr *p);
/* Starts a new value (keeps the buffers). */
void pyrepr_reset(pyrepr *p);

/* The token stream of one value. Each returns 0, or -1 when out of memory.
   s/n: a number's JSON text or a string's decoded UTF-8. */
int pyrepr_scalar(pyrepr *p, enum pyrepr_kind k, const char *s, size_t n);
int pyrepr_open(pyrepr *p, bool object);
int pyrepr_key(pyrepr *p, const char *s, size_t n);
int pyrepr_close(pyrepr *p);
/* Depth of open containers: the value is complete when it drops back to 0. */
static inline size_t pyrepr_depth(const pyrepr *p)
{
    return p->nlvl;
}

/* Python's repr of a double into out (at least 32 bytes): "0.1", "1e+16",
   "inf". Returns the length. */
size_t pyrepr_float(double x, char *out);

#endif
