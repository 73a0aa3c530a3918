/* The output side of a pprof export, apart from building the profile: a
   sink that packed protobuf bytes are appended to (gzip into a temp file
   renamed into place, or a growing buffer). Internal to core/pprof/. It
   knows nothing of the profile (core/pprof/pprof.h), which uses it: what it
   takes of pprof_opts comes as a pprof_out_opts. */
#ifndef T2P_PPROF_OUT_H
#define T2P_PPROF_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "core/base/error.h"

/* Called as packed bytes go out (done of total); non-zero cancels. The
   type of pprof_opts.progress (pprof_progress_fn). */
typedef int (*pprof_out_progress_fn)(uint64_t done, uint64_t total, void *ctx);

/* What the output side takes of a writer's options. */
struct pprof_out_opts {
    bool no_overwrite;        /* fail with T2P_ERR_IO (EEXIST) rather than replace out */
    pprof_out_progress_fn progress; /* may be NULL */
    void *progress_ctx;
};

/* Where packed bytes go; stops at the first failure or cancel. base comes
   first so protobuf-c's packers can append to it. */
struct pprof_sink {
    ProtobufCBuffer base;
    int (*write)(struct pprof_sink *s, const uint8_t *data, size_t len); /* 0 or -1 */
    pprof_out_progress_fn progress;
    void *progress_ctx;
    bool failed, cancelled;
};

/* ProtobufCBuffer's append for a pprof_sink. */
void pprof_sink_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data);

/* The tag and length of a length-delimited field whose bytes follow. */
void pprof_sink_tag_len(struct pprof_sink *s, uint32_t field, size_t len);

/* A sink into memory: buf (owned by the sink until taken) of len bytes. */
struct pprof_memsink {
    struct pprof_sink s;
    uint8_t *buf;
    size_t len, cap;
};

void pprof_memsink_init(struct pprof_memsink *ms);
void pprof_memsink_done(struct pprof_memsink *ms);

/* Packs a profile into a sink: returns -1 when out of memory; the sink's
   failed and cancelled flags tell the rest. */
typedef int (*pprof_pack_fn)(void *ctx, struct pprof_sink *s);

/* Runs pack into a gzip stream written to out through core/base/outfile.h (a
   temp file beside out renamed into place; a FIFO, device or "-" in place)
   (opts: no_overwrite, progress; may be NULL); on failure, cancel or a
   terminating signal no temp file remains. Returns 0, or -1 with err set. */
int pprof_out_write(pprof_pack_fn pack, void *ctx, const struct pprof_out_opts *opts,
                    const char *out, t2p_error *err);

#endif
