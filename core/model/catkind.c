#include "config.h"

#include "core/model/catkind.h"

#include <string.h>

static bool ieq(const char *a, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    if (n != m)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)a[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if (c != (unsigned char)lit[i])
            return false;
    }
    return true;
}

/* lower-case spelling -> kind; TensorBoard's plugin lower-cased the category
   and looked it up in one table of both spellings, so do we */
static const struct {
    const char *name;
    enum catkind kind;
} kinds[] = {
    { "cpu_op", CATKIND_CPU_OP },
    { "operator", CATKIND_CPU_OP },
    { "user_annotation", CATKIND_USER_ANNOTATION },
    { "gpu_user_annotation", CATKIND_GPU_ANNOTATION },
    { "python", CATKIND_PYTHON },
    { "python_function", CATKIND_PYTHON_FUNCTION },
    { "cuda_runtime", CATKIND_RUNTIME },
    { "runtime", CATKIND_RUNTIME },
    { "mtia_runtime", CATKIND_RUNTIME },
    { "xpu_runtime", CATKIND_RUNTIME },
    { "privateuse1_runtime", CATKIND_RUNTIME },
    { "glow_runtime", CATKIND_RUNTIME },
    { "cuda_driver", CATKIND_DRIVER },
    { "kernel", CATKIND_KERNEL },
    { "gpu_memcpy", CATKIND_MEMCPY },
    { "memcpy", CATKIND_MEMCPY },
    { "gpu_memset", CATKIND_MEMSET },
    { "memset", CATKIND_MEMSET },
    { "mtia_ccp_events", CATKIND_DEVICE },
    { "trace", CATKIND_TRACE },
};

enum catkind catkind_of(const char *cat, size_t len)
{
    /* the legacy autograd profiler writes no category: its events are all
       operators (ProfilerStep#N among them) */
    if (len == 0)
        return CATKIND_CPU_OP;
    /* every known spelling is 4 to 19 bytes: most names skip the loop */
    if (len < 4 || len > 19)
        return CATKIND_NONE;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (ieq(cat, len, kinds[i].name))
            return kinds[i].kind;
    return CATKIND_NONE;
}

bool catkind_is_gpu_work(enum catkind k)
{
    return k == CATKIND_KERNEL || k == CATKIND_MEMCPY || k == CATKIND_MEMSET ||
           k == CATKIND_DEVICE;
}

bool catkind_is_launch(enum catkind k)
{
    return k == CATKIND_RUNTIME || k == CATKIND_DRIVER;
}

/* Early Kineto's spellings, exactly as it wrote them. "Python" has no
   modern twin that TensorBoard treated the same (it read python as CPU
   work and python_function as frames), so it is shown as python_function,
   the category that holds Python frames today, while steps keep its kind. */
static const struct {
    const char *early, *modern;
} modern[] = {
    { "Operator", "cpu_op" },    { "Runtime", "cuda_runtime" }, { "Kernel", "kernel" },
    { "Memcpy", "gpu_memcpy" },  { "Memset", "gpu_memset" },    { "Python", "python_function" },
};

const char *catkind_modern(const char *cat, size_t len)
{
    for (size_t i = 0; i < sizeof modern / sizeof modern[0]; i++)
        if (len == strlen(modern[i].early) && memcmp(cat, modern[i].early, len) == 0)
            return modern[i].modern;
    return NULL;
}

bool catkind_step_name(const char *s, size_t n)
{
    return n >= 13 && memcmp(s, "ProfilerStep#", 13) == 0;
}

bool catkind_is_step_kind(enum catkind k)
{
    return k == CATKIND_CPU_OP || k == CATKIND_USER_ANNOTATION || k == CATKIND_GPU_ANNOTATION;
}
