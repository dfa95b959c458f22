// fastp 0.23.2's per-read filters (quality, N bases, length, complexity) over
// plain pointers, shared by the CPU engine and a later GPU kernel. The result
// codes are fastp's (src/preprocess/filter_counts.hpp's ReadFate mirrors
// them), so a pair's worse fate is the larger code.
#pragma once

#include "gpu/primitives/host_device.hpp"

namespace seqfuse::gpu::preprocess {

inline constexpr int kFatePassed = 0;
inline constexpr int kFateTooManyN = 12;
inline constexpr int kFateTooShort = 16;
inline constexpr int kFateTooLong = 17;
inline constexpr int kFateLowQuality = 20;
inline constexpr int kFateLowComplexity = 24;

struct ReadFilter {
  bool quality = true;               // -Q turns it off
  char qualified_quality = 33 + 15;  // -q as a phred+33 character
  int unqualified_percent = 40;      // -u
  int average_quality = 0;           // -e, 0: off
  int n_base_limit = 5;              // -n
  bool length = true;                // -L turns it off
  int length_required = 15;          // -l
  int length_limit = 0;              // --length_limit, 0: none
  bool complexity = false;           // -y
  int complexity_percent = 30;       // -Y, already clamped to 0..100
};

// fastp's low-complexity test: the share of positions whose base differs
// from the next one, at least the threshold. Integer arithmetic gives
// exactly fastp's comparison of two rounded quotients.
SF_HOST_DEVICE bool passes_complexity(const char* seq, int length, int threshold_percent) {
  if (length <= 1) return false;
  long long differing = 0;
  for (int i = 0; i + 1 < length; ++i)
    if (seq[i] != seq[i + 1]) ++differing;
  return differing * 100 >= static_cast<long long>(threshold_percent) * (length - 1);
}

// fastp's passFilter for one read after trimming; `kept` false is fastp's
// NULL read (dropped by trimming), which fails as too short.
SF_HOST_DEVICE int read_fate(const char* seq, const char* qual, int length, bool kept,
                             const ReadFilter& f) {
  if (!kept || length == 0) return kFateTooShort;
  int low_quality = 0;
  int n_bases = 0;
  long long quality_sum = 0;
  if (f.quality || f.length) {
    for (int i = 0; i < length; ++i) {
      quality_sum += qual[i] - 33;
      if (qual[i] < f.qualified_quality) ++low_quality;
      if (seq[i] == 'N') ++n_bases;
    }
  }
  if (f.quality) {
    // fastp: low > percent * length / 100.0
    if (static_cast<long long>(low_quality) * 100 >
        static_cast<long long>(f.unqualified_percent) * length)
      return kFateLowQuality;
    if (f.average_quality > 0 && quality_sum / length < f.average_quality) return kFateLowQuality;
    if (n_bases > f.n_base_limit) return kFateTooManyN;
  }
  if (f.length) {
    if (length < f.length_required) return kFateTooShort;
    if (f.length_limit > 0 && length > f.length_limit) return kFateTooLong;
  }
  if (f.complexity && !passes_complexity(seq, length, f.complexity_percent))
    return kFateLowComplexity;
  return kFatePassed;
}

}  // namespace seqfuse::gpu::preprocess
