// One bucket of the bucketed GPU suffix sort (gpu/bwt/bucket_sort.cu) on the
// CPU, for the emulation tests of the one-worker sort
// (test_bwt_buckets_emulated.cpp) and of the bucket split across workers
// (test_bwt_devices.cpp): the same steps with the same shared functions of
// gpu/bwt/bucket_keys.hpp, std::stable_sort in place of the device radix
// sorts and loops in place of the scans and scatters.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "gpu/bwt/bucket_keys.hpp"
#include "test_bwt_emulation.hpp"
#include "test_bwt_support.hpp"

namespace seqfuse::bwt::test {

// The tied suffixes' slots and labels from the heads of `count` sorted
// entries (compact_tied_kernel); slots_in empty means slot t.
inline void next_tied(const std::vector<std::uint32_t>& heads,
                      const std::vector<std::uint32_t>& slots_in, std::vector<std::uint32_t>& slots,
                      std::vector<std::uint32_t>& labels) {
  const std::uint64_t count = heads.size();
  std::vector<std::uint32_t> next_slots, next_labels;
  std::uint32_t heads_before = 0;
  for (std::uint64_t t = 0; t < count; ++t) {
    if (seqfuse::gpu::bwt::still_tied(heads.data(), count, t) != 0) {
      next_slots.push_back(slots_in.empty() ? static_cast<std::uint32_t>(t) : slots_in[t]);
      next_labels.push_back(heads_before + heads[t] - 1u);
    }
    heads_before += heads[t];
  }
  slots.swap(next_slots);
  labels.swap(next_labels);
}

// One bucket's sorted positions, as BucketSorter::sort computes them.
inline std::vector<std::uint64_t> sort_bucket(const Text& text,
                                              const seqfuse::gpu::bwt::Bucket& bucket,
                                              int& rounds) {
  const std::uint64_t n = text.size();
  std::vector<std::uint64_t> positions, keys;
  for (std::uint64_t i = 0; i <= n; ++i) {
    const std::uint32_t bin = seqfuse::gpu::bwt::bucket_bin(text.data(), n, i);
    if (bin >= bucket.first_bin && bin < bucket.end_bin) {
      positions.push_back(i);
      keys.push_back(seqfuse::gpu::bwt::initial_key(text.data(), n, i));
    }
  }
  REQUIRE(positions.size() == bucket.suffixes);
  std::vector<std::uint64_t> order(positions.size()), sorted_keys(positions.size());
  const auto first = stable_order(keys);
  for (std::size_t t = 0; t < first.size(); ++t) {
    order[t] = positions[first[t]];
    sorted_keys[t] = keys[first[t]];
  }
  std::vector<std::uint32_t> heads(order.size()), slots, labels;
  for (std::size_t t = 0; t < order.size(); ++t)
    heads[t] = seqfuse::gpu::bwt::group_head(sorted_keys.data(), t);
  next_tied(heads, {}, slots, labels);

  int bucket_rounds = 0;
  for (std::uint64_t depth = seqfuse::gpu::bwt::kInitialChars;
       !slots.empty() && bucket_rounds < seqfuse::gpu::bwt::kBucketRounds;
       depth += seqfuse::gpu::bwt::kInitialChars, ++bucket_rounds) {
    ++rounds;
    const std::size_t count = slots.size();
    std::vector<std::uint64_t> tied_positions(count), windows(count);
    for (std::size_t x = 0; x < count; ++x) {
      tied_positions[x] = order[slots[x]];
      windows[x] = seqfuse::gpu::bwt::window_key(text.data(), n, tied_positions[x], depth);
    }
    // By window, then stably by label: (group, window).
    const auto by_window = stable_order(windows);
    std::vector<std::uint32_t> window_labels(count);
    for (std::size_t t = 0; t < count; ++t) window_labels[t] = labels[by_window[t]];
    const auto by_label = stable_order(window_labels);
    std::vector<std::uint32_t> indices(count), sorted_labels(count);
    for (std::size_t t = 0; t < count; ++t) {
      indices[t] = by_window[by_label[t]];
      sorted_labels[t] = window_labels[by_label[t]];
    }
    std::vector<std::uint64_t> keys_in_order(count);
    for (std::size_t t = 0; t < count; ++t) {
      const std::uint64_t i = tied_positions[indices[t]];
      order[slots[t]] = i;
      keys_in_order[t] = seqfuse::gpu::bwt::window_key(text.data(), n, i, depth);
    }
    std::vector<std::uint32_t> round_heads(count);
    for (std::size_t t = 0; t < count; ++t)
      round_heads[t] =
          seqfuse::gpu::bwt::deepening_head(sorted_labels.data(), keys_in_order.data(), t);
    const std::vector<std::uint32_t> slots_in = slots;
    next_tied(round_heads, slots_in, slots, labels);
  }
  return order;
}

// A bucket's ranks and tied entries from its sorted rows (write_ranks).
inline void rank_bucket(const Text& text, const std::vector<std::uint64_t>& order,
                        std::uint64_t first_row, std::vector<std::uint64_t>& rank,
                        std::vector<std::uint64_t>& tied) {
  const std::uint64_t n = text.size();
  std::vector<std::uint32_t> heads(order.size());
  for (std::size_t t = 0; t < order.size(); ++t)
    heads[t] = t == 0 || !seqfuse::gpu::bwt::same_prefix(text.data(), n, order[t - 1], order[t],
                                                         seqfuse::gpu::bwt::kBucketDepth);
  std::uint64_t start = 0;
  for (std::size_t t = 0; t < order.size(); ++t) {
    if (heads[t] != 0) start = t;
    rank[order[t]] = first_row + start;
    if (seqfuse::gpu::bwt::still_tied(heads.data(), order.size(), t) != 0)
      tied.push_back(seqfuse::gpu::bwt::tied_entry(order[t], heads[t] != 0));
  }
}

}  // namespace seqfuse::bwt::test
