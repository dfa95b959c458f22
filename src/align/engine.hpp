// The boundary between an alignment run and the engines that score it: the
// CPU engine (cpu_align_engine.cpp, over CpuEngine's striped SIMD kernels)
// and the GPU engine (gpu_align_engine.cpp, over gpu/align). Both take the
// same job and hand back the same hits in the same order, so their outputs
// are identical byte for byte. align_job.cpp chooses between them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "align/alignment.hpp"
#include "align/scoring.hpp"

namespace seqfuse::align {

enum class PairLayout {
  pairs,       // query k with target k
  search,      // every query with every target
  all_vs_all,  // within the queries: i with j for i < j
};

struct AlignJob {
  AlignMode mode = AlignMode::local;
  PairLayout layout = PairLayout::search;
  std::size_t top = 10;  // hits kept per query (search, all_vs_all); 0 keeps all
  bool traceback = false;
  unsigned threads = 1;
  bool gpu = false;  // score on the GPU (caller checked gpu_can_score)
  // GPU workers (--device gpu:0,1,...; repeats allowed). Empty: the calling
  // thread's current device. One: that device, today's one-device path.
  // More: the work split across them (gpu_align_multi.cpp), same output.
  std::vector<int> devices;
  // GPU search: residues of targets resident on the device at once; a larger
  // set is scored in parts, one after another. 0: AlignTunables'
  // part_residues, else sized from free device memory.
  std::uint64_t gpu_part_residues = 0;
  // Called now and then with the number of queries finished (for a progress line).
  std::function<void(std::size_t queries_done)> progress;
};

struct AlignHit {
  std::uint32_t query = 0;
  std::uint32_t target = 0;  // index into targets (into queries for all_vs_all)
  AlignResult result;
  // --strand minus/both (strand.hpp): the reverse complement of the query was
  // aligned, and the result's query coordinates are positions in it.
  bool reverse = false;
};

struct AlignStats {
  std::uint64_t pairs = 0;
  std::uint64_t cells = 0;    // sum of query length x target length over every pair scored
  double device_seconds = 0;  // GPU only: time inside the device engine
};

// Takes kept hits many at a time, so the caller can format them on several
// threads; the hits live only until the call returns.
using EmitHits = std::function<void(std::span<const AlignHit> hits)>;
// Pairs' results are moved into hits a slice at a time (about 36 MB of hits
// at most), while a slice still holds enough chunks to keep 16 threads busy.
inline constexpr std::size_t kPairsPerBatch = std::size_t{1} << 19;

class AlignEngine {
 public:
  virtual ~AlignEngine() = default;

  // Calls `emit` with every kept hit, in batches: queries in input order;
  // within a query, decreasing score with ties in target order (pairs: in
  // pair order). `against` is the target set (the queries themselves for
  // all_vs_all); for pairs it holds as many sequences as `queries`.
  virtual AlignStats run(const AlignJob& job, const EncodedSequences& queries,
                         const EncodedSequences& against, const EmitHits& emit) = 0;
};

[[nodiscard]] std::unique_ptr<AlignEngine> make_cpu_align_engine(const ScoringScheme& scheme,
                                                                 const AlignJob& job);
// Throws in a build without a GPU backend (gpu_absent.cpp).
[[nodiscard]] std::unique_ptr<AlignEngine> make_gpu_align_engine(const ScoringScheme& scheme);
// Whether the GPU engine takes this scheme (alphabet of at most 32 letters);
// false in a build without a GPU backend.
[[nodiscard]] bool gpu_can_score(const ScoringScheme& scheme);

// Shared by the engines.
// Sum of query length x target length over every pair of the two sets.
[[nodiscard]] std::uint64_t cells_of(std::span<const Codes> queries,
                                     std::span<const Codes> targets);
// Pairs' results as hits of pair k with k, handed over in slices of
// kPairsPerBatch: results are moved, not copied.
void emit_pairs(std::vector<AlignResult>& results, const EmitHits& emit);

}  // namespace seqfuse::align
