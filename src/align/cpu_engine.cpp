#include "align/cpu_engine.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "align/reference.hpp"
#include "align/striped_kernels.hpp"
#include "align/striped_scorer.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

#if !SEQFUSE_ALIGN_X86_KERNELS
namespace seqfuse::align::striped {
const KernelSet* avx2_kernels() noexcept {
  return nullptr;
}
const KernelSet* sse41_kernels() noexcept {
  return nullptr;
}
}  // namespace seqfuse::align::striped
#endif

namespace seqfuse::align {
namespace {

bool cpu_has(SimdLevel level) noexcept {
#if SEQFUSE_ALIGN_X86_KERNELS
  if (level == SimdLevel::avx2) return __builtin_cpu_supports("avx2");
  if (level == SimdLevel::sse41) return __builtin_cpu_supports("sse4.1");
#else
  (void)level;
#endif
  return false;
}

const striped::KernelSet* kernels_for(SimdLevel level) noexcept {
  if (level == SimdLevel::avx2) return striped::avx2_kernels();
  if (level == SimdLevel::sse41) return striped::sse41_kernels();
  return nullptr;
}

// Better hits first: higher score, then lower target index.
bool better_hit(const SearchHit& a, const SearchHit& b) noexcept {
  if (a.result.score != b.result.score) return a.result.score > b.result.score;
  return a.target < b.target;
}

// The best `limit` hits offered so far (all of them when limit is 0), kept as
// a heap whose top is the worst kept hit.
class TopHits {
 public:
  explicit TopHits(std::size_t limit) : limit_(limit) {}

  void offer(SearchHit hit) {
    if (limit_ == 0 || hits_.size() < limit_) {
      hits_.push_back(std::move(hit));
      if (limit_ != 0) std::push_heap(hits_.begin(), hits_.end(), better_hit);
    } else if (better_hit(hit, hits_.front())) {
      std::pop_heap(hits_.begin(), hits_.end(), better_hit);
      hits_.back() = std::move(hit);
      std::push_heap(hits_.begin(), hits_.end(), better_hit);
    }
  }
  [[nodiscard]] std::vector<SearchHit> take() { return std::move(hits_); }

 private:
  std::size_t limit_;
  std::vector<SearchHit> hits_;
};

void check_index(std::uint32_t index, std::size_t size, const char* what) {
  if (index >= size) {
    throw std::invalid_argument(std::string("align_pairs: ") + what + " index " +
                                std::to_string(index) + " out of range " + std::to_string(size));
  }
}

}  // namespace

const char* simd_level_name(SimdLevel level) noexcept {
  switch (level) {
    case SimdLevel::automatic:
      return "automatic";
    case SimdLevel::scalar:
      return "scalar";
    case SimdLevel::sse41:
      return "sse4.1";
    case SimdLevel::avx2:
      return "avx2";
  }
  return "unknown";
}

bool simd_level_supported(SimdLevel level) noexcept {
  if (level == SimdLevel::automatic || level == SimdLevel::scalar) return true;
  return kernels_for(level) != nullptr && cpu_has(level);
}

SimdLevel best_simd_level() noexcept {
  for (SimdLevel level : {SimdLevel::avx2, SimdLevel::sse41}) {
    if (simd_level_supported(level)) return level;
  }
  return SimdLevel::scalar;
}

// Per-thread state: the striped scorer with its profile and buffers.
class CpuEngine::Worker {
 public:
  explicit Worker(const CpuEngine& engine) : engine_(&engine) {
    if (engine.kernels_ != nullptr) scorer_.emplace(engine.scheme_, engine.mode_, *engine.kernels_);
  }

  [[nodiscard]] AlignResult score(Codes query, Codes target) {
    if (scorer_ && should_swap(query, target)) return score_swapped(query, target);
    if (!scorer_) {
      ++scalar_counters_.pairs;
      scalar_counters_.cells += static_cast<std::uint64_t>(query.size()) * target.size();
      return reference_score(engine_->mode_, engine_->scheme_, query, target);
    }
    if (query.data() != query_.data() || query.size() != query_.size()) {
      query_ = query;
      scorer_->set_query(query);
    }
    return scorer_->score(target);
  }

