/* Kernel types by name: HTA's patterns (hta/common/types.py) and the rows
   of the kernel-type split. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/analyses/hta_kind.h"

const char *hta_ktype_name(enum hta_ktype k)
{
    static const char *const n[] = { "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" };
    return k < HTA_NKTYPES ? n[k] : "OTHER";
}

static bool starts(const char *s, size_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && !memcmp(s, p, n);
}

/* Python's re.match(".*P", s): P before the first newline ('.' stops there). */
static bool has(const char *s, size_t len, const char *p)
{
    const char *nl = memchr(s, '\n', len);
    size_t n = nl ? (size_t)(nl - s) : len;
    size_t pl = strlen(p);
    for (size_t i = 0; i + pl <= n; i++)
        if (!memcmp(s + i, p, pl))
            return true;
    return false;
}

/* HTA's patterns (hta/common/types.py), each anchored at the start as
   re.match is; utils.get_kernel_type tries them in this order. */
enum hta_ktype hta_kernel_type(const char *s, size_t len)
{
    if (starts(s, len, "nccl") || starts(s, len, "hip") || starts(s, len, "hccl") ||
        has(s, len, "ncclKernel"))
        return HTA_COMMUNICATION;
    if (starts(s, len, "Memcpy") || starts(s, len, "Memset") || starts(s, len, "dma"))
        return HTA_MEMORY; /* hipMemcpy/hipMemset: communication above, as in HTA */
    static const char *const not_compute_prefix[] = {
        "nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet", "pe_exe",
        "cpum_exe_subgraph", "hccl", "collective_subgraph_execution" };
    for (size_t i = 0; i < sizeof not_compute_prefix / sizeof *not_compute_prefix; i++)
        if (starts(s, len, not_compute_prefix[i]))
            return HTA_OTHER;
    if (has(s, len, "Memcpy") || has(s, len, "Memset") || has(s, len, "dma") ||
        has(s, len, "Sync"))
        return HTA_OTHER;
    if (starts(s, len, "cuda") && has(s + 4, len - 4, "LaunchKernel"))
        return HTA_OTHER;
    return HTA_COMPUTATION;
}

const char *hta_typerow_name(unsigned mask, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < HTA_OTHER; k++) {
        if (!(mask & 1u << k))
            continue;
        int w = snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? " overlapping " : "",
                         hta_ktype_name((enum hta_ktype)k));
        if (w > 0)
            n += (size_t)w;
    }
    return buf;
}

