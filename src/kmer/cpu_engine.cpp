#include "kmer/cpu_engine.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "kmer/kmer_sort.hpp"

namespace seqfuse::kmer {
namespace {

constexpr std::size_t kMinBufferedKmers = 64;
// Long records (assemblies, long reads) are cut into overlapping pieces so
// that every thread gets a share of one record.
constexpr std::size_t kMaxPieceKmers = std::size_t{1} << 18;
// K-mers a thread collects before copying them into the shared buffer with
// one atomic reservation.
constexpr std::size_t kStagedKmers = 4096;
// Below this many k-mers a flush runs on one thread: starting threads would
// cost more than the work.
constexpr std::size_t kParallelFlushKmers = std::size_t{1} << 16;

// Address space for k-mers, mapped once at its full size and filled in by
// the kernel page by page as it is first written: nothing is copied when the
// input grows (growing a vector cost 6% of a 48 M k-mer count in memmove),
// and the pages stay mapped for the next run. No MADV_HUGEPAGE: with it the
// kernel's compaction made the system time vary from 0.3 to 2.1 s on the
// same count.
template <int W>
class KmerBuffer {
 public:
  KmerBuffer() = default;
  ~KmerBuffer() { release(); }
  KmerBuffer(const KmerBuffer&) = delete;
  KmerBuffer& operator=(const KmerBuffer&) = delete;

  [[nodiscard]] Kmer<W>* data() noexcept { return data_; }
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    release();
    const std::size_t bytes = n * sizeof(Kmer<W>);
    void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<Kmer<W>*>(map);
    capacity_ = n;
  }
  void release() noexcept {
    if (data_ != nullptr) ::munmap(data_, capacity_ * sizeof(Kmer<W>));
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  Kmer<W>* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// The top `bits` bits of a k-mer's 2k-bit value: its partition. Partitions in
// ascending order hold ascending k-mers, so sorted partitions concatenate
// into one sorted run.
template <int W>
class PrefixPartitioner {
 public:
  PrefixPartitioner(int k, int bits) : bits_(bits), top_bits_(2 * k - (W - 1) * 64) {}
  [[nodiscard]] std::size_t operator()(const Kmer<W>& x) const noexcept {
    if (bits_ == 0) return 0;
    if (top_bits_ >= bits_) return static_cast<std::size_t>(x.w[0] >> (top_bits_ - bits_));
    // W == 2 with fewer bits in w[0] than the prefix: borrow from w[1].
    const int borrow = bits_ - top_bits_;
    return static_cast<std::size_t>((x.w[0] << borrow) | (x.w[W - 1] >> (64 - borrow)));
  }

 private:
  int bits_;
  int top_bits_;  // bits of the k-mer in w[0]
};

// Writes each distinct k-mer of sorted[0, n) once with its multiplicity.
template <int W>
void write_counted(const Kmer<W>* sorted, std::size_t n, std::uint64_t* words,
                   std::uint32_t* counts) {
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && sorted[j] == sorted[i]) ++j;
    for (int w = 0; w < W; ++w) *words++ = sorted[i].w[w];
    *counts++ = static_cast<std::uint32_t>(std::min<std::size_t>(j - i, UINT32_MAX));
    i = j;
  }
}

template <int W>
std::size_t count_distinct(const Kmer<W>* sorted, std::size_t n) {
  std::size_t distinct = n > 0 ? 1 : 0;
  for (std::size_t i = 1; i < n; ++i) distinct += sorted[i] == sorted[i - 1] ? 0 : 1;
  return distinct;
}

template <int W>
class CpuEngine final : public CountingEngine {
 public:
  CpuEngine(const EngineParams& params, RunSink& sink)
      : k_(params.k),
        canonical_(params.canonical),
        threads_(std::max(1u, params.threads)),
        max_buffered_(
            std::max(kMinBufferedKmers, params.memory_budget / cpu_engine_bytes_per_kmer(k_))),
        sink_(sink),
        keys_(params.keys),
        staging_(threads_) {}

