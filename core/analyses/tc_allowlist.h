/* TensorBoard's tensor-core lists (its tensor_core.py, as data): which
   kernels ran on tensor cores (the name contains one of NVIDIA PyProf's
   substrings) and which operators could (autocast's lower-precision ops and
   the backward ops recorded launching such kernels). */
#ifndef T2P_TC_ALLOWLIST_H
#define T2P_TC_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>

/* A kernel name that contains a tensor-core substring ("h884", "xmma_gemm", ...). */
bool tc_kernel_uses(const char *name, size_t len);

/* An operator name that is exactly one of the eligible operators ("aten::mm", ...). */
bool tc_op_eligible(const char *name, size_t len);

#endif
