#include "io/sequence_reader.hpp"

namespace seqfuse::io {
namespace {

// Small, so a consumer that stops after a few records reads little more.
constexpr BatchLimits kRecordBufferLimits{.max_records = 256, .max_bases = std::size_t{1} << 20};

}  // namespace

SequenceReader::SequenceReader(std::string path) : parser_(path) {}

bool SequenceReader::next(SequenceRecord& rec) {
  if (position_ == buffer_.size()) {
    if (pending_error_) std::rethrow_exception(pending_error_);
    if (input_ended_) return false;
    position_ = 0;
    try {
      input_ended_ = !parser_.fill(buffer_, kRecordBufferLimits);
    } catch (...) {
      // fill() keeps the good records before the bad one; hand them out first.
      pending_error_ = std::current_exception();
      if (buffer_.empty()) throw;
    }
    if (input_ended_) return false;
  }
  rec.name.assign(buffer_.name(position_));
  rec.comment.assign(buffer_.comment(position_));
  rec.seq.assign(buffer_.sequence(position_));
  rec.qual.assign(buffer_.quality(position_));
  ++position_;
  return true;
}

}  // namespace seqfuse::io
