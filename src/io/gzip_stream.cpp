#include "io/gzip_stream.hpp"

#include <htslib/hfile.h>
#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "core/error.hpp"

namespace seqfuse::io {
namespace {

constexpr std::size_t kInputBytes = std::size_t{4} << 20;
// avail_out is 32-bit.
constexpr std::size_t kMaxOutputPerCall = std::size_t{1} << 30;

}  // namespace

GzipStream::GzipStream(hFILE* file, std::string display_name)
    : file_(file),
      display_name_(std::move(display_name)),
      state_(std::make_unique<inflate_state>()) {
  input_.reserve(kInputBytes);
  isal_inflate_init(state_.get());
  state_->crc_flag = ISAL_GZIP;  // parse the header, check CRC-32 and length
}

GzipStream::~GzipStream() = default;

bool GzipStream::refill() {
  if (end_of_file_) return false;
  const std::size_t unread = state_->avail_in;
  if (unread > 0) std::memmove(input_.data(), state_->next_in, unread);
  input_.resize(kInputBytes);
  errno = 0;
  const ssize_t got = hread(file_, input_.data() + unread, kInputBytes - unread);
  if (got < 0) {
    const int saved_errno = errno;
    throw Error(display_name_ + ": read error: " +
                (saved_errno != 0 ? std::strerror(saved_errno) : "unknown error"));
  }
  if (got == 0) end_of_file_ = true;
  input_.resize(unread + static_cast<std::size_t>(got));
  state_->next_in = input_.data();
  state_->avail_in = static_cast<std::uint32_t>(input_.size());
  return got > 0;
}

bool GzipStream::start_next_member() {
  while (state_->avail_in < 2 && refill()) {
  }
  if (state_->avail_in == 0) return false;  // the end of the last member
  if (state_->avail_in < 2 || state_->next_in[0] != 0x1f || state_->next_in[1] != 0x8b)
    throw_corrupt();  // something other than another member follows
  unsigned char* next_in = state_->next_in;
  const std::uint32_t avail_in = state_->avail_in;
  isal_inflate_reset(state_.get());
  state_->crc_flag = ISAL_GZIP;
  state_->next_in = next_in;
  state_->avail_in = avail_in;
  return true;
}

std::size_t GzipStream::read(char* dst, std::size_t capacity) {
  std::size_t produced = 0;
  while (produced < capacity && !finished_) {
    if (state_->block_state == ISAL_BLOCK_FINISH && !start_next_member()) {
      finished_ = true;
      break;
    }
    // At the end of the file isal_inflate may still flush what it holds; a
    // member that then makes no progress and does not finish is cut off.
    if (state_->avail_in == 0) (void)refill();
    const std::size_t room = std::min(capacity - produced, kMaxOutputPerCall);
    state_->next_out = reinterpret_cast<std::uint8_t*>(dst + produced);
    state_->avail_out = static_cast<std::uint32_t>(room);
    const std::uint32_t avail_in_before = state_->avail_in;
    if (isal_inflate(state_.get()) != ISAL_DECOMP_OK) throw_corrupt();
    const std::size_t out = room - state_->avail_out;
    produced += out;
    const bool progressed = out > 0 || state_->avail_in != avail_in_before;
    if (!progressed && end_of_file_ && state_->block_state != ISAL_BLOCK_FINISH) throw_corrupt();
  }
  return produced;
}

void GzipStream::throw_corrupt() const {
  throw Error(display_name_ + ": truncated or corrupt gzip input");
}

}  // namespace seqfuse::io
