/* The analyses derived from one loaded trace, built once, on first use, and
   shared: every view of the explorer, analyze and the export read the same
   steps, memory, GPU summary, TensorBoard tree, HTA figures and callers of a
   trace instead of each building its own (a Steps view, a Memory view, a
   Timeline and an export used to build the steps four times over one model;
   the Ops and Module views each built TensorBoard's tree). No view builds
   data: it asks here and draws what it gets.

   One derived per model of a whole trace (unscoped); it owns what it built
   and hands out the same pointers until derived_free. The memory figures of
   a model scoped from that trace (a step's, a range's: model.h
   scope) are built here too, once per such model, so that every
   view showing that scope reads the same ones. So are the other analyses
   of a model below: those of whole, and those of the last scoped model
   asked for (a view shows one model at a time; asking of another scoped
   model drops the last one's, which the views never hold across a change
   of model: view_set_model closes them).

   The analyses asked with a selection (a scope's mask: _in, callers) keep
   the last selection's: the pointer stays valid until the same analysis is
   asked of another selection, or the model is dropped.

   Not thread-safe, but for one case: derived_steps and derived_memory(d,
   whole) may run at once on two threads (they fill different fields and
   only read the model), as analyze does. */
#ifndef T2P_DERIVED_H
#define T2P_DERIVED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/model/model.h"
#include "core/analyses/compare_derived.h"
#include "core/analyses/kernels.h"
#include "core/analyses/memory.h"
#include "core/analyses/steps.h"

typedef struct derived derived;
struct callers;
struct compare;
struct compare_node;
struct hta;
struct hta_opts;
struct memory_scoped;
struct modules;
struct opshape;
struct pylines;
struct tbtree;
struct timeline;

/* The analyses of whole (a model of a whole trace, which must outlive the
   result): none built yet. NULL when out of memory. */
derived *derived_new(const model *whole);
/* (whole may also be a scoped model standing for itself: derived_set_of) */
void derived_free(derived *d);

const model *derived_whole(const derived *d);

/* Whether m is whole or a model scoped from whole's trace (a step, a
   range): what derived_memory takes. */
bool derived_covers(const derived *d, const model *m);

/* The steps of whole (steps_build), built on the first call. NULL with err
   set when that failed (the same error on every later call). */
const steps *derived_steps(derived *d, t2p_error *err);

/* The same steps with the recommendations that need more than the steps
   (memory_recommend over whole's memory, kernels_recommend over the kept
   steps' GPU summary), added once: what the Steps view and analyze's
   whole-trace report list. NULL with err set. */
const steps *derived_steps_advised(derived *d, t2p_error *err);

/* TensorBoard's GPU summary over the kept steps of whole (kernels_build
   with whole's steps, no mask), built on the first call. NULL with err set. */
const kernels *derived_kernels(derived *d, t2p_error *err);

/* The memory figures of m (memory_build): whole's, or those of a model
   scoped from its trace, which cover its window's records. Built once per
   model; the last scoped model's are kept (a view shows one scope at a
   time), so m must still be alive when it is asked again, and a model
   freed and another built in its place at the same address is told apart
   by its window and size. NULL with err set. */
const memory *derived_memory(derived *d, const model *m, t2p_error *err);

/* The memory figures of m's stacks that sel selects (memory_scope_build
   over derived_memory(d, m); sel one byte per m->nodes, copied: the
   caller's stays its own; NULL all), the last selection's kept. NULL with
   err set. */
const struct memory_scoped *derived_memory_in(derived *d, const model *m, const uint8_t *sel,
                                              t2p_error *err);

/* TensorBoard's tree of m (tbtree_build), the rows by input shape over it
   in m's steps or range (opshape_build with m->keep) and its module
   hierarchy (modules_build): built once per model, shared by the Ops view's
   I, the Module view and the export. NULL with err set. */
const struct tbtree *derived_tbtree(derived *d, const model *m, t2p_error *err);
const struct opshape *derived_opshape(derived *d, const model *m, t2p_error *err);
const struct modules *derived_modules(derived *d, const model *m, t2p_error *err);

/* HTA's analyses of m with opts (hta_build; m's own window or mask), once
   per model and opts (the same pointer: the front's options outlive d).
   NULL with err set. */
const struct hta *derived_hta(derived *d, const model *m, const struct hta_opts *opts,
                              t2p_error *err);

/* The kernels launched inside the stacks sel selects (kernels_build_in, no
   steps; sel as derived_memory_in's), the last selection's kept. NULL with
   err set. */
const kernels *derived_kernels_in(derived *d, const model *m, const uint8_t *sel,
                                  t2p_error *err);

/* The inverted tree of m's stacks that keep selects with hide's operators
   left out (callers_build, tracks merged; keep per node, hide per
   operator, each NULL for none, copied), the last pair's kept. NULL with
   err set. */
const struct callers *derived_callers(derived *d, const model *m, const uint8_t *keep,
                                      const uint8_t *hide, t2p_error *err);

/* The Python source lines of m's stacks that sel selects (pylines_build;
   sel as derived_memory_in's), the last selection's kept. NULL with err
   set. */
const struct pylines *derived_pylines(derived *d, const model *m, const uint8_t *sel,
                                      t2p_error *err);

/* The Timeline's tracks of whole (timeline_build), built on the first
   call. NULL with err set (the same error on every later call). */
const struct timeline *derived_timeline(derived *d, t2p_error *err);

/* The callers of c's two models, base's (of base's trace) and new's (of
   d's), paired by c (compare_pair_trees of their derived_callers): *n
   nodes, owned by d, built once per base. NULL with err set. */
const struct compare_node *derived_callers_vs(derived *d, derived *base, const struct compare *c,
                                              size_t *n, t2p_error *err);

/* The memory figures of base's whole trace and d's side by side (the
   compare mode's Memory view), built once per base. NULL with err set. */
const compare_mem *derived_memory_vs(derived *d, derived *base, t2p_error *err);

/* The derived of every whole model a front shows (the explorer's ranks, a
   comparison's two traces), for a front that moves between them. */
typedef struct derived_set derived_set;

/* The derived of m's trace from *set (the set made on first use): m's own
   when m is a whole model (made on first use), else, m being scoped from a
   trace, that of the whole model of its trace asked for before, or, when
   none was, m's own (a model of two steps compared, whose whole model the
   front never had: its memory is its window's, it has no steps). NULL when
   out of memory. Each stays until derived_set_free. */
derived *derived_set_of(derived_set **set, const model *m);
void derived_set_free(derived_set *set);

#endif
