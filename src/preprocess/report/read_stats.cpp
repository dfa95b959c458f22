#include "preprocess/report/read_stats.hpp"

#include <algorithm>

namespace seqfuse::preprocess {
namespace {

// fastp files every byte under its low 3 bits: A 1, T 4, C 3, G 7, N 6.
constexpr std::size_t kLetterClasses = 8;
std::size_t letter_class(char base) {
  return static_cast<unsigned char>(base) & 7U;
}

// fastp compares quality bytes as (signed) chars: Q20 is '5', Q30 is '?'.
constexpr int kPhredOffset = 33;
constexpr int kQ20 = '5';
constexpr int kQ30 = '?';
int quality_byte(char q) {
  return static_cast<signed char>(q);
}

// fastp's buffers start at the evaluated length plus this margin.
constexpr std::size_t kCycleMargin = 1024;

}  // namespace

ReadStats::ReadStats(int evaluated_cycles, bool is_read2) : is_read2_(is_read2) {
  const std::size_t expected =
      static_cast<std::size_t>(std::max(evaluated_cycles, 0)) + kCycleMargin;
  cycle_letters_.reserve(expected * kLetterClasses);
  cycle_bases_.reserve(expected);
  cycle_quality_.reserve(expected);
}

void ReadStats::grow(std::size_t cycles) {
  if (cycles <= cycle_bases_.size()) return;
  cycle_letters_.resize(cycles * kLetterClasses);
  cycle_bases_.resize(cycles, 0);
  cycle_quality_.resize(cycles, 0);
}

void ReadStats::add(std::string_view seq, std::string_view qual) {
  const std::size_t length = seq.size();
  length_sum_ += length;
  ++reads_;
  grow(length);
  // A 5-mer counts when all its 5 bases are A, T, C or G, as fastp's
  // incremental and full recomputation together amount to.
  unsigned kmer = 0;
  std::size_t valid_run = 0;
  for (std::size_t i = 0; i < length; ++i) {
    const char base = seq[i];
    const int q = i < qual.size() ? quality_byte(qual[i]) : kPhredOffset;
    CycleCounts& counts = cycle_letters_[i * kLetterClasses + letter_class(base)];
    if (q >= kQ30) ++counts.q30;
    if (q >= kQ20) ++counts.q20;
    ++counts.bases;
    // Quality sums kept two's complement: a byte below '!' subtracts, as in fastp.
    counts.quality_sum += static_cast<std::uint64_t>(static_cast<std::int64_t>(q - kPhredOffset));
    ++cycle_bases_[i];
    cycle_quality_[i] += static_cast<std::uint64_t>(static_cast<std::int64_t>(q - kPhredOffset));

    const int code = fastp_base_code(base);
    if (code < 0) {
      valid_run = 0;
      continue;
    }
    kmer = ((kmer << 2) | static_cast<unsigned>(code)) & (kStatsKmers - 1);
    if (++valid_run >= kStatsKmerLength) ++kmers_[kmer];
  }
}

void ReadStats::merge(const ReadStats& other) {
  reads_ += other.reads_;
  length_sum_ += other.length_sum_;
  grow(other.cycle_bases_.size());
  for (std::size_t i = 0; i < other.cycle_letters_.size(); ++i) {
    CycleCounts& to = cycle_letters_[i];
    const CycleCounts& from = other.cycle_letters_[i];
    to.bases += from.bases;
    to.q20 += from.q20;
    to.q30 += from.q30;
    to.quality_sum += from.quality_sum;
  }
  for (std::size_t c = 0; c < other.cycle_bases_.size(); ++c) {
    cycle_bases_[c] += other.cycle_bases_[c];
    cycle_quality_[c] += other.cycle_quality_[c];
  }
  for (std::size_t k = 0; k < kStatsKmers; ++k) kmers_[k] += other.kmers_[k];
}

void ReadStats::add_counts(std::uint64_t reads, std::uint64_t length_sum, std::size_t cycles,
                           const std::uint64_t* letters, const std::uint64_t* kmers) {
  reads_ += reads;
  length_sum_ += length_sum;
  std::size_t used = 0;
  for (std::size_t c = 0; c < cycles; ++c)
    for (std::size_t l = 0; l < kLetterClasses; ++l)
      if (letters[(c * kLetterClasses + l) * 4] != 0) used = c + 1;
  grow(used);
  for (std::size_t c = 0; c < used; ++c) {
    for (std::size_t l = 0; l < kLetterClasses; ++l) {
      const std::uint64_t* from = letters + (c * kLetterClasses + l) * 4;
      CycleCounts& to = cycle_letters_[c * kLetterClasses + l];
      to.bases += from[0];
      to.q20 += from[1];
      to.q30 += from[2];
      to.quality_sum += from[3];
      cycle_bases_[c] += from[0];
      cycle_quality_[c] += from[3];
    }
  }
  for (std::size_t k = 0; k < kStatsKmers; ++k) kmers_[k] += kmers[k];
}

std::uint64_t ReadStats::bases() const {
  std::uint64_t total = 0;
  for (const std::uint64_t n : cycle_bases_) total += n;
  return total;
}

std::uint64_t ReadStats::q20_bases() const {
  std::uint64_t total = 0;
  for (const CycleCounts& c : cycle_letters_) total += c.q20;
  return total;
}

std::uint64_t ReadStats::q30_bases() const {
  std::uint64_t total = 0;
  for (const CycleCounts& c : cycle_letters_) total += c.q30;
  return total;
}

std::uint64_t ReadStats::base_count(char base) const {
  std::uint64_t total = 0;
  for (std::size_t i = letter_class(base); i < cycle_letters_.size(); i += kLetterClasses) {
    total += cycle_letters_[i].bases;
  }
  return total;
}

std::uint64_t ReadStats::gc_bases() const {
  return base_count('G') + base_count('C');
}

std::uint64_t ReadStats::mean_length() const {
  return reads_ == 0 ? 0 : length_sum_ / reads_;
}

std::vector<double> ReadStats::mean_quality_curve() const {
  std::vector<double> curve(cycle_bases_.size());
  for (std::size_t c = 0; c < curve.size(); ++c) {
    curve[c] = static_cast<double>(static_cast<std::int64_t>(cycle_quality_[c])) /
               static_cast<double>(cycle_bases_[c]);
  }
  return curve;
}

std::vector<double> ReadStats::quality_curve(char base) const {
  std::vector<double> curve = mean_quality_curve();
  const std::size_t letter = letter_class(base);
  for (std::size_t c = 0; c < curve.size(); ++c) {
    const CycleCounts& counts = cycle_letters_[c * kLetterClasses + letter];
    if (counts.bases != 0) {
      curve[c] = static_cast<double>(static_cast<std::int64_t>(counts.quality_sum)) /
                 static_cast<double>(counts.bases);
    }
  }
  return curve;
}

std::vector<double> ReadStats::content_curve(char base) const {
  std::vector<double> curve(cycle_bases_.size());
  const std::size_t letter = letter_class(base);
  for (std::size_t c = 0; c < curve.size(); ++c) {
    curve[c] = static_cast<double>(cycle_letters_[c * kLetterClasses + letter].bases) /
               static_cast<double>(cycle_bases_[c]);
  }
  return curve;
}

std::vector<double> ReadStats::gc_content_curve() const {
  std::vector<double> curve(cycle_bases_.size());
  const std::size_t g = letter_class('G');
  const std::size_t c_letter = letter_class('C');
  for (std::size_t c = 0; c < curve.size(); ++c) {
    const std::uint64_t gc = cycle_letters_[c * kLetterClasses + g].bases +
                             cycle_letters_[c * kLetterClasses + c_letter].bases;
    curve[c] = static_cast<double>(gc) / static_cast<double>(cycle_bases_[c]);
  }
  return curve;
}

std::string ReadStats::kmer_name(std::size_t index) {
  static constexpr char kLetters[4] = {'A', 'T', 'C', 'G'};
  std::string name(kStatsKmerLength, 'A');
  for (std::size_t k = 0; k < name.size(); ++k) {
    name[k] = kLetters[(index >> (2 * (name.size() - 1 - k))) & 3U];
  }
  return name;
}

ReadTotals totals_of(const ReadStats* read1, const ReadStats* read2) {
  ReadTotals t;
  for (const ReadStats* s : {read1, read2}) {
    if (s == nullptr) continue;
    t.reads += s->reads();
    t.bases += s->bases();
    t.q20 += s->q20_bases();
    t.q30 += s->q30_bases();
    t.gc += s->gc_bases();
  }
  return t;
}

}  // namespace seqfuse::preprocess
