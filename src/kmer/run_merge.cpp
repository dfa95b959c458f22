#include "kmer/run_merge.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
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
  // Records [begin, end) of the run.
  RunCursor(const SortedRun& run, std::size_t begin, std::size_t end)
      : words_(run.words.data() + begin * W),
        counts_(run.counts.data() + begin),
        size_(end - begin) {}
  RunCursor(const SpillFile& file, const SpilledRun& run, std::uint64_t begin, std::uint64_t end,
            std::size_t buffer_records)
      : file_(&file),
        next_offset_(run.offset + begin * kmer_record_bytes(W)),
        left_(end - begin),
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

// The k-mer at `index` of run `run` (memory or spilled), for bounds and splitters.
template <int W>
class RunKeys {
 public:
  explicit RunKeys(const RunStore& store) : store_(store) {}

  [[nodiscard]] std::size_t runs() const noexcept { return store_.run_count(); }
  [[nodiscard]] std::uint64_t size(std::size_t run) const noexcept {
    const auto& memory = store_.memory_runs();
    return run < memory.size() ? memory[run].size() : spilled(run).records;
  }
  void key(std::size_t run, std::uint64_t index, std::uint64_t* out) const {
    const auto& memory = store_.memory_runs();
    if (run < memory.size()) {
      std::copy_n(memory[run].words.data() + index * W, W, out);
      return;
    }
    char raw[kmer_record_bytes(W)];
    store_.spill_file()->read(spilled(run).offset + index * sizeof raw, raw, sizeof raw);
    std::uint32_t count = 0;
    decode_records(raw, 1, W, out, &count);
  }
  // The first record of `run` whose k-mer is not below `bound`.
  [[nodiscard]] std::uint64_t lower_bound(std::size_t run, const std::uint64_t* bound) const {
    std::uint64_t low = 0, high = size(run);
    std::uint64_t probe[W];
    while (low < high) {
      const std::uint64_t mid = low + (high - low) / 2;
      key(run, mid, probe);
      if (key_less<W>(probe, bound)) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }
  [[nodiscard]] RunCursor<W> cursor(std::size_t run, std::uint64_t begin, std::uint64_t end,
                                    std::size_t buffer_records) const {
    const auto& memory = store_.memory_runs();
    if (run < memory.size()) return RunCursor<W>(memory[run], begin, end);
    return RunCursor<W>(*store_.spill_file(), spilled(run), begin, end, buffer_records);
  }

 private:
  [[nodiscard]] const SpilledRun& spilled(std::size_t run) const noexcept {
    return store_.spilled_runs()[run - store_.memory_runs().size()];
  }
  const RunStore& store_;
};

// A heap merge of the cursors' records into `output`.
template <int W>
void merge_cursors(std::vector<RunCursor<W>>& cursors, BlockOutput<W>& output) {
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
}

void add_totals(MergeTotals& into, const MergeTotals& part) noexcept {
  into.total_kmers += part.total_kmers;
  into.distinct += part.distinct;
  into.saturated += part.saturated;
}

// The totals of records that need no merge (their counts are final).
MergeTotals totals_of(const RecordBlock& block) noexcept {
  MergeTotals totals;
  for (std::size_t i = 0; i < block.size; ++i) {
    totals.total_kmers += block.counts[i];
    if (block.counts[i] == kCountLimit) ++totals.saturated;
  }
  totals.distinct = block.size;
  return totals;
}

// One part, prepared by a worker, waiting for its turn.
struct PartResult {
  std::unique_ptr<PartConsumer::Prepared> prepared;
  MergeTotals totals;
  std::exception_ptr failure;
  bool done = false;
};

// Parts 0, 1, ... made by `make(worker, part)` (a PartResult) on `threads`
// worker threads, and delivered to `consumer` in order on this thread. At
// most `window` parts are made ahead of the one being delivered, which
// bounds the memory held.
template <typename Make>
MergeTotals prepare_in_order(std::size_t parts, unsigned threads, std::size_t window, Make make,
                             PartConsumer& consumer) {
  MergeTotals totals;
  if (threads <= 1) {  // on this thread, one part at a time
    for (std::size_t p = 0; p < parts; ++p) {
      PartResult part = make(0u, p);
      add_totals(totals, part.totals);
      consumer.deliver(std::move(part.prepared));
    }
    return totals;
  }
  std::vector<PartResult> results(parts);
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t next_part = 0, delivered = 0;
  bool stop = false;
  const auto work = [&](unsigned worker) {
    for (;;) {
      std::size_t p = 0;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock,
                     [&] { return stop || next_part == parts || next_part < delivered + window; });
        if (stop || next_part == parts) return;
        p = next_part++;
      }
      PartResult result;
      try {
        result = make(worker, p);
      } catch (...) {
        result.failure = std::current_exception();
      }
      std::lock_guard lock(mutex);
      results[p] = std::move(result);
      results[p].done = true;
      changed.notify_all();
    }
  };
  std::vector<std::thread> workers;
  const auto stop_workers = [&] {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    changed.notify_all();
    for (std::thread& w : workers) w.join();
  };
  try {
    for (unsigned t = 0; t < threads; ++t) workers.emplace_back(work, t);
    for (std::size_t p = 0; p < parts; ++p) {
      PartResult part;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return results[p].done; });
        part = std::move(results[p]);
      }
      if (part.failure) std::rethrow_exception(part.failure);
      add_totals(totals, part.totals);
      consumer.deliver(std::move(part.prepared));
      {
        std::lock_guard lock(mutex);
        delivered = p + 1;
      }
      changed.notify_all();
    }
  } catch (...) {
    stop_workers();
    throw;
  }
  stop_workers();
  return totals;
}

