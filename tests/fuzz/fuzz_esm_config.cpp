// The ESM-2 config.json reader (embed --model DIR).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.hpp"
#include "models/esm_config.hpp"

using namespace seqfuse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const models::EsmConfig config =
        models::parse_esm_config({reinterpret_cast<const char*>(data), size}, "'config.json'");
    if (config.hidden_size <= 0 || config.num_heads <= 0) std::abort();
    (void)config.head_dim();
  } catch (const Error&) {
  }
  return 0;
}
