// fastp 0.23.2's list of known adapter sequences (known_adapters.cpp).
#pragma once

#include <string>
#include <vector>

namespace seqfuse::preprocess {

// In byte order, the order fastp tries them in.
[[nodiscard]] const std::vector<std::string>& known_adapters();

}  // namespace seqfuse::preprocess
