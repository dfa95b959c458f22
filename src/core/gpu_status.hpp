// The one place a refusal from the kernel layer (gpu/status.hpp) becomes a
// seqfuse::Error. A checked entry point refuses only arguments the domain
// code should never hand it, so the message names the op and the reason.
#pragma once

#include <string_view>

#include "gpu/status.hpp"

namespace seqfuse {

// Throws Error("<op> refused its input: <reason>") unless status is kSuccess.
void require_gpu_success(gpu::Status status, std::string_view op);

// Throws Error: `what` needs a GPU backend that this build lacks. The no-GPU
// half of a domain's GPU engine calls it (one stub pattern for every domain).
[[noreturn]] void no_gpu_backend();

}  // namespace seqfuse
