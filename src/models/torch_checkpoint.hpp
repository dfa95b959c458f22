// PyTorch's checkpoint format (torch.save since 1.6; Hugging Face's
// pytorch_model.bin): a ZIP archive of stored (uncompressed) entries, one
// pickle, PREFIX/data.pkl, describing the tensors, and one entry per storage,
// PREFIX/data/KEY, holding its bytes.
//
// The pickle is read by a restricted reader that knows the few opcodes and
// the few names a dict of tensors uses (collections.OrderedDict,
// torch._utils._rebuild_tensor_v2 and _rebuild_parameter, torch.*Storage)
// and refuses every other name: nothing in the file is ever executed, unlike
// Python's pickle.load. Tensors must be contiguous views of their storage,
// as saved weights are; each becomes a byte range of the mapped file, so the
// model loader reads them as it reads safetensors.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "models/safetensors.hpp"

namespace seqfuse::models {

// True when `file` starts as a ZIP archive does ("PK\3\4").
[[nodiscard]] bool looks_like_zip(std::span<const std::byte> file) noexcept;

// The tensors of a PyTorch checkpoint mapped at `file`, with `begin`/`end`
// as byte offsets into the file, sorted by name. Throws seqfuse::Error
// starting with `where` (the quoted path) on anything malformed or refused.
[[nodiscard]] std::vector<TensorInfo> torch_checkpoint_tensors(std::span<const std::byte> file,
                                                               const std::string& where);

}  // namespace seqfuse::models
