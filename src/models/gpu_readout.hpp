// The GPU engine's readout: hidden states pooled on the device, as the
// forward pass produces them, into one output area laid out
// [readout slot][rows_total][hidden] floats (rows_total: the batch's tokens
// for --pool none, else its sequences), then split on the host into each
// sequence's Embedding. GPU builds only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "gpu/runtime.hpp"
#include "models/engine.hpp"

namespace seqfuse::models::gpu_embed {

// One batch's readout.
struct BatchReadout {
  const Readout* readout = nullptr;
  std::size_t sequences = 0, tokens = 0;
  std::size_t rows_total = 0;             // rows per slot
  const std::int32_t* offsets = nullptr;  // device: sequence starts, [sequences + 1]
  float* output = nullptr;                // device: the output area
  std::size_t hidden = 0;

  // Floats the output area receives.
  [[nodiscard]] std::size_t output_floats() const noexcept {
    return readout->layers.size() * rows_total * hidden;
  }
};

[[nodiscard]] std::size_t readout_rows(Pooling pooling, std::size_t sequences,
                                       std::size_t tokens) noexcept;

// Pools `states` (hidden state `index`, [tokens][hidden] fp32 on the device)
// into every readout slot asking for it.
void capture_hidden_state(const float* states, int index, const BatchReadout& batch,
                          gpu::Stream& stream);

// Splits `host`, the output area copied back, into out[s] for each sequence.
void unpack_readout(const float* host, std::span<const std::span<const std::int32_t>> sequences,
                    const BatchReadout& batch, std::span<Embedding> out);

}  // namespace seqfuse::models::gpu_embed
