/* Tensor cores as TensorBoard's profiler plugin told them (its
   tensor_core.py), held here as data so that the Kernels figures, the
   operators' eligibility and the AMP recommendation read one list:
   - a kernel used tensor cores when its name contains one of NVIDIA's
     PyProf substrings (h884, s1688, hmma, xmma_gemm, ...);
   - an operator can use them (under automatic mixed precision) when its
     name is one of autocast's FP16 operators or their backward nodes. */
#ifndef T2P_TENSORCORE_H
#define T2P_TENSORCORE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the kernel name s (len bytes) contains an allowlisted substring. */
bool tensorcore_kernel(const char *s, size_t len);

/* Whether the operator name s (len bytes) is on the eligible list (exact). */
bool tensorcore_op(const char *s, size_t len);

#endif
