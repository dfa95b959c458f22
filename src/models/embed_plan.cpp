#include "models/embed_plan.hpp"

#include <algorithm>
#include <numeric>

namespace seqfuse::models {

std::size_t result_floats(const TokenizedProtein& protein, const Readout& readout,
                          std::size_t hidden) {
  const std::size_t rows = readout.pooling == Pooling::none ? protein.ids.size() : 1;
  return readout.layers.size() * hidden * rows;
}

std::size_t window_end(const ProteinSet& input, std::size_t first, const Readout& readout,
                       std::size_t hidden, std::size_t window_floats) {
  std::size_t last = first + 1, floats = result_floats(input.proteins[first], readout, hidden);
  while (last < input.size() &&
         floats + result_floats(input.proteins[last], readout, hidden) <= window_floats)
    floats += result_floats(input.proteins[last++], readout, hidden);
  return last;
}

void plan_window(const ProteinSet& input, std::size_t first, std::size_t last,
                 std::size_t toks_per_batch, WindowPlan& plan) {
  toks_per_batch = std::max<std::size_t>(toks_per_batch, 1);
  plan.first = first;
  plan.last = last;
  plan.order.resize(last - first);
  std::iota(plan.order.begin(), plan.order.end(), first);
  std::stable_sort(plan.order.begin(), plan.order.end(), [&](std::size_t a, std::size_t b) {
    return input.proteins[a].ids.size() > input.proteins[b].ids.size();
  });
  plan.starts.assign(1, 0);
  plan.tokens.clear();
  for (std::size_t next = 0; next < plan.order.size();) {
    std::size_t tokens = 0;
    const std::size_t start = next;
    while (next < plan.order.size()) {
      const std::size_t n = input.proteins[plan.order[next]].ids.size();
      if (next > start && tokens + n > toks_per_batch) break;
      tokens += n;
      ++next;
    }
    plan.starts.push_back(next);
    plan.tokens.push_back(tokens);
  }
}

std::size_t reserve_tokens(const ProteinSet& input, std::size_t toks_per_batch) {
  toks_per_batch = std::max<std::size_t>(toks_per_batch, 1);
  const std::size_t most_tokens = std::max<std::size_t>(input.size(), 1) * input.longest;
  return std::max(std::min(toks_per_batch, most_tokens), input.longest);
}

void write_window(const ProteinSet& input, std::size_t first, std::span<const Embedding> results,
                  Pooling pooling, EmbeddingWriter& writer) {
  const bool per_token = pooling == Pooling::none;
  for (std::size_t k = 0; k < results.size(); ++k) {
    const std::size_t i = first + k;
    SequenceRows rows;
    rows.id = input.ids[i];
    rows.values = results[k].values.data();
    rows.block_rows = results[k].rows;
    rows.first_row = per_token ? 1 : 0;
    rows.rows = per_token ? input.proteins[i].residues : 1;
    writer.write(rows);
  }
}

}  // namespace seqfuse::models
