// Helpers shared by the tests/unit/test_align_*.cpp files: random sequences
// from a seed printed for reproduction, a small FASTA reader for fixtures.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "align/alignment.hpp"
#include "align/reference.hpp"
#include "align/scoring.hpp"
#include "io/batch_reader.hpp"
#include "test_data.hpp"

namespace seqfuse::align::test {

inline const std::filesystem::path kAlignData = seqfuse::test::data_dir() / "align";

using seqfuse::test::test_seed;

class RandomSequences {
 public:
  explicit RandomSequences(std::uint64_t seed) : rng_(seed) {}

  std::mt19937_64& rng() { return rng_; }

  int uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }

  std::string random(std::string_view letters, std::size_t length) {
    std::string out(length, ' ');
    for (char& c : out) c = letters[static_cast<std::size_t>(uniform(0, int(letters.size()) - 1))];
    return out;
  }

  // A copy with about `rate` substitutions, insertions and deletions, so that
  // pairs have real alignments with gaps, not just noise.
  std::string mutate(std::string_view seq, std::string_view letters, double rate) {
    std::uniform_real_distribution<double> roll(0.0, 1.0);
    std::string out;
    for (char c : seq) {
      const double r = roll(rng_);
      if (r < rate * 0.5) {
        out += letters[static_cast<std::size_t>(uniform(0, int(letters.size()) - 1))];
      } else if (r < rate * 0.75) {
        continue;
      } else if (r < rate) {
        out += c;
        out += random(letters, static_cast<std::size_t>(uniform(1, 4)));
      } else {
        out += c;
      }
    }
    return out;
  }

 private:
  std::mt19937_64 rng_;
};

struct FastaRecord {
  std::string name;
  std::string sequence;
};

inline std::vector<FastaRecord> read_fasta(const std::filesystem::path& path) {
  const io::SequenceBatch batch = io::read_all(path.string());
  REQUIRE(!batch.empty());
  std::vector<FastaRecord> records;
  for (std::size_t i = 0; i < batch.size(); ++i)
    records.push_back({std::string(batch.name(i)), std::string(batch.sequence(i))});
  return records;
}

inline std::vector<std::uint8_t> encode(const ScoringScheme& scheme, std::string_view seq) {
  std::vector<std::uint8_t> codes;
  scheme.encode_or_throw(seq, "test", codes);
  return codes;
}

// Every scoring scheme the randomized tests cover, with the letters to draw from.
struct SchemeCase {
  std::string matrix;  // builtin name or "match/mismatch"
  std::string letters;
};

inline std::vector<SchemeCase> all_scheme_cases() {
  std::vector<SchemeCase> cases;
  for (std::string_view name : ScoringScheme::builtin_names()) {
    const ScoringScheme scheme = ScoringScheme::builtin(name, {11, 1});
    cases.push_back({std::string(name), std::string(scheme.letters())});
  }
  cases.push_back({"match/mismatch", "ACGTACGTACGTN"});  // mostly plain bases
  return cases;
}

inline ScoringScheme make_scheme(const SchemeCase& scheme_case, GapPenalties gaps) {
  if (scheme_case.matrix == "match/mismatch") return ScoringScheme::match_mismatch(2, -3, gaps);
  return ScoringScheme::builtin(scheme_case.matrix, gaps);
}

// The scorings the randomized engine tests sweep: every scheme case with four
// gap pairs, in both modes. body(scheme_case, scheme, mode) runs once for
// each, with the scoring named in INFO for its failures.
template <class Body>
void for_each_scoring(Body&& body) {
  for (const SchemeCase& scheme_case : all_scheme_cases()) {
    for (const GapPenalties gaps :
         {GapPenalties{11, 1}, GapPenalties{10, 2}, GapPenalties{5, 2}, GapPenalties{1, 1}}) {
      const ScoringScheme scheme = make_scheme(scheme_case, gaps);
      for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
        INFO(scheme_case.matrix << " " << gaps.open << "/" << gaps.extend << " "
                                << mode_name(mode));
        body(scheme_case, scheme, mode);
      }
    }
  }
}

// Many sequences' codes back to back, with where each starts: the layout the
// GPU entry points take (the tests build it from codes, without a scheme).
struct FlatCodes {
  std::vector<std::uint8_t> codes;
  std::vector<std::uint64_t> offsets{0};
  void add(const std::vector<std::uint8_t>& c) {
    codes.insert(codes.end(), c.begin(), c.end());
    offsets.push_back(codes.size());
  }
  [[nodiscard]] Codes operator[](std::size_t i) const {
    return {codes.data() + offsets[i], offsets[i + 1] - offsets[i]};
  }
  [[nodiscard]] std::size_t size() const { return offsets.size() - 1; }
};

// Targets for a search test: lengths 0, 1 and 2, a run of one letter (ties
// everywhere against a query of it), every fourth a relative of `related`,
// the rest random up to 180 letters. `count` picks how the last slot group
// is filled.
inline std::vector<std::string> search_test_targets(RandomSequences& rng,
                                                    const std::string& letters,
                                                    const std::string& related, int count) {
  std::vector<std::string> targets;
  for (int k = 0; k < count; ++k) {
    if (k < 3)
      targets.push_back(rng.random(letters, static_cast<std::size_t>(k)));
    else if (k == 3)
      targets.emplace_back(60, letters[0]);
    else if (k % 4 == 3)
      targets.push_back(rng.mutate(related, letters, 0.2));
    else
      targets.push_back(rng.random(letters, static_cast<std::size_t>(rng.uniform(1, 180))));
  }
  return targets;
}

// Pairs (query q, target t) of two sets whose score or end cell differs from
// reference_score, the first five reported (UNSCOPED_INFO) for the failure
// message. got(q, t) gives the engine's result: anything with score,
// query_end and target_end.
template <class Sequences, class Got>
std::size_t count_unlike_reference(AlignMode mode, const ScoringScheme& scheme,
                                   const Sequences& queries, const Sequences& targets,
                                   const Got& got) {
  std::size_t wrong = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const AlignResult want = reference_score(mode, scheme, queries[q], targets[t]);
      const auto g = got(q, t);
      if (g.score == want.score && g.query_end == want.query_end && g.target_end == want.target_end)
        continue;
      if (++wrong <= 5)
        UNSCOPED_INFO("query " << q << " (" << queries[q].size() << ") target " << t << " ("
                               << targets[t].size() << "): got " << g.score << " @" << g.query_end
                               << "," << g.target_end << " reference " << want.score << " @"
                               << want.query_end << "," << want.target_end);
    }
  }
  return wrong;
}

}  // namespace seqfuse::align::test
