#include "align/striped_scorer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>

#include "align/reference.hpp"
#include "core/error.hpp"

namespace seqfuse::align {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr double kInt16Headroom = 32000;  // stay clear of INT16_MAX / INT16_MIN
constexpr double kInt32Limit = 1 << 29;   // the 32-bit kernels' -infinity is -2^30

// Lowest value any H, E or F cell (or an intermediate) can take in a global
// alignment over a query padded to `padded_rows` rows: a path of two gaps, then
// one more open, extend and mismatch.
double global_lowest_cell(const ScoringScheme& scheme, double padded_rows, double columns) {
  return 4.0 * scheme.gap_open() + (padded_rows + columns + 2) * scheme.gap_extend() +
         std::max(0, -scheme.min_score());
}

}  // namespace

void AlignedBuffer::Free::operator()(std::byte* p) const noexcept {
  ::operator delete[](p, std::align_val_t{kAlignment});
}

void* AlignedBuffer::reserve(std::size_t bytes) {
  if (bytes > capacity_) {
    const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    storage_.reset(
        static_cast<std::byte*>(::operator new[](rounded, std::align_val_t{kAlignment})));
    std::memset(storage_.get(), 0, rounded);
    capacity_ = rounded;
  }
  return storage_.get();
}

StripedScorer::StripedScorer(const ScoringScheme& scheme, AlignMode mode,
                             const striped::KernelSet& kernels)
    : scheme_(&scheme), mode_(mode), kernels_(&kernels) {}

void StripedScorer::set_query(Codes query) {
  query_ = query;
  profile8_.built = false;
  profile16_.built = false;
  profile32_.built = false;
}

void StripedScorer::build_profile(LaneProfile& profile, int lane_bytes) {
  const int lanes = kernels_->vector_bytes / lane_bytes;
  const int m = static_cast<int>(query_.size());
  const int segments = (m + lanes - 1) / lanes;
  const std::size_t alphabet = scheme_->alphabet_size();
  const std::size_t values = alphabet * static_cast<std::size_t>(segments) * lanes;
  void* data = profile.buffer.reserve(values * static_cast<std::size_t>(lane_bytes));
  auto fill = [&](auto* out) {
    using Lane = std::remove_pointer_t<decltype(out)>;
    for (std::size_t a = 0; a < alphabet; ++a) {
      const auto code = static_cast<std::uint8_t>(a);
      for (int segment = 0; segment < segments; ++segment) {
        for (int lane = 0; lane < lanes; ++lane) {
          const int row = lane * segments + segment;
          *out++ = static_cast<Lane>(row < m ? scheme_->score(code, query_[row]) : 0);
        }
      }
    }
  };
  if (lane_bytes == 1) {
    fill(static_cast<std::int8_t*>(data));
  } else if (lane_bytes == 2) {
    fill(static_cast<std::int16_t*>(data));
  } else {
    fill(static_cast<std::int32_t*>(data));
  }
  profile.segments = segments;
  profile.built = true;
}

bool StripedScorer::local_fits_8_bits() const {
  // Profile entries and gap penalties must be lanes themselves; scores above
  // 126 are caught by the kernel's saturation flag.
  return kernels_->local8 != nullptr && scheme_->max_score() <= INT8_MAX &&
         scheme_->min_score() >= INT8_MIN && scheme_->gap_open() <= INT8_MAX &&
         scheme_->gap_extend() <= INT8_MAX;
}

bool StripedScorer::global_fits_16_bits(std::size_t target_length) const {
  const double lanes = kernels_->vector_bytes / 2.0;
  const double m = static_cast<double>(query_.size());
  const double n = static_cast<double>(target_length);
  const double highest = std::max(0, scheme_->max_score()) * (std::min(m, n) + 1);
  return highest < kInt16Headroom && global_lowest_cell(*scheme_, m + lanes, n) < kInt16Headroom;
}

striped::Outcome StripedScorer::run(striped::Kernel kernel, LaneProfile& profile, int lane_bytes,
                                    Codes target) {
  if (!profile.built) build_profile(profile, lane_bytes);
  const std::size_t vector_count = static_cast<std::size_t>(profile.segments);
  const std::size_t bytes = vector_count * static_cast<std::size_t>(kernels_->vector_bytes);
  striped::Workspace workspace;
  for (int k = 0; k < 3; ++k) workspace.columns[k] = columns_[k].reserve(bytes);
  workspace.e = e_column_.reserve(bytes);
  striped::Profile view{profile.buffer.data(), profile.segments, static_cast<int>(query_.size())};
  return kernel(view, target.data(), static_cast<int>(target.size()), scheme_->gap_open(),
                scheme_->gap_extend(), workspace);
}

AlignResult StripedScorer::score(Codes target) {
  ++counters_.pairs;
  counters_.cells += static_cast<std::uint64_t>(query_.size()) * target.size();
  if (query_.empty() || target.empty()) return reference_score(mode_, *scheme_, query_, target);

  // 32-bit lanes must stay far from overflow too (their -infinity is -2^30).
  const double lanes32 = kernels_->vector_bytes / 4.0;
  const double m = static_cast<double>(query_.size());
  const double n = static_cast<double>(target.size());
  if (std::max(m, n) > kInt32Limit / 2 ||
      std::max(0, scheme_->max_score()) * (std::min(m, n) + 1) > kInt32Limit ||
      global_lowest_cell(*scheme_, m + lanes32, n) > kInt32Limit) {
    throw Error("sequences of " + std::to_string(query_.size()) + " and " +
                std::to_string(target.size()) + " residues are too long to score in 32 bits");
  }

  striped::Outcome outcome;
  if (mode_ == AlignMode::local) {
    // Narrowest lanes first (as Parasail's "sat" functions do): most local
    // scores of a search stay below 127, and 8-bit lanes do twice the cells
    // per instruction; a saturated pair is rescored wider.
    outcome.saturated = true;
    if (local_fits_8_bits()) outcome = run(kernels_->local8, profile8_, 1, target);
    if (outcome.saturated) outcome = run(kernels_->local16, profile16_, 2, target);
    if (outcome.saturated) {
      ++counters_.widened_to_32;
      outcome = run(kernels_->local32, profile32_, 4, target);
    }
  } else if (global_fits_16_bits(target.size())) {
    outcome = run(kernels_->global16, profile16_, 2, target);
  } else {
    ++counters_.started_at_32;
    outcome = run(kernels_->global32, profile32_, 4, target);
  }
  AlignResult result;
  result.score = outcome.score;
  result.query_end = outcome.query_end;
  result.target_end = outcome.target_end;
  return result;
}

}  // namespace seqfuse::align
