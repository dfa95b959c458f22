// The GPU engine's device memory for batches: one arena holding every
// activation of the forward pass and the batch's metadata for up to
// capacity() tokens, the readout's output area (a buffer of its own once the
// results outgrow the arena's), and the pinned host mirror the metadata goes
// up from in one copy. GPU builds only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu/nn/attention.hpp"
#include "gpu/runtime.hpp"
#include "models/gpu_compute.hpp"

namespace seqfuse::models::gpu_embed {

// Where each activation lives in the arena, for a capacity of `tokens` in
// sequences of at least `least_sequence_tokens` each (their special tokens).
struct ActivationLayout {
  std::size_t residual, normed, qkv, query, key, context, inter, final;
  std::size_t gate;  // gated GELU's linear side (T5), or 0 (none)
  // Per-batch metadata, uploaded in one copy from a pinned mirror.
  std::size_t ids, positions, scales, offsets, tiles, meta_begin, meta_end;
  std::size_t output;  // readout results (grown on demand past this first size)
  std::size_t total;
  std::size_t max_sequences, max_tiles;
};

[[nodiscard]] ActivationLayout lay_out(std::size_t tokens, std::size_t least_sequence_tokens,
                                       const ModelShape& shape);

class Workspace {
 public:
  // Sequences hold at least `least_sequence_tokens` tokens (1 or more).
  // `leading_placeholder` (T5): each sequence's first token is a placeholder
  // (cpu_t5_forward.hpp), embedded as zeros (scale 0) and attending to
  // itself only, so its row stays zero through every layer.
  Workspace(const ModelShape& shape, std::size_t least_sequence_tokens,
            bool leading_placeholder = false);

  // Tokens a batch may hold without reserve() growing the arena.
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

  // Makes the arena hold a batch of `batch_tokens`. Throws seqfuse::Error
  // naming the sizes, `device_name`'s free memory and what to lower when the
  // device cannot hold it.
  void reserve(std::size_t batch_tokens, std::size_t longest_sequence_tokens,
               const std::string& device_name);
  // Makes the output area hold `bytes`.
  void grow_output(std::size_t bytes);
  // Fills every activation and the output area with NaN (tests), so a value
  // the forward pass forgets to write shows up.
  void poison(gpu::Stream& stream);

  // Token ids, positions, token-dropout scales, sequence offsets and attention
  // tiles, in one copy from the pinned mirror of the metadata area.
  // `dropout_mask`: the <mask> id where token dropout applies (ESM-2), else
  // every scale is 1 (a leading placeholder's 0). Attention tiles cover each
  // sequence, or with a leading placeholder the placeholder alone and the
  // tokens after it.
  void upload_batch(std::span<const std::span<const std::int32_t>> sequences,
                    std::optional<std::int32_t> dropout_mask, gpu::Stream& stream);

  template <class T = std::byte>
  [[nodiscard]] T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(arena_.as<std::byte>() + offset);
  }
  [[nodiscard]] const ActivationLayout& layout() const noexcept { return layout_; }
  // The last uploaded batch's attention tiles.
  [[nodiscard]] std::size_t tile_count() const noexcept { return tiles_.size(); }
  [[nodiscard]] float* output() const {
    return output_buffer_.size() ? output_buffer_.as<float>() : at<float>(layout_.output);
  }

 private:
  ModelShape shape_;
  std::size_t least_sequence_tokens_;
  bool leading_placeholder_;
  std::size_t capacity_ = 0;  // tokens the arena holds
  ActivationLayout layout_{};
  gpu::DeviceBuffer arena_;
  gpu::DeviceBuffer output_buffer_;  // when the results outgrow the arena's output area
  std::size_t output_bytes_ = 0;
  std::vector<nn::AttentionTile> tiles_;
  std::pmr::vector<std::byte> meta_host_;
};

}  // namespace seqfuse::models::gpu_embed