// Parts held prepared at once, all threads together.
std::size_t window_for(unsigned threads) noexcept {
  return 2 * static_cast<std::size_t>(std::max(threads, 1u));
}

// One merge on this thread: blocks of the heap merge, each prepared and
// delivered at once.
template <int W>
MergeTotals merge_serial(const RunStore& store, const MergeOptions& options,
                         PartConsumer& consumer) {
  const RunKeys<W> keys(store);
  const std::size_t buffer_records = options.read_buffer_bytes / kmer_record_bytes(W);
  std::vector<RunCursor<W>> cursors;
  cursors.reserve(keys.runs());
  for (std::size_t r = 0; r < keys.runs(); ++r)
    cursors.push_back(keys.cursor(r, 0, keys.size(r), buffer_records));
  MergeTotals totals;
  const std::function<void(const RecordBlock&)> deliver = [&](const RecordBlock& block) {
    consumer.deliver(consumer.prepare(0, block));
  };
  BlockOutput<W> output(store.k(), deliver, totals);
  merge_cursors(cursors, output);
  return totals;
}

// Key ranges merged by worker threads and prepared there. The splitters are
// quantiles of keys sampled from every run; a worker finds each range's
// records in every run by binary search.
template <int W>
MergeTotals merge_parallel(const RunStore& store, const MergeOptions& options,
                           PartConsumer& consumer) {
  const RunKeys<W> keys(store);
  std::uint64_t total_records = 0;
  std::size_t largest = 0;
  for (std::size_t r = 0; r < keys.runs(); ++r) {
    total_records += keys.size(r);
    if (keys.size(r) > keys.size(largest)) largest = r;
  }
  const unsigned threads = options.threads;
  const std::size_t window = window_for(threads);
  const std::uint64_t held_bytes = total_records * (8 * W + 4) * window;
  const std::size_t parts = static_cast<std::size_t>(std::clamp<std::uint64_t>(
      held_bytes / std::max<std::size_t>(options.lookahead_bytes, 1) + 1, 4 * threads,
      std::max<std::uint64_t>(4 * threads, keys.size(largest) / 1024)));
  // splitters[p]: the first k-mer of part p + 1: quantiles of keys taken
  // evenly from every run, from each as many as its share of the records.
  // Runs that cover different key spans (GPU workers each count their own
  // key range, count_workers.hpp) then split as evenly as runs that all
  // span the whole key space; the largest run's keys alone would put the
  // other spans into a few huge parts.
  std::vector<std::array<std::uint64_t, W>> picked;
  const std::uint64_t samples = 4 * static_cast<std::uint64_t>(parts);
  for (std::size_t r = 0; r < keys.runs(); ++r) {
    const std::uint64_t size = keys.size(r);
    if (size == 0) continue;
    const std::uint64_t n = std::clamp<std::uint64_t>(samples * size / total_records, 1, size);
    for (std::uint64_t j = 0; j < n; ++j)
      keys.key(r, size * (2 * j + 1) / (2 * n), picked.emplace_back().data());
  }
  std::sort(picked.begin(), picked.end());
  std::vector<std::uint64_t> splitters((parts - 1) * W);
  for (std::size_t p = 1; p < parts; ++p)
    std::copy_n(picked[picked.size() * p / parts].data(), W, splitters.data() + (p - 1) * W);

  const std::size_t buffer_records = options.read_buffer_bytes / threads / kmer_record_bytes(W);
  // Each worker merges into buffers of its own, reused from part to part:
  // fresh ones would be faulted in, and regrown, for every part.
  struct Merged {
    std::vector<std::uint64_t> words;
    std::vector<std::uint32_t> counts;
  };
  std::vector<Merged> merged(threads);
  const auto merge_part = [&](unsigned worker, std::size_t p) {
    std::vector<RunCursor<W>> cursors;
    for (std::size_t r = 0; r < keys.runs(); ++r) {
      const std::uint64_t begin = p == 0 ? 0 : keys.lower_bound(r, &splitters[(p - 1) * W]);
      const std::uint64_t end =
          p + 1 == parts ? keys.size(r) : keys.lower_bound(r, &splitters[p * W]);
      if (begin < end) cursors.push_back(keys.cursor(r, begin, end, buffer_records));
    }
    std::vector<std::uint64_t>& words = merged[worker].words;
    std::vector<std::uint32_t>& counts = merged[worker].counts;
    words.clear();
    counts.clear();
    const std::function<void(const RecordBlock&)> keep = [&](const RecordBlock& block) {
      words.insert(words.end(), block.words, block.words + block.size * W);
      counts.insert(counts.end(), block.counts, block.counts + block.size);
    };
    PartResult result;
    BlockOutput<W> output(store.k(), keep, result.totals);
    merge_cursors(cursors, output);
    result.prepared = consumer.prepare(
        worker, RecordBlock{store.k(), words.data(), counts.data(), counts.size()});
    return result;
  };
  return prepare_in_order(parts, threads, window, merge_part, consumer);
}

