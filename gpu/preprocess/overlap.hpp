// fastp 0.23.2's overlap analysis of a read pair (read 1 against the reverse
// complement of read 2) and the base correction built on it (-c), over plain
// pointers so the CPU engine and a later GPU kernel share them. As in fastp,
// read 2's reverse complement is built first (reverse_complement) into a
// buffer the caller provides.
#pragma once

#include "gpu/preprocess/read_trim.hpp"
#include "gpu/primitives/host_device.hpp"

namespace seqfuse::gpu::preprocess {

struct Overlap {
  bool overlapped = false;
  int offset = 0;  // where rc(read 2) starts on read 1; negative: before it
  int length = 0;  // overlap length
  int diff = 0;    // mismatches in the overlap
};

struct OverlapLimits {
  int diff_limit = 5;           // --overlap_diff_limit
  int length_required = 30;     // --overlap_len_require
  int diff_percent_limit = 20;  // --overlap_diff_percent_limit
};

// rc2 receives read 2's reverse complement (len2 bytes), as fastp builds it
// before its overlap analysis.
SF_HOST_DEVICE void reverse_complement(const char* seq2, int len2, char* rc2) {
  for (int j = 0; j < len2; ++j) rc2[j] = complement_base(seq2[len2 - 1 - j]);
}

// Eight bytes as one word (any alignment).
SF_HOST_DEVICE unsigned long long load_word(const char* p) {
  unsigned long long w = 0;
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  for (int k = 7; k >= 0; --k) w = (w << 8) | static_cast<unsigned char>(p[k]);
#else
  __builtin_memcpy(&w, p, 8);
#endif
  return w;
}

// How many bytes of x have their top bit set, x having no other bits: each
// flag shifted to its byte's lowest bit, and one multiply sums the eight
// bytes into the top one (at most 8: no carry). Host builds without a popcnt
// target turned __builtin_popcountll into a libgcc call (8% of a CPU
// fastq-trim run's samples).
SF_HOST_DEVICE int count_byte_flags(unsigned long long x) {
  return static_cast<int>(((x >> 7) * 0x0101010101010101ULL) >> 56);
}

// Positions where a[0, n) and b[0, n) differ, eight at a time; counting may
// stop as soon as the count exceeds `stop_above` (the result is then some
// value above it).
SF_HOST_DEVICE int count_mismatches(const char* a, const char* b, int n, int stop_above) {
  constexpr unsigned long long kLow7 = 0x7f7f7f7f7f7f7f7fULL;
  int count = 0;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const unsigned long long x = load_word(a + i) ^ load_word(b + i);
    // The top bit of each byte of ((x & kLow7) + kLow7) | x is set exactly
    // when that byte of x is not zero.
    count += count_byte_flags((((x & kLow7) + kLow7) | x) & ~kLow7);
    if (count > stop_above) return count;
  }
  for (; i < n; ++i) count += a[i] != b[i] ? 1 : 0;
  return count;
}

// fastp's OverlapAnalysis::analyze over read 1 and read 2's reverse
// complement rc2 (reverse_complement): first offsets 0, 1, ... (rc2 shifted
// right), then -1, -2, ... (the insert shorter than the reads). fastp stops
// counting a candidate's mismatches when they pass the limit within its
// first 50 bases, and accepts any candidate it compared past base 50; so a
// candidate is taken exactly when its first min(50, overlap) bases hold no
// more mismatches than the limit, and its diff is then the whole overlap's.
SF_HOST_DEVICE Overlap analyze_overlap(const char* seq1, int len1, const char* rc2, int len2,
                                       const OverlapLimits& limits) {
  constexpr int kCompleteCompare = 50;
  // fastp: (int)(overlap_len * (percent / 100.0)), kept in double.
  const double percent = limits.diff_percent_limit / 100.0;
  Overlap ov;
  const auto accept = [&](const char* a, const char* b, int offset, int overlap) {
    const int by_percent = static_cast<int>(overlap * percent);
    const int limit = limits.diff_limit < by_percent ? limits.diff_limit : by_percent;
    const int head = overlap < kCompleteCompare ? overlap : kCompleteCompare;
    const int head_diff = count_mismatches(a, b, head, limit);
    if (head_diff > limit) return false;
    ov.overlapped = true;
    ov.offset = offset;
    ov.length = overlap;
    ov.diff = head_diff + count_mismatches(a + head, b + head, overlap - head, overlap);
    return true;
  };
  for (int offset = 0; offset < len1 - limits.length_required; ++offset) {
    const int overlap = len1 - offset < len2 ? len1 - offset : len2;
    if (accept(seq1 + offset, rc2, offset, overlap)) return ov;
  }
  for (int offset = 0; offset > -(len2 - limits.length_required); --offset) {
    const int shifted = len2 + offset;  // len2 - |offset|
    const int overlap = len1 < shifted ? len1 : shifted;
    if (accept(seq1, rc2 - offset, offset, overlap)) return ov;
  }
  return ov;
}

// fastp's insert size of a pair from its overlap; `unknown` (fastp's
// --insert_size_max, 512) when the reads do not overlap, capped at it.
SF_HOST_DEVICE int insert_size(const Overlap& ov, int len1, int len2, int front_trimmed1,
                               int front_trimmed2, int unknown) {
  int size = unknown;
  if (ov.overlapped) {
    if (ov.offset > 0)
      size = len1 + len2 - ov.length + front_trimmed1 + front_trimmed2;
    else
      size = ov.length + front_trimmed1 + front_trimmed2;
  }
  return size > unknown ? unknown : size;
}

struct Correction {
  int corrected = 0;  // bases changed
  bool read1 = false, read2 = false;
};

// fastp's BaseCorrector: in the overlap, a mismatch where one side has
// quality >= Q30 and the other <= Q14 takes the good side's base and
// quality. `matrix` (64 counters, nullable) gets fastp's correction counts:
// fastp reads the "from" base after overwriting it, so both indices are the
// new base's low 3 bits.
template <typename Counter>
SF_HOST_DEVICE Correction correct_overlap(char* seq1, char* qual1, int len1, char* seq2,
                                          char* qual2, int len2, const Overlap& ov,
                                          Counter* matrix) {
  (void)len1;
  Correction result;
  if (ov.diff == 0 || !ov.overlapped) return result;
  constexpr char kGood = 33 + 30;
  constexpr char kBad = 33 + 14;
  const int start1 = ov.offset > 0 ? ov.offset : 0;
  const int start2 = len2 - (ov.offset < 0 ? -ov.offset : 0) - 1;
  for (int i = 0; i < ov.length; ++i) {
    const int p1 = start1 + i;
    const int p2 = start2 - i;
    if (seq1[p1] == complement_base(seq2[p2])) continue;
    if (qual1[p1] >= kGood && qual2[p2] <= kBad) {
      seq2[p2] = complement_base(seq1[p1]);
      qual2[p2] = qual1[p1];
      ++result.corrected;
      result.read2 = true;
      if (matrix) ++matrix[(seq2[p2] & 7) * 8 + (seq2[p2] & 7)];
    } else if (qual2[p2] >= kGood && qual1[p1] <= kBad) {
      seq1[p1] = complement_base(seq2[p2]);
      qual1[p1] = qual2[p2];
      ++result.corrected;
      result.read1 = true;
      if (matrix) ++matrix[(seq1[p1] & 7) * 8 + (seq1[p1] & 7)];
    }
  }
  return result;
}

}  // namespace seqfuse::gpu::preprocess
