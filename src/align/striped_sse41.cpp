// Striped kernels for SSE4.1: 16 lanes of 8 bits (local only), 8 of 16 bits,
// 4 of 32 bits.
// Compiled with -msse4.1; see striped_kernels.hpp for why nothing here may
// have external linkage besides sse41_kernels().
#include <smmintrin.h>

#include <cstdint>

#include "align/striped_kernels.hpp"

namespace seqfuse::align::striped {
namespace {

// Local alignment only (see Avx2Int8).
struct Sse41Int8 {
  using Vec = __m128i;
  using Lane = std::int8_t;
  static constexpr int kLanes = 16;
  static constexpr int kNegInf = INT8_MIN;
  static constexpr int kMaxLane = INT8_MAX;
  static constexpr bool kSaturating = true;

  static Vec set1(int x) { return _mm_set1_epi8(static_cast<char>(x)); }
  static Vec load(const Vec* p) { return _mm_load_si128(p); }
  static void store(Vec* p, Vec v) { _mm_store_si128(p, v); }
  static Vec add(Vec a, Vec b) { return _mm_adds_epi8(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm_subs_epi8(a, b); }
  static Vec max(Vec a, Vec b) { return _mm_max_epi8(a, b); }
  static Vec shift_in(Vec v, int x) { return _mm_insert_epi8(_mm_slli_si128(v, 1), x, 0); }
  static bool any_gt(Vec a, Vec b) { return _mm_movemask_epi8(_mm_cmpgt_epi8(a, b)) != 0; }
  static int hmax(Vec m) {
    m = _mm_max_epi8(m, _mm_srli_si128(m, 8));
    m = _mm_max_epi8(m, _mm_srli_si128(m, 4));
    m = _mm_max_epi8(m, _mm_srli_si128(m, 2));
    m = _mm_max_epi8(m, _mm_srli_si128(m, 1));
    return static_cast<std::int8_t>(_mm_cvtsi128_si32(m));
  }
};

struct Sse41Int16 {
  using Vec = __m128i;
  using Lane = std::int16_t;
  static constexpr int kLanes = 8;
  static constexpr int kNegInf = INT16_MIN;
  static constexpr int kMaxLane = INT16_MAX;
  static constexpr bool kSaturating = true;

  static Vec set1(int x) { return _mm_set1_epi16(static_cast<short>(x)); }
  static Vec load(const Vec* p) { return _mm_load_si128(p); }
  static void store(Vec* p, Vec v) { _mm_store_si128(p, v); }
  static Vec add(Vec a, Vec b) { return _mm_adds_epi16(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm_subs_epi16(a, b); }
  static Vec max(Vec a, Vec b) { return _mm_max_epi16(a, b); }
  static Vec shift_in(Vec v, int x) { return _mm_insert_epi16(_mm_slli_si128(v, 2), x, 0); }
  static bool any_gt(Vec a, Vec b) { return _mm_movemask_epi8(_mm_cmpgt_epi16(a, b)) != 0; }
  static int hmax(Vec m) {
    m = _mm_max_epi16(m, _mm_srli_si128(m, 8));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 4));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 2));
    return static_cast<std::int16_t>(_mm_cvtsi128_si32(m));
  }
};

struct Sse41Int32 {
  using Vec = __m128i;
  using Lane = std::int32_t;
  static constexpr int kLanes = 4;
  static constexpr int kNegInf = -(1 << 30);  // the engine keeps real scores within +-2^29
  static constexpr int kMaxLane = INT32_MAX;
  static constexpr bool kSaturating = false;

  static Vec set1(int x) { return _mm_set1_epi32(x); }
  static Vec load(const Vec* p) { return _mm_load_si128(p); }
  static void store(Vec* p, Vec v) { _mm_store_si128(p, v); }
  static Vec add(Vec a, Vec b) { return _mm_add_epi32(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm_sub_epi32(a, b); }
  static Vec max(Vec a, Vec b) { return _mm_max_epi32(a, b); }
  static Vec shift_in(Vec v, int x) { return _mm_insert_epi32(_mm_slli_si128(v, 4), x, 0); }
  static bool any_gt(Vec a, Vec b) { return _mm_movemask_epi8(_mm_cmpgt_epi32(a, b)) != 0; }
  static int hmax(Vec m) {
    m = _mm_max_epi32(m, _mm_srli_si128(m, 8));
    m = _mm_max_epi32(m, _mm_srli_si128(m, 4));
    return _mm_cvtsi128_si32(m);
  }
};

#include "align/striped_kernel.inc"

const KernelSet kSse41Kernels{
    "sse4.1",
    16,
    &striped_align<Sse41Int8, true>,
    &striped_align<Sse41Int16, true>,
    &striped_align<Sse41Int16, false>,
    &striped_align<Sse41Int32, true>,
    &striped_align<Sse41Int32, false>,
};

}  // namespace

const KernelSet* sse41_kernels() noexcept {
  return &kSse41Kernels;
}

}  // namespace seqfuse::align::striped
