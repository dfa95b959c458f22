// Striped kernels for AVX2: 32 lanes of 8 bits (local only), 16 of 16 bits,
// 8 of 32 bits.
// Compiled with -mavx2; see striped_kernels.hpp for why nothing here may have
// external linkage besides avx2_kernels().
#include <immintrin.h>

#include <cstdint>

#include "align/striped_kernels.hpp"

namespace seqfuse::align::striped {
namespace {

// Local alignment only: scores floor at 0, so the saturating lanes clip only
// values that cannot matter below and report a clipped maximum above.
struct Avx2Int8 {
  using Vec = __m256i;
  using Lane = std::int8_t;
  static constexpr int kLanes = 32;
  static constexpr int kNegInf = INT8_MIN;
  static constexpr int kMaxLane = INT8_MAX;
  static constexpr bool kSaturating = true;

  static Vec set1(int x) { return _mm256_set1_epi8(static_cast<char>(x)); }
  static Vec load(const Vec* p) { return _mm256_load_si256(p); }
  static void store(Vec* p, Vec v) { _mm256_store_si256(p, v); }
  static Vec add(Vec a, Vec b) { return _mm256_adds_epi8(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm256_subs_epi8(a, b); }
  static Vec max(Vec a, Vec b) { return _mm256_max_epi8(a, b); }
  static Vec shift_in(Vec v, int x) {
    const Vec low_half_up = _mm256_permute2x128_si256(v, v, 0x08);
    const Vec shifted = _mm256_alignr_epi8(v, low_half_up, 15);
    return _mm256_insert_epi8(shifted, static_cast<char>(x), 0);
  }
  static bool any_gt(Vec a, Vec b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi8(a, b)) != 0; }
  static int hmax(Vec v) {
    __m128i m = _mm_max_epi8(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epi8(m, _mm_srli_si128(m, 8));
    m = _mm_max_epi8(m, _mm_srli_si128(m, 4));
    m = _mm_max_epi8(m, _mm_srli_si128(m, 2));
    m = _mm_max_epi8(m, _mm_srli_si128(m, 1));
    return static_cast<std::int8_t>(_mm_cvtsi128_si32(m));
  }
};

struct Avx2Int16 {
  using Vec = __m256i;
  using Lane = std::int16_t;
  static constexpr int kLanes = 16;
  static constexpr int kNegInf = INT16_MIN;
  static constexpr int kMaxLane = INT16_MAX;
  static constexpr bool kSaturating = true;

  static Vec set1(int x) { return _mm256_set1_epi16(static_cast<short>(x)); }
  static Vec load(const Vec* p) { return _mm256_load_si256(p); }
  static void store(Vec* p, Vec v) { _mm256_store_si256(p, v); }
  static Vec add(Vec a, Vec b) { return _mm256_adds_epi16(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm256_subs_epi16(a, b); }
  static Vec max(Vec a, Vec b) { return _mm256_max_epi16(a, b); }
  static Vec shift_in(Vec v, int x) {
    // Whole-register shift by one lane: alignr works per 128-bit half, so the
    // upper half takes its new lowest lane from the lower half via permute.
    const Vec low_half_up = _mm256_permute2x128_si256(v, v, 0x08);
    const Vec shifted = _mm256_alignr_epi8(v, low_half_up, 14);
    return _mm256_or_si256(shifted, _mm256_setr_epi16(static_cast<short>(x), 0, 0, 0, 0, 0, 0, 0, 0,
                                                      0, 0, 0, 0, 0, 0, 0));
  }
  static bool any_gt(Vec a, Vec b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi16(a, b)) != 0; }
  static int hmax(Vec v) {
    __m128i m = _mm_max_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 8));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 4));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 2));
    return static_cast<std::int16_t>(_mm_cvtsi128_si32(m));
  }
};

struct Avx2Int32 {
  using Vec = __m256i;
  using Lane = std::int32_t;
  static constexpr int kLanes = 8;
  static constexpr int kNegInf = -(1 << 30);  // the engine keeps real scores within +-2^29
  static constexpr int kMaxLane = INT32_MAX;
  static constexpr bool kSaturating = false;

  static Vec set1(int x) { return _mm256_set1_epi32(x); }
  static Vec load(const Vec* p) { return _mm256_load_si256(p); }
  static void store(Vec* p, Vec v) { _mm256_store_si256(p, v); }
  static Vec add(Vec a, Vec b) { return _mm256_add_epi32(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm256_sub_epi32(a, b); }
  static Vec max(Vec a, Vec b) { return _mm256_max_epi32(a, b); }
  static Vec shift_in(Vec v, int x) {
    const Vec low_half_up = _mm256_permute2x128_si256(v, v, 0x08);
    const Vec shifted = _mm256_alignr_epi8(v, low_half_up, 12);
    return _mm256_or_si256(shifted, _mm256_setr_epi32(x, 0, 0, 0, 0, 0, 0, 0));
  }
  static bool any_gt(Vec a, Vec b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi32(a, b)) != 0; }
  static int hmax(Vec v) {
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epi32(m, _mm_srli_si128(m, 8));
    m = _mm_max_epi32(m, _mm_srli_si128(m, 4));
    return _mm_cvtsi128_si32(m);
  }
};

#include "align/striped_kernel.inc"

const KernelSet kAvx2Kernels{
    "avx2",
    32,
    &striped_align<Avx2Int8, true>,
    &striped_align<Avx2Int16, true>,
    &striped_align<Avx2Int16, false>,
    &striped_align<Avx2Int32, true>,
    &striped_align<Avx2Int32, false>,
};

}  // namespace

const KernelSet* avx2_kernels() noexcept {
  return &kAvx2Kernels;
}

}  // namespace seqfuse::align::striped
