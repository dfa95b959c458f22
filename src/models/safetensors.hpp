// A read-only, memory-mapped safetensors file (Hugging Face's checkpoint
// format): 8-byte little-endian header length, a JSON header naming every
// tensor's dtype, shape and byte range, then the data area. A file that
// starts as a ZIP archive is read as PyTorch's checkpoint format instead
// (pytorch_model.bin, torch_checkpoint.hpp): its tensors are byte ranges of
// the same mapping, so everything below reads both alike.
//
// The constructor checks the whole header against the file before anything
// is read: header length within the file, every tensor's byte range inside
// the data area (a truncated download fails here, naming the tensor), its
// size equal to dtype x shape, and no two tensors overlapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/regular_file.hpp"

namespace seqfuse::models {

struct TensorInfo {
  std::string name;
  std::string dtype;  // as the header spells it: "F32", "F16", "BF16", "I64", ...
  std::size_t element_bytes = 0;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;  // byte range within the data area
  std::uint64_t end = 0;

  [[nodiscard]] std::uint64_t elements() const noexcept;
  // "F32 [33, 64]"
  [[nodiscard]] std::string describe() const;
};

class SafetensorsFile {
 public:
  // Maps `path` and validates its header. Throws seqfuse::Error naming the
  // file (and the tensor, when one is at fault).
  explicit SafetensorsFile(std::string path);
  ~SafetensorsFile();
  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) = delete;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  // Sorted by name.
  [[nodiscard]] const std::vector<TensorInfo>& tensors() const noexcept { return tensors_; }
  [[nodiscard]] const TensorInfo* find(std::string_view name) const noexcept;
  [[nodiscard]] const std::map<std::string, std::string>& metadata() const noexcept {
    return metadata_;
  }

  // The tensor's raw bytes, as stored (little-endian, possibly unaligned).
  [[nodiscard]] std::span<const std::byte> bytes(const TensorInfo& tensor) const noexcept;
  // F32, F16 and BF16 tensors as fp32 values in row-major order; other
  // dtypes throw seqfuse::Error naming the tensor.
  [[nodiscard]] std::vector<float> to_float(const TensorInfo& tensor) const;

 private:
  void parse_header();

  std::string path_;
  MappedRegularFile file_;
  const std::byte* map_ = reinterpret_cast<const std::byte*>(file_.data());
  std::size_t map_size_ = file_.size();
  std::uint64_t data_begin_ = 0;  // file offset of the data area
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace seqfuse::models
