// T5's gated-GELU feed-forward step between its two input GEMMs and its
// output GEMM (feed_forward_proj "gated-gelu", ProtT5): the GELU side times
// the linear side. Plain C++ (src/ calls it); the kernel is in gated_gelu.cu.
#pragma once

#include <cstddef>

#include "gpu/nn/nn_types.hpp"
#include "gpu/runtime.hpp"
#include "gpu/status.hpp"

namespace seqfuse::gpu::nn {

// gelu_side[i] = gelu_tanh(gelu_side[i]) * linear_side[i] for `count`
// elements of `type`, in place (transformers' T5DenseGatedActDense with
// gelu_new, the CPU engine's product: nn_math.hpp's gelu_tanh, in fp32).
// `count` must be even (the GEMM rows are d_ff wide; every T5 d_ff is even).
[[nodiscard]] Status gated_gelu(void* gelu_side, const void* linear_side, std::size_t count,
                                NnType type, Stream& stream);

}  // namespace seqfuse::gpu::nn
