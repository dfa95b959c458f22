// Where the engines' sorted runs wait for the final merge: in memory while
// they fit under the host memory cap, beyond it in a temporary file.
//
// The temporary file is anonymous (O_TMPFILE, or unlinked right after
// mkstemp): it has no name once created, so it disappears with the process
// however that ends, error, signal or kill, and never shows in the folder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kmer/engine.hpp"

namespace seqfuse::kmer {

class SpillFile {
 public:
  // Throws seqfuse::Error when no temporary file can be made in `dir`.
  explicit SpillFile(const std::string& dir);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends `bytes` at the end; returns where they start.
  std::uint64_t append(const char* bytes, std::size_t size);
  // Reads exactly `size` bytes at `offset` (throws seqfuse::Error otherwise).
  void read(std::uint64_t offset, char* out, std::size_t size) const;

  [[nodiscard]] std::uint64_t bytes() const noexcept { return end_; }

 private:
  std::string dir_;
  int fd_ = -1;
  std::uint64_t end_ = 0;
};

// A run written to the spill file: records in the database's record layout.
struct SpilledRun {
  std::uint64_t offset = 0;
  std::uint64_t records = 0;
};

class RunStore final : public RunSink {
 public:
  // Runs are kept in memory while their bytes stay within `memory_cap`; a run
  // that would go past it is written to a spill file in `spill_dir`.
  RunStore(int k, std::size_t memory_cap, std::string spill_dir);

  // Thread-safe (an engine may hand runs over from its own thread). Throws
  // seqfuse::Error for a run of another k or when spilling fails.
  void take(SortedRun run) override;

  // For the merge, once the engine has finished.
  [[nodiscard]] int k() const noexcept { return k_; }
  [[nodiscard]] const std::vector<SortedRun>& memory_runs() const noexcept { return memory_runs_; }
  [[nodiscard]] const std::vector<SpilledRun>& spilled_runs() const noexcept { return spilled_; }
  [[nodiscard]] const SpillFile* spill_file() const noexcept { return spill_file_.get(); }
  [[nodiscard]] std::size_t run_count() const noexcept {
    return memory_runs_.size() + spilled_.size();
  }
  [[nodiscard]] std::uint64_t spilled_bytes() const noexcept {
    return spill_file_ ? spill_file_->bytes() : 0;
  }
  // Frees the runs held in memory (after the merge).
  void clear() noexcept;

 private:
  void spill(const SortedRun& run);

  int k_;
  std::size_t memory_cap_;
  std::string spill_dir_;
  std::mutex mutex_;
  std::vector<SortedRun> memory_runs_;
  std::size_t memory_bytes_ = 0;
  std::vector<SpilledRun> spilled_;
  std::unique_ptr<SpillFile> spill_file_;
};

}  // namespace seqfuse::kmer
