// The CPU engines' shared per-head attention (cpu_blocks.hpp: attend_sequences,
// which ESM-2 runs with rotary tables and BERT without) against a plain
// double-precision softmax attention written from the definition: random
// query/key/value rows, sequences of 1, 2 and more tokens than one query
// block (kQueryBlock) holds, several heads, with and without rotation, and the
// same bytes on 1 and 3 threads.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "models/cpu_blocks.hpp"

using namespace seqfuse::models;

namespace {

struct Case {
  std::size_t hidden = 0, heads = 0;
  std::vector<std::size_t> offsets;  // sequence s: rows [offsets[s], offsets[s + 1])
  std::vector<float> qkv;            // [tokens][3 hidden]
  std::vector<float> cos, sin;       // [positions][head_dim], empty: no rotation
};

Case random_case(std::size_t hidden, std::size_t heads, const std::vector<std::size_t>& lengths,
                 bool rotary, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  Case c;
  c.hidden = hidden;
  c.heads = heads;
  c.offsets = {0};
  std::size_t longest = 0;
  for (std::size_t n : lengths) {
    c.offsets.push_back(c.offsets.back() + n);
    longest = std::max(longest, n);
  }
  c.qkv.resize(c.offsets.back() * 3 * hidden);
  for (float& x : c.qkv) x = value(rng);
  if (rotary) {
    // As the ESM-2 engine lays its tables out: channel c uses inv_freq[c mod d/2].
    const std::size_t d = hidden / heads, half = d / 2;
    std::vector<double> inv_freq(half);
    for (std::size_t i = 0; i < half; ++i)
      inv_freq[i] = std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(d));
    c.cos.resize(longest * d);
    c.sin.resize(longest * d);
    for (std::size_t p = 0; p < longest; ++p)
      for (std::size_t ch = 0; ch < d; ++ch) {
        c.cos[p * d + ch] =
            static_cast<float>(std::cos(static_cast<double>(p) * inv_freq[ch % half]));
        c.sin[p * d + ch] =
            static_cast<float>(std::sin(static_cast<double>(p) * inv_freq[ch % half]));
      }
  }
  return c;
}

std::vector<float> run(const Case& c, unsigned threads) {
  std::vector<float> context(c.offsets.back() * c.hidden, std::nanf(""));
  SequenceAttention job(c.qkv, context, c.hidden, c.heads);
  if (!c.cos.empty()) {
    job.cos = c.cos.data();
    job.sin = c.sin.data();
  }
  std::vector<AttentionScratch> scratch(threads);
  attend_sequences(job, c.offsets, threads, scratch);
  return context;
}

// softmax((q d^-0.5) k^T) v per sequence and head, in double, rotate-half
// rotation of q and k at positions counted from each sequence's first token.
std::vector<double> reference(const Case& c) {
  const std::size_t h = c.hidden, d = h / c.heads, half = d / 2, ld = 3 * h;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> out(c.offsets.back() * h);
  const auto rotated = [&](const float* x, std::size_t position, std::size_t ch, double factor) {
    const double v = x[ch] * factor;
    if (c.cos.empty()) return v;
    const double partner = ch < half ? -x[ch + half] * factor : x[ch - half] * factor;
    return v * c.cos[position * d + ch] + partner * c.sin[position * d + ch];
  };
  for (std::size_t s = 0; s + 1 < c.offsets.size(); ++s) {
    const std::size_t first = c.offsets[s], n = c.offsets[s + 1] - first;
    for (std::size_t head = 0; head < c.heads; ++head)
      for (std::size_t i = 0; i < n; ++i) {
        const float* q = c.qkv.data() + (first + i) * ld + head * d;
        std::vector<double> scores(n);
        double most = -INFINITY;
        for (std::size_t j = 0; j < n; ++j) {
          const float* k = c.qkv.data() + (first + j) * ld + h + head * d;
          double dot = 0;
          for (std::size_t ch = 0; ch < d; ++ch)
            dot += rotated(q, i, ch, scale) * rotated(k, j, ch, 1.0);
          scores[j] = dot;
          most = std::max(most, dot);
        }
        double sum = 0;
        for (double& x : scores) sum += (x = std::exp(x - most));
        for (std::size_t ch = 0; ch < d; ++ch) {
          double acc = 0;
          for (std::size_t j = 0; j < n; ++j)
            acc += scores[j] / sum * c.qkv[(first + j) * ld + 2 * h + head * d + ch];
          out[(first + i) * h + head * d + ch] = acc;
        }
      }
  }
  return out;
}

void check(const Case& c) {
  const std::vector<float> one = run(c, 1), three = run(c, 3);
  const std::vector<double> want = reference(c);
  REQUIRE(one == three);  // no NaN left: every row of every head written
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(one[i] - want[i]));
  CHECK(worst < 2e-5);
}

}  // namespace

TEST_CASE("embed attention: each sequence and head attends over its own tokens", "[embed]") {
  // 1 and 2 tokens, one more than a query block, a few in between.
  const std::vector<std::size_t> lengths = {1, 2, 7, kQueryBlock + 1, 33};
  SECTION("without rotation (BERT)") {
    check(random_case(32, 4, lengths, false, 11));
  }
  SECTION("with rotary positions (ESM-2)") {
    check(random_case(32, 4, lengths, true, 12));
  }
  SECTION("head size 24, one head") {
    check(random_case(24, 1, lengths, true, 13));
  }
}
