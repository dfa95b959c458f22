#include "models/t5_math.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace seqfuse::models {
namespace {

// An unsigned integer of any size, little-endian 32-bit limbs: enough for
// the powers the bucket comparison multiplies (bucket counts and distances
// are small, but their powers pass 64 bits beyond 32 buckets).
class BigNumber {
 public:
  explicit BigNumber(std::uint32_t value) : limbs_{value} {}

  void multiply(std::uint32_t factor) {
    std::uint64_t carry = 0;
    for (std::uint32_t& limb : limbs_) {
      const std::uint64_t product = std::uint64_t{limb} * factor + carry;
      limb = static_cast<std::uint32_t>(product);
      carry = product >> 32;
    }
    if (carry) limbs_.push_back(static_cast<std::uint32_t>(carry));
  }

  [[nodiscard]] friend bool operator>=(const BigNumber& a, const BigNumber& b) {
    const std::size_t n = std::max(a.limbs_.size(), b.limbs_.size());
    for (std::size_t i = n; i-- > 0;) {
      const std::uint32_t x = i < a.limbs_.size() ? a.limbs_[i] : 0;
      const std::uint32_t y = i < b.limbs_.size() ? b.limbs_[i] : 0;
      if (x != y) return x > y;
    }
    return true;
  }

 private:
  std::vector<std::uint32_t> limbs_;
};

// n^p1 * e^p2 >= m^p3 * e^p4, exactly.
bool power_product_at_least(std::uint32_t n, int p1, std::uint32_t e, int p2, std::uint32_t m,
                            int p3, int p4) {
  BigNumber left(1), right(1);
  for (int i = 0; i < p1; ++i) left.multiply(n);
  for (int i = 0; i < p2; ++i) left.multiply(e);
  for (int i = 0; i < p3; ++i) right.multiply(m);
  for (int i = 0; i < p4; ++i) right.multiply(e);
  return left >= right;
}

}  // namespace

int t5_relative_bucket(long relative_position, int num_buckets, int max_distance) {
  const int half = num_buckets / 2;  // buckets per direction
  int bucket = relative_position > 0 ? half : 0;
  const long n = std::labs(relative_position);
  const int exact = half / 2;  // distances below this have a bucket each
  if (n < exact) return bucket + static_cast<int>(n);
  if (n >= max_distance) return bucket + half - 1;
  // The largest k with log(n / exact) / log(max_distance / exact) * span >= k,
  // that is (n / exact)^span >= (max_distance / exact)^k, that is
  // n^span * exact^k >= max_distance^k * exact^span.
  const int span = half - exact;
  const auto at_least = [&](int k) {
    return power_product_at_least(static_cast<std::uint32_t>(n), span,
                                  static_cast<std::uint32_t>(exact), k,
                                  static_cast<std::uint32_t>(max_distance), k, span);
  };
  // A floating estimate, then the exact test moves it to the floor (one or
  // two comparisons; the estimate is off by one at most on a rounding edge).
  const long double estimate =
      std::floor(static_cast<long double>(span) * std::log(static_cast<long double>(n) / exact) /
                 std::log(static_cast<long double>(max_distance) / exact));
  int k = static_cast<int>(std::clamp<long double>(estimate, 0, span - 1));
  while (k > 0 && !at_least(k)) --k;
  while (k + 1 < span && at_least(k + 1)) ++k;
  return bucket + exact + k;  // at most half - 1 (transformers' clamp)
}

std::vector<float> t5_position_bias(const std::vector<float>& table, std::size_t heads,
                                    int num_buckets, int max_distance, std::size_t tokens) {
  if (tokens == 0) return {};
  const std::size_t offsets = 2 * tokens - 1;
  std::vector<float> bias(heads * offsets);
  for (std::size_t o = 0; o < offsets; ++o) {
    const long relative = static_cast<long>(o) - static_cast<long>(tokens - 1);
    const auto bucket =
        static_cast<std::size_t>(t5_relative_bucket(relative, num_buckets, max_distance));
    for (std::size_t h = 0; h < heads; ++h) bias[h * offsets + o] = table[bucket * heads + h];
  }
  return bias;
}

}  // namespace seqfuse::models
