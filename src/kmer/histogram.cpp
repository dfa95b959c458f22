#include "kmer/histogram.hpp"

#include "core/error.hpp"

namespace seqfuse::kmer {

void validate(const HistoParams& params) {
  if (params.increment == 0) throw UsageError("--increment must be 1 or more");
  if (params.high < params.low) throw UsageError("--high must be at least --low");
  if (params.high > UINT32_MAX) throw UsageError("--high must be at most 4294967295");
}

void CountHistogram::add(std::uint32_t count, std::uint64_t kmers) {
  if (kmers == 0) return;
  distinct_ += kmers;
  if (count < kDenseCounts) {
    dense_[count] += kmers;
  } else {
    sparse_[count] += kmers;
  }
}

void CountHistogram::add(const RecordBlock& block) {
  for (std::size_t i = 0; i < block.size; ++i) {
    const std::uint32_t count = block.counts[i];
    if (count < kDenseCounts) {
      ++dense_[count];
    } else {
      ++sparse_[count];
    }
  }
  distinct_ += block.size;
}

void CountHistogram::add(const CountHistogram& other) {
  for (std::uint32_t count = 0; count < kDenseCounts; ++count) dense_[count] += other.dense_[count];
  for (const auto& [count, kmers] : other.sparse_) sparse_[count] += kmers;
  distinct_ += other.distinct_;
}

std::string CountHistogram::jellyfish_text(const HistoParams& params) const {
  validate(params);
  const std::uint64_t inc = params.increment;
  const std::uint64_t base = inc >= params.low ? 0 : params.low - inc;
  const std::uint64_t ceil = params.high + inc;
  const std::uint64_t buckets = (ceil + inc - base) / inc;
  const auto bucket_of = [&](std::uint64_t count) -> std::uint64_t {
    if (count < base) return 0;
    if (count > ceil) return buckets - 1;
    return (count - base) / inc;
  };

  std::map<std::uint64_t, std::uint64_t> filled;  // bucket -> k-mers
  for (std::uint32_t count = 0; count < kDenseCounts; ++count)
    if (dense_[count] != 0) filled[bucket_of(count)] += dense_[count];
  for (const auto& [count, kmers] : sparse_) filled[bucket_of(count)] += kmers;

  std::string text;
  const auto line = [&](std::uint64_t bucket, std::uint64_t kmers) {
    text += std::to_string(base + bucket * inc);
    text += ' ';
    text += std::to_string(kmers);
    text += '\n';
  };
  if (params.full) {
    for (std::uint64_t b = 0; b < buckets; ++b) {
      const auto it = filled.find(b);
      line(b, it == filled.end() ? 0 : it->second);
    }
  } else {
    for (const auto& [bucket, kmers] : filled) line(bucket, kmers);
  }
  return text;
}

}  // namespace seqfuse::kmer
