// The CPU alignment engine: many pairs, many threads, striped SIMD kernels
// chosen at run time (AVX2, else SSE4.1, else the scalar reference), exact
// scores always (16-bit lanes move to 32-bit lanes when they could clip).
//
//   const auto scheme = ScoringScheme::builtin("blosum62", {11, 1});
//   EncodedSequences queries(scheme), targets(scheme);
//   queries.append("HEAGAWGHEE", "q1");
//   targets.append("PAWHEAE", "t1");
//   CpuEngine engine(scheme, AlignMode::local, {.threads = 2});
//   const auto q = queries.views(), t = targets.views();
//   std::vector<AlignResult> out(1);
//   engine.align_pairs(q, t, out);                       // q[k] with t[k]
//   auto hits = engine.search(q, t, /*top_n=*/10);       // every q against every t
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "align/alignment.hpp"
#include "align/scoring.hpp"

namespace seqfuse::align {

namespace striped {
struct KernelSet;
}

enum class SimdLevel { automatic, scalar, sse41, avx2 };

[[nodiscard]] const char* simd_level_name(SimdLevel level) noexcept;
// The best level this build and this CPU support.
[[nodiscard]] SimdLevel best_simd_level() noexcept;
[[nodiscard]] bool simd_level_supported(SimdLevel level) noexcept;

struct CpuEngineOptions {
  unsigned threads = 1;  // 0 counts as 1
  // Also compute begin positions, CIGAR and identity (scalar, O(m n) memory per pair).
  bool traceback = false;
  // automatic picks best_simd_level(); another level is for tests and
  // benchmarks, and must be supported (UsageError otherwise).
  SimdLevel simd = SimdLevel::automatic;
};

struct PairIndex {
  std::uint32_t query;
  std::uint32_t target;
};

struct SearchHit {
  std::uint32_t target;  // index into the targets given to search()
  AlignResult result;
};

struct EngineCounters {
  std::uint64_t pairs = 0;
  std::uint64_t cells = 0;          // sum of query length x target length
  std::uint64_t widened_to_32 = 0;  // local pairs rescored in 32-bit lanes after saturating
  std::uint64_t started_at_32 = 0;  // global pairs too wide for 16-bit lanes
};

class CpuEngine {
 public:
  // Keeps a copy of the scheme.
  CpuEngine(ScoringScheme scheme, AlignMode mode, CpuEngineOptions options = {});

  [[nodiscard]] const ScoringScheme& scheme() const noexcept { return scheme_; }
  [[nodiscard]] AlignMode mode() const noexcept { return mode_; }
  [[nodiscard]] SimdLevel simd_level() const noexcept { return simd_level_; }
  [[nodiscard]] unsigned threads() const noexcept { return options_.threads; }
  // score(a, b) == score(b, a) for every pair of letters: then a pair's score
  // is the same with query and target swapped (gaps cost alike both ways).
  [[nodiscard]] bool symmetric() const noexcept { return symmetric_; }

  // One pair on the calling thread.
  [[nodiscard]] AlignResult align(Codes query, Codes target) const;

  // out[k] = alignment of queries[k] with targets[k]; all three the same size.
  void align_pairs(std::span<const Codes> queries, std::span<const Codes> targets,
                   std::span<AlignResult> out) const;
  // out[k] = alignment of queries[pairs[k].query] with targets[pairs[k].target].
  // Consecutive pairs sharing a query reuse its profile.
  void align_pairs(std::span<const Codes> queries, std::span<const Codes> targets,
                   std::span<const PairIndex> pairs, std::span<AlignResult> out) const;

  // Every query against every target. For each query, its top_n hits (all when
  // top_n is 0) by decreasing score, equal scores in target order. With
  // traceback, only the kept hits are traced.
  [[nodiscard]] std::vector<std::vector<SearchHit>> search(std::span<const Codes> queries,
                                                           std::span<const Codes> targets,
                                                           std::size_t top_n) const;

  // Totals since construction, over all calls and threads.
  [[nodiscard]] EngineCounters counters() const noexcept;

 private:
  class Worker;
  [[nodiscard]] std::vector<Worker> make_workers() const;
  void add_counters(const EngineCounters& counters) const noexcept;

  ScoringScheme scheme_;
  AlignMode mode_;
  CpuEngineOptions options_;
  SimdLevel simd_level_;
  const striped::KernelSet* kernels_ = nullptr;  // null: scalar reference
  bool symmetric_ = true;  // score(a, b) == score(b, a) for every pair of letters
  mutable std::atomic<std::uint64_t> pairs_{0};
  mutable std::atomic<std::uint64_t> cells_{0};
  mutable std::atomic<std::uint64_t> widened_to_32_{0};
  mutable std::atomic<std::uint64_t> started_at_32_{0};
};

}  // namespace seqfuse::align
