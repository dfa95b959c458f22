// The batch bookkeeping every CPU engine's embed() shares, whatever the
// family: the checks and sizes it starts with, and the copy of a hidden
// state into the outputs, pooled, when the readout asks for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "models/engine.hpp"

namespace seqfuse::models {

using TokenSequences = std::span<const std::span<const std::int32_t>>;

// Checks one output per sequence, every readout layer within [0,
// num_layers], and at least the two special tokens `specials` names ("<cls>
// ... <eos>") in each sequence; fills `offsets` (sequence s: rows
// [offsets[s], offsets[s + 1]) of the stacked tokens) and sizes each output
// (zeroed). Returns the longest sequence's token count.
std::size_t start_cpu_batch(TokenSequences sequences, const Readout& readout, int num_layers,
                            std::size_t hidden, const char* specials,
                            std::vector<std::size_t>& offsets, std::span<Embedding> out);

// Pools hidden state `hidden_state` (`states`: the stacked tokens' rows)
// into each output's slot for it, if the readout lists it.
void capture_hidden_state(TokenSequences sequences, const std::vector<std::size_t>& offsets,
                          std::size_t hidden, const float* states, const Readout& readout,
                          int hidden_state, std::span<Embedding> out);

}  // namespace seqfuse::models
