#include "models/cpu_batch.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "models/pooling.hpp"

namespace seqfuse::models {

std::size_t start_cpu_batch(TokenSequences sequences, const Readout& readout, int num_layers,
                            std::size_t hidden, const char* specials,
                            std::vector<std::size_t>& offsets, std::span<Embedding> out) {
  if (out.size() != sequences.size())
    throw Error("internal: embed() got " + std::to_string(out.size()) + " outputs for " +
                std::to_string(sequences.size()) + " sequences");
  for (int layer : readout.layers)
    if (layer < 0 || layer > num_layers)
      throw Error("internal: hidden state " + std::to_string(layer) + " of a " +
                  std::to_string(num_layers) + "-layer model");
  offsets.assign(1, 0);
  std::size_t longest = 0;
  for (const auto& tokens : sequences) {
    if (tokens.size() < 2)
      throw Error("internal: a sequence of " + std::to_string(tokens.size()) +
                  " tokens; the engine takes " + specials);
    offsets.push_back(offsets.back() + tokens.size());
    longest = std::max(longest, tokens.size());
  }
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    out[s].rows = pooled_rows(readout.pooling, sequences[s].size());
    out[s].values.assign(readout.layers.size() * out[s].rows * hidden, 0.0f);
  }
  return longest;
}

void capture_hidden_state(TokenSequences sequences, const std::vector<std::size_t>& offsets,
                          std::size_t hidden, const float* states, const Readout& readout,
                          int hidden_state, std::span<Embedding> out) {
  for (std::size_t slot = 0; slot < readout.layers.size(); ++slot) {
    if (readout.layers[slot] != hidden_state) continue;
    for (std::size_t s = 0; s < sequences.size(); ++s) {
      float* dst = out[s].values.data() + slot * out[s].rows * hidden;
      pool_hidden_states(readout.pooling, states + offsets[s] * hidden, sequences[s].size(), hidden,
                         dst);
    }
  }
}

}  // namespace seqfuse::models
