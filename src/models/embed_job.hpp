// One embed run: the input checked and tokenized in input order, then fed
// to an engine in length-sorted batches of at most --toks-per-batch tokens
// (embed_plan.hpp), and the results handed to the writer in input order
// again. embed_workers.hpp runs the same batches over several GPU workers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/batch.hpp"
#include "models/embed_outputs.hpp"
#include "models/engine.hpp"
#include "models/tokenizer.hpp"

namespace seqfuse::models {

// The input sequences, tokenized, in input order.
struct ProteinSet {
  std::vector<std::string> ids;
  std::vector<TokenizedProtein> proteins;
  std::uint64_t tokens = 0;  // BOS and EOS included: what the model computes on
  std::size_t longest = 0;   // tokens of the longest sequence
  // Truncated sequences, letters read as <unk>: one line each, naming the
  // sequences. The caller shows them once the output exists, so a run that
  // fails on its output path says only that.
  std::vector<std::string> warnings;

  [[nodiscard]] std::size_t size() const noexcept { return ids.size(); }
};

// Throws seqfuse::Error for an input without sequences, an empty sequence, or
// one whose every letter is outside the tokenizer's alphabet, naming it.
// Sequences longer than max_residues are cut to it, and letters outside the
// alphabet read as the unknown token.
[[nodiscard]] ProteinSet tokenize_input(const io::SequenceBatch& batch, const std::string& source,
                                        std::size_t max_residues,
                                        const ResidueTokenizer& tokenizer = esm_tokenizer());

// Throws seqfuse::Error naming the first sequence (after the --max-length
// cut) with more residues than a model's position table holds
// (`position_limit`: BERT's max_position_embeddings less [CLS] and [SEP]).
void check_position_limit(const ProteinSet& input, const std::string& source,
                          std::size_t position_limit, std::size_t max_residues);

// --layers values to hidden-state indices: 0..num_layers as given, negative
// ones from the end (-1: the final, normed layer). Empty: {num_layers}.
// Throws UsageError for indices outside the model and for repeats.
[[nodiscard]] std::vector<int> resolve_layers(const std::vector<int>& requested, int num_layers);

// The shape of what the writer will receive for `input`.
[[nodiscard]] OutputShape output_shape(const ProteinSet& input, const Readout& readout,
                                       std::size_t hidden);

struct EmbedJob {
  Readout readout;
  std::size_t toks_per_batch = 4096;
  // Floats of results held before they go to the writer in input order: the
  // input is processed in windows of consecutive sequences this large, each
  // sorted by length on its own. Bounds memory for --pool none (with several
  // workers, EmbedWorkers::windows_in_flight windows at once). The windows
  // decide the batches (embed_plan.hpp): the same value for every device
  // count keeps the output identical.
  std::size_t window_floats = std::size_t{1} << 26;
  // Called after every batch with the number of sequences embedded so far.
  std::function<void(std::size_t sequences_done)> progress;
};

struct EmbedStats {
  std::uint64_t sequences = 0;
  std::uint64_t tokens = 0;
  std::uint64_t batches = 0;
};

EmbedStats run_embed_job(const EmbedJob& job, EmbeddingEngine& engine, const ProteinSet& input,
                         std::size_t hidden, EmbeddingWriter& writer);

}  // namespace seqfuse::models
