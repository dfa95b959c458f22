#include "kmer/run_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "kmer/kmer_db.hpp"

namespace seqfuse::kmer {
namespace {

std::size_t run_bytes(const SortedRun& run) noexcept {
  return run.words.capacity() * sizeof(std::uint64_t) +
         run.counts.capacity() * sizeof(std::uint32_t);
}

constexpr std::size_t kSpillChunkRecords = std::size_t{1} << 16;

}  // namespace

SpillFile::SpillFile(const std::string& dir) : dir_(dir.empty() ? "." : dir) {
#ifdef O_TMPFILE
  fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd_ < 0) {  // no O_TMPFILE on this system or file system: name it, then unlink at once
    std::string pattern = dir_ + "/.seqfuse-kmer-spill-XXXXXX";
    fd_ = ::mkstemp(pattern.data());
    if (fd_ >= 0) ::unlink(pattern.c_str());
  }
  if (fd_ < 0)
    throw Error("cannot create a temporary file in '" + dir_ +
                "' to spill k-mers: " + std::strerror(errno));
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t SpillFile::append(const char* bytes, std::size_t size) {
  const std::uint64_t start = end_;
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, bytes, size, static_cast<off_t>(end_));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write the temporary k-mer file in '" + dir_ +
                  "': " + std::strerror(errno));
    }
    bytes += n;
    size -= static_cast<std::size_t>(n);
    end_ += static_cast<std::uint64_t>(n);
  }
  return start;
}

void SpillFile::read(std::uint64_t offset, char* out, std::size_t size) const {
  while (size > 0) {
    const ssize_t n = ::pread(fd_, out, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error("cannot read the temporary k-mer file in '" + dir_ +
                  "': " + (n < 0 ? std::strerror(errno) : "unexpected end"));
    out += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

RunStore::RunStore(int k, std::size_t memory_cap, std::string spill_dir)
    : k_(k), memory_cap_(memory_cap), spill_dir_(std::move(spill_dir)) {}

void RunStore::take(SortedRun run) {
  if (run.k != k_)
    throw Error("internal: a run of k=" + std::to_string(run.k) +
                " in a store for k=" + std::to_string(k_));
  if (run.size() == 0) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t bytes = run_bytes(run);
  if (memory_bytes_ + bytes <= memory_cap_) {
    memory_bytes_ += bytes;
    memory_runs_.push_back(std::move(run));
    return;
  }
  spill(run);
}

void RunStore::spill(const SortedRun& run) {
  if (!spill_file_) spill_file_ = std::make_unique<SpillFile>(spill_dir_);
  const int w = words_for_k(k_);
  std::vector<char> bytes(kSpillChunkRecords * kmer_record_bytes(w));
  SpilledRun spilled;
  for (std::size_t begin = 0; begin < run.size(); begin += kSpillChunkRecords) {
    const std::size_t n = std::min(kSpillChunkRecords, run.size() - begin);
    const RecordBlock block{k_, run.words.data() + begin * static_cast<std::size_t>(w),
                            run.counts.data() + begin, n};
    encode_records(block, bytes.data());
    const std::uint64_t at = spill_file_->append(bytes.data(), n * kmer_record_bytes(w));
    if (begin == 0) spilled.offset = at;
  }
  spilled.records = run.size();
  spilled_.push_back(spilled);
}

void RunStore::clear() noexcept {
  memory_runs_.clear();
  memory_runs_.shrink_to_fit();
  memory_bytes_ = 0;
}

}  // namespace seqfuse::kmer
