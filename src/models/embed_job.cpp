#include "models/embed_job.hpp"

#include <algorithm>
#include <span>

#include "core/error.hpp"
#include "core/report.hpp"
#include "models/embed_plan.hpp"

namespace seqfuse::models {
namespace {

// "a, b, c and 4 more"
std::string first_names(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 5;
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < kShown; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > kShown) text += " and " + std::to_string(names.size() - kShown) + " more";
  return text;
}

std::string sequences_word(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " sequence" : " sequences");
}

}  // namespace

ProteinSet tokenize_input(const io::SequenceBatch& batch, const std::string& source,
                          std::size_t max_residues, const ResidueTokenizer& tokenizer) {
  ProteinSet set;
  if (batch.empty())  // valid (an empty scatter chunk): an output with no rows
    set.warnings.push_back("'" + source + "' has no sequences: the output holds no embeddings");
  std::vector<std::string> truncated, with_unknown;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const std::string id(batch.name(i));
    const std::string where =
        "sequence '" + id + "' (record " + std::to_string(i + 1) + " of '" + source + "')";
    if (batch.length(i) == 0) throw Error(where + " is empty");
    TokenizedProtein protein = tokenizer.tokenize(batch.sequence(i), max_residues);
    if (protein.unknown == protein.residues)
      throw Error(where + " has no letter of " + tokenizer.alphabet() +
                  ": every residue would be " + tokenizer.unknown_text());
    if (protein.truncated)
      truncated.push_back(id + " (" + std::to_string(batch.length(i)) + " residues)");
    if (protein.unknown > 0) with_unknown.push_back(id);
    set.tokens += protein.ids.size();
    set.longest = std::max(set.longest, protein.ids.size());
    set.ids.push_back(id);
    set.proteins.push_back(std::move(protein));
  }
  if (!truncated.empty())
    set.warnings.push_back(sequences_word(truncated.size()) + " longer than --max-length " +
                           std::to_string(max_residues) + " cut to their first " +
                           std::to_string(max_residues) + " residues: " + first_names(truncated));
  if (!with_unknown.empty())
    set.warnings.push_back(sequences_word(with_unknown.size()) + " with letters outside " +
                           tokenizer.alphabet() + ", read as " + tokenizer.unknown_text() + ": " +
                           first_names(with_unknown));
  return set;
}

void check_position_limit(const ProteinSet& input, const std::string& source,
                          std::size_t position_limit, std::size_t max_residues) {
  for (std::size_t i = 0; i < input.size(); ++i) {
    const std::size_t residues = input.proteins[i].residues;
    if (residues <= position_limit) continue;
    throw Error("sequence '" + input.ids[i] + "' (record " + std::to_string(i + 1) + " of '" +
                source + "') has " + std::to_string(residues) +
                " residues; the model's position table holds " + std::to_string(position_limit) +
                " (max_position_embeddings less [CLS] and [SEP]): give --max-length " +
                std::to_string(position_limit) + " or less to cut longer sequences (now " +
                std::to_string(max_residues) + ")");
  }
}

std::vector<int> resolve_layers(const std::vector<int>& requested, int num_layers) {
  if (requested.empty()) return {num_layers};
  std::vector<int> layers;
  for (int value : requested) {
    if (value > num_layers || value < -(num_layers + 1))
      throw UsageError("--layers " + std::to_string(value) + ": the model has " +
                       std::to_string(num_layers) + " layers (hidden states 0.." +
                       std::to_string(num_layers) + ", or -" + std::to_string(num_layers + 1) +
                       "..-1 from the end)");
    const int index = value < 0 ? num_layers + 1 + value : value;
    if (std::find(layers.begin(), layers.end(), index) != layers.end())
      throw UsageError("--layers names hidden state " + std::to_string(index) + " twice");
    layers.push_back(index);
  }
  return layers;
}

OutputShape output_shape(const ProteinSet& input, const Readout& readout, std::size_t hidden) {
  OutputShape shape;
  shape.sequences = input.size();
  shape.hidden = hidden;
  shape.layers = readout.layers;
  shape.pooling = readout.pooling;
  for (const TokenizedProtein& p : input.proteins)
    shape.total_rows += readout.pooling == Pooling::none ? p.residues : 1;
  return shape;
}

EmbedStats run_embed_job(const EmbedJob& job, EmbeddingEngine& engine, const ProteinSet& input,
                         std::size_t hidden, EmbeddingWriter& writer) {
  engine.reserve(input.longest, reserve_tokens(input, job.toks_per_batch));
  trace("embed: engine reserved its batch memory");

  EmbedStats stats;
  std::size_t embedded = 0;  // sequences through the engine, for progress
  WindowPlan plan;
  std::vector<Embedding> results, batch_out;
  std::vector<std::span<const std::int32_t>> batch_tokens;
  for (std::size_t first = 0; first < input.size();) {
    const std::size_t last = window_end(input, first, job.readout, hidden, job.window_floats);
    plan_window(input, first, last, job.toks_per_batch, plan);
    results.assign(last - first, {});
    for (std::size_t b = 0; b < plan.batches(); ++b) {
      const std::span<const std::size_t> batch = plan.batch(b);
      batch_tokens.clear();
      for (const std::size_t i : batch) batch_tokens.emplace_back(input.proteins[i].ids);
      batch_out.assign(batch.size(), {});
      engine.embed(batch_tokens, job.readout, batch_out);
      for (std::size_t k = 0; k < batch.size(); ++k)
        results[batch[k] - first] = std::move(batch_out[k]);
      stats.tokens += plan.tokens[b];
      ++stats.batches;
      trace("embed: batch of " + std::to_string(plan.tokens[b]) + " tokens embedded");
      embedded += batch.size();
      if (job.progress) job.progress(embedded);
    }
    write_window(input, first, results, job.readout.pooling, writer);
    stats.sequences += last - first;
    first = last;
  }
  return stats;
}

}  // namespace seqfuse::models