template <int W>
MergeTotals merge(const RunStore& store, const MergeOptions& options, PartConsumer& consumer) {
  std::uint64_t total_records = 0;
  for (const SortedRun& run : store.memory_runs()) total_records += run.size();
  for (const SpilledRun& run : store.spilled_runs()) total_records += run.records;
  // Small merges are not worth the threads.
  if (options.threads <= 1 || total_records < options.parallel_from)
    return merge_serial<W>(store, options, consumer);
  return merge_parallel<W>(store, options, consumer);
}

// Runs in memory whose key spans do not overlap need no merge: they are
// passed through one after the other, in key order. That is how the runs of
// GPU workers that each counted their own key range in one round arrive
// (count_workers.hpp), and a count of one round. Fills `order` with the
// runs in key order, or returns false when some spans overlap or a run is
// spilled.
bool disjoint_in_memory(const RunStore& store, std::vector<std::size_t>& order) {
  if (!store.spilled_runs().empty()) return false;
  const std::vector<SortedRun>& runs = store.memory_runs();
  const auto w = static_cast<std::size_t>(words_for_k(store.k()));
  const auto first = [&](std::size_t r) { return runs[r].words.data(); };
  const auto last = [&](std::size_t r) { return runs[r].words.data() + (runs[r].size() - 1) * w; };
  const auto less = [w](const std::uint64_t* a, const std::uint64_t* b) {
    return std::lexicographical_compare(a, a + w, b, b + w);
  };
  order.clear();
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (runs[r].size() > 0) order.push_back(r);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return less(first(a), first(b)); });
  for (std::size_t i = 1; i < order.size(); ++i)
    if (!less(last(order[i - 1]), first(order[i]))) return false;
  return true;
}

// Disjoint runs (in `order`) cut into slices that are prepared on the
// threads: nothing is merged or copied.
MergeTotals pass_through(const RunStore& store, const std::vector<std::size_t>& order,
                         const MergeOptions& options, PartConsumer& consumer) {
  const std::vector<SortedRun>& runs = store.memory_runs();
  const std::size_t window = window_for(options.threads);
  const std::size_t record_bytes = kmer_record_bytes(words_for_k(store.k()));
  const std::size_t slice = std::clamp<std::size_t>(
      options.lookahead_bytes / (window * record_bytes), kOutputBlock, std::size_t{1} << 20);
  struct Slice {
    std::size_t run, begin, end;
  };
  std::vector<Slice> slices;
  for (const std::size_t r : order)
    for (std::size_t begin = 0; begin < runs[r].size(); begin += slice)
      slices.push_back({r, begin, std::min(runs[r].size(), begin + slice)});
  const auto make = [&](unsigned worker, std::size_t i) {
    const SortedRun& run = runs[slices[i].run];
    const std::size_t w = static_cast<std::size_t>(run.words_per_kmer());
    const RecordBlock block{run.k, run.words.data() + slices[i].begin * w,
                            run.counts.data() + slices[i].begin, slices[i].end - slices[i].begin};
    PartResult result;
    result.totals = totals_of(block);
    result.prepared = consumer.prepare(worker, block);
    return result;
  };
  return prepare_in_order(slices.size(), options.threads, window, make, consumer);
}

}  // namespace

MergeTotals merge_runs(const RunStore& store, const MergeOptions& options, PartConsumer& consumer) {
  if (std::vector<std::size_t> order; disjoint_in_memory(store, order))
    return pass_through(store, order, options, consumer);
  return words_for_k(store.k()) == 1 ? merge<1>(store, options, consumer)
                                     : merge<2>(store, options, consumer);
}

}  // namespace seqfuse::kmer
