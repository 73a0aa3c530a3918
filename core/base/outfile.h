/* An output file that is written whole or not at all.

   OUT that does not exist, or is a regular file: a temp file with a short
   name in OUT's directory, renamed over OUT once complete (a symlink to a
   regular file keeps the link: its target is replaced; a dangling one
   too: the file it names is created, as sort -o and a shell's > do; a
   replaced file keeps its permission bits). OUT that exists and
   is not a regular file (a FIFO, a terminal, a device, or a symlink to one):
   written in place, never replaced. "-": standard output. A directory is
   refused.

   While a temp file exists, SIGTERM, SIGINT and SIGHUP remove it: then the
   signal does what it did before (kills the process, or runs the program's
   own handler, after which outfile_commit fails with T2P_ERR_CANCELLED).
   A signal the program ignores stays ignored. While OUT is open, SIGXFSZ
   (a file size limit, ulimit -f) is ignored unless the program handles it:
   the write fails with EFBIG, reported and cleaned up as any error. */
#ifndef T2P_OUTFILE_H
#define T2P_OUTFILE_H

#include <stdbool.h>

#include "core/base/error.h"

typedef struct outfile {
    int fd;           /* write here; outfile_commit closes it unless taken */
    const char *path; /* OUT as given (borrowed), for messages */
    char *dest;       /* what the temp file becomes (owned); NULL when in place */
    char *tmp;        /* the temp file (owned); NULL when in place */
    int slot;         /* the signal clean-up slot, or -1 */
    bool xfsz;        /* holds SIGXFSZ ignored until outfile_done */
    bool no_replace;
} outfile;

/* Fail with T2P_ERR_IO, sys_errno EEXIST, when OUT exists (then nothing is
   replaced, whatever it is), rather than replace it. */
enum { OUTFILE_NO_REPLACE = 1 };

/* Whether path means standard output ("-"). */
bool outfile_is_stdout(const char *path);

/* Opens OUT for writing as above. path is borrowed until outfile_done.
   Returns 0, or -1 with err set (sys_errno from the system when it has one). */
int outfile_open(outfile *o, const char *path, unsigned flags, t2p_error *err);

/* The caller now owns o->fd (gzdopen's gzclose closes it). */
int outfile_take_fd(outfile *o);

/* The data is complete: closes fd if still owned, renames the temp file into
   place. Returns 0, or -1 with err set and nothing left behind. Either way
   o is done. */
int outfile_commit(outfile *o, t2p_error *err);

/* Gives up: closes fd if still owned, removes the temp file. NULL-safe and
   safe after outfile_commit. */
void outfile_done(outfile *o);

#endif
