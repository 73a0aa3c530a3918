/* The lists as TensorBoard's plugin had them (pytorch/kineto tb_plugin at
   041e7ce9, torch_tb_profiler/profiler/tensor_core.py). */
#include "config.h"

#include <string.h>

#include "core/analyses/tc_allowlist.h"

/* TC_Allowlist: from NVIDIA PyProf's prof/tc.py */
static const char *const tc_kernels[] = {
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816",
    "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1",
    "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
    "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm",
    "xmma_gemm", "xmma_sparse_gemm", "c1688",
};

/* TC_OP_Allowlist: autocast's fp16 operators and their backward ops */
static const char *const tc_ops[] = {
    "aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
    "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
    "aten::convolution", "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
    "aten::prelu", "aten::addmm", "aten::addmv", "aten::addr",
    "aten::matmul", "aten::mm", "aten::mv",
    "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm",
    "aten::chain_matmul", "aten::linalg_multi_dot",
    "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell", "aten::lstm_cell",
    "aten::gru_cell", "aten::rnn_tanh_cell", "aten::rnn_relu_cell",
    "CudnnConvolutionBackward", "BmmBackward0",
    "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward",
    "MmBackward", "aten::cudnn_convolution_backward_weight", "aten::addmm_",
    "AddmvBackward", "MvBackward",
    "aten::cudnn_convolution_transpose_backward_weight",
    "aten::cudnn_convolution_transpose_backward_input",
    "AddmmBackward", "aten::cudnn_convolution_backward_input",
    "AddbmmBackward", "aten::cudnn_convolution_backward",
};

/* memmem without _GNU_SOURCE: names are short */
static bool contains(const char *s, size_t n, const char *pat)
{
    size_t m = strlen(pat);
    for (size_t i = 0; i + m <= n; i++)
        if (s[i] == pat[0] && !memcmp(s + i, pat, m))
            return true;
    return false;
}

bool tc_kernel_uses(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof tc_kernels / sizeof tc_kernels[0]; i++)
        if (contains(name, len, tc_kernels[i]))
            return true;
    return false;
}

bool tc_op_eligible(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof tc_ops / sizeof tc_ops[0]; i++)
        if (strlen(tc_ops[i]) == len && !memcmp(name, tc_ops[i], len))
            return true;
    return false;
}
