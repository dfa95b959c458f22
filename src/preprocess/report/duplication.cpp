#include "preprocess/report/duplication.hpp"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/huge_pages.hpp"

namespace seqfuse::preprocess {
namespace {

// fastp keeps 512 primes per hash.
constexpr std::size_t kPrimesPerHash = 512;

struct Geometry {
  std::uint64_t array_bytes;
  std::size_t hashes;
};

// fastp's accuracy levels: array size and number of hashes (arrays).
Geometry geometry(int level) {
  constexpr std::uint64_t kBase = std::uint64_t{1} << 29;  // 512 MiB
  switch (level) {
    case 1:
      return {kBase, 2};
    case 2:
      return {kBase * 2, 2};
    case 3:
      return {kBase * 2, 4};
    case 4:
      return {kBase * 4, 4};
    case 5:
      return {kBase * 8, 4};
    case 6:
      return {kBase * 8, 6};
    default:
      throw Error("duplication accuracy level must be 1 to 6, not " + std::to_string(level));
  }
}

// The primes fastp draws: the first prime above 10000, then each time the
// first prime above (the last one + 10000), tested by trial division up to
// the floating-point square root as fastp tests it.
std::vector<std::uint64_t> fastp_primes(std::size_t count) {
  std::vector<std::uint64_t> primes;
  primes.reserve(count);
  std::uint64_t number = 10000;
  while (primes.size() < count) {
    ++number;
    bool prime = true;
    for (std::uint64_t i = 2; static_cast<double>(i) <= std::sqrt(static_cast<double>(number));
         ++i) {
      if (number % i == 0) {
        prime = false;
        break;
      }
    }
    if (prime) {
      primes.push_back(number);
      number += 10000;
    }
  }
  return primes;
}

std::uint64_t base_weight(char base) {
  switch (base) {
    case 'A':
      return 7;
    case 'T':
      return 222;
    case 'C':
      return 74;
    case 'G':
      return 31;
    default:
      return 13;
  }
}

}  // namespace

void Duplication::FreeDeleter::operator()(std::uint64_t* p) const {
  std::free(p);
}

std::size_t Duplication::memory_bytes(int accuracy_level) {
  return static_cast<std::size_t>(geometry(accuracy_level).array_bytes);
}

Duplication::Duplication(int accuracy_level, bool many_reads) {
  const Geometry g = geometry(accuracy_level);
  hash_count_ = g.hashes;
  array_bytes_ = g.array_bytes;
  bit_mask_ = array_bytes_ * 8 - 1;  // every level's array is a power of two
  const std::vector<std::uint64_t> primes = fastp_primes(hash_count_ * kPrimesPerHash);
  const std::uint64_t mask = kPrimesPerHash * hash_count_ - 1;
  const std::uint64_t last = hash_count_ - 1;
  static_assert(kPrimesPerHash * 6 - 1 < kPrimePeriod, "the index reads p's low 12 bits only");
  prime_at_.resize(kPrimePeriod);
  for (std::uint64_t p = 0; p < kPrimePeriod; ++p)
    prime_at_[p] = primes[static_cast<std::size_t>((p * hash_count_ + last) & mask)];
  for (std::uint64_t& w : weight_) w = base_weight('N');
  for (const char base : {'A', 'C', 'G', 'T'})
    weight_[static_cast<unsigned char>(base)] = base_weight(base);
  // calloc: the kernel hands out zero pages lazily, so untouched parts of
  // the array cost no memory.
  bits_.reset(static_cast<std::uint64_t*>(
      std::calloc(static_cast<std::size_t>(array_bytes_ / 8), sizeof(std::uint64_t))));
  if (!bits_) {
    throw Error("out of memory: cannot allocate " + std::to_string(array_bytes_) +
                " bytes for the duplication estimate");
  }
  // Before any bit is set: the whole 2 MiB pages inside the array.
  if (many_reads) advise_huge_pages(bits_.get(), static_cast<std::size_t>(array_bytes_));
}

Duplication::~Duplication() = default;

// fastp computes one sum per array and keeps only the last array's verdict,
// so only the last sum is computed here. Its terms are fastp's: position p
// (counted on from position_offset for read 2 of a pair) adds
// prime[(p * hashes + last) & mask] * (weight(base) + p), modulo 2^64.
std::uint64_t Duplication::fastp_sum(std::string_view seq, std::size_t position_offset) const {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const std::uint64_t p = position_offset + i;
    sum += prime_at_[p & (kPrimePeriod - 1)] * (weight_[static_cast<unsigned char>(seq[i])] + p);
  }
  return sum;
}

bool Duplication::apply(std::uint64_t sum) {
  // Which bit of the array holds which sum does not show in the rate; as a
  // single-bit fetch-or whose result is tested, it compiles to lock bts.
  const std::uint64_t mask = std::uint64_t{1} << (sum & 63U);
  std::atomic_ref<std::uint64_t> word(*word_of(sum));
  return (word.fetch_or(mask, std::memory_order_relaxed) & mask) != 0;
}

void Duplication::check_sums(std::span<const std::uint64_t> sums, Tally& tally) {
  // Misses in flight per thread: enough to cover a miss's latency at a
  // check's pace, well within the core's fill buffers.
  constexpr std::size_t kAhead = 16;
  const std::size_t n = sums.size();
  std::uint64_t duplicates = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(word_of(sums[i + kAhead]), 1);
    duplicates += apply(sums[i]) ? 1 : 0;
  }
  tally.reads += n;
  tally.duplicates += duplicates;
}

void Duplication::add(const Tally& tally) {
  reads_.fetch_add(tally.reads, std::memory_order_relaxed);
  duplicates_.fetch_add(tally.duplicates, std::memory_order_relaxed);
}

bool Duplication::check_read(std::string_view seq, Tally& tally) {
  const bool duplicate = apply(read_sum(seq));
  ++tally.reads;
  tally.duplicates += duplicate ? 1 : 0;
  return duplicate;
}

bool Duplication::check_pair(std::string_view seq1, std::string_view seq2, Tally& tally) {
  const bool duplicate = apply(pair_sum(seq1, seq2));
  ++tally.reads;
  tally.duplicates += duplicate ? 1 : 0;
  return duplicate;
}

bool Duplication::check_read(std::string_view seq) {
  Tally tally;
  const bool duplicate = check_read(seq, tally);
  add(tally);
  return duplicate;
}

bool Duplication::check_pair(std::string_view seq1, std::string_view seq2) {
  Tally tally;
  const bool duplicate = check_pair(seq1, seq2, tally);
  add(tally);
  return duplicate;
}

double Duplication::rate() const {
  const std::uint64_t total = reads_.load();
  if (total == 0) return 0.0;
  return static_cast<double>(duplicates_.load()) / static_cast<double>(total);
}

}  // namespace seqfuse::preprocess
