#include "io/compressed_input.hpp"

#include <htslib/bgzf.h>
#include <htslib/hfile.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "io/gzip_stream.hpp"
#include "io/record_text.hpp"

namespace seqfuse::io {
namespace {

// BGZF blocks decompress independently, so a few htslib worker threads keep
// decompression ahead of the parser. Plain gzip is one stream and cannot be split.
int decompression_threads() {
  const unsigned cores = cpu_budget();  // affinity and cgroup quota honoured
  return static_cast<int>(std::clamp(cores / 2, 1u, 4u));
}

// bgzf_compression(): 0 plain, 1 gzip, 2 BGZF
constexpr int kGzipCompression = 1;
constexpr int kBgzfCompression = 2;

}  // namespace

CompressedInput::CompressedInput(const std::string& path)
    : display_name_(path == "-" ? std::string("stdin") : path) {
  errno = 0;
  file_ = bgzf_open(path.c_str(), "r");
  if (file_ == nullptr) {
    const int saved_errno = errno;
    throw Error("cannot open '" + path +
                "': " + (saved_errno != 0 ? std::strerror(saved_errno) : "unknown error"));
  }
  if (bgzf_compression(file_) == kBgzfCompression) {
    // Multi-threading is only an acceleration: on failure htslib keeps reading
    // single-threaded, so the return value needs no handling.
    (void)bgzf_mt(file_, decompression_threads(), 256);
  } else if (bgzf_compression(file_) == kGzipCompression) {
    // bgzf_open only peeked at the header, so the raw stream starts at the
    // handle's current position.
    gzip_ = std::make_unique<GzipStream>(file_->fp, display_name_);
  }
}

CompressedInput::~CompressedInput() {
  gzip_.reset();
  if (file_ != nullptr) (void)bgzf_close(file_);
}

std::size_t CompressedInput::read(char* dst, std::size_t capacity) {
  const std::size_t got = read_raw(dst, capacity);
  if (!at_start_ || got == 0) return got;
  at_start_ = false;
  const std::size_t kept = drop_utf8_bom(dst, got);
  return kept != 0 ? kept : read_raw(dst, capacity);
}

std::size_t CompressedInput::read_raw(char* dst, std::size_t capacity) {
  if (capacity == 0) return 0;
  errno = 0;
  if (gzip_) {
    const std::size_t got = gzip_->read(dst, capacity);
    bytes_read_.fetch_add(got, std::memory_order_relaxed);
    return got;
  }
  // Plain text skips the BGZF layer: bgzf_read would pass it through a 64 KiB
  // staging block and one extra copy. Safe because bgzf_open only peeks at the
  // start of the file and nothing else reads from this handle.
  const ssize_t got =
      file_->is_compressed ? bgzf_read(file_, dst, capacity) : hread(file_->fp, dst, capacity);
  // errcode can be set while bgzf_read still hands back the bytes it decoded
  // before the damage; treat that as the error it is.
  if (got < 0 || file_->errcode != 0) throw_read_error(errno);
  bytes_read_.fetch_add(static_cast<std::uint64_t>(got), std::memory_order_relaxed);
  return static_cast<std::size_t>(got);
}

bool CompressedInput::compressed() const noexcept {
  return file_->is_compressed != 0;
}

void CompressedInput::throw_read_error(int saved_errno) const {
  // A damaged or cut-off gzip stream is by far the common cause; htslib marks
  // it with BGZF_ERR_ZLIB / BGZF_ERR_CRC / BGZF_ERR_HEADER (often plus BGZF_ERR_IO).
  const unsigned stream_errors = BGZF_ERR_ZLIB | BGZF_ERR_HEADER | BGZF_ERR_CRC;
  const bool stream_damaged = (file_->errcode & stream_errors) != 0;
  if (stream_damaged || (file_->is_compressed && saved_errno == 0)) {
    throw Error(display_name_ + ": truncated or corrupt gzip input");
  }
  throw Error(display_name_ +
              ": read error: " + (saved_errno != 0 ? std::strerror(saved_errno) : "unknown error"));
}

}  // namespace seqfuse::io
