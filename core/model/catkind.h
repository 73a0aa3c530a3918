/* What an event's category says it is: one classifier for GPU attribution,
   steps and the tables. Categories are matched case-insensitively, so early
   Kineto's capitalised spellings (PyTorch 1.8-1.9: Operator, Runtime,
   Kernel, Memcpy, Memset, Python) read as their modern names
   (../shared/docs/trace-format.md, ../shared/docs/steps.md). */
#ifndef T2P_CATKIND_H
#define T2P_CATKIND_H

#include <stdbool.h>
#include <stddef.h>

enum catkind {
    CATKIND_NONE = 0,        /* anything else (cuda_sync, ac2g, "", ...) */
    CATKIND_CPU_OP,          /* cpu_op, Operator; no category (the legacy profiler) */
    CATKIND_USER_ANNOTATION, /* user_annotation */
    CATKIND_GPU_ANNOTATION,  /* gpu_user_annotation: on a GPU row, but not GPU work */
    CATKIND_PYTHON,          /* python, Python (early Kineto) */
    CATKIND_PYTHON_FUNCTION, /* python_function (with_stack frames) */
    CATKIND_RUNTIME,         /* cuda_runtime, Runtime, mtia/xpu/privateuse1/glow_runtime */
    CATKIND_DRIVER,          /* cuda_driver: launches GPU work, but no Runtime role */
    CATKIND_KERNEL,          /* kernel, Kernel */
    CATKIND_MEMCPY,          /* gpu_memcpy, Memcpy */
    CATKIND_MEMSET,          /* gpu_memset, Memset */
    CATKIND_DEVICE,          /* other device work: mtia_ccp_events */
    CATKIND_TRACE,           /* the Trace span */
    CATKIND_N
};

/* The kind of a category (bytes with a length). */
enum catkind catkind_of(const char *cat, size_t len);

/* GPU work (kernel, memcpy, memset, other device work). */
bool catkind_is_gpu_work(enum catkind k);

/* A call that launches GPU work linked by args.correlation: the runtime
   kinds (cuda_runtime, mtia_runtime, ...) and cuda_driver. */
bool catkind_is_launch(enum catkind k);

/* Training steps: the one rule of "is this a ProfilerStep" (steps_build,
   steps_count, the model's merged ProfilerStep*, HTA, TensorBoard's tree).
   catkind_step_name: the name starts with "ProfilerStep#" (n bytes, no
   NUL needed). catkind_is_step: such a name on a call (cpu_op, no
   category, user_annotation, gpu_user_annotation) is a step; the same
   name in any other category is not. */
bool catkind_step_name(const char *s, size_t n);
bool catkind_is_step_kind(enum catkind k);

/* The name of the one operator the model merges every ProfilerStep#N into
   (unless model_opts.keep_steps). */
#define CATKIND_STEPS_MERGED "ProfilerStep*"
static inline bool catkind_is_step(enum catkind k, const char *s, size_t n)
{
    return catkind_is_step_kind(k) && catkind_step_name(s, n);
}

/* The modern spelling of an early Kineto category ("cpu_op" for
   "Operator"), or NULL when cat is already spelled the modern way or is
   not one of them. Static storage. */
const char *catkind_modern(const char *cat, size_t len);

#endif
