#include "io/batch.hpp"

#include <limits>

#include "core/error.hpp"

namespace seqfuse::io {

SequenceBatch::SequenceBatch(std::pmr::memory_resource* mr) : bases(mr), quals(mr) {}

void SequenceBatch::clear() noexcept {
  first_record = 0;
  bases.clear();
  quals.clear();
  offsets.resize(1);  // offsets[0] is always 0
  names.clear();
  name_offsets.resize(1);
  comments.clear();
  comment_offsets.resize(1);
}

void SequenceBatch::push_back(std::string_view name, std::string_view comment, std::string_view seq,
                              std::string_view qual) {
  if (has_quality() ? qual.size() != seq.size() : !qual.empty()) {
    throw Error("SequenceBatch: quality length " + std::to_string(qual.size()) +
                " does not fit sequence length " + std::to_string(seq.size()));
  }
  names.append(name);
  comments.append(comment);
  bases.insert(bases.end(), seq.begin(), seq.end());
  quals.insert(quals.end(), qual.begin(), qual.end());
  try {
    commit_record();
  } catch (...) {
    discard_partial_record();
    throw;
  }
}

void SequenceBatch::push_back_from(const SequenceBatch& other, std::size_t i) {
  push_back(other.name(i), other.comment(i), other.sequence(i), other.quality(i));
}

void SequenceBatch::pop_back() noexcept {
  if (empty()) return;
  offsets.pop_back();
  name_offsets.pop_back();
  comment_offsets.pop_back();
  discard_partial_record();
}

void SequenceBatch::commit_record() {
  // Names and comments are indexed with 32 bits to keep the offset arrays
  // small on the device; a batch would need > 4 GiB of header text to overflow.
  constexpr std::size_t kMaxText = std::numeric_limits<std::uint32_t>::max();
  if (names.size() > kMaxText || comments.size() > kMaxText) {
    throw Error("more than 4 GiB of record names in one batch");
  }
  offsets.push_back(bases.size());
  name_offsets.push_back(static_cast<std::uint32_t>(names.size()));
  comment_offsets.push_back(static_cast<std::uint32_t>(comments.size()));
}

void SequenceBatch::discard_partial_record() noexcept {
  bases.resize(offsets.back());
  quals.resize(has_quality() ? offsets.back() : 0);
  names.resize(name_offsets.back());
  comments.resize(comment_offsets.back());
}

}  // namespace seqfuse::io