  void add(const io::SequenceBatch& batch) override {
    const auto k = static_cast<std::size_t>(k_);
    const std::size_t piece_kmers = std::min(max_buffered_, kMaxPieceKmers);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const std::string_view seq = batch.sequence(i);
      for (std::size_t start = 0; start + k <= seq.size(); start += piece_kmers) {
        const std::size_t length = std::min(seq.size() - start, piece_kmers + k - 1);
        const std::size_t kmers = length - k + 1;
        if (buffered_ + piece_kmers_ + kmers > max_buffered_) {
          extract_pieces();
          if (buffered_ + kmers > max_buffered_) flush();
        }
        pieces_.emplace_back(seq.data() + start, length);
        piece_kmers_ += kmers;
      }
    }
    extract_pieces();  // the batch's bases belong to the caller after add()
  }

  void finish() override {
    extract_pieces();
    flush();
    buffer_.release();
    partitioned_.release();
  }

 private:
  // Rolls the k-mers of the pending pieces into buffer_, on every thread.
  void extract_pieces() {
    if (pieces_.empty()) return;
    buffer_.reserve(max_buffered_);
    std::atomic<std::size_t> end{buffered_};
    const std::size_t chunk = std::max<std::size_t>(1, pieces_.size() / (16 * threads_));
    parallel_chunks(pieces_.size(), chunk, threads_,
                    [&](unsigned worker, std::size_t begin, std::size_t stop) {
                      const bool ranged = !keys_.whole();
                      if (canonical_) {
                        ranged ? extract<true, true>(staging_[worker], begin, stop, end)
                               : extract<true, false>(staging_[worker], begin, stop, end);
                      } else {
                        ranged ? extract<false, true>(staging_[worker], begin, stop, end)
                               : extract<false, false>(staging_[worker], begin, stop, end);
                      }
                    });
    buffered_ = end.load();
    pieces_.clear();
    piece_kmers_ = 0;
  }

  // Ranged: only the k-mers of keys_ are kept (a worker of a count split by
  // key range); the whole key space goes without the test.
  template <bool Canonical, bool Ranged>
  void extract(std::vector<Kmer<W>>& staged, std::size_t begin, std::size_t stop,
               std::atomic<std::size_t>& end) {
    staged.resize(kStagedKmers);
    std::size_t filled = 0;
    const auto publish = [&] {
      const std::size_t at = end.fetch_add(filled, std::memory_order_relaxed);
      std::memcpy(buffer_.data() + at, staged.data(), filled * sizeof(Kmer<W>));
      filled = 0;
    };
    KmerRoller<W> roller(k_);
    for (std::size_t p = begin; p < stop; ++p) {
      roller.clear();
      const auto [bases, length] = pieces_[p];
      for (std::size_t j = 0; j < length; ++j) {
        if (!roller.push_letter(bases[j])) continue;
        const Kmer<W>& x = Canonical ? roller.canonical() : roller.forward();
        if constexpr (Ranged) {
          if (!keys_.contains({x.w[0], W == 2 ? x.w[W - 1] : 0})) continue;
        }
        staged[filled++] = x;
        if (filled == kStagedKmers) publish();
      }
    }
    publish();
  }

