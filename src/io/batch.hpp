// SequenceBatch: many FASTA/FASTQ records packed into a few flat arrays, the
// layout the GPU engines copy to the device in one transfer per array.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

namespace seqfuse::io {

enum class SequenceFormat { fasta, fastq };

// When a batch is full. A batch ends when either limit is reached; total_bases()
// never exceeds max_bases unless the batch holds a single record that alone is
// larger (such a record still forms its own batch).
struct BatchLimits {
  std::size_t max_records = std::size_t{1} << 16;
  std::size_t max_bases = std::size_t{64} << 20;
};

// Record i occupies bases[offsets[i], offsets[i+1]) and, for FASTQ, the same
// range of quals. Names and comments use their own offset arrays.
// The base and quality arrays come from a caller-supplied memory resource so the
// GPU layer can hand in pinned host memory; the resource must outlive the batch
// and, for BatchReader, be usable from a second thread.
class SequenceBatch {
 public:
  explicit SequenceBatch(std::pmr::memory_resource* mr = std::pmr::new_delete_resource());

  SequenceFormat format = SequenceFormat::fasta;
  std::uint64_t first_record = 0;  // 0-based index in the file of record 0 of this batch

  std::pmr::vector<char> bases;           // all sequences, concatenated, no separators
  std::pmr::vector<char> quals;           // parallel to bases for FASTQ; empty for FASTA
  std::vector<std::uint64_t> offsets{0};  // size() + 1 entries; offsets.back() == bases.size()
  std::string names;
  std::vector<std::uint32_t> name_offsets{0};  // size() + 1 entries
  std::string comments;
  std::vector<std::uint32_t> comment_offsets{0};  // size() + 1 entries

  [[nodiscard]] std::size_t size() const noexcept { return offsets.size() - 1; }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  [[nodiscard]] std::uint64_t total_bases() const noexcept { return offsets.back(); }
  [[nodiscard]] bool has_quality() const noexcept { return format == SequenceFormat::fastq; }

  [[nodiscard]] std::size_t length(std::size_t i) const noexcept {
    return offsets[i + 1] - offsets[i];
  }
  [[nodiscard]] std::string_view sequence(std::size_t i) const noexcept {
    return {bases.data() + offsets[i], length(i)};
  }
  // Empty for FASTA.
  [[nodiscard]] std::string_view quality(std::size_t i) const noexcept {
    if (!has_quality()) return {};
    return {quals.data() + offsets[i], length(i)};
  }
  [[nodiscard]] std::string_view name(std::size_t i) const noexcept {
    return {names.data() + name_offsets[i], name_offsets[i + 1] - name_offsets[i]};
  }
  [[nodiscard]] std::string_view comment(std::size_t i) const noexcept {
    return {comments.data() + comment_offsets[i], comment_offsets[i + 1] - comment_offsets[i]};
  }

  // Empties the batch but keeps every buffer's capacity, so a recycled batch
  // stops allocating once it has seen its largest input.
  void clear() noexcept;

  // Appends one complete record. `qual` must be empty for FASTA batches and as
  // long as `seq` for FASTQ batches (throws seqfuse::Error otherwise).
  void push_back(std::string_view name, std::string_view comment, std::string_view seq,
                 std::string_view qual = {});
  // Appends record i of another batch (of the same format).
  void push_back_from(const SequenceBatch& other, std::size_t i);
  // Removes the last record.
  void pop_back() noexcept;

  // For parsers that write a record piece by piece straight into the arrays:
  // append the name, comment, bases (and quals) of ONE record, then either
  // commit_record() to make it visible or discard_partial_record() to drop the
  // appended pieces (parse error, cancelled read).
  void commit_record();
  void discard_partial_record() noexcept;
};

}  // namespace seqfuse::io
