#include "models/gpu_readout.hpp"

#include <cstring>

#include "core/gpu_status.hpp"
#include "gpu/nn/pooling.hpp"
#include "models/pooling.hpp"

namespace seqfuse::models::gpu_embed {

namespace nn = gpu::nn;

std::size_t readout_rows(Pooling pooling, std::size_t sequences, std::size_t tokens) noexcept {
  return pooling == Pooling::none ? tokens : sequences;
}

void capture_hidden_state(const float* states, int index, const BatchReadout& batch,
                          gpu::Stream& stream) {
  const Readout& readout = *batch.readout;
  const nn::PoolKind kind = readout.pooling == Pooling::mean  ? nn::PoolKind::mean
                            : readout.pooling == Pooling::bos ? nn::PoolKind::bos
                                                              : nn::PoolKind::none;
  for (std::size_t slot = 0; slot < readout.layers.size(); ++slot) {
    if (readout.layers[slot] != index) continue;
    require_gpu_success(
        nn::pool_sequences(kind, states, batch.offsets, batch.sequences, batch.tokens, batch.hidden,
                           batch.output + slot * batch.rows_total * batch.hidden, stream),
        "GPU embed: pooling");
  }
}

void unpack_readout(const float* host, std::span<const std::span<const std::int32_t>> sequences,
                    const BatchReadout& batch, std::span<Embedding> out) {
  const std::size_t slots = batch.readout->layers.size(), hidden = batch.hidden;
  std::size_t row = 0;
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    const std::size_t rows = pooled_rows(batch.readout->pooling, sequences[s].size());
    out[s].rows = rows;
    out[s].values.resize(slots * rows * hidden);
    for (std::size_t slot = 0; slot < slots; ++slot)
      std::memcpy(out[s].values.data() + slot * rows * hidden,
                  host + (slot * batch.rows_total + row) * hidden, rows * hidden * sizeof(float));
    row += rows;
  }
}

}  // namespace seqfuse::models::gpu_embed