  [[nodiscard]] AlignResult align(Codes query, Codes target) {
    if (!engine_->options_.traceback) return score(query, target);
    ++scalar_counters_.pairs;
    scalar_counters_.cells += static_cast<std::uint64_t>(query.size()) * target.size();
    return reference_align(engine_->mode_, engine_->scheme_, query, target);
  }

  [[nodiscard]] EngineCounters counters() const noexcept {
    EngineCounters total = scalar_counters_;
    for (const std::optional<StripedScorer>* scorer : {&scorer_, &swapped_}) {
      if (!*scorer) continue;
      const ScorerCounters& striped = (*scorer)->counters();
      total.pairs += striped.pairs;
      total.cells += striped.cells;
      total.widened_to_32 += striped.widened_to_32;
      total.started_at_32 += striped.started_at_32;
    }
    return total;
  }

 private:
  // The striped scorer's profile spans the query (4 bytes a residue for
  // each letter: 14 GB for a 150 Mbp query), so a global score of a query
  // far longer than its target is computed the other way round: the
  // alignment's score is the same with the roles swapped when the matrix
  // is symmetric (insertions and deletions cost alike), and a global
  // alignment's end cell is fixed. Local alignments keep their roles: the
  // end cell of a tie would follow the swapped scan order.
  [[nodiscard]] bool should_swap(Codes query, Codes target) const noexcept {
    return engine_->mode_ == AlignMode::global && engine_->symmetric_ &&
           query.size() > kSwapAbove && query.size() > 4 * target.size();
  }

  [[nodiscard]] AlignResult score_swapped(Codes query, Codes target) {
    if (!swapped_) swapped_.emplace(engine_->scheme_, engine_->mode_, *engine_->kernels_);
    swapped_->set_query(target);
    AlignResult result = swapped_->score(query);
    std::swap(result.query_end, result.target_end);
    return result;
  }

