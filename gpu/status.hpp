// Result of a checked GPU entry point (CUTLASS-style): a refused request is
// an answer, not an exception; runtime failures still throw seqfuse::Error.
#pragma once

namespace seqfuse::gpu {

enum class Status {
  kSuccess,
  kInvalidSize,      // a size argument does not fit the buffers given
  kNullBuffer,       // a required buffer was not allocated
  kInvalidArgument,  // a value outside what the op accepts (letter code, gap cost)
};

[[nodiscard]] constexpr const char* to_string(Status s) noexcept {
  switch (s) {
    case Status::kSuccess:
      return "success";
    case Status::kInvalidSize:
      return "size does not fit the buffers";
    case Status::kNullBuffer:
      return "buffer not allocated";
    case Status::kInvalidArgument:
      return "argument outside the accepted range";
  }
  return "unknown status";
}

}  // namespace seqfuse::gpu
