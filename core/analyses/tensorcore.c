#include "config.h"

#include "core/analyses/tensorcore.h"

#include <string.h>

/* TC_Allowlist (substrings of kernel names), after NVIDIA PyProf's tc.py */
static const char *const kernel_subs[] = {
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816",
    "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1",
    "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
    "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm",
    "xmma_gemm", "xmma_sparse_gemm", "c1688",
};

/* TC_OP_Allowlist (whole operator names): autocast's FP16 list and the
   backward nodes TensorBoard saw them launch tensor-core kernels from */
static const char *const op_names[] = {
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

static bool contains(const char *s, size_t len, const char *p)
{
    size_t k = strlen(p);
    for (size_t i = 0; i + k <= len; i++)
        if (s[i] == p[0] && !memcmp(s + i, p, k))
            return true;
    return false;
}

bool tensorcore_kernel(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof kernel_subs / sizeof kernel_subs[0]; i++)
        if (contains(s, len, kernel_subs[i]))
            return true;
    return false;
}

bool tensorcore_op(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (strlen(op_names[i]) == len && !memcmp(s, op_names[i], len))
            return true;
    return false;
}