  // Sorts and counts the buffered k-mers into one run for the sink.
  void flush() {
    const std::size_t n = buffered_;
    if (n == 0) return;
    const unsigned threads = n < kParallelFlushKmers ? 1 : threads_;
    // Fewer partitions for small flushes (tiny budgets): at least ~64 k-mers each.
    int bits = cpu_partition_bits(k_);
    while (bits > 0 && (n >> bits) < 64) --bits;
    const std::size_t parts = std::size_t{1} << bits;
    const PrefixPartitioner<W> partition_of(k_, bits);
    Kmer<W>* keys = buffer_.data();
    partitioned_.reserve(max_buffered_);
    Kmer<W>* out = partitioned_.data();

    // 1. Scatter by prefix: per-slice histograms, then stable offsets.
    const unsigned slices = threads;
    const auto slice_begin = [&](std::size_t s) { return n * s / slices; };
    std::vector<std::size_t> at(static_cast<std::size_t>(slices) * parts, 0);
    parallel_chunks(slices, 1, threads, [&](unsigned, std::size_t s, std::size_t) {
      std::size_t* histogram = at.data() + s * parts;
      for (std::size_t i = slice_begin(s); i < slice_begin(s + 1); ++i)
        ++histogram[partition_of(keys[i])];
    });
    std::vector<std::size_t> part_begin(parts + 1);
    std::size_t sum = 0;
    for (std::size_t p = 0; p < parts; ++p) {
      part_begin[p] = sum;
      for (std::size_t s = 0; s < slices; ++s) sum += std::exchange(at[s * parts + p], sum);
    }
    part_begin[parts] = n;
    parallel_chunks(slices, 1, threads, [&](unsigned, std::size_t s, std::size_t) {
      std::size_t* next = at.data() + s * parts;
      for (std::size_t i = slice_begin(s); i < slice_begin(s + 1); ++i)
        out[next[partition_of(keys[i])]++] = keys[i];
    });

    // 2. Sort each partition (the first buffer is the scratch space now) and
    //    count its distinct k-mers.
    const int sort_bits = 2 * k_ - bits;
    std::vector<const Kmer<W>*> sorted(parts);
    std::vector<std::size_t> distinct_begin(parts + 1, 0);
    parallel_chunks(parts, 1, threads, [&](unsigned, std::size_t begin, std::size_t stop) {
      for (std::size_t p = begin; p < stop; ++p) {
        const std::size_t first = part_begin[p], size = part_begin[p + 1] - first;
        sorted[p] = radix_sort_kmers(out + first, keys + first, size, sort_bits);
        distinct_begin[p] = count_distinct(sorted[p], size);
      }
    });
    sum = 0;
    for (std::size_t& d : distinct_begin) sum += std::exchange(d, sum);

    // 3. The run: distinct k-mers and their counts, partitions in order.
    SortedRun run;
    run.k = k_;
    run.words.resize(sum * W);
    run.counts.resize(sum);
    parallel_chunks(parts, 8, threads, [&](unsigned, std::size_t begin, std::size_t stop) {
      for (std::size_t p = begin; p < stop; ++p)
        write_counted(sorted[p], part_begin[p + 1] - part_begin[p],
                      run.words.data() + distinct_begin[p] * W,
                      run.counts.data() + distinct_begin[p]);
    });
    buffered_ = 0;
    sink_.take(std::move(run));
  }

  const int k_;
  const bool canonical_;
  const unsigned threads_;
  const std::size_t max_buffered_;  // k-mers held before a flush
  RunSink& sink_;
  const KeyRange keys_;

  std::vector<std::pair<const char*, std::size_t>> pieces_;  // bases, length (>= k)
  std::size_t piece_kmers_ = 0;  // k-mers the pending pieces can hold at most
  KmerBuffer<W> buffer_;         // rolled k-mers, in no order
  std::size_t buffered_ = 0;
  KmerBuffer<W> partitioned_;                  // the same k-mers grouped by prefix during a flush
  std::vector<std::vector<Kmer<W>>> staging_;  // one per worker
};

}  // namespace

std::unique_ptr<CountingEngine> make_cpu_engine(const EngineParams& params, RunSink& sink) {
  if (params.k < 1 || params.k > kMaxK)
    throw UsageError("-k must be from 1 to " + std::to_string(kMaxK) + ", not " +
                     std::to_string(params.k));
  if (words_for_k(params.k) == 1) return std::make_unique<CpuEngine<1>>(params, sink);
  return std::make_unique<CpuEngine<2>>(params, sink);
}

}  // namespace seqfuse::kmer
