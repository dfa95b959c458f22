// Per-read trimming arithmetic of fastq-trim, as fastp 0.23.2 does it, over
// plain byte pointers and lengths so the CPU engine and a later GPU kernel
// share it (no strings, no allocation, no exceptions).
//
// A read is trimmed without moving bytes: every function answers where the
// kept part begins and how long it is, relative to the bytes it was given.
// The off-by-ones below are fastp's on purpose (docs/fastq-trim.md lists
// them); the output reads must be byte-identical to fastp's.
#pragma once

#include "gpu/primitives/host_device.hpp"

namespace seqfuse::gpu::preprocess {

// fastp's complement: A/C/G/T in either case to the uppercase partner,
// everything else to N.
SF_HOST_DEVICE char complement_base(char base) {
  switch (base) {
    case 'A':
    case 'a':
      return 'T';
    case 'T':
    case 't':
      return 'A';
    case 'C':
    case 'c':
      return 'G';
    case 'G':
    case 'g':
      return 'C';
    default:
      return 'N';
  }
}

// Sliding-window quality cutting (-5, -3, -r) plus the fixed -f/-t trims.
// Qualities are phred+33 characters; thresholds are phred values.
struct QualityCut {
  bool front = false, tail = false, right = false;
  int front_window = 4, front_quality = 20;
  int tail_window = 4, tail_quality = 20;
  int right_window = 4, right_quality = 20;
  [[nodiscard]] SF_HOST_DEVICE bool any() const { return front || tail || right; }
};

struct KeptPart {
  int begin = 0;          // first kept byte
  int length = 0;         // kept bytes
  int front_trimmed = 0;  // what fastp reports as trimmed from the front
};

// fastp's trimAndCut. Returns false when fastp drops the read at this stage
// (its NULL read: counted as too short, written untrimmed to --failed_out).
// A window's mean is compared as sum >= (33 + q) * w, which is exactly
// fastp's floating-point mean >= 33 + q for these small integers.
SF_HOST_DEVICE bool trim_and_cut(const char* seq, const char* qual, int length, int front, int tail,
                                 const QualityCut& cut, KeptPart* kept) {
  kept->begin = 0;
  kept->length = length;
  kept->front_trimmed = 0;
  if (front == 0 && tail == 0 && !cut.any()) return true;
  int rlen = length - front - tail;
  if (rlen < 0) return false;
  if (!cut.any()) {
    kept->begin = front;
    kept->length = rlen;
    kept->front_trimmed = front;
    return true;
  }
  const int l = length;
  if (cut.front) {
    const int w = cut.front_window;
    if (l - front - tail - w <= 0) return false;
    const int need = (33 + cut.front_quality) * w;
    int sum = 0;
    for (int i = 0; i < w - 1; ++i) sum += qual[front + i];
    int s = front;
    for (; s + w < l - tail; ++s) {
      sum += qual[s + w - 1];
      if (s > front) sum -= qual[s - 1];
      if (sum >= need) break;
    }
    // fastp moves past the whole passing window whenever s > 0 (not s > front).
    if (s > 0) s = s + w - 1;
    while (s < l && seq[s] == 'N') ++s;
    front = s;
    rlen = l - front - tail;
  }
  if (cut.right) {
    const int w = cut.right_window;
    if (l - front - tail - w <= 0) return false;
    const int limit = (33 + cut.right_quality) * w;
    int sum = 0;
    for (int i = 0; i < w - 1; ++i) sum += qual[front + i];
    bool found_low = false;
    int s = front;
    for (; s + w < l - tail; ++s) {
      sum += qual[s + w - 1];
      if (s > front) sum -= qual[s - 1];
      if (sum < limit) {
        found_low = true;
        break;
      }
    }
    if (found_low) {
      // The good bases at the start of the failing window stay.
      while (s < l - 1 && qual[s] >= 33 + cut.right_quality) ++s;
      rlen = s - front;
    }
  }
  if (!cut.right && cut.tail) {
    const int w = cut.tail_window;
    if (l - front - tail - w <= 0) return false;
    const int need = (33 + cut.tail_quality) * w;
    int sum = 0;
    int t = l - tail - 1;
    for (int i = 0; i < w - 1; ++i) sum += qual[t - i];
    for (; t - w >= front; --t) {
      sum += qual[t - w + 1];
      if (t < l - tail - 1) sum -= qual[t + 1];
      if (sum >= need) break;
    }
    // fastp compares with l - 1, not l - tail - 1.
    if (t < l - 1) t = t - w + 1;
    while (t >= 0 && seq[t] == 'N') --t;
    rlen = t - front + 1;
  }
  if (rlen <= 0 || front >= l - 1) return false;
  kept->begin = front;
  kept->length = rlen;
  kept->front_trimmed = front;
  return true;
}

// fastp's polyG tail trimming (-g, and auto-enabled on two-colour
// instruments): the new length (the read's length when nothing is cut).
SF_HOST_DEVICE int poly_g_trimmed_length(const char* seq, int length, int min_length) {
  constexpr int kOneMismatchPer = 8;
  constexpr int kMaxMismatch = 5;
  int mismatch = 0;
  int first_g = length - 1;
  int i = 0;
  for (; i < length; ++i) {
    if (seq[length - i - 1] != 'G')
      ++mismatch;
    else
      first_g = length - i - 1;
    const int allowed = (i + 1) / kOneMismatchPer;
    if (mismatch > kMaxMismatch || (mismatch > allowed && i >= min_length - 1)) break;
  }
  if (i >= min_length) return first_g;
  return length;
}

// The bases fastp names its poly-X classes by, in its order: A T C G (a
// function, not an array: device code cannot index a host constant).
SF_HOST_DEVICE char poly_x_base(int index) {
  switch (index) {
    case 0:
      return 'A';
    case 1:
      return 'T';
    case 2:
      return 'C';
    default:
      return 'G';
  }
}

struct PolyXCut {
  int length = 0;   // new length
  int base = -1;    // poly_x_base's index, -1 when nothing was found
  int trimmed = 0;  // bases fastp counts as trimmed (may be 0 when found)
};

// fastp's polyX tail trimming (-x). base < 0: no poly-X tail.
SF_HOST_DEVICE PolyXCut poly_x_cut(const char* seq, int length, int min_length) {
  constexpr int kOneMismatchPer = 8;
  constexpr int kMaxMismatch = 5;
  int counts[4] = {0, 0, 0, 0};  // A T C G
  int pos = 0;
  for (; pos < length; ++pos) {
    switch (seq[length - pos - 1]) {
      case 'A':
        ++counts[0];
        break;
      case 'T':
        ++counts[1];
        break;
      case 'C':
        ++counts[2];
        break;
      case 'G':
        ++counts[3];
        break;
      case 'N':
        ++counts[0];
        ++counts[1];
        ++counts[2];
        ++counts[3];
        break;
      default:
        break;
    }
    const int compared = pos + 1;
    const int allowed =
        compared / kOneMismatchPer < kMaxMismatch ? compared / kOneMismatchPer : kMaxMismatch;
    bool stop = true;
    for (int b = 0; b < 4; ++b)
      if (compared - counts[b] <= allowed) stop = false;
    if (stop && (pos >= kOneMismatchPer || pos + 1 >= min_length - 1)) break;
  }
  PolyXCut cut;
  cut.length = length;
  if (pos + 1 < min_length) return cut;
  int poly = 0;
  int best = -1;
  for (int b = 0; b < 4; ++b) {
    if (counts[b] > best) {
      best = counts[b];
      poly = b;
    }
  }
  const char base = poly_x_base(poly);
  // Back off to the last base of the run. fastp reads one byte before the
  // read when the whole read matched; that byte is never a base here.
  while (pos >= 0 && (length - pos - 1 < 0 || seq[length - pos - 1] != base)) --pos;
  cut.length = length - pos - 1;
  cut.base = poly;
  cut.trimmed = pos + 1;
  return cut;
}

// fastp's adapter search against one known adapter (-a, a detected adapter,
// or each sequence of --adapter_fasta): the first offset where the adapter
// (or, at negative offsets, its tail) matches the read with at most one
// mismatch per 8 compared bases. Returns whether one was found; *position is
// the read's new length, or negative when the adapter starts before the read
// (the read becomes empty and fastp records adapter[0, alen + position)).
SF_HOST_DEVICE bool find_adapter(const char* seq, int length, const char* adapter,
                                 int adapter_length, int match_required, int* position) {
  constexpr int kOneMismatchPer = 8;
  if (adapter_length < match_required) return false;
  int start = 0;
  // Illumina adapter dimers often lack the first base (A-tailing), so the
  // search starts a few bases before the read.
  if (adapter_length >= 16)
    start = -4;
  else if (adapter_length >= 12)
    start = -3;
  else if (adapter_length >= 8)
    start = -2;
  for (int pos = start; pos < length - match_required; ++pos) {
    const int compared = length - pos < adapter_length ? length - pos : adapter_length;
    const int allowed = compared / kOneMismatchPer;
    int mismatch = 0;
    bool matched = true;
    for (int i = pos < 0 ? -pos : 0; i < compared; ++i) {
      if (adapter[i] != seq[i + pos] && ++mismatch > allowed) {
        matched = false;
        break;
      }
    }
    if (matched) {
      *position = pos;
      return true;
    }
  }
  return false;
}

// fastp's mismatch allowance per adapter list size for --adapter_fasta.
SF_HOST_DEVICE int fasta_adapter_match_required(int adapters) {
  if (adapters > 256) return 6;
  if (adapters > 16) return 5;
  return 4;
}

}  // namespace seqfuse::gpu::preprocess
