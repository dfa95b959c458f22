#include "bwt/sorted_suffixes.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace seqfuse::bwt {

SortedSuffixes sorted_from_suffix_array(std::span<const std::uint8_t> text,
                                        RowVector<std::uint64_t> sa, std::uint32_t interval,
                                        unsigned threads) {
  const std::uint64_t n = text.size();
  if (sa.size() != n + 1 || sa[0] != n)
    throw Error("suffix array of " + std::to_string(sa.size()) +
                " entries does not fit a text of " + std::to_string(n) + " bases");
  if (interval == 0 || !std::has_single_bit(interval))
    throw Error("SA sample interval " + std::to_string(interval) + " is not a power of 2");
  SortedSuffixes sorted;
  sorted.interval = interval;
  sorted.bwt.resize(n + 1);
  std::atomic<bool> bad{false};
  parallel_chunks(sa.size(), std::size_t{1} << 20, threads,
                  [&](unsigned, std::size_t begin, std::size_t end) {
                    for (std::size_t row = begin; row < end; ++row) {
                      const std::uint64_t suffix = sa[row];
                      std::uint8_t code = kSentinelCode;
                      if (suffix != 0) {
                        code = suffix <= n ? text[suffix - 1] : std::uint8_t{0xff};
                        if (code > 3) bad.store(true, std::memory_order_relaxed);
                      }
                      sorted.bwt[row] = code;
                    }
                  });
  if (bad.load())
    throw Error("suffix array holds an invalid entry or the text a code other than A, C, G, T");
  sorted.primary = sentinel_row(sorted.bwt);
  if (interval == 1) {
    sorted.samples = std::move(sa);
  } else {
    sorted.samples.resize(n / interval + 1);
    parallel_chunks(sorted.samples.size(), std::size_t{1} << 18, threads,
                    [&](unsigned, std::size_t begin, std::size_t end) {
                      for (std::size_t k = begin; k < end; ++k)
                        sorted.samples[k] = sa[k * interval];
                    });
  }
  return sorted;
}

std::uint64_t sentinel_row(std::span<const std::uint8_t> bwt) {
  const void* found = std::memchr(bwt.data(), kSentinelCode, bwt.size());
  if (found == nullptr) throw Error("the BWT has no row for the whole text");
  return static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(found) - bwt.data());
}

}  // namespace seqfuse::bwt
