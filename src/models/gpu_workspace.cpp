#include "models/gpu_workspace.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "gpu/error.hpp"

namespace seqfuse::models::gpu_embed {

ActivationLayout lay_out(std::size_t tokens, std::size_t least_sequence_tokens,
                         const ModelShape& shape) {
  const std::size_t e = nn::element_bytes(shape.type), f = sizeof(float);
  const std::size_t hidden = shape.hidden, inner = shape.inner, intermediate = shape.intermediate;
  ActivationLayout a{};
  Layout l;
  a.residual = l.add(tokens * hidden * f);
  a.normed = l.add(tokens * hidden * e);
  // The QKV and up-projection GEMMs write the compute type: their readers
  // (rotary, GELU) take 16 bits as HF's bf16 pass does, at half the bytes.
  a.qkv = l.add(tokens * 3 * inner * e);
  // Attention's rotated queries and keys, in the compute type (it reads the
  // values from qkv).
  a.query = l.add(tokens * inner * e);
  a.key = l.add(tokens * inner * e);
  a.context = l.add(tokens * inner * e);
  a.inter = l.add(tokens * intermediate * e);  // GELU runs in place
  // T5's gated GELU: the gate GEMM's output, aligned for the GEMM as every
  // sub-buffer is (an offset inside `inter` would not be for every batch).
  a.gate = shape.feed_forward == FeedForwardKind::gated_gelu ? l.add(tokens * intermediate * e) : 0;
  a.final = l.add(tokens * hidden * f);
  a.max_sequences = tokens / std::max<std::size_t>(least_sequence_tokens, 1) + 1;
  // A sequence of n tokens has at most n / kAttentionQueryTile + 1 tiles, or with a leading
  // placeholder (T5) one more.
  a.max_tiles = 2 * a.max_sequences + tokens / nn::kAttentionQueryTile + 1;
  a.meta_begin = l.total();
  a.ids = l.add(tokens * sizeof(std::int32_t));
  a.positions = l.add(tokens * sizeof(std::int32_t));
  a.scales = l.add(tokens * sizeof(double));
  a.offsets = l.add((a.max_sequences + 1) * sizeof(std::int32_t));
  a.tiles = l.add(a.max_tiles * sizeof(nn::AttentionTile));
  a.meta_end = l.total();
  a.output = l.add(tokens * hidden * f);  // one layer of --pool none
  a.total = l.total();
  return a;
}

Workspace::Workspace(const ModelShape& shape, std::size_t least_sequence_tokens,
                     bool leading_placeholder)
    : shape_(shape),
      least_sequence_tokens_(least_sequence_tokens),
      leading_placeholder_(leading_placeholder),
      meta_host_(gpu::pinned_resource()) {}

void Workspace::reserve(std::size_t batch_tokens, std::size_t longest_sequence_tokens,
                        const std::string& device_name) {
  if (batch_tokens <= capacity_) return;
  const ActivationLayout layout = lay_out(batch_tokens, least_sequence_tokens_, shape_);
  arena_ = gpu::DeviceBuffer();  // the old buffers' memory counts as free
  output_buffer_ = gpu::DeviceBuffer();
  capacity_ = 0;
  const std::size_t free_bytes = gpu::free_device_memory();
  const auto refuse = [&] {
    return Error("a batch of " + std::to_string(batch_tokens) + " tokens (longest sequence " +
                 std::to_string(longest_sequence_tokens) + ") needs " + mib(layout.total) +
                 " of GPU memory for activations on " + device_name + ", which has " +
                 mib(free_bytes) + " free: lower --toks-per-batch or --max-length");
  };
  if (layout.total > free_bytes) throw refuse();
  try {
    arena_ = gpu::DeviceBuffer(layout.total);
  } catch (const gpu::OutOfMemory&) {
    throw refuse();
  }
  layout_ = layout;
  capacity_ = batch_tokens;
  output_bytes_ = layout.total - layout.output;
  meta_host_.resize(layout.meta_end - layout.meta_begin);
}

void Workspace::grow_output(std::size_t bytes) {
  if (bytes <= output_bytes_) return;
  output_buffer_ = gpu::DeviceBuffer();
  output_buffer_ = gpu::DeviceBuffer(bytes);
  output_bytes_ = bytes;
}

void Workspace::poison(gpu::Stream& stream) {
  gpu::fill_device(arena_.data(), 0xff, layout_.meta_begin, stream);
  gpu::fill_device(output(), 0xff, output_bytes_, stream);
}

void Workspace::upload_batch(std::span<const std::span<const std::int32_t>> sequences,
                             std::optional<std::int32_t> dropout_mask, gpu::Stream& stream) {
  std::byte* host = meta_host_.data();
  const auto host_at = [&](std::size_t offset) { return host + (offset - layout_.meta_begin); };
  auto* ids = reinterpret_cast<std::int32_t*>(host_at(layout_.ids));
  auto* positions = reinterpret_cast<std::int32_t*>(host_at(layout_.positions));
  auto* scales = reinterpret_cast<double*>(host_at(layout_.scales));
  auto* offsets = reinterpret_cast<std::int32_t*>(host_at(layout_.offsets));
  tiles_.clear();
  std::size_t t = 0;
  offsets[0] = 0;
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    const auto& seq = sequences[s];
    // Token dropout at inference (EsmEmbeddings), as the CPU engine.
    double scale = 1.0;
    if (dropout_mask) {
      const auto masks = std::count(seq.begin(), seq.end(), *dropout_mask);
      scale =
          (1.0 - 0.15 * 0.8) / (1.0 - static_cast<double>(masks) / static_cast<double>(seq.size()));
    }
    const std::size_t first = t;
    if (leading_placeholder_) {
      // The placeholder attends to itself: its value row is zero (no biases
      // in T5, its hidden row zero), so its attention output is zero too.
      nn::append_attention_tiles(t, 1, tiles_);
      nn::append_attention_tiles(t + 1, seq.size() - 1, tiles_);
    } else {
      nn::append_attention_tiles(t, seq.size(), tiles_);
    }
    for (std::size_t i = 0; i < seq.size(); ++i, ++t) {
      ids[t] = seq[i];
      positions[t] = static_cast<std::int32_t>(i);
      scales[t] = dropout_mask && seq[i] == *dropout_mask ? 0.0 : scale;
    }
    if (leading_placeholder_) scales[first] = 0.0;
    offsets[s + 1] = static_cast<std::int32_t>(t);
  }
  std::memcpy(host_at(layout_.tiles), tiles_.data(), tiles_.size() * sizeof(nn::AttentionTile));
  gpu::copy_to_device(at(layout_.meta_begin), host, layout_.meta_end - layout_.meta_begin, stream);
}

}  // namespace seqfuse::models::gpu_embed
