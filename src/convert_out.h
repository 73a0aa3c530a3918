/* Which of convert's operands is the output: nothing is written that the
   user did not name as the output, and never a trace (issue 22). */
#ifndef T2P_CONVERT_OUT_H
#define T2P_CONVERT_OUT_H

#include <stdbool.h>
#include <stddef.h>

/* Splits convert's operands into inputs and OUT. out_opt is -o's value,
   or NULL: then the last of two or more operands is OUT, but only when it
   does not exist, is empty, or is a pprof profile by content. A trace (by
   content or by name), one of the inputs (the same inode), a directory or
   any other file is refused with one line that shows the command to use.
   With -o, OUT may not be one of the inputs nor a trace either.
   Sets *inputs, *ninputs (borrowed from operands) and *out. Returns 0, or
   EXIT_USAGE after printing why; nothing has been written either way. */
int convert_out_choose(char **operands, size_t noperands, const char *out_opt, char ***inputs,
                       size_t *ninputs, const char **out);

#endif
