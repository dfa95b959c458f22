// The attention kernels' view of VarlenAttention's operand strides, the
// head-major default resolved (device compilation only).
#pragma once

#include <cstddef>

#include "gpu/nn/attention.hpp"
#include "gpu/vendor.cuh"

namespace seqfuse::gpu::nn {

struct OperandView {
  std::size_t token = 0, head = 0;  // strides in elements

  // Row `token_index` of head `head_index`: the operand's channels 0 ..
  // head_dim - 1 there, contiguous.
  template <class T>
  __device__ __forceinline__ const T* first_row(const T* operand, int head_index,
                                                int token_index) const {
    return operand + static_cast<std::size_t>(token_index) * token +
           static_cast<std::size_t>(head_index) * head;
  }
};

struct AttentionStrides {
  OperandView query, key, value;
};

inline OperandView resolve_strides(const OperandStrides& s, const VarlenAttention& job) {
  if (s.token == 0 && s.head == 0) return {job.head_dim, job.tokens * job.head_dim};
  return {s.token, s.head};
}

inline AttentionStrides attention_strides(const VarlenAttention& job) {
  return {resolve_strides(job.query_strides, job), resolve_strides(job.key_strides, job),
          resolve_strides(job.value_strides, job)};
}

}  // namespace seqfuse::gpu::nn
