/* TensorBoard's Module view (its module_op.py): the nn.Module hierarchy
   from python_function events ("Python id", "Python parent id", "Python
   module id"), and per module (name, module id) its calls in the plugin's
   tree (core/analyses/tbtree.h): occurrences, operators directly under
   them, host and device self/total time. A module's parent is the nearest
   nn.Module call above it through the Python parent ids; each root call's
   subtree is one hierarchy, identical ones (same modules, same children in
   the same order) once. */
#ifndef T2P_MODULES_H
#define T2P_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analyses/tbtree.h"
#include "core/base/error.h"

typedef struct modules_stats {
    uint32_t name;      /* strtab id, "nn.Module: Linear_0" as written */
    int64_t module_id;  /* "Python module id" */
    uint64_t occurrences, operators;
    int64_t host_total_ns, host_self_ns, dev_total_ns, dev_self_ns;
} modules_stats;

/* A module in the hierarchy, in preorder; several entries can share stats
   (a module reached from several places). */
typedef struct modules_entry {
    uint32_t stats;        /* index into stats */
    uint32_t depth;        /* 0 for a root */
    uint32_t parent;       /* entry index, MODULES_NONE for a root */
    uint32_t next_sibling; /* entry index, MODULES_NONE */
    uint32_t nchildren;
} modules_entry;

#define MODULES_NONE UINT32_MAX

typedef struct modules {
    modules_stats *stats;
    size_t nstats;
    modules_entry *entries; /* preorder; roots sorted by name, then id, then the order
                               TensorBoard reached them; children in that order */
    size_t nentries;
} modules;

/* The hierarchy of t's trace and the stats of the module calls keep marks
   (NULL: all). A trace without nn.Module events gives no entries (the
   plugin showed no Module view). NULL with err set when out of memory. */
modules *modules_build(const tbtree *t, const unsigned char *keep, t2p_error *err);
void modules_free(modules *mo);

/* The name TensorBoard showed: without "nn.Module: ". */
const char *modules_name(const modules *mo, const trace *tr, uint32_t stats, size_t *len);

/* What the plugin's avg_duration column showed: device time per
   occurrence, else host time per occurrence (0 without occurrences). */
double modules_avg_ns(const modules_stats *s);

#endif
