// A plain scalar reference for fastq-trim's per-read operations, written the
// way fastp 0.23.2 states them: reads as std::string edited with erase and
// resize, window sums recomputed for every window, the reverse complement
// built, fastp's floating-point comparisons. The shared functions of
// gpu/preprocess/ (integer sums, rolling windows, in-place views) are
// compared with it in test_preprocess_trim.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <string>

namespace seqfuse::preprocess::reference {

struct Read {
  std::string seq, qual;
};

struct Cut {
  bool front = false, tail = false, right = false;
  int wf = 4, qf = 20, wt = 4, qt = 20, wr = 4, qr = 20;
};

inline double window_mean(const std::string& qual, int first, int w) {
  int sum = 0;
  for (int i = first; i < first + w; ++i) sum += qual[static_cast<std::size_t>(i)];
  return static_cast<double>(sum) / w;
}

// fastp's trimAndCut; false: the read is dropped. front_trimmed as fastp.
inline bool trim_and_cut(Read& r, int front, int tail, const Cut& c, int& front_trimmed) {
  front_trimmed = 0;
  const bool cuts = c.front || c.tail || c.right;
  if (front == 0 && tail == 0 && !cuts) return true;
  const int l = static_cast<int>(r.seq.size());
  int rlen = l - front - tail;
  if (rlen < 0) return false;
  if (!cuts) {
    r.seq = r.seq.substr(static_cast<std::size_t>(front), static_cast<std::size_t>(rlen));
    r.qual = r.qual.substr(static_cast<std::size_t>(front), static_cast<std::size_t>(rlen));
    front_trimmed = front;
    return true;
  }
  if (c.front) {
    const int w = c.wf;
    if (l - front - tail - w <= 0) return false;
    int s = front;
    while (s + w < l - tail && window_mean(r.qual, s, w) < 33 + c.qf) ++s;
    if (s > 0) s += w - 1;
    while (s < l && r.seq[static_cast<std::size_t>(s)] == 'N') ++s;
    front = s;
    rlen = l - front - tail;
  }
  if (c.right) {
    const int w = c.wr;
    if (l - front - tail - w <= 0) return false;
    int s = front;
    bool low = false;
    for (; s + w < l - tail; ++s)
      if (window_mean(r.qual, s, w) < 33 + c.qr) {
        low = true;
        break;
      }
    if (low) {
      while (s < l - 1 && r.qual[static_cast<std::size_t>(s)] >= 33 + c.qr) ++s;
      rlen = s - front;
    }
  }
  if (!c.right && c.tail) {
    const int w = c.wt;
    if (l - front - tail - w <= 0) return false;
    int t = l - tail - 1;
    while (t - w >= front && window_mean(r.qual, t - w + 1, w) < 33 + c.qt) --t;
    if (t < l - 1) t = t - w + 1;
    while (t >= 0 && r.seq[static_cast<std::size_t>(t)] == 'N') --t;
    rlen = t - front + 1;
  }
  if (rlen <= 0 || front >= l - 1) return false;
  r.seq.erase(0, static_cast<std::size_t>(front));
  r.qual.erase(0, static_cast<std::size_t>(front));
  r.seq.resize(static_cast<std::size_t>(rlen));
  r.qual.resize(static_cast<std::size_t>(rlen));
  front_trimmed = front;
  return true;
}

inline void poly_g(Read& r, int min_len) {
  const int n = static_cast<int>(r.seq.size());
  int mismatch = 0, first_g = n - 1, i = 0;
  for (; i < n; ++i) {
    if (r.seq[static_cast<std::size_t>(n - 1 - i)] == 'G')
      first_g = n - 1 - i;
    else
      ++mismatch;
    if (mismatch > 5 || (mismatch > (i + 1) / 8 && i >= min_len - 1)) break;
  }
  if (i >= min_len) {
    r.seq.resize(static_cast<std::size_t>(first_g));
    r.qual.resize(static_cast<std::size_t>(first_g));
  }
}

// Returns the index (A T C G) of the trimmed tail's base, or -1.
inline int poly_x(Read& r, int min_len, int& trimmed) {
  const int n = static_cast<int>(r.seq.size());
  const std::string bases = "ATCG";
  std::array<int, 4> count{};
  int pos = 0;
  for (; pos < n; ++pos) {
    const char c = r.seq[static_cast<std::size_t>(n - 1 - pos)];
    for (int b = 0; b < 4; ++b)
      if (c == bases[static_cast<std::size_t>(b)] || c == 'N') ++count[static_cast<std::size_t>(b)];
    const int compared = pos + 1;
    const int allowed = std::min(5, compared / 8);
    const bool any =
        std::any_of(count.begin(), count.end(), [&](int k) { return compared - k <= allowed; });
    if (!any && (pos >= 8 || pos + 1 >= min_len - 1)) break;
  }
  if (pos + 1 < min_len) return -1;
  const int poly = static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
  while (pos >= 0 && (n - pos - 1 < 0 || r.seq[static_cast<std::size_t>(n - pos - 1)] !=
                                             bases[static_cast<std::size_t>(poly)]))
    --pos;
  r.seq.resize(static_cast<std::size_t>(n - pos - 1));
  r.qual.resize(static_cast<std::size_t>(n - pos - 1));
  trimmed = pos + 1;
  return poly;
}

// fastp's trimBySequence; the cut-off adapter text in `cut`.
inline bool adapter(Read& r, const std::string& a, int match_req, std::string& cut) {
  const int n = static_cast<int>(r.seq.size());
  const int alen = static_cast<int>(a.size());
  if (alen < match_req) return false;
  const int start = alen >= 16 ? -4 : alen >= 12 ? -3 : alen >= 8 ? -2 : 0;
  for (int pos = start; pos < n - match_req; ++pos) {
    const int cmp = std::min(n - pos, alen);
    int mismatch = 0;
    for (int i = std::max(0, -pos); i < cmp; ++i)
      if (a[static_cast<std::size_t>(i)] != r.seq[static_cast<std::size_t>(i + pos)]) ++mismatch;
    if (mismatch <= cmp / 8) {
      if (pos < 0) {
        cut = a.substr(0, static_cast<std::size_t>(alen + pos));
        r.seq.clear();
        r.qual.clear();
      } else {
        cut = r.seq.substr(static_cast<std::size_t>(pos));
        r.seq.resize(static_cast<std::size_t>(pos));
        r.qual.resize(static_cast<std::size_t>(pos));
      }
      return true;
    }
  }
  return false;
}

inline char complement(char c) {
  switch (c) {
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

inline std::string reverse_complement(const std::string& s) {
  std::string rc(s.rbegin(), s.rend());
  for (char& c : rc) c = complement(c);
  return rc;
}

struct Overlap {
  bool overlapped = false;
  int offset = 0, length = 0, diff = 0;
};

// fastp's analyze, with the reverse complement built as it does.
inline Overlap overlap(const std::string& r1, const std::string& r2, int diff_limit, int require,
                       double diff_percent) {
  const std::string rc = reverse_complement(r2);
  const int len1 = static_cast<int>(r1.size()), len2 = static_cast<int>(rc.size());
  const auto test = [&](int offset, int olen, auto at1, auto at2) {
    const int limit = std::min(diff_limit, static_cast<int>(olen * diff_percent));
    int diff = 0, i = 0;
    for (; i < olen; ++i)
      if (at1(i) != at2(i) && ++diff > limit && i < 50) break;
    Overlap ov;
    if (diff <= limit || i > 50) ov = {true, offset, olen, diff};
    return ov;
  };
  for (int offset = 0; offset < len1 - require; ++offset) {
    const Overlap ov = test(
        offset, std::min(len1 - offset, len2),
        [&](int i) { return r1[static_cast<std::size_t>(offset + i)]; },
        [&](int i) { return rc[static_cast<std::size_t>(i)]; });
    if (ov.overlapped) return ov;
  }
  for (int offset = 0; offset > -(len2 - require); --offset) {
    const Overlap ov = test(
        offset, std::min(len1, len2 + offset),
        [&](int i) { return r1[static_cast<std::size_t>(i)]; },
        [&](int i) { return rc[static_cast<std::size_t>(i - offset)]; });
    if (ov.overlapped) return ov;
  }
  return {};
}

// fastp's passFilter codes with its floating-point tests.
inline int fate(const Read* r, bool quality, char qualified, int percent, int avg, int n_limit,
                bool length, int required, int limit, bool complexity, int threshold) {
  if (r == nullptr || r->seq.empty()) return 16;
  const int n = static_cast<int>(r->seq.size());
  int low = 0, ns = 0, total = 0;
  for (int i = 0; i < n; ++i) {
    total += r->qual[static_cast<std::size_t>(i)] - 33;
    if (r->qual[static_cast<std::size_t>(i)] < qualified) ++low;
    if (r->seq[static_cast<std::size_t>(i)] == 'N') ++ns;
  }
  if (quality) {
    if (low > percent * n / 100.0) return 20;
    if (avg > 0 && total / n < avg) return 20;
    if (ns > n_limit) return 12;
  }
  if (length) {
    if (n < required) return 16;
    if (limit > 0 && n > limit) return 17;
  }
  if (complexity) {
    if (n <= 1) return 24;
    int diff = 0;
    for (int i = 0; i + 1 < n; ++i)
      diff += r->seq[static_cast<std::size_t>(i)] != r->seq[static_cast<std::size_t>(i + 1)];
    if (static_cast<double>(diff) / (n - 1) < threshold / 100.0) return 24;
  }
  return 0;
}

}  // namespace seqfuse::preprocess::reference