  static constexpr std::size_t kSwapAbove = std::size_t{1} << 16;
  const CpuEngine* engine_;
  std::optional<StripedScorer> scorer_;
  std::optional<StripedScorer> swapped_;  // profiles of targets, for should_swap()
  Codes query_;
  EngineCounters scalar_counters_;
};

CpuEngine::CpuEngine(ScoringScheme scheme, AlignMode mode, CpuEngineOptions options)
    : scheme_(std::move(scheme)), mode_(mode), options_(options) {
  options_.threads = std::max(options_.threads, 1U);
  if (!simd_level_supported(options_.simd)) {
    throw UsageError(std::string("SIMD level ") + simd_level_name(options_.simd) +
                     " is not available on this CPU or in this build");
  }
  simd_level_ = options_.simd == SimdLevel::automatic ? best_simd_level() : options_.simd;
  kernels_ = kernels_for(simd_level_);
  for (std::uint8_t a = 0; a < scheme_.alphabet_size(); ++a)
    for (std::uint8_t b = 0; b < a; ++b)
      symmetric_ = symmetric_ && scheme_.score(a, b) == scheme_.score(b, a);
}

std::vector<CpuEngine::Worker> CpuEngine::make_workers() const {
  std::vector<Worker> workers;
  workers.reserve(options_.threads);
  for (unsigned k = 0; k < options_.threads; ++k) workers.emplace_back(*this);
  return workers;
}

void CpuEngine::add_counters(const EngineCounters& counters) const noexcept {
  pairs_ += counters.pairs;
  cells_ += counters.cells;
  widened_to_32_ += counters.widened_to_32;
  started_at_32_ += counters.started_at_32;
}

EngineCounters CpuEngine::counters() const noexcept {
  return EngineCounters{pairs_.load(), cells_.load(), widened_to_32_.load(), started_at_32_.load()};
}

AlignResult CpuEngine::align(Codes query, Codes target) const {
  Worker worker(*this);
  AlignResult result = worker.align(query, target);
  add_counters(worker.counters());
  return result;
}

void CpuEngine::align_pairs(std::span<const Codes> queries, std::span<const Codes> targets,
                            std::span<AlignResult> out) const {
  if (queries.size() != targets.size() || queries.size() != out.size()) {
    throw std::invalid_argument("align_pairs: queries, targets and out differ in size");
  }
  std::vector<PairIndex> pairs(queries.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    pairs[k] = PairIndex{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(k)};
  }
  align_pairs(queries, targets, pairs, out);
}

void CpuEngine::align_pairs(std::span<const Codes> queries, std::span<const Codes> targets,
                            std::span<const PairIndex> pairs, std::span<AlignResult> out) const {
  if (pairs.size() != out.size()) {
    throw std::invalid_argument("align_pairs: pairs and out differ in size");
  }
  for (const PairIndex& pair : pairs) {
    check_index(pair.query, queries.size(), "query");
    check_index(pair.target, targets.size(), "target");
  }
  std::vector<Worker> workers = make_workers();
  // Small chunks balance uneven lengths; a few per thread at least.
  const std::size_t chunk = std::clamp<std::size_t>(pairs.size() / (options_.threads * 16), 1, 64);
  try {
    parallel_chunks(pairs.size(), chunk, options_.threads,
                    [&](unsigned worker, std::size_t begin, std::size_t end) {
                      for (std::size_t k = begin; k < end; ++k) {
                        out[k] = workers[worker].align(queries[pairs[k].query],
                                                       targets[pairs[k].target]);
                      }
                    });
  } catch (...) {
    for (const Worker& worker : workers) add_counters(worker.counters());
    throw;
  }
  for (const Worker& worker : workers) add_counters(worker.counters());
}

std::vector<std::vector<SearchHit>> CpuEngine::search(std::span<const Codes> queries,
                                                      std::span<const Codes> targets,
                                                      std::size_t top_n) const {
  std::vector<std::vector<SearchHit>> results(queries.size());
  if (queries.empty() || targets.empty()) return results;

  // Work items are (query, slice of targets): enough of them to keep every
  // thread busy even with few queries; each worker reuses a query's profile
  // across its slice.
  const std::size_t threads = options_.threads;
  const std::size_t slices_wanted = std::clamp<std::size_t>(
      (threads * 8 + queries.size() - 1) / queries.size(), 1, targets.size());
  const std::size_t slice_size = (targets.size() + slices_wanted - 1) / slices_wanted;
  const std::size_t slices = (targets.size() + slice_size - 1) / slice_size;
  std::vector<std::vector<SearchHit>> slice_hits(queries.size() * slices);
  std::vector<Worker> workers = make_workers();

  auto finish_counters = [&] {
    for (const Worker& worker : workers) add_counters(worker.counters());
  };
  try {
    parallel_chunks(
        slice_hits.size(), 1, options_.threads,
        [&](unsigned worker, std::size_t begin, std::size_t end) {
          for (std::size_t item = begin; item < end; ++item) {
            const std::size_t query = item / slices;
            const std::size_t first = (item % slices) * slice_size;
            const std::size_t last = std::min(targets.size(), first + slice_size);
            TopHits kept(top_n);
            for (std::size_t target = first; target < last; ++target) {
              kept.offer(SearchHit{static_cast<std::uint32_t>(target),
                                   workers[worker].score(queries[query], targets[target])});
            }
            slice_hits[item] = kept.take();
          }
        });
  } catch (...) {
    finish_counters();
    throw;
  }
  finish_counters();

  std::vector<std::pair<std::size_t, std::size_t>> to_trace;  // (query, hit)
  for (std::size_t query = 0; query < queries.size(); ++query) {
    std::vector<SearchHit>& hits = results[query];
    for (std::size_t slice = 0; slice < slices; ++slice) {
      std::vector<SearchHit>& part = slice_hits[query * slices + slice];
      hits.insert(hits.end(), std::make_move_iterator(part.begin()),
                  std::make_move_iterator(part.end()));
    }
    std::sort(hits.begin(), hits.end(), better_hit);
    if (top_n != 0 && hits.size() > top_n) hits.resize(top_n);
    if (options_.traceback) {
      for (std::size_t k = 0; k < hits.size(); ++k) to_trace.emplace_back(query, k);
    }
  }
  if (!to_trace.empty()) {
    parallel_chunks(
        to_trace.size(), 1, options_.threads, [&](unsigned, std::size_t begin, std::size_t end) {
          for (std::size_t k = begin; k < end; ++k) {
            const auto [query, index] = to_trace[k];
            SearchHit& hit = results[query][index];
            hit.result = reference_align(mode_, scheme_, queries[query], targets[hit.target]);
          }
        });
  }
  return results;
}

}  // namespace seqfuse::align
