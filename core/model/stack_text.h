/* A node's stack as one line of text, "a › b › c": the memory peak's
   stack in analyze and the Timeline's footer write it so. */
#ifndef T2P_STACK_TEXT_H
#define T2P_STACK_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "core/model/model.h"

#define MODEL_STACK_TEXT_MAX 64 /* frames at most, whatever max asks */

/* The operators from the outermost to node (node's own last), joined by
   sep, raw (the caller shows them in their visible form). At most max
   frames, the innermost ones: when the stack has more, the text starts with
   "..." and sep. "" when node is MODEL_NONE or a track's root (no operator).
   Cut to size at a whole UTF-8 character. Returns buf. */
const char *model_stack_text(const model *m, uint32_t node, const char *sep, size_t max,
                             char *buf, size_t size);

#endif
