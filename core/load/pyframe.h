/* Python frames as PyTorch writes them: "path/file.py(123): function".
   They come as python_function events (PyTorch 1.10+, one event per frame,
   nested in the call tree; the line is where the function starts) or as an
   operator's args["Call stack"] (early Kineto: frames joined by ';',
   innermost first; the line is the one running). Plain records, no state. */
#ifndef T2P_PYFRAME_H
#define T2P_PYFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"

typedef struct pyframe {
    const char *text; /* the whole frame, as written */
    size_t len;
    const char *file; /* "path/file.py"; file_len 0 (never NULL) when the frame has no file */
    size_t file_len;
    const char *func; /* "forward"; the whole text when the frame has no file */
    size_t func_len;
    uint32_t line;    /* 0 when the frame has no file */
} pyframe;

/* Splits s into file, line and function when it reads "FILE(LINE): FUNC";
   otherwise ("<built-in method ...>", "nn.Module: Linear_0") the function is
   the whole text. Returns whether it had a file and line. */
bool pyframe_parse(const char *s, size_t len, pyframe *f);

/* Whether a category names Python frame events: python_function, or early
   Kineto's Python (any case). */
bool pyframe_is_cat(const char *cat);

/* Whether op of m is a Python frame event with a file and line (f filled). */
bool pyframe_of_op(const model *m, uint32_t op, pyframe *f);

/* The frames an operator adds to its stack from its Call stack (strtab id,
   or STRTAB_NONE), innermost first: the stack less the outer frames it shares
   with outer, the Call stack of the nearest enclosing call that has one
   (STRTAB_NONE if none). An operator called inside another from the same
   Python line adds none. Sets *frames and *len to those frames' text (without
   the ';' after them) and returns their count. */
size_t pyframe_added(const model *m, uint32_t stack, uint32_t outer, const char **frames,
                     size_t *len);

/* Iterates frames in text[0..len) joined by ';': fills f with the frame at
   *pos and moves *pos past it. Returns false when none is left. */
bool pyframe_next(const char *text, size_t len, size_t *pos, pyframe *f);

#endif
