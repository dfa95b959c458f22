#include "models/gpu_weights.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "gpu/error.hpp"

namespace seqfuse::models::gpu_embed {

void WeightPlacer::put(const std::vector<float>& host, const float*& device) {
  add({&host}, false, &device, nullptr);
}

void WeightPlacer::put_stacked(std::initializer_list<const std::vector<float>*> parts,
                               const float*& device) {
  add(parts, false, &device, nullptr);
}

void WeightPlacer::put_typed(const std::vector<float>& host, const void*& device) {
  add({&host}, true, nullptr, &device);
}

void WeightPlacer::put_typed_stacked(std::initializer_list<const std::vector<float>*> parts,
                                     const void*& device) {
  add(parts, true, nullptr, &device);
}

void WeightPlacer::add(std::initializer_list<const std::vector<float>*> parts, bool typed,
                       const float** as_float, const void** as_typed) {
  const std::size_t bytes_per = typed ? nn::element_bytes(type_) : sizeof(float);
  std::size_t bytes = 0;
  for (const auto* p : parts) bytes += p->size() * bytes_per;
  const std::size_t at = layout_.add(bytes);
  targets_.push_back({at, as_float, as_typed});
  std::size_t offset = at;
  for (const auto* p : parts) {
    places_.push_back({p, offset, typed});
    offset += p->size() * bytes_per;
  }
}

void WeightPlacer::write_image(std::size_t begin, std::size_t end, std::byte* out) const {
  std::size_t written = begin;  // the image up to here is in `out`
  // Places are in offset order (add() lays them out one after another).
  auto p = std::upper_bound(places_.begin(), places_.end(), begin,
                            [](std::size_t at, const Place& place) { return at < place.offset; });
  if (p != places_.begin()) --p;
  const std::size_t e = nn::element_bytes(type_);
  for (; p != places_.end() && p->offset < end; ++p) {
    const std::size_t bytes_per = p->typed ? e : sizeof(float);
    const std::size_t n = p->host->size();
    if (p->offset + n * bytes_per <= begin) continue;
    // The elements whose bytes start in [begin, end).
    const std::size_t first = begin > p->offset ? (begin - p->offset) / bytes_per : 0;
    const std::size_t last = std::min(n, (end - p->offset + bytes_per - 1) / bytes_per);
    const std::size_t from = p->offset + first * bytes_per;   // >= written: places do not overlap
    std::memset(out + (written - begin), 0, from - written);  // the alignment gap before it
    std::byte* dst = out + (from - begin);
    const float* src = p->host->data() + first;
    const std::size_t count = last - first;
    written = from + count * bytes_per;
    if (count == 0) continue;  // an empty tensor: no data() to read
    if (!p->typed || type_ == nn::NnType::f32) {
      std::memcpy(dst, src, count * sizeof(float));
    } else {
      auto* bits = reinterpret_cast<std::uint16_t*>(dst);
      if (type_ == nn::NnType::bf16)
        for (std::size_t i = 0; i < count; ++i) bits[i] = nn::to_bf16(src[i]).bits;
      else
        for (std::size_t i = 0; i < count; ++i) bits[i] = nn::to_f16(src[i]).bits;
    }
  }
  std::memset(out + (written - begin), 0, end - written);
}

gpu::DeviceBuffer WeightPlacer::upload(const std::string& device_name, gpu::Stream& stream,
                                       unsigned host_threads) {
  gpu::DeviceBuffer buffer;
  try {
    buffer = gpu::DeviceBuffer(layout_.total());
  } catch (const gpu::OutOfMemory&) {
    throw Error("the model's weights (" + mib(layout_.total()) + " as " + type_name(type_) +
                ") do not fit " + device_name + " (" + mib(gpu::free_device_memory()) +
                " free): use a smaller --dtype or --device cpu");
  }
  // Each staging block is made by the threads in 1 MiB pieces.
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  gpu::copy_produced_to_device(buffer.data(), layout_.total(), stream,
                               [&](std::size_t offset, void* block, std::size_t length) {
                                 parallel_chunks(
                                     (length + kPiece - 1) / kPiece, 1, host_threads,
                                     [&](unsigned, std::size_t piece, std::size_t) {
                                       const std::size_t begin = piece * kPiece;
                                       const std::size_t end = std::min(length, begin + kPiece);
                                       write_image(offset + begin, offset + end,
                                                   static_cast<std::byte*>(block) + begin);
                                     });
                               });
  std::byte* base = buffer.as<std::byte>();
  for (const Target& t : targets_) {
    if (t.as_float) *t.as_float = reinterpret_cast<const float*>(base + t.offset);
    if (t.as_typed) *t.as_typed = base + t.offset;
  }
  return buffer;
}

std::size_t rotary_table_for(const std::vector<float>& inv_freq, std::vector<RotaryTable>& tables) {
  std::size_t r = 0;
  while (r < tables.size() && tables[r].inv_freq != inv_freq) ++r;
  if (r == tables.size()) {
    tables.emplace_back();
    tables.back().inv_freq = inv_freq;
  }
  return r;
}

void grow_rotary_tables(std::vector<RotaryTable>& tables, std::size_t head_dim,
                        std::size_t positions, gpu::Stream& stream) {
  const std::size_t half = head_dim / 2;
  for (RotaryTable& table : tables) {
    if (table.positions >= positions) continue;
    std::vector<float> cos(positions * half), sin(positions * half);
    for (std::size_t p = 0; p < positions; ++p)
      for (std::size_t c = 0; c < half; ++c) {
        // As the CPU engine: the angle in double, exact to fp32 at any position.
        const double angle = static_cast<double>(p) * static_cast<double>(table.inv_freq[c]);
        cos[p * half + c] = static_cast<float>(std::cos(angle));
        sin[p * half + c] = static_cast<float>(std::sin(angle));
      }
    stream.synchronize();  // the old tables may still be in use
    table.cos = gpu::DeviceBuffer(cos.size() * sizeof(float));
    table.sin = gpu::DeviceBuffer(sin.size() * sizeof(float));
    gpu::copy_to_device(table.cos.data(), cos.data(), cos.size() * sizeof(float), stream);
    gpu::copy_to_device(table.sin.data(), sin.data(), sin.size() * sizeof(float), stream);
    stream.synchronize();  // pageable sources
    table.positions = positions;
  }
}

}  // namespace seqfuse::models::gpu_embed
