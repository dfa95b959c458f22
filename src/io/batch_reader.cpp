#include "io/batch_reader.hpp"

#include <filesystem>
#include <limits>
#include <optional>

#include "io/parallel_fasta.hpp"

namespace seqfuse::io {

BatchReader::BatchReader(std::string path, BatchLimits limits, std::pmr::memory_resource* mr)
    : parser_(path), limits_(limits) {
  for (auto& batch : batches_) {
    batch = std::make_unique<SequenceBatch>(mr);
    free_.push_back(batch.get());
  }
  parser_.set_cancel_flag(&stop_);
  worker_ = std::thread([this] { produce(); });
}

BatchReader::~BatchReader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  batch_freed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

SequenceBatch* BatchReader::next() {
  std::unique_lock lock(mutex_);
  if (current_ != nullptr) {
    free_.push_back(current_);
    current_ = nullptr;
    batch_freed_.notify_one();
  }
  batch_filled_.wait(lock, [this] { return !filled_.empty() || producer_done_; });
  if (!filled_.empty()) {
    current_ = filled_.front();
    filled_.pop_front();
    return current_;
  }
  if (error_) std::rethrow_exception(error_);
  return nullptr;
}

void BatchReader::produce() noexcept {
  for (;;) {
    SequenceBatch* batch = nullptr;
    {
      std::unique_lock lock(mutex_);
      batch_freed_.wait(lock, [this] { return stop_ || !free_.empty(); });
      if (stop_) return;
      batch = free_.front();
      free_.pop_front();
    }
    bool filled = false;
    std::exception_ptr error;
    try {
      filled = parser_.fill(*batch, limits_);
    } catch (const ReadCancelled&) {
      return;  // the destructor is waiting; nobody reads the result
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      if (filled) {
        filled_.push_back(batch);
      } else {
        free_.push_back(batch);
        producer_done_ = true;
        error_ = error;
      }
    }
    batch_filled_.notify_one();
    if (!filled) return;
  }
}

SequenceBatch read_all(const std::string& path, std::pmr::memory_resource* mr, unsigned threads) {
  // Plain FASTA files, the common large input, parse on several threads.
  if (std::optional<SequenceBatch> parsed =
          read_fasta_parallel(path, mr, ParallelFastaOptions{.threads = threads})) {
    return std::move(*parsed);
  }
  constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();
  RecordParser parser(path);
  SequenceBatch all(mr);
  // One batch holds the whole input: a file's size bounds its bases (for
  // plain text), so the base array is allocated once instead of regrown and
  // copied a dozen times. Reserving touches no memory.
  std::error_code error;
  if (path != "-" && std::filesystem::is_regular_file(path, error)) {
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (!error) all.bases.reserve(static_cast<std::size_t>(size));
  }
  (void)parser.fill(all, BatchLimits{.max_records = kUnlimited, .max_bases = kUnlimited});
  return all;
}

}  // namespace seqfuse::io
