// ParallelFile: a plain regular file read front to back, each large read
// split across threads (pread on slices). Copying out of the page cache runs
// at a few GB/s per core, so one thread cannot feed a consumer that takes
// text at PCIe speed; a handful can.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace seqfuse::io {

class ParallelFile {
 public:
  // Null when `path` is not a regular file that can be opened (a pipe, a
  // device, stdin): the caller reads it as a stream instead.
  [[nodiscard]] static std::unique_ptr<ParallelFile> open(const std::string& path,
                                                          unsigned threads);
  ~ParallelFile();
  ParallelFile(const ParallelFile&) = delete;
  ParallelFile& operator=(const ParallelFile&) = delete;

  // The next up to `capacity` bytes; fewer only at the end of the file, 0
  // after it. Throws seqfuse::Error "<path>: read error: <reason>".
  [[nodiscard]] std::size_t read(char* dst, std::size_t capacity);

 private:
  ParallelFile(int fd, std::string path, unsigned threads);
  // Fills dst[0, n) from `offset`; returns the bytes read (fewer at the end).
  std::size_t read_slice(char* dst, std::size_t n, std::uint64_t offset) const;

  int fd_;
  std::string path_;
  unsigned threads_;
  std::uint64_t offset_ = 0;
};

}  // namespace seqfuse::io
