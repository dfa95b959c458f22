// Random-access inputs (models, config.json, k-mer databases, matrices) are
// read the way only a regular file allows: mapped, sized, or read whole.
// A FIFO would block open() until a writer comes and a directory or device
// would fail later with a misleading message, so each is refused first with
// one clear line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace seqfuse {

// The size of `path` when it is a regular file (links followed); 0 for "",
// "-", a missing path, a FIFO or anything else. For sizing work (threads,
// memory), never for errors.
[[nodiscard]] std::uint64_t regular_file_size(const std::string& path) noexcept;

// Opens `path` read-only (close-on-exec) and returns the descriptor, or
// throws seqfuse::Error: "cannot open <what> 'PATH': <reason>" or "<what>
// 'PATH' is a FIFO, not a regular file" (directory, device, socket alike).
// The open never blocks: O_NONBLOCK, then fstat, then blocking mode again.
[[nodiscard]] int open_regular_file(const std::string& path, std::string_view what);

// The whole contents of the regular file `path`, with the same errors (and
// "cannot read <what> 'PATH': <reason>" for a read error).
[[nodiscard]] std::string read_regular_file(const std::string& path, std::string_view what);

class MappedInputGuard;

// A regular file mapped read-only for as long as this lives, guarded
// (mapped_input.hpp: a file truncated meanwhile ends the run with one line,
// not a bare SIGBUS). An empty file maps to nothing: data() null, size() 0.
// The one way k-mer databases, search databases and model files are mapped.
class MappedRegularFile {
 public:
  // Opens `path` as open_regular_file does (same errors); "cannot read
  // 'PATH': <reason>" or "cannot map 'PATH': <reason>" after that.
  MappedRegularFile(const std::string& path, std::string_view what);
  // Copy on write: the pages may be edited in place, each edited page
  // becoming this process's own copy (the file never changes).
  enum class Edits { refused, private_copies };
  MappedRegularFile(const std::string& path, std::string_view what, Edits edits);
  ~MappedRegularFile();
  MappedRegularFile(MappedRegularFile&& other) noexcept;
  MappedRegularFile& operator=(MappedRegularFile&&) = delete;
  MappedRegularFile(const MappedRegularFile&) = delete;
  MappedRegularFile& operator=(const MappedRegularFile&) = delete;

  [[nodiscard]] const char* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  // The pages to edit in place; only for Edits::private_copies (null otherwise).
  [[nodiscard]] char* editable_data() const noexcept {
    return editable_ ? const_cast<char*>(data_) : nullptr;
  }
  // madvise(2) over the whole mapping (MADV_SEQUENTIAL before a scan,
  // MADV_RANDOM for lookups); a hint, never fails.
  void advise(int advice) const noexcept;

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  bool editable_ = false;
  std::unique_ptr<MappedInputGuard> guard_;
};

}  // namespace seqfuse
