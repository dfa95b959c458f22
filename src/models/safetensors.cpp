#include "models/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "models/float16.hpp"
#include "models/torch_checkpoint.hpp"

namespace seqfuse::models {
namespace {

// The format is little-endian; F32 tensors are copied as they are.
static_assert(std::endian::native == std::endian::little);

// The safetensors library refuses larger headers too; a bigger number means
// the file is not safetensors at all.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

std::size_t element_bytes_of(std::string_view dtype) {
  static const std::map<std::string_view, std::size_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1},
      {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
      {"U32", 4},  {"F32", 4}, {"I64", 8}, {"U64", 8},     {"F64", 8}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

std::uint64_t read_le64(const std::byte* p) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<std::uint8_t>(p[i]);
  return value;
}

std::string in_quotes(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out += text;
  out += '\'';
  return out;
}

}  // namespace

std::uint64_t TensorInfo::elements() const noexcept {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) n *= d;
  return n;
}

std::string TensorInfo::describe() const {
  std::string text = dtype + " [";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

namespace {

MappedRegularFile map_model_file(const std::string& path) {
  register_input(path);
  return MappedRegularFile(path, "model file");  // a FIFO must not block
}

}  // namespace

SafetensorsFile::SafetensorsFile(std::string path)
    : path_(std::move(path)), file_(map_model_file(path_)) {
  const std::span<const std::byte> whole(map_, map_size_);
  if (looks_like_zip(whole)) {  // pytorch_model.bin: offsets into the whole file
    data_begin_ = 0;
    tensors_ = torch_checkpoint_tensors(whole, in_quotes(path_));
  } else {
    parse_header();
  }
}

SafetensorsFile::~SafetensorsFile() = default;

SafetensorsFile::SafetensorsFile(SafetensorsFile&& other) noexcept
    : path_(std::move(other.path_)),
      file_(std::move(other.file_)),
      map_(std::exchange(other.map_, nullptr)),
      map_size_(std::exchange(other.map_size_, 0)),
      data_begin_(other.data_begin_),
      tensors_(std::move(other.tensors_)),
      metadata_(std::move(other.metadata_)) {}

void SafetensorsFile::parse_header() {
  const std::string where = in_quotes(path_);
  if (map_size_ < 8)
    throw Error(where + " is truncated or not a safetensors file: " + std::to_string(map_size_) +
                " bytes, less than the 8-byte header length");
  const std::uint64_t header_bytes = read_le64(map_);
  if (header_bytes > kMaxHeaderBytes || header_bytes > map_size_ - 8)
    throw Error(where + " is truncated or not a safetensors file: its header length " +
                std::to_string(header_bytes) + " runs past the end of the file (" +
                std::to_string(map_size_) + " bytes)");
  data_begin_ = 8 + header_bytes;
  const std::uint64_t data_bytes = map_size_ - data_begin_;

  nlohmann::json header;
  try {
    const auto* text = reinterpret_cast<const char*>(map_ + 8);
    header = nlohmann::json::parse(text, text + header_bytes);
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": the safetensors header is not valid JSON (" + e.what() + ")");
  }
  if (!header.is_object()) throw Error(where + ": the safetensors header is not a JSON object");

  for (const auto& [name, entry] : header.items()) {
    const std::string at = where + ": tensor " + in_quotes(name);
    if (name == "__metadata__") {
      if (!entry.is_object()) throw Error(where + ": __metadata__ is not a JSON object");
      for (const auto& [key, value] : entry.items())
        if (value.is_string()) metadata_[key] = value.get<std::string>();
      continue;
    }
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
        !entry.contains("data_offsets"))
      throw Error(at + " lacks dtype, shape or data_offsets in the header");
    TensorInfo info;
    info.name = name;
    const auto& dtype = entry["dtype"];
    if (!dtype.is_string()) throw Error(at + ": dtype is not a string");
    info.dtype = dtype.get<std::string>();
    info.element_bytes = element_bytes_of(info.dtype);
    if (info.element_bytes == 0) throw Error(at + ": unknown dtype " + in_quotes(info.dtype));
    const auto& shape = entry["shape"];
    if (!shape.is_array()) throw Error(at + ": shape is not a list");
    for (const auto& dim : shape) {
      if (!dim.is_number_unsigned()) throw Error(at + ": shape holds a non-integer or negative");
      info.shape.push_back(dim.get<std::uint64_t>());
    }
    const auto& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
      throw Error(at + ": data_offsets is not a pair of byte offsets");
    info.begin = offsets[0].get<std::uint64_t>();
    info.end = offsets[1].get<std::uint64_t>();
    const std::string range =
        "data_offsets [" + std::to_string(info.begin) + ", " + std::to_string(info.end) + "]";
    if (info.end < info.begin) throw Error(at + ": " + range + " end before they begin");
    if (info.end > data_bytes)
      throw Error(at + ": " + range + " run past the data area, which holds " +
                  std::to_string(data_bytes) + " bytes (truncated file?)");
    std::uint64_t needed = info.element_bytes;
    for (std::uint64_t dim : info.shape)
      if (__builtin_mul_overflow(needed, dim, &needed))
        throw Error(at + ": shape " + info.describe() + " is too large");
    if (info.end - info.begin != needed)
      throw Error(at + ": " + range + " span " + std::to_string(info.end - info.begin) +
                  " bytes, but " + info.describe() + " needs " + std::to_string(needed));
    tensors_.push_back(std::move(info));
  }

  // No byte may belong to two tensors (the format stores them back to back).
  std::vector<const TensorInfo*> by_offset;
  for (const TensorInfo& t : tensors_) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(), [](const TensorInfo* a, const TensorInfo* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  for (std::size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->begin < by_offset[i - 1]->end)
      throw Error(where + ": tensors " + in_quotes(by_offset[i - 1]->name) + " and " +
                  in_quotes(by_offset[i]->name) + " overlap in the data area");
  std::sort(tensors_.begin(), tensors_.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
}

const TensorInfo* SafetensorsFile::find(std::string_view name) const noexcept {
  const auto it =
      std::lower_bound(tensors_.begin(), tensors_.end(), name,
                       [](const TensorInfo& t, std::string_view n) { return t.name < n; });
  return it != tensors_.end() && it->name == name ? &*it : nullptr;
}

std::span<const std::byte> SafetensorsFile::bytes(const TensorInfo& tensor) const noexcept {
  return {map_ + data_begin_ + tensor.begin, static_cast<std::size_t>(tensor.end - tensor.begin)};
}

std::vector<float> SafetensorsFile::to_float(const TensorInfo& tensor) const {
  const std::span<const std::byte> raw = bytes(tensor);
  std::vector<float> values(static_cast<std::size_t>(tensor.elements()));
  if (tensor.dtype == "F32") {
    std::memcpy(values.data(), raw.data(), raw.size());  // little-endian host
  } else if (tensor.dtype == "F16" || tensor.dtype == "BF16") {
    const bool bf16 = tensor.dtype == "BF16";
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::uint16_t bits;
      std::memcpy(&bits, raw.data() + 2 * i, 2);  // offsets need not be aligned
      values[i] = bf16 ? bf16_to_float(bits) : f16_to_float(bits);
    }
  } else {
    throw Error(in_quotes(path_) + ": tensor " + in_quotes(tensor.name) + " is " + tensor.dtype +
                "; only F32, F16 and BF16 weights are read");
  }
  return values;
}

}  // namespace seqfuse::models
