// Radix sort and scan: CUB on CUDA, rocPRIM on HIP, behind one interface so
// kernels in gpu/ never name either library. Included by .cu files only.
//
// Each call grows `scratch` to the temporary storage the library asks for,
// then runs on `stream` without waiting for it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/runtime.hpp"
#include "gpu/vendor.cuh"

#if SEQFUSE_VENDOR_HIP
#include <rocprim/rocprim.hpp>
#else
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#endif

namespace seqfuse::gpu {

// Ping-pong key or value storage: the sort reads `current`, may finish in
// either buffer, and leaves `current` pointing at the sorted data.
template <class T>
struct PingPong {
  T* current;
  T* alternate;
};

namespace detail {
inline void ensure_scratch(DeviceBuffer& scratch, std::size_t bytes) {
  if (scratch.size() < bytes) scratch = DeviceBuffer(bytes);
}
}  // namespace detail

// Stable sort of n (key, value) pairs by key bits [begin_bit, end_bit).
template <class K, class V>
void radix_sort_pairs(PingPong<K>& keys, PingPong<V>& values, std::size_t n, int begin_bit,
                      int end_bit, DeviceBuffer& scratch, gpuStream_t stream) {
  if (n == 0) return;
  std::size_t bytes = 0;
#if SEQFUSE_VENDOR_HIP
  rocprim::double_buffer<K> k(keys.current, keys.alternate);
  rocprim::double_buffer<V> v(values.current, values.alternate);
  GPU_CHECK(rocprim::radix_sort_pairs(nullptr, bytes, k, v, n, begin_bit, end_bit, stream));
  detail::ensure_scratch(scratch, bytes);
  GPU_CHECK(rocprim::radix_sort_pairs(scratch.data(), bytes, k, v, n, begin_bit, end_bit, stream));
  keys = {k.current(), k.alternate()};
  values = {v.current(), v.alternate()};
#else
  cub::DoubleBuffer<K> k(keys.current, keys.alternate);
  cub::DoubleBuffer<V> v(values.current, values.alternate);
  GPU_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, n, begin_bit, end_bit, stream));
  detail::ensure_scratch(scratch, bytes);
  GPU_CHECK(
      cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, k, v, n, begin_bit, end_bit, stream));
  keys = {k.Current(), k.Alternate()};
  values = {v.Current(), v.Alternate()};
#endif
}

// Sort of n keys by bits [begin_bit, end_bit).
template <class K>
void radix_sort_keys(PingPong<K>& keys, std::size_t n, int begin_bit, int end_bit,
                     DeviceBuffer& scratch, gpuStream_t stream) {
  if (n == 0) return;
  std::size_t bytes = 0;
#if SEQFUSE_VENDOR_HIP
  rocprim::double_buffer<K> k(keys.current, keys.alternate);
  GPU_CHECK(rocprim::radix_sort_keys(nullptr, bytes, k, n, begin_bit, end_bit, stream));
  detail::ensure_scratch(scratch, bytes);
  GPU_CHECK(rocprim::radix_sort_keys(scratch.data(), bytes, k, n, begin_bit, end_bit, stream));
  keys = {k.current(), k.alternate()};
#else
  cub::DoubleBuffer<K> k(keys.current, keys.alternate);
  GPU_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, k, n, begin_bit, end_bit, stream));
  detail::ensure_scratch(scratch, bytes);
  GPU_CHECK(
      cub::DeviceRadixSort::SortKeys(scratch.data(), bytes, k, n, begin_bit, end_bit, stream));
  keys = {k.Current(), k.Alternate()};
#endif
}

// out[i] = in[0] + ... + in[i-1]; out[0] = 0.
template <class T>
void exclusive_sum(const T* in, T* out, std::size_t n, DeviceBuffer& scratch, gpuStream_t stream) {
  if (n == 0) return;
  std::size_t bytes = 0;
#if SEQFUSE_VENDOR_HIP
  GPU_CHECK(rocprim::exclusive_scan(nullptr, bytes, in, out, T{0}, n, rocprim::plus<T>(), stream));
  detail::ensure_scratch(scratch, bytes);
  GPU_CHECK(
      rocprim::exclusive_scan(scratch.data(), bytes, in, out, T{0}, n, rocprim::plus<T>(), stream));
#else
  GPU_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, stream));
  detail::ensure_scratch(scratch, bytes);
  GPU_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), bytes, in, out, n, stream));
#endif
}

}  // namespace seqfuse::gpu
