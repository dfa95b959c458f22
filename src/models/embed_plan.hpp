// How an embed run cuts its input into forward passes, shared by the one-
// engine job (embed_job.cpp) and the many-worker job (embed_workers.cpp):
// windows of consecutive sequences whose results fit EmbedJob::window_floats,
// each sorted longest first and cut into batches of at most
// --toks-per-batch tokens. The cut decides which sequences share a forward
// pass, and a GPU's numbers for a sequence may depend on its batch (a GEMM of
// another row count rounds differently: within 1e-4, not bit for bit; see
// tests/unit/test_embed_gpu.cpp), so every path cuts here and output stays
// byte-identical whatever the number of workers.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "models/embed_job.hpp"

namespace seqfuse::models {

// Floats of one sequence's result under `readout`.
[[nodiscard]] std::size_t result_floats(const TokenizedProtein& protein, const Readout& readout,
                                        std::size_t hidden);

// The end of the window that starts at sequence `first`: sequences are added
// while their results fit `window_floats` (one at least).
[[nodiscard]] std::size_t window_end(const ProteinSet& input, std::size_t first,
                                     const Readout& readout, std::size_t hidden,
                                     std::size_t window_floats);

// The batches of window [first, last): its sequences longest first (equal
// lengths in input order, so runs repeat), cut where the next sequence would
// pass toks_per_batch tokens (a longer sequence comes alone).
struct WindowPlan {
  std::size_t first = 0, last = 0;
  std::vector<std::size_t> order;   // input indices, longest first
  std::vector<std::size_t> starts;  // batch b: order[starts[b], starts[b + 1])
  std::vector<std::size_t> tokens;  // tokens of batch b

  [[nodiscard]] std::size_t batches() const noexcept { return tokens.size(); }
  [[nodiscard]] std::span<const std::size_t> batch(std::size_t b) const {
    return std::span(order).subspan(starts[b], starts[b + 1] - starts[b]);
  }
};
// Fills `plan` (its vectors reused); toks_per_batch 0 counts as 1.
void plan_window(const ProteinSet& input, std::size_t first, std::size_t last,
                 std::size_t toks_per_batch, WindowPlan& plan);

// The batch size an engine reserves for: toks_per_batch, but never more than
// every sequence padded to the longest (reserving for --toks-per-batch
// 2147483647 as given used to end in a bare "out of host memory"), and never
// less than the longest sequence.
[[nodiscard]] std::size_t reserve_tokens(const ProteinSet& input, std::size_t toks_per_batch);

// Hands window [first, first + results.size()) to the writer in input order;
// results[i] is sequence first + i's. --pool none drops BOS and EOS.
void write_window(const ProteinSet& input, std::size_t first, std::span<const Embedding> results,
                  Pooling pooling, EmbeddingWriter& writer);

}  // namespace seqfuse::models
