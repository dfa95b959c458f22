// CompressedInput: a byte stream from a plain, gzip or BGZF file (or stdin).
// htslib opens it and decompresses BGZF (with worker threads); plain gzip
// goes through ISA-L (gzip_stream.hpp), faster than htslib's zlib. Turns
// htslib's error codes into seqfuse::Error.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

extern "C" {
struct BGZF;
}

namespace seqfuse::io {

class GzipStream;

class CompressedInput {
 public:
  // `path` "-" reads standard input. Throws seqfuse::Error
  // "cannot open '<path>': <reason>" when the file cannot be opened.
  explicit CompressedInput(const std::string& path);
  ~CompressedInput();
  CompressedInput(const CompressedInput&) = delete;
  CompressedInput& operator=(const CompressedInput&) = delete;

  // Reads up to `capacity` bytes; fewer only at the end of the input.
  // Returns 0 at the end. Throws seqfuse::Error
  // "<name>: truncated or corrupt gzip input" or "<name>: read error: <reason>".
  [[nodiscard]] std::size_t read(char* dst, std::size_t capacity);

  // Uncompressed bytes handed out so far (for throughput and progress; may be
  // read from another thread while this one reads).
  [[nodiscard]] std::uint64_t bytes_read() const noexcept {
    return bytes_read_.load(std::memory_order_relaxed);
  }

  // True for gzip and BGZF input.
  [[nodiscard]] bool compressed() const noexcept;

  // The name used in error messages: the path as given, or "stdin" for "-".
  [[nodiscard]] const std::string& display_name() const noexcept { return display_name_; }

 private:
  [[noreturn]] void throw_read_error(int saved_errno) const;
  // read() without dropping a byte-order mark.
  std::size_t read_raw(char* dst, std::size_t capacity);

  BGZF* file_ = nullptr;
  std::unique_ptr<GzipStream> gzip_;  // plain gzip only
  std::string display_name_;
  std::atomic<std::uint64_t> bytes_read_{0};
  bool at_start_ = true;  // a UTF-8 byte-order mark is dropped from the first bytes
};

}  // namespace seqfuse::io
