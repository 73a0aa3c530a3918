/* NCCL collectives of one rank, and the same calls matched across the
   ranks of a job: who arrived last and how long the others waited for it.

   A rank's calls (collectives_of_trace): its NCCL kernels, recognised by
   name (ncclKernel_*, ncclDevKernel_*, with or without a "void " before),
   each with the metadata of its own args (PyTorch >= 2.3 puts "Collective
   name", "Process Group Name", "In msg nelems", "dtype", "Seq" on the
   kernel) or else of the record_param_comms operator that launched it
   (same "External id"). A rank without NCCL kernels (a CPU-only trace)
   gives its record_param_comms operators instead. Arrival is when the call
   starts on the rank (the kernel, else the operator), on the trace's
   absolute clock (baseTimeNanoseconds + ts): ranks of one job share it to
   the accuracy of their hosts' clocks.

   Matching (collectives_match): a call of one rank is the same call on
   another when both name the same process group and the same sequence
   number; without a sequence number, the same process group and the same
   position among that group's calls on each rank (order of arrival). Per
   matched call: last arrival = the latest arrival over its ranks (the
   lowest such rank on a tie); a rank's wait = last arrival - own arrival;
   transfer = the latest end over its ranks - last arrival (0 when
   negative): the time the data took once everyone was there. */
#ifndef T2P_COLLECTIVES_H
#define T2P_COLLECTIVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/strtab.h"
#include "core/load/trace.h"

/* One collective call of one rank. Names are ids in a table the caller
   gives (the rank's own). */
typedef struct coll_call {
    uint32_t name;      /* "allreduce", or the kernel's ("AllReduce") without metadata */
    uint32_t pg;        /* process group name, "" when the trace does not say */
    int64_t seq;        /* sequence number, -1 when the trace does not say */
    int64_t bytes;      /* In msg nelems x the dtype's size; -1 unknown */
    int64_t arrival_ns; /* absolute: base_ns + start */
    int64_t end_ns;     /* absolute end */
} coll_call;

/* Whether name (a kernel's) is an NCCL (or RCCL) kernel. */
bool collectives_is_nccl_kernel(const char *name, size_t len);

/* The size in bytes of a PyTorch dtype name ("Float", "BFloat16", "Long",
   ...), 0 when unknown. */
int collectives_dtype_size(const char *name, size_t len);

/* The calls of tr, in arrival order, with starts (relative to tr's base)
   in [from, to) (INT64_MIN, INT64_MAX: all), names interned in names.
   *out is a new array (the caller frees it; NULL when none). Returns 0, or
   -1 when out of memory. */
int collectives_of_trace(const trace *tr, int64_t from, int64_t to, strtab *names,
                         coll_call **out, size_t *n);

/* One rank's part in collectives_match. */
typedef struct coll_rank_in {
    int64_t rank;
    const strtab *names;
    const coll_call *calls;
    size_t ncalls;
} coll_rank_in;

/* One rank in one matched call. */
typedef struct coll_entry {
    uint32_t file;      /* index of the rank in the input */
    int64_t arrival_ns, end_ns, wait_ns;
} coll_entry;

/* One call matched across ranks. */
typedef struct coll_match {
    uint32_t name, pg;  /* ids in collectives.strs (the first rank's name) */
    int64_t seq;        /* its sequence number, -1 when matched by order */
    uint64_t index;     /* its position among its process group's calls */
    int64_t bytes;      /* the first rank's; -1 unknown */
    bool mixed;         /* the ranks disagree on its name or bytes */
    size_t first, n;    /* its ranks: entries[first .. first + n), in input order */
    uint32_t last_file; /* the rank that arrived last (index in the input) */
    int64_t last_rank;
    int64_t first_arrival_ns, last_arrival_ns;
    int64_t transfer_ns;
    int64_t max_wait_ns, sum_wait_ns;
    int64_t mean_wait_ns; /* sum_wait_ns / n (integer division) */
} coll_match;

typedef struct collectives {
    strtab *strs;
    coll_match *calls;   /* by first arrival */
    size_t ncalls;
    coll_entry *entries;
    size_t nentries;
    size_t nranks;
    int64_t *wait_ns;    /* per input rank: its waits summed */
    uint64_t *count;     /* per input rank: the matched calls it is in */
    int64_t *rank;       /* per input rank: its rank number */
    size_t npgs;         /* process groups seen */
    size_t by_seq, by_order; /* calls matched each way */
    size_t dup;          /* calls dropped: a rank gave one (group, sequence) twice */
} collectives;

/* Matches the calls of ranks r[0..n). NULL when out of memory. */
collectives *collectives_match(const coll_rank_in *r, size_t n);

/* One kind of call: a collective on a process group, its calls summed
   (the job report's "By collective" table). */
typedef struct coll_kind {
    uint32_t name, pg;
    uint64_t calls;
    int64_t bytes;        /* summed over the calls that say; -1 when none does */
    int64_t time_ns;      /* the calls' durations summed over their ranks */
    int64_t wait_ns;      /* their waits summed over their ranks */
    uint64_t entries;     /* (call, rank) pairs: the mean time and wait per rank and call */
    uint64_t last_count;  /* calls whose last rank is last_rank */
    int64_t last_rank;
} coll_kind;

/* The calls of c by (collective, group), in first-call order; *n of them.
   The rank most often last is counted over the calls (lowest on a tie).
   A new array the caller frees; NULL
   (and *n = 0) when out of memory. */
coll_kind *collectives_kinds(const collectives *c, size_t *n);

void collectives_free(collectives *c);

#endif
