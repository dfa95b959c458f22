#include "io/parallel_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/env_count.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "io/record_text.hpp"

namespace seqfuse::io {
namespace {

// Below this a slice is not worth a thread. 2 MiB cuts a 32 MiB chunk of
// kmer-count's into 16: with 8 MiB (4 slices) the reader fed four GPU
// workers at about 11 GB/s, and they waited for it (run 33).
// SEQFUSE_READ_SLICE_MIB overrides it, to measure the choice.
std::size_t min_slice_bytes() {
  static const std::size_t bytes =
      env_count("SEQFUSE_READ_SLICE_MIB", "a slice size in MiB", 1024).value_or(2) << 20;
  return bytes;
}

}  // namespace

std::unique_ptr<ParallelFile> ParallelFile::open(const std::string& path, unsigned threads) {
  if (path == "-") return nullptr;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<ParallelFile>(new ParallelFile(fd, path, std::max(1u, threads)));
}

ParallelFile::ParallelFile(int fd, std::string path, unsigned threads)
    : fd_(fd), path_(std::move(path)), threads_(threads) {}

ParallelFile::~ParallelFile() {
  ::close(fd_);
}

std::size_t ParallelFile::read_slice(char* dst, std::size_t n, std::uint64_t offset) const {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, dst + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(path_ + ": read error: " + std::strerror(errno));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::size_t ParallelFile::read(char* dst, std::size_t capacity) {
  const bool at_start = offset_ == 0;
  const std::size_t slices =
      std::clamp<std::size_t>(capacity / min_slice_bytes(), 1, std::size_t{threads_});
  const std::size_t slice = (capacity + slices - 1) / slices;
  std::vector<std::size_t> got(slices, 0);
  parallel_chunks(slices, 1, threads_, [&](unsigned, std::size_t s, std::size_t) {
    const std::size_t begin = s * slice;
    got[s] = read_slice(dst + begin, std::min(slice, capacity - begin), offset_ + begin);
  });
  // A short slice means the end of the file: bytes count only up to the first
  // one (the file may have grown meanwhile; what lies after a gap is not kept).
  std::size_t total = 0;
  for (std::size_t s = 0; s < slices; ++s) {
    total += got[s];
    if (got[s] < std::min(slice, capacity - s * slice)) break;
  }
  offset_ += total;
  if (!at_start || total == 0) return total;
  const std::size_t kept = drop_utf8_bom(dst, total);  // as CompressedInput does
  return kept != 0 ? kept : read(dst, capacity);
}

}  // namespace seqfuse::io
