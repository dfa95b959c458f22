// The test oracle of all against all (shared by the CPU and [gpu] tests): a
// record's hits are those of searching it against the whole set, its own hit
// left out, cut to --top N. run_alignment's search with top N + 1 gives them.
#pragma once

#include <string>
#include <vector>

#include "align/align_job.hpp"

namespace seqfuse::align::test {

inline std::string hit_line(const AlignHit& h) {
  const AlignResult& r = h.result;
  return std::to_string(h.query) + " " + std::to_string(h.target) + " " + std::to_string(r.score) +
         " [" + std::to_string(r.query_begin) + "," + std::to_string(r.target_begin) + "]-[" +
         std::to_string(r.query_end) + "," + std::to_string(r.target_end) + "] " +
         (r.traced ? "t " : "- ") + r.cigar + " m" + std::to_string(r.matches) + " l" +
         std::to_string(r.alignment_length);
}

inline std::vector<std::string> hit_lines(const AlignJob& job, const ScoringScheme& scheme,
                                          const EncodedSequences& q, const EncodedSequences& t) {
  std::vector<std::string> lines;
  (void)run_alignment(job, scheme, q, t, [&](const AlignHit& h) { lines.push_back(hit_line(h)); });
  return lines;
}

// All against all of `set` as the search of `set` against itself gives it.
inline std::vector<std::string> all_vs_all_oracle(AlignJob job, const ScoringScheme& scheme,
                                                  const EncodedSequences& set) {
  const std::size_t top = job.top;
  job.layout = PairLayout::search;
  job.top = top == 0 ? 0 : top + 1;
  std::vector<std::string> lines;
  std::vector<std::size_t> taken(set.size());
  (void)run_alignment(job, scheme, set, set, [&](const AlignHit& h) {
    if (h.query == h.target || (top != 0 && taken[h.query] == top)) return;
    ++taken[h.query];
    lines.push_back(hit_line(h));
  });
  return lines;
}

}  // namespace seqfuse::align::test
