// The safetensors reader (embed --model): header validation, then every
// tensor converted to fp32 as the model loader does (small ones only, to
// keep iterations fast; the byte ranges are what matters).
#include <cstdint>
#include <cstdlib>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "fuzz_support.hpp"
#include "models/safetensors.hpp"

using namespace seqfuse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const RunScope run;
  const fuzz::MemFile file(data, size);
  try {
    const models::SafetensorsFile model(file.path());
    for (const models::TensorInfo& tensor : model.tensors()) {
      if (model.bytes(tensor).size() != tensor.end - tensor.begin) std::abort();
      if (tensor.elements() > (1u << 16)) continue;
      try {
        const auto values = model.to_float(tensor);
        if (values.size() != tensor.elements()) std::abort();
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
