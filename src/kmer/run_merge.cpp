#include "kmer/run_merge.hpp"

#include <algorithm>
#include <vector>

#include "kmer/kmer_db.hpp"

namespace seqfuse::kmer {
namespace {

constexpr std::size_t kOutputBlock = std::size_t{1} << 16;

template <int W>
bool key_less(const std::uint64_t* a, const std::uint64_t* b) noexcept {
  if constexpr (W == 1) {
    return a[0] < b[0];
  } else {
    return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]);
  }
}

template <int W>
bool key_equal(const std::uint64_t* a, const std::uint64_t* b) noexcept {
  if constexpr (W == 1) {
    return a[0] == b[0];
  } else {
    return a[0] == b[0] && a[1] == b[1];
  }
}

// Reads one run front to back: straight from memory, or from the spill file
// a buffer at a time.
template <int W>
class RunCursor {
 public:
  explicit RunCursor(const SortedRun& run)
      : words_(run.words.data()), counts_(run.counts.data()), size_(run.size()) {}
  RunCursor(const SpillFile& file, const SpilledRun& run, std::size_t buffer_records)
      : file_(&file),
        next_offset_(run.offset),
        left_(run.records),
        buffer_records_(std::max<std::size_t>(buffer_records, 1)) {
    refill();
  }

  [[nodiscard]] bool done() const noexcept { return pos_ == size_; }
  [[nodiscard]] const std::uint64_t* key() const noexcept { return words_ + pos_ * W; }
  [[nodiscard]] std::uint32_t count() const noexcept { return counts_[pos_]; }
  void advance() {
    if (++pos_ == size_ && file_ != nullptr) refill();
  }

 private:
  void refill() {
    if (left_ == 0) return;
    constexpr std::size_t kRecordBytes = kmer_record_bytes(W);
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left_, buffer_records_));
    raw_.resize(n * kRecordBytes);
    word_buffer_.resize(n * W);
    count_buffer_.resize(n);
    file_->read(next_offset_, raw_.data(), raw_.size());
    decode_records(raw_.data(), n, W, word_buffer_.data(), count_buffer_.data());
    words_ = word_buffer_.data();
    counts_ = count_buffer_.data();
    pos_ = 0;
    size_ = n;
    next_offset_ += raw_.size();
    left_ -= n;
  }

  const std::uint64_t* words_ = nullptr;
  const std::uint32_t* counts_ = nullptr;
  std::size_t pos_ = 0;
  std::size_t size_ = 0;
  // Spilled runs only.
  const SpillFile* file_ = nullptr;
  std::uint64_t next_offset_ = 0;
  std::uint64_t left_ = 0;
  std::size_t buffer_records_ = 0;
  std::vector<char> raw_;
  std::vector<std::uint64_t> word_buffer_;
  std::vector<std::uint32_t> count_buffer_;
};

// Collects merged k-mers into blocks for the consumer.
template <int W>
class BlockOutput {
 public:
  BlockOutput(int k, const std::function<void(const RecordBlock&)>& consume, MergeTotals& totals)
      : k_(k), consume_(consume), totals_(totals) {
    words_.resize(kOutputBlock * W);
    counts_.resize(kOutputBlock);
  }
  void add(const std::uint64_t* key, std::uint64_t count) {
    totals_.total_kmers += count;
    if (count >= kCountLimit) {
      count = kCountLimit;
      ++totals_.saturated;
    }
    std::copy(key, key + W, words_.data() + size_ * W);
    counts_[size_] = static_cast<std::uint32_t>(count);
    if (++size_ == kOutputBlock) flush();
  }
  void flush() {
    if (size_ == 0) return;
    totals_.distinct += size_;
    consume_(RecordBlock{k_, words_.data(), counts_.data(), size_});
    size_ = 0;
  }

 private:
  int k_;
  const std::function<void(const RecordBlock&)>& consume_;
  MergeTotals& totals_;
  std::vector<std::uint64_t> words_;
  std::vector<std::uint32_t> counts_;
  std::size_t size_ = 0;
};

// One run in memory: nothing to merge, the blocks point into the run.
MergeTotals pass_through(const SortedRun& run,
                         const std::function<void(const RecordBlock&)>& consume) {
  MergeTotals totals;
  const std::size_t w = static_cast<std::size_t>(run.words_per_kmer());
  for (std::size_t begin = 0; begin < run.size(); begin += kOutputBlock) {
    const std::size_t n = std::min(kOutputBlock, run.size() - begin);
    for (std::size_t i = begin; i < begin + n; ++i) {
      totals.total_kmers += run.counts[i];
      if (run.counts[i] == kCountLimit) ++totals.saturated;
    }
    totals.distinct += n;
    consume(RecordBlock{run.k, run.words.data() + begin * w, run.counts.data() + begin, n});
  }
  return totals;
}

template <int W>
MergeTotals merge(const RunStore& store, std::size_t read_buffer_bytes,
                  const std::function<void(const RecordBlock&)>& consume) {
  std::vector<RunCursor<W>> cursors;
  cursors.reserve(store.run_count());
  for (const SortedRun& run : store.memory_runs()) cursors.emplace_back(run);
  const std::size_t buffer_records = read_buffer_bytes / kmer_record_bytes(W);
  for (const SpilledRun& run : store.spilled_runs())
    cursors.emplace_back(*store.spill_file(), run, buffer_records);

  // A binary min-heap of cursor indices, ordered by the cursors' current k-mer.
  std::vector<std::size_t> heap;
  for (std::size_t i = 0; i < cursors.size(); ++i)
    if (!cursors[i].done()) heap.push_back(i);
  const auto sift_down = [&](std::size_t at) {
    const std::size_t n = heap.size();
    const std::size_t moving = heap[at];
    for (;;) {
      std::size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && key_less<W>(cursors[heap[child + 1]].key(), cursors[heap[child]].key()))
        ++child;
      if (!key_less<W>(cursors[heap[child]].key(), cursors[moving].key())) break;
      heap[at] = heap[child];
      at = child;
    }
    heap[at] = moving;
  };
  for (std::size_t i = heap.size() / 2; i-- > 0;) sift_down(i);

  MergeTotals totals;
  BlockOutput<W> output(store.k(), consume, totals);
  std::uint64_t current[W] = {};
  while (!heap.empty()) {
    std::copy(cursors[heap[0]].key(), cursors[heap[0]].key() + W, current);
    std::uint64_t sum = 0;  // 64 bits: thousands of runs near the limit cannot wrap it
    do {
      RunCursor<W>& top = cursors[heap[0]];
      sum += top.count();
      top.advance();
      if (top.done()) {
        heap[0] = heap.back();
        heap.pop_back();
      }
      if (!heap.empty()) sift_down(0);
    } while (!heap.empty() && key_equal<W>(cursors[heap[0]].key(), current));
    output.add(current, sum);
  }
  output.flush();
  return totals;
}

}  // namespace

MergeTotals merge_runs(const RunStore& store, std::size_t read_buffer_bytes,
                       const std::function<void(const RecordBlock&)>& consume) {
  if (store.spilled_runs().empty() && store.memory_runs().size() == 1)
    return pass_through(store.memory_runs().front(), consume);
  return words_for_k(store.k()) == 1 ? merge<1>(store, read_buffer_bytes, consume)
                                     : merge<2>(store, read_buffer_bytes, consume);
}

}  // namespace seqfuse::kmer
